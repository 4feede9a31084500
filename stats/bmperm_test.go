package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBrunnerMunzelPermutationMonteCarlo: with random permutations the
// p-value is within 4 standard errors (plus the 1/(Reps+1) offset) of the
// exact one from every split (C(22, 10) = 646,646), and the same seed
// gives the same p.
func TestBrunnerMunzelPermutationMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, ties := range []bool{false, true} {
		x, y := make([]float64, 10), make([]float64, 12)
		for i := range x {
			x[i] = rng.NormFloat64() - 0.4
		}
		for i := range y {
			y[i] = 1.5 * rng.NormFloat64()
		}
		if ties {
			for _, s := range [][]float64{x, y} {
				for i := range s {
					s[i] = math.Round(s[i])
				}
			}
		}
		for _, alt := range []Alternative{Less, Greater} {
			exact, err := BrunnerMunzelPermutation(x, y, 0.4, alt, PermutationConfig{Reps: 700000})
			if err != nil {
				t.Fatal(err)
			}
			if !exact.Exact || exact.Permutations != 646646 {
				t.Fatalf("want every split: exact %v over %d", exact.Exact, exact.Permutations)
			}
			cfg := func() PermutationConfig { return PermutationConfig{Rand: rand.New(rand.NewPCG(9, 9))} }
			mc, err := BrunnerMunzelPermutation(x, y, 0.4, alt, cfg())
			if err != nil {
				t.Fatal(err)
			}
			again, _ := BrunnerMunzelPermutation(x, y, 0.4, alt, cfg())
			if mc.Exact || mc.Permutations != DefaultPermutationReps || again.P != mc.P {
				t.Errorf("Monte Carlo: exact %v over %d, p %v then %v", mc.Exact, mc.Permutations, mc.P, again.P)
			}
			se := math.Sqrt(exact.P * (1 - exact.P) / DefaultPermutationReps)
			if math.Abs(mc.P-exact.P) > 4*se+1.0/(DefaultPermutationReps+1) {
				t.Errorf("ties %v %v: Monte Carlo p %v, exact %v (se %v)", ties, alt, mc.P, exact.P, se)
			}
			if mc.T != exact.T {
				t.Errorf("statistic differs: %v vs %v", mc.T, exact.T)
			}
		}
	}
}

// TestBrunnerMunzelPermutationEdges: degenerate samples, bad options, and
// the statistic equal to BrunnerMunzelLogit's.
func TestBrunnerMunzelPermutationEdges(t *testing.T) {
	// Complete separation: SE = 0, p by the sign, no permutation.
	r, err := BrunnerMunzelPermutation([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.4, Less, PermutationConfig{})
	if err != nil || r.P != 0 || r.Permutations != 0 || !hasWarn(r.Warnings, WarnAllTied) {
		t.Errorf("separation: p %v over %d, warnings %v, err %v", r.P, r.Permutations, r.Warnings, err)
	}
	// The t test's degenerate case has the same direction: the candidate
	// entirely below the baseline is the strongest evidence of A12 < θ0.
	for _, c := range []struct {
		alt  Alternative
		want float64
	}{{Less, 0}, {Greater, 1}, {TwoSided, 0}} {
		if r, _ := BrunnerMunzel([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.4, c.alt); r.P != c.want || !math.IsInf(r.T, -1) {
			t.Errorf("separation, t test %v: p %v T %v, want %v", c.alt, r.P, r.T, c.want)
		}
	}
	if _, err := BrunnerMunzelPermutation([]float64{1, 2}, []float64{3, 1}, 0.4, Less, PermutationConfig{Reps: -1}); !errors.Is(err, ErrOption) {
		t.Errorf("Reps -1: err %v", err)
	}
	if _, err := BrunnerMunzelPermutation([]float64{1}, []float64{3, 1}, 0.4, Less, PermutationConfig{}); !errors.Is(err, ErrSampleSize) {
		t.Errorf("n = 1: err %v", err)
	}
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	y := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5}
	a, _ := BrunnerMunzelLogit(x, y, 0.35, Greater)
	b, err := BrunnerMunzelPermutation(x, y, 0.35, Greater, PermutationConfig{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil || a.T != b.T || a.SE != b.SE || a.A12 != b.A12 || hasWarn(b.Warnings, WarnSmallSample) {
		t.Errorf("logit %+v, permutation %+v, err %v", a, b, err)
	}
	// A split of each sample count: C(n, k) guards.
	for _, c := range []struct{ n, k, limit, want int }{{14, 7, 9999, 3432}, {16, 8, 9999, -1}, {5, 0, 1, 1}, {40, 20, 1 << 40, 137846528820}} {
		got, ok := binomialAtMost(c.n, c.k, c.limit)
		if (c.want < 0) == ok || (ok && got != c.want) {
			t.Errorf("C(%d, %d) <= %d: %v %v, want %v", c.n, c.k, c.limit, got, ok, c.want)
		}
	}
}

func hasWarn(ws []error, w error) bool {
	for _, e := range ws {
		if errors.Is(e, w) {
			return true
		}
	}
	return false
}
