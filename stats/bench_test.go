package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// integerScores returns n realistic integer-valued scores (rounded normal,
// mean mu, sd 15): about 60 distinct values, so with n = 300 most values
// are tied several times.
func integerScores(rng *rand.Rand, n int, mu float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Round(mu + 15*rng.NormFloat64())
	}
	return x
}

// BenchmarkMannWhitneyU: n=300 is the evolution loop's call (300 vs 300,
// Auto → asymptotic); n=50 is the largest Auto-exact size (50 vs 50 with
// ties, exact conditional DP).
func BenchmarkMannWhitneyU(b *testing.B) {
	for _, bc := range []struct {
		n      int
		method Method
	}{{300, Auto}, {50, Auto}, {20, Auto}, {100, Exact}} {
		b.Run(benchName(bc.n, bc.method), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, y := integerScores(rng, bc.n, 52), integerScores(rng, bc.n, 50)
			opt := MWUOptions{Alternative: Greater, Method: bc.method}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := MannWhitneyU(x, y, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWilcoxonSignedRank: paired integer-ish scores; n=300 is
// asymptotic under Auto, n=50 exact.
func BenchmarkWilcoxonSignedRank(b *testing.B) {
	for _, bc := range []struct {
		n      int
		method Method
	}{{300, Auto}, {50, Auto}, {300, Exact}} {
		b.Run(benchName(bc.n, bc.method), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			x, y := integerScores(rng, bc.n, 52), integerScores(rng, bc.n, 50)
			opt := SignedRankOptions{Alternative: Greater, Method: bc.method}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WilcoxonSignedRank(x, y, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchName is "n=300" for Auto and "n=300/exact" for a forced method.
func benchName(n int, m Method) string {
	if m == Auto {
		return fmt.Sprintf("n=%d", n)
	}
	return fmt.Sprintf("n=%d/%v", n, m)
}

// BenchmarkHodgesLehmann: 300 vs 300 tied scores (asymptotic interval).
func BenchmarkHodgesLehmann(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := integerScores(rng, 300, 52), integerScores(rng, 300, 50)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HodgesLehmann(x, y, ShiftOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBootstrapCI: IQM of 10 runs × 20 tasks, 2000 resamples.
func BenchmarkBootstrapCI(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	scores := make([][]float64, 10)
	for i := range scores {
		scores[i] = integerScores(rng, 20, 50)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BootstrapCI(scores, AggregateIQM, BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 1))}); err != nil {
			b.Fatal(err)
		}
	}
}
