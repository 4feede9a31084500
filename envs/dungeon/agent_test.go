package dungeon_test

import (
	"testing"

	"evolve/agent"
	"evolve/envs"
	. "evolve/envs/dungeon"
	"evolve/params"
)

func newEnv(t testing.TB) *Env {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func play(ep Episode, p params.Set, seed uint64) Outcome {
	ag := agent.NewScripted(p)
	var obs Observation
	ep.Reset(seed)
	for {
		ep.Observe(&obs)
		if ep.Step(ag.Act(&obs)) {
			return ep.Outcome()
		}
	}
}

// An episode is a pure function of (config, seed, policy): a fresh
// episode, a reused one, and one reused after a different seed agree.
func TestDeterminism(t *testing.T) {
	env := newEnv(t)
	p := agent.BaseParameters()
	reused := env.NewEpisode()
	for seed := uint64(0); seed < 40; seed++ {
		a := play(env.NewEpisode(), p, seed)
		b := play(reused, p, seed)
		if a != b {
			t.Fatalf("seed %d: fresh %+v != reused %+v", seed, a, b)
		}
	}
	play(reused, p, 999)
	if a, b := play(env.NewEpisode(), p, 7), play(reused, p, 7); a != b {
		t.Fatalf("seed 7 after 999: %+v != %+v", a, b)
	}
}

// Different seeds give different episodes.
func TestSeedsDiffer(t *testing.T) {
	env := newEnv(t)
	scores := map[int64]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		scores[play(env.NewEpisode(), agent.BaseParameters(), seed).Score] = true
	}
	if len(scores) < 25 {
		t.Errorf("50 seeds gave only %d distinct scores", len(scores))
	}
}

func TestNoAllocationPerStep(t *testing.T) {
	env := newEnv(t)
	ep := env.NewEpisode()
	ag := agent.NewScripted(agent.BaseParameters())
	var obs Observation
	ep.Reset(3)
	seed := uint64(3)
	allocs := testing.AllocsPerRun(20000, func() {
		ep.Observe(&obs)
		if ep.Step(ag.Act(&obs)) {
			seed++
			ep.Reset(seed)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per step, want 0", allocs)
	}
}

func TestRegistered(t *testing.T) {
	f, err := envs.Lookup("dungeon")
	if err != nil {
		t.Fatal(err)
	}
	env, err := f.New(f.Config())
	if err != nil || env.Info().Name != "dungeon" {
		t.Fatalf("New(default) = %v, %v", env, err)
	}
	if _, err := f.New(struct{}{}); err == nil {
		t.Error("New(wrong type): want error")
	}
}
