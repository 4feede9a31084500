package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomSample returns n scores; with ties it draws integers in [0, levels),
// else continuous values. Seeded by the caller's rng.
func randomSample(rng *rand.Rand, n, levels int, shift float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		if levels > 0 {
			x[i] = float64(rng.IntN(levels)) + math.Round(shift)
		} else {
			x[i] = rng.NormFloat64() + shift
		}
	}
	return x
}

// TestMannWhitneyUProperties checks on seeded random inputs (with and
// without ties, both methods, both two-sided rules):
//   - 0 <= p <= 1 and 0 <= U <= n1·n2;
//   - swapping x and y swaps the Greater and Less p-values (to 1e-12) and
//     keeps the two-sided one;
//   - two-sided p >= min(one-sided p);
//   - exact Greater + Less >= 1 (they share the atom at U1).
func TestMannWhitneyUProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261122, 1))
	for trial := range 300 {
		n1, n2 := 1+rng.IntN(25), 1+rng.IntN(25)
		levels := []int{0, 2, 4, 10}[rng.IntN(4)]
		x := randomSample(rng, n1, levels, rng.Float64())
		y := randomSample(rng, n2, levels, 0)
		for _, m := range []Method{Exact, Asymptotic} {
			for _, rule := range []TwoSidedRule{DoubleTail, AbsDeviation} {
				p := map[Alternative]float64{}
				q := map[Alternative]float64{}
				for _, alt := range []Alternative{TwoSided, Greater, Less} {
					opt := MWUOptions{Alternative: alt, Method: m, TwoSidedRule: rule}
					a, err := MannWhitneyU(x, y, opt)
					if err != nil {
						t.Fatal(err)
					}
					b, err := MannWhitneyU(y, x, opt)
					if err != nil {
						t.Fatal(err)
					}
					if !(a.P >= 0 && a.P <= 1) || a.U < 0 || a.U > float64(n1*n2) {
						t.Fatalf("trial %d %v %v: P = %v, U = %v (n1 %d, n2 %d)", trial, m, alt, a.P, a.U, n1, n2)
					}
					if a.U+b.U != float64(n1*n2) {
						t.Fatalf("trial %d: U(x,y) + U(y,x) = %v, want %d", trial, a.U+b.U, n1*n2)
					}
					p[alt], q[alt] = a.P, b.P
				}
				if !near(p[Greater], q[Less], 1e-12) || !near(p[Less], q[Greater], 1e-12) || !near(p[TwoSided], q[TwoSided], 1e-12) {
					t.Fatalf("trial %d %v/%v: swap asymmetry: x,y %v; y,x %v", trial, m, rule, p, q)
				}
				if p[TwoSided] < min(p[Greater], p[Less])-1e-15 {
					t.Fatalf("trial %d %v/%v: two-sided %v < min one-sided %v", trial, m, rule, p[TwoSided], p)
				}
				if m == Exact && p[Greater]+p[Less] < 1-1e-12 {
					t.Fatalf("trial %d: exact P(U>=u) + P(U<=u) = %v < 1", trial, p[Greater]+p[Less])
				}
			}
		}
	}
}

// TestWilcoxonSignedRankProperties: the same invariants for the paired
// test (swapping x and y negates every difference).
func TestWilcoxonSignedRankProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261122, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(30)
		levels := []int{0, 3, 6}[rng.IntN(3)]
		x := randomSample(rng, n, levels, 0.3)
		y := randomSample(rng, n, levels, 0)
		for _, m := range []Method{Exact, Asymptotic} {
			for _, zm := range []ZeroMethod{Wilcox, Pratt, ZSplit} {
				p := map[Alternative]float64{}
				q := map[Alternative]float64{}
				for _, alt := range []Alternative{TwoSided, Greater, Less} {
					opt := SignedRankOptions{Alternative: alt, Method: m, ZeroMethod: zm}
					a, err := WilcoxonSignedRank(x, y, opt)
					if err != nil {
						t.Fatal(err)
					}
					b, err := WilcoxonSignedRank(y, x, opt)
					if err != nil {
						t.Fatal(err)
					}
					maxT := float64(a.NUsed*(a.NUsed+1)) / 2
					if !(a.P >= 0 && a.P <= 1) || a.TPlus < 0 || a.TPlus > maxT {
						t.Fatalf("trial %d %v %v %v: P = %v, T+ = %v", trial, m, zm, alt, a.P, a.TPlus)
					}
					p[alt], q[alt] = a.P, b.P
				}
				if !near(p[Greater], q[Less], 1e-12) || !near(p[Less], q[Greater], 1e-12) || !near(p[TwoSided], q[TwoSided], 1e-12) {
					t.Fatalf("trial %d %v/%v: swap asymmetry: %v vs %v", trial, m, zm, p, q)
				}
				if p[TwoSided] < min(p[Greater], p[Less])-1e-15 {
					t.Fatalf("trial %d %v/%v: two-sided %v < min one-sided", trial, m, zm, p)
				}
			}
		}
	}
}

