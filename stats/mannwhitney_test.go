package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMannWhitneyUOracle checks every mwu_cases entry of the oracle:
//   - U against U1 / R_W (exact);
//   - Exact, one-sided, against exact_conditional (the DP permutation
//     reference; equals coin_exact one-sided, and scipy_exact / R_exact_TRUE
//     without ties) to tolExact;
//   - Exact, two-sided, DoubleTail against exact_conditional_doubled and
//     AbsDeviation against exact_conditional_abs (= coin_exact) to tolExact;
//   - Asymptotic with continuity against R_correct_TRUE_exact_FALSE and
//     scipy_asymptotic_cc, without against R_correct_FALSE_exact_FALSE and
//     scipy_asymptotic_nocc, to tolOracle.
//
// scipy_exact with ties is deliberately not checked: scipy uses the no-ties
// table there, which is not a valid p-value (see the oracle's conventions).
func TestMannWhitneyUOracle(t *testing.T) {
	o := loadOracle(t)
	for _, c := range o.MWU {
		t.Run(c.ID, func(t *testing.T) {
			for altName, exp := range c.Expected {
				alt := alternatives[altName]
				check := func(opt MWUOptions, key string, tol float64) {
					t.Helper()
					want, ok := num(exp, key)
					if !ok {
						t.Fatalf("%s/%s: missing key", altName, key)
					}
					opt.Alternative = alt
					r, err := MannWhitneyU(c.X, c.Y, opt)
					if err != nil {
						t.Fatalf("%s/%s: %v", altName, key, err)
					}
					if r.U != c.U1 || r.U != c.RW {
						t.Errorf("%s/%s: U = %v, want U1 = %v (R W = %v)", altName, key, r.U, c.U1, c.RW)
					}
					if r.Ties != c.HasTies {
						t.Errorf("%s/%s: Ties = %v, want %v", altName, key, r.Ties, c.HasTies)
					}
					if !near(r.P, want, tol) {
						t.Errorf("%s/%s: P = %.17g, want %.17g (|diff| %.3g > %g)", altName, key, r.P, want, math.Abs(r.P-want), tol)
					}
				}
				exact := MWUOptions{Method: Exact}
				if alt == TwoSided {
					check(exact, "exact_conditional_doubled", tolExact)
					abs := exact
					abs.TwoSidedRule = AbsDeviation
					check(abs, "exact_conditional_abs", tolExact)
					check(abs, "coin_exact", tolOracle)
				} else {
					check(exact, "exact_conditional", tolExact)
					check(exact, "coin_exact", tolOracle)
				}
				if !c.HasTies {
					check(exact, "scipy_exact", tolOracle)
					check(exact, "R_exact_TRUE", tolOracle)
				}
				cc := MWUOptions{Method: Asymptotic}
				check(cc, "R_correct_TRUE_exact_FALSE", tolOracle)
				check(cc, "scipy_asymptotic_cc", tolOracle)
				nocc := MWUOptions{Method: Asymptotic, NoContinuity: true}
				check(nocc, "R_correct_FALSE_exact_FALSE", tolOracle)
				check(nocc, "scipy_asymptotic_nocc", tolOracle)
			}
		})
	}
}

// TestMannWhitneyUAuto checks the Auto rule: exact (conditional) iff
// n1·n2 <= 2500, and that it then matches the corresponding oracle key.
func TestMannWhitneyUAuto(t *testing.T) {
	o := loadOracle(t)
	for _, c := range o.MWU {
		t.Run(c.ID, func(t *testing.T) {
			for altName, exp := range c.Expected {
				alt := alternatives[altName]
				r, err := MannWhitneyU(c.X, c.Y, MWUOptions{Alternative: alt})
				if err != nil {
					t.Fatal(err)
				}
				wantMethod, key := Asymptotic, "R_correct_TRUE_exact_FALSE"
				if c.N1*c.N2 <= AutoExactMaxProduct {
					wantMethod, key = Exact, "exact_conditional"
					if alt == TwoSided {
						key = "exact_conditional_doubled"
					}
				}
				if r.Method != wantMethod {
					t.Fatalf("%s: Method = %v, want %v", altName, r.Method, wantMethod)
				}
				want, _ := num(exp, key)
				if !near(r.P, want, tolOracle) {
					t.Errorf("%s: Auto P = %.17g, want %s = %.17g", altName, r.P, key, want)
				}
			}
		})
	}
}

