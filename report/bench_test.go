//go:build unix

// The benchmarks read getrusage(2), which Windows does not have.

package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"evolve/results"
)

// largeTestSplit copies the small run and replaces its test episodes with
// n synthetic ones per version (base and final; seeds 1..n, integer
// scores from a seeded normal, as the dungeon's), so that the report's
// cost at the scale of a large test split can be measured without playing
// 2n episodes.
func largeTestSplit(b *testing.B, n int) string {
	b.Helper()
	dir := copyDir(b, smallRun(b))
	path := filepath.Join(dir, results.TableEpisodes+".parquet")
	rows, metrics, err := results.ReadEpisodes(path)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	rows = slices.DeleteFunc(rows, func(e results.EpisodeRow) bool { return e.Split == results.SplitTest })
	var tmpl results.EpisodeRow
	for _, e := range rows {
		if e.Version == d.Manifest.FinalVersion {
			tmpl = e
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, v := range []string{d.Manifest.BaseVersion, d.Manifest.FinalVersion} {
		for s := range n {
			e := tmpl
			e.Version, e.Split, e.Seed = v, results.SplitTest, uint64(s+1)
			e.Score = math.Round(max(0, 540+240*float64(i)+300*rng.NormFloat64()))
			rows = append(rows, e)
		}
	}
	results.SortEpisodes(rows)
	if err := results.WriteEpisodes(path, metrics, rows); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkWriteLargeTestSplit is `evolve report` on a run whose test
// split has 100,000 seeds (the target at that scale: < 30 s), and 10,000
// for comparison. It reports the process's peak RSS (maxrss-MB), which
// includes whatever the benchmark binary held before. Skipped with -short.
func BenchmarkWriteLargeTestSplit(b *testing.B) {
	if testing.Short() {
		b.Skip("plays the small run and writes a 200,000-episode table")
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("test-seeds=%d", n), func(b *testing.B) {
			dir := largeTestSplit(b, n)
			for b.Loop() {
				if _, err := Write(dir, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
			}
		})
	}
}
