package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"evolve/cache"
	"evolve/experiment"
)

// BenchmarkEval is evolve eval's throughput (episodes/s) on 200 seeds of
// the dungeon at 1 and 2 workers, playing every episode, and replaying
// them from a warm cache (the cost of a cache lookup per episode).
func BenchmarkEval(b *testing.B) {
	seeds := filepath.Join(b.TempDir(), "seeds.txt")
	var text []byte
	for i := 1; i <= 200; i++ {
		text = fmt.Appendf(text, "%d\n", 1000+7*i)
	}
	os.WriteFile(seeds, text, 0o644)
	v, err := ResolvePrompt("embedded", "")
	if err != nil {
		b.Fatal(err)
	}
	c, err := cache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		workers int
		cache   *cache.Cache
	}{{"workers=1", 1, nil}, {"workers=2", 2, nil}, {"cached", 1, c}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.cache != nil { // warm it
				if _, err := Run(context.Background(), []Version{*v}, Options{Config: experiment.DefaultConfig(), SeedsFile: seeds, Out: b.TempDir(), Cache: tc.cache}); err != nil {
					b.Fatal(err)
				}
			}
			episodes := 0
			for b.Loop() {
				res, err := Run(context.Background(), []Version{*v}, Options{Config: experiment.DefaultConfig(), SeedsFile: seeds,
					Out: b.TempDir(), Workers: tc.workers, Cache: tc.cache})
				if err != nil {
					b.Fatal(err)
				}
				episodes += res.Played + res.Cached
			}
			b.ReportMetric(float64(episodes)/b.Elapsed().Seconds(), "episodes/s")
		})
	}
}
