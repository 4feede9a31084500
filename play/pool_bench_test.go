package play

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"evolve/envs"
)

// waiting is an environment whose episodes wait on a model: seed s takes
// 5 + s%16 turns of 5 ms each and no CPU, as an LLM agent's episodes
// (each turn one request) do. busy sums the episodes' wall time, in ns.
type waiting struct{ busy *atomic.Int64 }

func (w waiting) Info() envs.Info { return envs.Info{Name: "waiting"} }
func (w waiting) NewPlayer(int) (envs.Player, error) {
	return waitingPlayer{w.busy}, nil
}

type waitingPlayer struct{ busy *atomic.Int64 }

func (p waitingPlayer) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	start := time.Now()
	defer func() { p.busy.Add(int64(time.Since(start))) }()
	for range waitTurns(ep.Seed) {
		select {
		case <-ctx.Done():
			return envs.Outcome{}, ctx.Err()
		case <-time.After(waitTurn):
		}
	}
	return envs.Outcome{Score: 1, Cause: envs.CauseNone, EndReason: "done"}, nil
}
func (p waitingPlayer) Close() error { return nil }

const waitTurn = 5 * time.Millisecond

func waitTurns(seed uint64) int { return 5 + int(seed%16) }

// BenchmarkCandidatesPool plays a generation's 4 candidates on 128 val
// seeds each with 64 workers (agent.llm.concurrency 64) on the waiting
// environment, one phase after another (mode=phases, as evolve played a
// generation before the pool) or as one pool (mode=pool,
// play.PlayAll). pct-of-ideal is the concurrency-bound ideal wall
// time (the episodes' measured total wall time / 64) over the wall time,
// in percent: the mean episodes in flight over 64, the share of the model
// window kept busy (an LLM run should keep it >= 95, or it pays for a
// model window it leaves idle). It measures scheduling alone: the episodes need
// no CPU, so a loaded machine changes it little.
func BenchmarkCandidatesPool(b *testing.B) {
	const k, n, workers = 4, 128, 64
	jobs := make([]Job, k)
	for j := range jobs {
		seeds := make([]uint64, n)
		for i := range seeds {
			seeds[i] = uint64(1000*j + 7*i)
		}
		jobs[j] = Job{Phase: Phase{Split: "val"}, Seeds: seeds}
	}
	for _, mode := range []string{"phases", "pool"} {
		b.Run(fmt.Sprintf("mode=%s", mode), func(b *testing.B) {
			var busy atomic.Int64
			r := &Runner{Env: waiting{&busy}, Workers: workers}
			defer r.Close()
			for b.Loop() {
				if mode == "pool" {
					if _, err := PlayAll(context.Background(), r, jobs); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, j := range jobs {
					if _, err := r.Play(context.Background(), j.Phase, j.Seeds); err != nil {
						b.Fatal(err)
					}
				}
			}
			ideal := time.Duration(busy.Load()) / workers
			b.ReportMetric(100*ideal.Seconds()/b.Elapsed().Seconds(), "pct-of-ideal")
		})
	}
}
