package gate

import (
	"evolve/stats"

	"fmt"
	"io"
	"testing"
)

// BenchmarkCompare: one version against the baseline on the test split's
// 1000 seeds (paired signed-rank, or U with the full baseline), A12 and the
// HL shift with its asymptotic CI included.
func BenchmarkCompare(b *testing.B) {
	base := []Sample{sample("main", "", game(1000, 0, 1))}
	cand := []Sample{sample("pr", "", game(1000, -5, 2))}
	for _, test := range []stats.TestName{stats.TestSignedRank, stats.TestMWU, "a12"} {
		cfg := Config{Test: test}
		if test == "a12" {
			cfg = Config{MarginA12: 0.05}
		}
		b.Run(string(test), func(b *testing.B) {
			for b.Loop() {
				if _, err := Compare(base, cand, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompareLarge is the gate line of evolve compare on 10^6 vs
// 10^6 tied integer scores without seeds (the U test, A12, the HL shift
// with its asymptotic CI and the power, on samples sorted once), with and
// without a margin (with one, A12 is counted apart from the test's U).
// Skipped with -short.
func BenchmarkCompareLarge(b *testing.B) {
	if testing.Short() {
		b.Skip("10^6 vs 10^6 scores: skipped with -short")
	}
	const n = 1_000_000
	base := []Sample{{Version: "main", Scores: game(n, 0, 1)}}
	cand := []Sample{{Version: "pr", Scores: game(n, -5, 2)}}
	for _, margin := range []float64{0, 10} {
		b.Run(fmt.Sprintf("margin=%g", margin), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compare(base, cand, Config{Test: stats.TestMWU, Margin: margin}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOutputs: JUnit, Markdown and JSON of 5 checks.
func BenchmarkOutputs(b *testing.B) {
	checks := fixture(b)
	for b.Loop() {
		if err := WriteJUnit(io.Discard, "", checks); err != nil {
			b.Fatal(err)
		}
		_ = Markdown(checks, "")
		if _, err := JSON(checks); err != nil {
			b.Fatal(err)
		}
	}
}
