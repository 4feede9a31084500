package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestWilcoxonSignedRankOracle checks every signed_rank_cases entry:
//   - TPlus against R_V and exact_conditional.T_plus (exact);
//   - Exact (Wilcox zeros) against exact_conditional greater / less /
//     two_sided_doubled (DP permutation reference) to tolExact;
//   - Exact against scipy exact_wilcox and R R_exact where those are valid
//     (no ties and no zeros) to tolOracle;
//   - Asymptotic, for each zero method and continuity setting, against
//     scipy approx_<zero>_cc0 / approx_<zero>_cc1 to tolOracle;
//   - Asymptotic Wilcox against R_asym_cc / R_asym_nocc (and R_exact when
//     R falls back to it because of ties or zeros) to tolOracle.
//
// Not checked: scipy exact_wilcox with tied |d| (R_doc_ties), where scipy
// uses the no-ties table (not a valid p-value); with zeros scipy reports
// n/a.
func TestWilcoxonSignedRankOracle(t *testing.T) {
	o := loadOracle(t)
	for _, c := range o.SignedRank {
		t.Run(c.ID, func(t *testing.T) {
			run := func(opt SignedRankOptions) SignedRankResult {
				t.Helper()
				r, err := WilcoxonSignedRank(c.X, c.Y, opt)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			check := func(what string, got, want, tol float64) {
				t.Helper()
				if !near(got, want, tol) {
					t.Errorf("%s: got %.17g, want %.17g (|diff| %.3g > %g)", what, got, want, math.Abs(got-want), tol)
				}
			}
			ec := c.ExactConditional
			for altName, alt := range alternatives {
				r := run(SignedRankOptions{Alternative: alt, Method: Exact})
				check(altName+"/T+ vs R_V", r.TPlus, c.RV, 0)
				check(altName+"/T+ vs exact_conditional.T_plus", r.TPlus, ec.TPlus, 0)
				if r.NZero != c.NZero || r.N-r.NZero != ec.NNonzero || r.Ties != c.HasTiesAbsD {
					t.Errorf("%s: NZero %d, nonzero %d, Ties %v; want %d, %d, %v", altName, r.NZero, r.N-r.NZero, r.Ties, c.NZero, ec.NNonzero, c.HasTiesAbsD)
				}
				want := map[Alternative]float64{TwoSided: ec.TwoSidedDoubled, Greater: ec.Greater, Less: ec.Less}[alt]
				check(altName+"/exact vs exact_conditional", r.P, want, tolExact)
				if !c.HasTiesAbsD && c.NZero == 0 {
					w, ok := num(c.Scipy[altName], "exact_wilcox")
					if !ok {
						t.Fatalf("%s: exact_wilcox missing", altName)
					}
					check(altName+"/exact vs scipy exact_wilcox", r.P, w, tolOracle)
					w, _ = num(c.R[altName], "R_exact")
					check(altName+"/exact vs R_exact", r.P, w, tolOracle)
				}

				for zm, zname := range zeroMethodNames {
					for cc := 0; cc <= 1; cc++ {
						key := fmt.Sprintf("approx_%s_cc%d", zname, cc)
						want, ok := num(c.Scipy[altName], key)
						if !ok {
							t.Fatalf("%s: %s missing", altName, key)
						}
						r := run(SignedRankOptions{Alternative: alt, Method: Asymptotic, ZeroMethod: ZeroMethod(zm), NoContinuity: cc == 0})
						check(altName+"/scipy "+key, r.P, want, tolOracle)
					}
				}
				rcc := run(SignedRankOptions{Alternative: alt, Method: Asymptotic})
				w, _ := num(c.R[altName], "R_asym_cc")
				check(altName+"/R_asym_cc", rcc.P, w, tolOracle)
				if c.HasTiesAbsD || c.NZero > 0 {
					w, _ = num(c.R[altName], "R_exact")
					check(altName+"/R_exact (R falls back to asymptotic)", rcc.P, w, tolOracle)
				}
				rn := run(SignedRankOptions{Alternative: alt, Method: Asymptotic, NoContinuity: true})
				w, _ = num(c.R[altName], "R_asym_nocc")
				check(altName+"/R_asym_nocc", rn.P, w, tolOracle)
			}
		})
	}
}

// TestWilcoxonSignedRankAuto: Auto is exact (conditional) for at most 50
// nonzero differences, matching exact_conditional, and asymptotic with
// continuity beyond, matching R_default (R's default is asymptotic there).
func TestWilcoxonSignedRankAuto(t *testing.T) {
	o := loadOracle(t)
	for _, c := range o.SignedRank {
		t.Run(c.ID, func(t *testing.T) {
			for altName, alt := range alternatives {
				r, err := WilcoxonSignedRank(c.X, c.Y, SignedRankOptions{Alternative: alt})
				if err != nil {
					t.Fatal(err)
				}
				ec := c.ExactConditional
				var want float64
				if ec.NNonzero <= AutoExactMaxSignedRank {
					if r.Method != Exact {
						t.Fatalf("%s: Method %v, want exact", altName, r.Method)
					}
					want = map[Alternative]float64{TwoSided: ec.TwoSidedDoubled, Greater: ec.Greater, Less: ec.Less}[alt]
				} else {
					if r.Method != Asymptotic {
						t.Fatalf("%s: Method %v, want asymptotic", altName, r.Method)
					}
					want, _ = num(c.R[altName], "R_default")
				}
				if !near(r.P, want, tolOracle) {
					t.Errorf("%s: P = %.17g, want %.17g", altName, r.P, want)
				}
			}
		})
	}
}

// TestWilcoxonSignedRankZeroMethods checks the statistic under each zero
// method on paired_binom_zeros by hand: |d| sorted is 0,0,1,1,1,1,1,2,2,3,3,3.
func TestWilcoxonSignedRankZeroMethods(t *testing.T) {
	var c signedRankCase
	for _, sc := range loadOracle(t).SignedRank {
		if sc.ID == "paired_binom_zeros" {
			c = sc
		}
	}
	cases := []struct {
		zm    ZeroMethod
		used  int
		tplus float64
	}{
		// wilcox: ranks of 10 nonzero: 1s -> 3, 2s -> 6.5, 3s -> 9; positives:
		// 1,1 (2×3) + 2 (6.5) + 3,3,3 (3×9) = 39.5.
		{Wilcox, 10, 39.5},
		// pratt: ranks of 12: zeros 1.5, 1s -> 5, 2s -> 8.5, 3s -> 11;
		// positives 2×5 + 8.5 + 3×11 = 51.5.
		{Pratt, 12, 51.5},
		// zsplit: pratt's T+ plus half the zero ranks (3/2).
		{ZSplit, 12, 53},
	}
	for _, tc := range cases {
		t.Run(tc.zm.String(), func(t *testing.T) {
			for _, m := range []Method{Exact, Asymptotic} {
				r, err := WilcoxonSignedRank(c.X, c.Y, SignedRankOptions{ZeroMethod: tc.zm, Method: m})
				if err != nil {
					t.Fatal(err)
				}
				if r.NUsed != tc.used || r.TPlus != tc.tplus {
					t.Errorf("%v: NUsed %d, T+ %v; want %d, %v", m, r.NUsed, r.TPlus, tc.used, tc.tplus)
				}
				if !hasWarning(r.Warnings, WarnZeros) {
					t.Errorf("%v: missing WarnZeros in %v", m, r.Warnings)
				}
			}
		})
	}
	// Exact pratt and zsplit use the same random-sign distribution of the
	// nonzero ranks, shifted by a constant: their p-values agree.
	for altName, alt := range alternatives {
		p, _ := WilcoxonSignedRank(c.X, c.Y, SignedRankOptions{ZeroMethod: Pratt, Method: Exact, Alternative: alt})
		z, _ := WilcoxonSignedRank(c.X, c.Y, SignedRankOptions{ZeroMethod: ZSplit, Method: Exact, Alternative: alt})
		if !near(p.P, z.P, 1e-15) {
			t.Errorf("%s: exact pratt P %v != zsplit P %v", altName, p.P, z.P)
		}
	}
}

func TestWilcoxonSignedRankErrors(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		opt  SignedRankOptions
		want error
	}{
		{"length", []float64{1, 2}, []float64{1}, SignedRankOptions{}, ErrLength},
		{"empty", nil, nil, SignedRankOptions{}, ErrSampleSize},
		{"nan", []float64{math.NaN()}, []float64{1}, SignedRankOptions{}, ErrNaN},
		{"inf-minus-inf", []float64{math.Inf(1)}, []float64{math.Inf(1)}, SignedRankOptions{}, ErrNaN},
		{"bad-zero-method", []float64{1}, []float64{2}, SignedRankOptions{ZeroMethod: 9}, ErrOption},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := WilcoxonSignedRank(c.x, c.y, c.opt)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestWilcoxonSignedRankAllZero(t *testing.T) {
	x := []float64{1, 2, 3}
	for _, zm := range []ZeroMethod{Wilcox, Pratt, ZSplit} {
		for _, m := range []Method{Exact, Asymptotic} {
			r, err := WilcoxonSignedRank(x, x, SignedRankOptions{ZeroMethod: zm, Method: m})
			if err != nil {
				t.Fatal(err)
			}
			if r.P != 1 || !hasWarning(r.Warnings, WarnAllTied) {
				t.Errorf("%v/%v: P = %v, warnings %v; want 1 with WarnAllTied", zm, m, r.P, r.Warnings)
			}
		}
	}
}
