package play

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc/pool"

	"evolve/envs"
)

// Runner plays a version over a seed split in parallel, one envs.Player
// per worker. Players are made on first use and reused across Run calls
// (a process environment keeps one process per worker); Close ends them.
type Runner struct {
	// Env is the environment episodes are played in.
	Env envs.Environment
	// Workers bounds the episodes played at once; <= 0 means GOMAXPROCS.
	// The results do not depend on it.
	Workers int
	// RecordErrors, when true, records an episode that cannot be played
	// (Play returns an error, or the environment or agent panics) as an
	// outcome with cause envs.CauseError, end reason envs.EndError, score
	// 0 and the message in Outcome.Error, and goes on; when false the
	// first such episode stops Run with an *EpisodeError. A Transient
	// error (a language model's endpoint that stayed down) is never
	// recorded: it says nothing of the episode, and stops Run.
	RecordErrors bool
	// OnError, if not nil, receives every recorded error episode (called
	// from worker goroutines, one call at a time).
	OnError func(*EpisodeError)
	// Progress, if not nil, is called after each finished episode with the
	// number done so far and the total. It is called from worker
	// goroutines, one call at a time.
	Progress func(done, total int)
	// Finished, if not nil, receives each episode's outcome as soon as it
	// is played (i indexes the seeds of Run), before Run returns and even
	// if Run is then cancelled, so that a caller can keep what was played
	// (an outcome cache). Called from worker goroutines, one call at a
	// time, in no particular order.
	Finished func(i int, o envs.Outcome)

	mu      sync.Mutex
	players chan slot // idle players; nil until the first Run
	n       int       // players made
}

type slot struct {
	w  int
	pl envs.Player // nil until made
}

// EpisodeError is an episode that could not be played: its seed, what
// went wrong, and for a panic the panic value and the goroutine's stack.
type EpisodeError struct {
	Seed  uint64 // the episode's seed
	Err   error  // the player's error, or a description of the panic
	Panic any    // the value passed to panic, nil if Play returned Err
	Stack []byte // the panicking goroutine's stack (runtime/debug.Stack), nil if none
}

// Error names the seed and what went wrong.
func (e *EpisodeError) Error() string {
	if e.Panic != nil {
		return fmt.Sprintf("episode with seed %d panicked: %v", e.Seed, e.Panic)
	}
	if msg := e.Err.Error(); strings.HasPrefix(msg, fmt.Sprintf("seed %d", e.Seed)) {
		return "episode with " + msg // the player named the seed already
	}
	return fmt.Sprintf("episode with seed %d: %v", e.Seed, e.Err)
}

// Unwrap returns the player's error.
func (e *EpisodeError) Unwrap() error { return e.Err }

func (r *Runner) workers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Run plays one episode per seed, made by episode(seed), and returns the
// outcomes in seed order: out[i] is the episode of seeds[i], whatever the
// worker count. It stops early and returns ctx.Err() when ctx is
// cancelled (finished episodes are discarded); it returns an
// *EpisodeError for an episode that cannot be played unless RecordErrors
// is set (the other in-flight episodes finish, no new ones start); and an
// error naming the worker if a player cannot be made.
func (r *Runner) Run(ctx context.Context, episode func(seed uint64) envs.Episode, seeds []uint64) ([]envs.Outcome, error) {
	workers := r.ensurePlayers()
	out := make([]envs.Outcome, len(seeds))
	var done atomic.Int64
	var callMu sync.Mutex
	wp := pool.New().WithMaxGoroutines(workers).WithContext(ctx).WithCancelOnError().WithFirstError()
	for i, seed := range seeds {
		wp.Go(func(ctx context.Context) error {
			o, err := r.playSeed(ctx, seed, episode(seed), r.OnError, &callMu)
			if err != nil {
				return err
			}
			out[i] = o
			if r.Finished != nil {
				callMu.Lock()
				r.Finished(i, o)
				callMu.Unlock()
			}
			if r.Progress != nil {
				n := int(done.Add(1))
				callMu.Lock()
				r.Progress(n, len(seeds))
				callMu.Unlock()
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

// ensurePlayers makes the runner's worker slots on first use and returns
// the number of workers.
func (r *Runner) ensurePlayers() int {
	workers := r.workers()
	r.mu.Lock()
	if r.players == nil {
		r.players = make(chan slot, workers)
		for w := 0; w < workers; w++ {
			r.players <- slot{w: w}
		}
		r.n = workers
	}
	r.mu.Unlock()
	return workers
}

// playSeed plays episode ep of seed on a free worker's player (the per-
// episode step of Run and PlayAll). When ep cannot be played and
// RecordErrors is set, the error being neither ctx's nor transient, it
// returns the episode as an error outcome and reports it to onError (if
// not nil) under callMu; otherwise it returns the error. It returns ctx's
// error without playing if ctx is done.
func (r *Runner) playSeed(ctx context.Context, seed uint64, ep envs.Episode, onError func(*EpisodeError), callMu *sync.Mutex) (envs.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return envs.Outcome{}, err
	}
	s := <-r.players
	o, err := r.play(ctx, &s, ep)
	r.players <- s
	if err == nil {
		return o, nil
	}
	var ee *EpisodeError
	if !errors.As(err, &ee) || !r.RecordErrors || ctx.Err() != nil || Transient(err) {
		return envs.Outcome{}, err
	}
	o = envs.Outcome{Seed: seed, EndReason: envs.EndError, Cause: envs.CauseError, Error: ee.Err.Error()}
	if ee.Panic != nil {
		o.Error = ee.Error()
	}
	if onError != nil {
		callMu.Lock()
		onError(ee)
		callMu.Unlock()
	}
	return o, nil
}

// play plays one episode on s's player (made if needed), turning a panic
// or a Play error into an *EpisodeError; a player that panicked is closed
// and replaced on its next use.
func (r *Runner) play(ctx context.Context, s *slot, ep envs.Episode) (out envs.Outcome, err error) {
	if s.pl == nil {
		pl, err := r.Env.NewPlayer(s.w)
		if err != nil {
			return envs.Outcome{}, fmt.Errorf("starting the player of worker %d: %w", s.w, err)
		}
		s.pl = pl
	}
	defer func() {
		if v := recover(); v != nil {
			err = &EpisodeError{Seed: ep.Seed, Err: fmt.Errorf("panic: %v", v), Panic: v, Stack: debug.Stack()}
			s.pl.Close()
			s.pl = nil // a panicked player's state is not reused
		}
	}()
	out, err = s.pl.Play(ctx, ep)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return envs.Outcome{}, err
		}
		return envs.Outcome{}, &EpisodeError{Seed: ep.Seed, Err: err}
	}
	out.Seed = ep.Seed
	return out, nil
}

// Close ends every player the runner made (their processes, for a
// process environment) and returns the first error. The runner can be used
// again: it makes new players.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.players == nil {
		return nil
	}
	var first error
	for i := 0; i < r.n; i++ {
		s := <-r.players
		if s.pl != nil {
			if err := s.pl.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	r.players = nil
	return first
}

// Transient reports whether err (or an error it wraps) has a method
// Transient() bool that returns true: a failure outside the episode,
// such as a model endpoint that stayed down past its retry budget
// (llm.ErrRetriesExhausted), which a resume can recover from and which
// must never be recorded as an episode's outcome.
func Transient(err error) bool {
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}
