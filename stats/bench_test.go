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

// BenchmarkHodgesLehmann: n vs n tied scores (asymptotic interval): 300
// is the evolution loop's size, 10^6 the scale target of `evolve compare`
// (the naive method needed n² float64s: 8 TB); 40/exact is the exact
// interval's two order statistics. 10^6 is skipped with -short.
func BenchmarkHodgesLehmann(b *testing.B) {
	for _, bc := range []struct {
		n      int
		method Method
	}{{300, Auto}, {10_000, Auto}, {1_000_000, Auto}, {40, Exact}} {
		b.Run(benchName(bc.n, bc.method), func(b *testing.B) {
			if bc.n > 10_000 && testing.Short() {
				b.Skip("10^6 vs 10^6: skipped with -short")
			}
			rng := rand.New(rand.NewPCG(5, 6))
			x, y := integerScores(rng, bc.n, 52), integerScores(rng, bc.n, 50)
			if bc.method == Exact { // untied, so that the exact interval is used
				for i := range x {
					x[i] += rng.Float64()
					y[i] += rng.Float64()
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HodgesLehmann(x, y, ShiftOptions{Method: bc.method}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPairDiffsNaive is the naive Hodges-Lehmann estimate (all n²
// differences sorted) against the selection of pairDiffs, for the
// record of the speed-up.
func BenchmarkPairDiffsNaive(b *testing.B) {
	for _, n := range []int{300, 3000} {
		rng := rand.New(rand.NewPCG(5, 6))
		x, y := integerScores(rng, n, 52), integerScores(rng, n, 50)
		b.Run(fmt.Sprintf("n=%d/naive", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				median(sortedDiffs(x, y))
			}
		})
		b.Run(fmt.Sprintf("n=%d/select", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				newPairDiffs(x, y).median()
			}
		})
	}
}

// BenchmarkBootstrapIQM: the report's IQM CI of one version's test scores
// (2000 resamples), by BootstrapIQM and by the generic BootstrapCI (not
// run at n = 10^5, where it takes 8 times longer).
func BenchmarkBootstrapIQM(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		rng := rand.New(rand.NewPCG(9, 10))
		x := integerScores(rng, n, 50)
		col := make([][]float64, n)
		for i := range x {
			col[i] = x[i : i+1]
		}
		b.Run(fmt.Sprintf("n=%d/BootstrapIQM", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BootstrapIQM(x, BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 1))}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/BootstrapCI", n), func(b *testing.B) {
			if n > 1000 {
				b.Skip("n = 10^5 with a sort per resample: 21 s per op on 2 cores (2026-11)")
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BootstrapCI(col, AggregateIQM, BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 1))}); err != nil {
					b.Fatal(err)
				}
			}
		})
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