func TestMannWhitneyUErrors(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		opt  MWUOptions
		want error
	}{
		{"empty-x", nil, []float64{1}, MWUOptions{}, ErrSampleSize},
		{"empty-y", []float64{1}, []float64{}, MWUOptions{}, ErrSampleSize},
		{"nan-x", []float64{1, math.NaN()}, []float64{1}, MWUOptions{}, ErrNaN},
		{"nan-y", []float64{1}, []float64{math.NaN()}, MWUOptions{}, ErrNaN},
		{"bad-alternative", []float64{1}, []float64{2}, MWUOptions{Alternative: 7}, ErrOption},
		{"bad-method", []float64{1}, []float64{2}, MWUOptions{Method: -1}, ErrOption},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MannWhitneyU(c.x, c.y, c.opt)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestMannWhitneyUEdgeCases(t *testing.T) {
	t.Run("all-tied", func(t *testing.T) {
		x, y := []float64{2, 2, 2}, []float64{2, 2}
		for _, m := range []Method{Exact, Asymptotic} {
			for _, alt := range []Alternative{TwoSided, Greater, Less} {
				r, err := MannWhitneyU(x, y, MWUOptions{Method: m, Alternative: alt})
				if err != nil {
					t.Fatal(err)
				}
				if r.P != 1 || r.U != 3 {
					t.Errorf("%v/%v: P = %v, U = %v; want 1, 3", m, alt, r.P, r.U)
				}
			}
		}
	})
	t.Run("infinities", func(t *testing.T) {
		r, err := MannWhitneyU([]float64{math.Inf(1), 3}, []float64{math.Inf(-1), 3}, MWUOptions{Method: Exact})
		if err != nil {
			t.Fatal(err)
		}
		// x: +Inf beats both y (2), 3 beats -Inf (1) and ties 3 (0.5).
		if r.U != 3.5 {
			t.Errorf("U = %v, want 3.5", r.U)
		}
	})
	t.Run("exact-too-large-falls-back", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := make([]float64, 600), make([]float64, 600)
		for i := range x {
			x[i], y[i] = float64(rng.IntN(20)), float64(rng.IntN(20))
		}
		r, err := MannWhitneyU(x, y, MWUOptions{Method: Exact})
		if err != nil {
			t.Fatal(err)
		}
		if r.Method != Asymptotic || !hasWarning(r.Warnings, WarnExactTooLarge) {
			t.Errorf("Method = %v, Warnings = %v; want Asymptotic with WarnExactTooLarge", r.Method, r.Warnings)
		}
	})
	t.Run("exact-no-ties-symmetric-swap", func(t *testing.T) {
		// n1 > n2 exercises the reversed distribution.
		x := []float64{1.5, 2.5, 3.5, 7, 8, 9, 10}
		y := []float64{0, 4, 5}
		a, _ := MannWhitneyU(x, y, MWUOptions{Method: Exact, Alternative: Greater})
		b, _ := MannWhitneyU(y, x, MWUOptions{Method: Exact, Alternative: Less})
		if !near(a.P, b.P, 1e-14) {
			t.Errorf("P(x>y) = %v, P(y<x) = %v", a.P, b.P)
		}
	})
}

func hasWarning(ws []error, target error) bool {
	for _, w := range ws {
		if errors.Is(w, target) {
			return true
		}
	}
	return false
}
