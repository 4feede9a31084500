package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkHodgesLehmannOneSample: the paired estimate and CI of a gate
// check, n pairs of integer scores (asymptotic branch with ties); the
// Walsh averages make it O(n² log n).
func BenchmarkHodgesLehmannOneSample(b *testing.B) {
	for _, n := range []int{40, 300, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, y := integerScores(rng, n, 52), integerScores(rng, n, 50)
			d := make([]float64, n)
			for i := range d {
				d[i] = x[i] - y[i]
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HodgesLehmannOneSample(d, ShiftOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBCa: the BCa interval of the IQM as summary.parquet computes it
// (2,000 resamples).
func BenchmarkBCa(b *testing.B) {
	for _, n := range []int{30, 300} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := integerScores(rng, n, 50)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BootstrapBCa(x, IQMOf, BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 0))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBCaIQM: the fast path of BenchmarkBCa (the same interval).
func BenchmarkBCaIQM(b *testing.B) {
	for _, n := range []int{30, 300} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := integerScores(rng, n, 50)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BootstrapBCaIQM(x, BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 0))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBrunnerMunzelPermutation: the A12-margin test of the gate at
// its default 9,999 random permutations, n scores a side.
func BenchmarkBrunnerMunzelPermutation(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			x, y := integerScores(rng, n, 50), integerScores(rng, n, 50)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BrunnerMunzelPermutation(x, y, 0.4, Less, PermutationConfig{Rand: rand.New(rand.NewPCG(1, 0))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
