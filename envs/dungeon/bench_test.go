package dungeon_test

import (
	"testing"

	"evolve/agent"
	. "evolve/envs/dungeon"
)

// BenchmarkStep measures environment steps (turns) per second on one
// core with the base prompt's scripted agent; the steps/s metric is the
// number `make bench` reports.
func BenchmarkStep(b *testing.B) {
	env, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	ep := env.NewEpisode()
	ag := agent.NewScripted(agent.BaseParameters())
	var obs Observation
	steps := 0
	seed := uint64(0)
	ep.Reset(seed)
	ag.Reset()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ep.Observe(&obs)
		if ep.Step(ag.Act(&obs)) {
			seed++
			ep.Reset(seed)
			ag.Reset()
		}
		steps++
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
