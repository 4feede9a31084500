package play

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkEpisodes measures whole episodes per second of the base prompt
// on the dungeon at 1 and 2 workers (the eps/s metric of `make bench`).
func BenchmarkEpisodes(b *testing.B) {
	env := dungeonEnv(b)
	seeds := seedRange(200)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			r := &Runner{Env: env, Workers: w}
			episodes := 0
			for i := 0; i < b.N; i++ {
				outs, err := r.Run(context.Background(), base, seeds)
				if err != nil {
					b.Fatal(err)
				}
				episodes += len(outs)
			}
			b.ReportMetric(float64(episodes)/b.Elapsed().Seconds(), "episodes/s")
		})
	}
}
