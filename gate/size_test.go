package gate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"evolve/stats"
)

// TestSizeShort is a short version of the simulations of
// docs/statistics.md (make stats-tables has the full tables): at the
// margin boundary (candidate = baseline − D in distribution) each
// hypothesis rejects at most alpha of the time (the lower 99% Clopper-
// Pearson bound of the rate is <= alpha), and an eval of 4 variants with
// nothing changed fails at most alpha of the time under Holm over the
// family, but about 4·alpha with Holm per variant only.
func TestSizeShort(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const reps, n, D, alpha = 1000, 30, 20.0, 0.05
	for _, hyp := range []string{HypothesisRegression, HypothesisNonInferiority} {
		r := rand.New(rand.NewPCG(30, 1))
		k := 0
		x, y := make([]float64, n), make([]float64, n)
		for range reps {
			for i := range n {
				x[i] = 500 + 100*r.NormFloat64() - D
				y[i] = 500 + 100*r.NormFloat64()
			}
			ch, err := Compare([]Sample{{Version: "b", Scores: y}}, []Sample{{Version: "c", Scores: x}}, Config{Test: stats.TestMWU, Margin: D, Hypothesis: hyp})
			if err != nil {
				t.Fatal(err)
			}
			if ch[0].PAdj < alpha {
				k++
			}
		}
		if lo, _ := stats.ClopperPearson(k, reps, 0.98); lo > alpha {
			t.Errorf("%s: size %d/%d > alpha", hyp, k, reps)
		}
	}
	fwer := func(corr string) int {
		r := rand.New(rand.NewPCG(4, 7))
		seeds := make([]uint64, n)
		for i := range seeds {
			seeds[i] = uint64(i)
		}
		k := 0
		for range 400 {
			var base, cands []Sample
			for v := range 4 {
				level := make([]float64, n)
				for i := range level {
					level[i] = 100 * r.NormFloat64()
				}
				mk := func(version string) Sample {
					s := make([]float64, n)
					for i := range s {
						s[i] = level[i] + 30*r.NormFloat64()
					}
					return Sample{Version: version, Variant: string(rune('a' + v)), Seeds: seeds, Scores: s}
				}
				base, cands = append(base, mk("main")), append(cands, mk("pr"))
			}
			checks, err := Compare(base, cands, Config{Correction: corr})
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(checks, func(c Check) bool { return c.Failed }) {
				k++
			}
		}
		return k
	}
	if k := fwer(CorrectionHolm); k > 30 { // 7.5% of 400: well above the 5% expected
		t.Errorf("Holm over the family: %d/400 evals failed", k)
	}
	if k := fwer(CorrectionNonePerVariant); k < 48 { // about 18% (72) expected
		t.Errorf("Holm per variant: only %d/400 evals failed; the per-variant family should inflate the error", k)
	}
}
