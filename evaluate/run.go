package evaluate

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc/pool"

	"evolve/agent"
	"evolve/envs"
	"evolve/prompt"
)

// Runner plays a version's policy over a seed split in parallel.
type Runner struct {
	// Env is the environment episodes are played in.
	Env envs.Environment
	// Workers bounds the episodes played at once; <= 0 means GOMAXPROCS.
	// The results do not depend on it.
	Workers int
	// StepBudget ends an episode as a recorded timeout (envs.EndStepBudget)
	// after this many steps; <= 0 means no budget beyond the environment's
	// own turn limit.
	StepBudget int
	// NewAgent builds the agent for a policy; nil means agent.NewScripted.
	NewAgent func(p prompt.PolicyParameters) agent.Agent
	// RecordPanics, when true, records an episode that panics as an
	// outcome with End envs.EndPanic and score 0 (and reports it to
	// OnPanic) instead of failing the run.
	RecordPanics bool
	// OnPanic, if not nil, receives every recorded panic (called from
	// worker goroutines, one call at a time).
	OnPanic func(*PanicError)
	// Progress, if not nil, is called after each finished episode with the
	// number done so far and the total. It is called from worker
	// goroutines, one call at a time.
	Progress func(done, total int)

	episodes sync.Pool // of envs.Episode, reused across Run calls
}

// PanicError records a panic inside the environment or agent during one
// episode: the episode's seed, the panic value and the goroutine's stack.
type PanicError struct {
	Seed  uint64 // the episode's seed
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack (runtime/debug.Stack)
}

// Error names the seed and the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("episode with seed %d panicked: %v", e.Seed, e.Value)
}

// Run plays one episode per seed under p and returns the outcomes in seed
// order: out[i] is the episode of seeds[i], whatever the worker count. It
// stops early and returns ctx.Err() when ctx is cancelled (finished
// episodes are discarded), and returns a *PanicError if an episode panics
// (the other in-flight episodes finish, no new ones start) unless
// RecordPanics is set.
func (r *Runner) Run(ctx context.Context, p prompt.PolicyParameters, seeds []uint64) ([]envs.Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	workers := r.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	newAgent := r.NewAgent
	if newAgent == nil {
		newAgent = func(p prompt.PolicyParameters) agent.Agent { return agent.NewScripted(p) }
	}
	out := make([]envs.Outcome, len(seeds))
	var done atomic.Int64
	var progressMu sync.Mutex
	wp := pool.New().WithMaxGoroutines(workers).WithContext(ctx).WithCancelOnError().WithFirstError()
	for i, seed := range seeds {
		wp.Go(func(ctx context.Context) (err error) {
			if err := ctx.Err(); err != nil {
				return err
			}
			out[i], err = r.play(newAgent(p), seed)
			if pe, ok := err.(*PanicError); ok && r.RecordPanics {
				out[i], err = envs.Outcome{Seed: seed, End: envs.EndPanic}, nil
				if r.OnPanic != nil {
					progressMu.Lock()
					r.OnPanic(pe)
					progressMu.Unlock()
				}
			}
			if err != nil {
				return err
			}
			if r.Progress != nil {
				n := int(done.Add(1))
				progressMu.Lock()
				r.Progress(n, len(seeds))
				progressMu.Unlock()
			}
			return nil
		})
	}
	if err := wp.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// play runs one episode, turning a panic into a *PanicError.
func (r *Runner) play(ag agent.Agent, seed uint64) (out envs.Outcome, err error) {
	ep, _ := r.episodes.Get().(envs.Episode)
	if ep == nil {
		ep = r.Env.NewEpisode()
	}
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Seed: seed, Value: v, Stack: debug.Stack()}
			return // a panicked episode's state is not reused
		}
		r.episodes.Put(ep)
	}()
	return Play(ep, ag, seed, r.StepBudget), nil
}

// Play runs one episode of ep from seed with agent ag to its end and
// returns its outcome. stepBudget > 0 stops the episode as
// envs.EndStepBudget after that many steps.
func Play(ep envs.Episode, ag agent.Agent, seed uint64, stepBudget int) envs.Outcome {
	var obs envs.Observation
	ep.Reset(seed)
	ag.Reset()
	for steps := 1; ; steps++ {
		ep.Observe(&obs)
		if ep.Step(ag.Act(&obs)) {
			break
		}
		if stepBudget > 0 && steps >= stepBudget {
			ep.Stop(envs.EndStepBudget)
			break
		}
	}
	return ep.Outcome()
}
