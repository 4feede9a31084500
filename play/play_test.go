package play

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"evolve/agent"
	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/params"
)

func dungeonEnv(t testing.TB) *agent.DungeonEnv {
	t.Helper()
	e, err := agent.NewDungeonEnv(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// base plays every seed under the base prompt's parameters.
func base(seed uint64) envs.Episode { return envs.Episode{Seed: seed, Params: agent.BaseParameters()} }

func seedRange(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(1000 + 7*i)
	}
	return s
}

// The outcomes are in seed order and identical for any worker count.
func TestRunDeterministicAcrossWorkers(t *testing.T) {
	env := dungeonEnv(t)
	seeds := seedRange(60)
	var ref []envs.Outcome
	for _, w := range []int{1, 2, 7} {
		r := &Runner{Env: env, Workers: w}
		outs, err := r.Run(context.Background(), base, seeds)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range outs {
			if o.Seed != seeds[i] {
				t.Fatalf("workers=%d: out[%d].Seed = %d, want %d", w, i, o.Seed, seeds[i])
			}
		}
		// A second call reuses the players.
		again, err := r.Run(context.Background(), base, seeds)
		if err != nil || !reflect.DeepEqual(again, outs) {
			t.Fatalf("workers=%d: a second Run differs (%v)", w, err)
		}
		r.Close()
		if ref == nil {
			ref = outs
			continue
		}
		if !reflect.DeepEqual(outs, ref) {
			t.Fatalf("workers=%d: episodes differ from workers=1", w)
		}
	}
}

func TestRunProgress(t *testing.T) {
	var calls, last int
	r := &Runner{Env: dungeonEnv(t), Workers: 2, Progress: func(done, total int) {
		calls++
		if done != last+1 || total != 10 {
			t.Errorf("Progress(%d, %d) after %d", done, total, last)
		}
		last = done
	}}
	if _, err := r.Run(context.Background(), base, seedRange(10)); err != nil {
		t.Fatal(err)
	}
	if calls != 10 {
		t.Errorf("Progress called %d times, want 10", calls)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &Runner{Env: dungeonEnv(t)}
	if _, err := r.Run(ctx, base, seedRange(10)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunInvalidParams(t *testing.T) {
	bad := func(seed uint64) envs.Episode {
		return envs.Episode{Seed: seed, Params: agent.BaseParameters().With("risk_tolerance", params.NumberValue(3))}
	}
	r := &Runner{Env: dungeonEnv(t)}
	if _, err := r.Run(context.Background(), bad, seedRange(3)); err == nil || !strings.Contains(err.Error(), "risk_tolerance") {
		t.Fatalf("err = %v, want a risk_tolerance range error", err)
	}
}

// faulty is an environment whose players panic on seed 1002, fail on
// seed 1003 and score the seed otherwise; it counts the players made and
// closed.
type faulty struct{ made, closed atomic.Int32 }

func (f *faulty) Info() envs.Info { return envs.Info{Name: "faulty"} }
func (f *faulty) NewPlayer(int) (envs.Player, error) {
	f.made.Add(1)
	return &faultyPlayer{f}, nil
}

type faultyPlayer struct{ f *faulty }

func (p *faultyPlayer) Play(_ context.Context, ep envs.Episode) (envs.Outcome, error) {
	switch ep.Seed {
	case 1002:
		panic("agent exploded")
	case 1003:
		return envs.Outcome{}, fmt.Errorf("process exited with status 1\nstderr: Traceback ...")
	}
	return envs.Outcome{Score: float64(ep.Seed), Cause: envs.CauseNone, EndReason: "done"}, nil
}
func (p *faultyPlayer) Close() error { p.f.closed.Add(1); return nil }

// A panic or an error inside an episode stops the run with its seed (and
// the stack of a panic), or, with RecordErrors, is recorded as an error
// episode and the run goes on; a panicked player is replaced; Close ends
// every player.
func TestRunErrors(t *testing.T) {
	f := &faulty{}
	r := &Runner{Env: f, Workers: 1}
	_, err := r.Run(context.Background(), base, []uint64{1000, 1002})
	var ee *EpisodeError
	if !errors.As(err, &ee) || ee.Panic != "agent exploded" || len(ee.Stack) == 0 || ee.Seed != 1002 || !strings.Contains(ee.Error(), "seed 1002") {
		t.Fatalf("err = %v, want an *EpisodeError for the panic of seed 1002", err)
	}
	var logged []uint64
	r = &Runner{Env: f, Workers: 2, RecordErrors: true, OnError: func(e *EpisodeError) { logged = append(logged, e.Seed) }}
	outs, err := r.Run(context.Background(), base, seedRange(1)[:0])
	if err != nil || len(outs) != 0 {
		t.Fatalf("no seeds: %v %v", outs, err)
	}
	outs, err = r.Run(context.Background(), base, []uint64{1000, 1002, 1003, 1004})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Score != 1000 || outs[3].Score != 1004 || outs[1].Cause != envs.CauseError || outs[1].EndReason != envs.EndError ||
		!strings.Contains(outs[1].Error, "agent exploded") || outs[2].Cause != envs.CauseError || !strings.Contains(outs[2].Error, "Traceback") {
		t.Errorf("outcomes = %+v", outs)
	}
	if len(logged) != 2 {
		t.Errorf("OnError saw %v, want the two error seeds", logged)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if f.made.Load() != f.closed.Load() {
		t.Errorf("players made %d, closed %d", f.made.Load(), f.closed.Load())
	}
}

// An episode that exceeds its step budget ends as a recorded timeout.
func TestStepBudget(t *testing.T) {
	env := dungeonEnv(t)
	env.SetStepBudget(25)
	r := &Runner{Env: env}
	outs, err := r.Run(context.Background(), base, seedRange(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.EndReason != "step_budget" || o.Cause != "entrapment" || o.Metrics[1].Num > 25 {
			t.Errorf("seed %d: end %v after %v turns, want step_budget within 25", o.Seed, o.EndReason, o.Metrics[1].Num)
		}
	}
}