// TestMannWhitneyUExactBruteForce compares the DP with a direct enumeration
// of all C(N, n1) assignments of the pooled (tied) observations to x, for
// small seeded samples, to 1e-12. This is an independent check of the
// conditional exact distribution, including asymmetric tie patterns.
func TestMannWhitneyUExactBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 60 {
		n1, n2 := 1+rng.IntN(7), 1+rng.IntN(7)
		x := randomSample(rng, n1, 4, 0)
		y := randomSample(rng, n2, 4, 0)
		pool := append(append([]float64{}, x...), y...)
		nTot := n1 + n2
		u1 := uStat(x, y)
		var all, ge, le, abs float64
		mu := float64(n1*n2) / 2
		for mask := 0; mask < 1<<nTot; mask++ {
			if popcount(mask) != n1 {
				continue
			}
			var a, b []float64
			for i, v := range pool {
				if mask&(1<<i) != 0 {
					a = append(a, v)
				} else {
					b = append(b, v)
				}
			}
			u := uStat(a, b)
			all++
			if u >= u1 {
				ge++
			}
			if u <= u1 {
				le++
			}
			if math.Abs(u-mu) >= math.Abs(u1-mu) {
				abs++
			}
		}
		want := map[Alternative]float64{Greater: ge / all, Less: le / all, TwoSided: min(1, 2*min(ge, le)/all)}
		for alt, w := range want {
			r, err := MannWhitneyU(x, y, MWUOptions{Method: Exact, Alternative: alt})
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.P, w, 1e-12) {
				t.Fatalf("trial %d %v: x %v y %v: DP %v, enumeration %v", trial, alt, x, y, r.P, w)
			}
		}
		r, _ := MannWhitneyU(x, y, MWUOptions{Method: Exact, TwoSidedRule: AbsDeviation})
		if !near(r.P, abs/all, 1e-12) {
			t.Fatalf("trial %d abs: DP %v, enumeration %v", trial, r.P, abs/all)
		}
	}
}

// TestSignedRankExactBruteForce compares the signed-rank DP with the
// enumeration of all 2^n sign vectors of the ranked |d|, to 1e-12.
func TestSignedRankExactBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 60 {
		n := 1 + rng.IntN(12)
		x := randomSample(rng, n, 5, 0)
		y := randomSample(rng, n, 5, 0)
		ref, err := WilcoxonSignedRank(x, y, SignedRankOptions{Method: Exact, Alternative: Greater})
		if err != nil {
			t.Fatal(err)
		}
		// Midranks of the nonzero |d|.
		var d []float64
		for i := range x {
			if x[i] != y[i] {
				d = append(d, math.Abs(x[i]-y[i]))
			}
		}
		ranks := make([]float64, len(d))
		for i := range d {
			less, eq := 0, 0
			for j := range d {
				if d[j] < d[i] {
					less++
				} else if d[j] == d[i] {
					eq++
				}
			}
			ranks[i] = float64(less) + float64(eq+1)/2
		}
		var all, ge, le float64
		for mask := 0; mask < 1<<len(d); mask++ {
			tp := 0.0
			for i, r := range ranks {
				if mask&(1<<i) != 0 {
					tp += r
				}
			}
			all++
			if tp >= ref.TPlus {
				ge++
			}
			if tp <= ref.TPlus {
				le++
			}
		}
		for alt, w := range map[Alternative]float64{Greater: ge / all, Less: le / all, TwoSided: min(1, 2*min(ge, le)/all)} {
			r, _ := WilcoxonSignedRank(x, y, SignedRankOptions{Method: Exact, Alternative: alt})
			if !near(r.P, w, 1e-12) {
				t.Fatalf("trial %d %v: d %v: DP %v, enumeration %v", trial, alt, d, r.P, w)
			}
		}
	}
}

// TestExactApproachesAsymptotic: for 40 vs 40 without ties the exact and
// continuity-corrected normal p-values agree within 0.005 (a sanity check
// of both, not an oracle).
func TestExactApproachesAsymptotic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		x := randomSample(rng, 40, 0, 0.4)
		y := randomSample(rng, 40, 0, 0)
		e, _ := MannWhitneyU(x, y, MWUOptions{Method: Exact})
		a, _ := MannWhitneyU(x, y, MWUOptions{Method: Asymptotic})
		if math.Abs(e.P-a.P) > 0.005 {
			t.Errorf("trial %d: exact %v vs asymptotic %v", trial, e.P, a.P)
		}
	}
}

func uStat(x, y []float64) float64 {
	u := 0.0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
		}
	}
	return u
}

func popcount(v int) int {
	c := 0
	for ; v != 0; v &= v - 1 {
		c++
	}
	return c
}
