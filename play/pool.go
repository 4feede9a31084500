package play

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc/pool"

	"evolve/envs"
)

// Job is one phase of a pool and the seeds it plays.
type Job struct {
	Phase Phase
	Seeds []uint64
}

// JobError is the error of one job of a pool: Job indexes the jobs of
// the PlayAll call, Err is what Executor.Play would have returned for it
// alone (an *EpisodeError, or the executor's own error).
type JobError struct {
	Job int
	Err error
}

// Error is the job's error.
func (e *JobError) Error() string { return e.Err.Error() }

// Unwrap returns the job's error.
func (e *JobError) Unwrap() error { return e.Err }

// PoolExecutor is an Executor that plays several phases as one pool of
// work: their episodes share one queue (the local runner: one queue over
// the workers, so no worker idles at a phase's tail while another phase
// waits; an LLM agent: one window of requests in flight).
type PoolExecutor interface {
	Executor
	// PlayAll plays every job and returns out[j][i], the outcome of
	// jobs[j].Seeds[i], equal to what Play of jobs[j] alone returns. Each
	// job's Progress counts that job's episodes; OnError and Progress are
	// called one at a time over all jobs. The first failing job stops the
	// pool (no new episode starts) and is returned as a *JobError;
	// ctx.Err() when ctx is cancelled.
	PlayAll(ctx context.Context, jobs []Job) ([][]envs.Outcome, error)
}

// PlayAll plays jobs on x as one pool: x.PlayAll if x is a PoolExecutor,
// else x.Play of every job at once, each in its own goroutine (the Slurm
// executor: the k job arrays are submitted together), with the hooks of
// all jobs called one at a time. The outcomes and errors are those of
// PoolExecutor.PlayAll; when several jobs fail, the first in job order is
// returned, so that the error does not depend on timing.
func PlayAll(ctx context.Context, x Executor, jobs []Job) ([][]envs.Outcome, error) {
	if px, ok := x.(PoolExecutor); ok {
		return px.PlayAll(ctx, jobs)
	}
	out := make([][]envs.Outcome, len(jobs))
	errs := make([]error, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for j := range jobs {
		ph := serialHooks(&mu, jobs[j].Phase)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[j], errs[j] = x.Play(ctx, ph, jobs[j].Seeds)
			if errs[j] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	var cancelled error
	for j, err := range errs {
		if err == nil {
			continue
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			cancelled = err // stopped because another job failed, or ctx
			continue
		}
		return nil, &JobError{Job: j, Err: err}
	}
	if cancelled != nil {
		return nil, cancelled
	}
	return out, nil
}

// serialHooks returns ph with its Progress and OnError calls taken under
// mu.
func serialHooks(mu *sync.Mutex, ph Phase) Phase {
	if p := ph.Progress; p != nil {
		ph.Progress = func(done, total int) { mu.Lock(); p(done, total); mu.Unlock() }
	}
	if e := ph.OnError; e != nil {
		ph.OnError = func(ee *EpisodeError) { mu.Lock(); e(ee); mu.Unlock() }
	}
	return ph
}

// PlayAll implements PoolExecutor: one queue of every job's episodes, in
// job order and seed order, over the runner's workers. Finished is not
// called (its index is Run's).
func (r *Runner) PlayAll(ctx context.Context, jobs []Job) ([][]envs.Outcome, error) {
	workers := r.ensurePlayers()
	out := make([][]envs.Outcome, len(jobs))
	done := make([]atomic.Int64, len(jobs))
	var callMu sync.Mutex
	wp := pool.New().WithMaxGoroutines(workers).WithContext(ctx).WithCancelOnError().WithFirstError()
	for j := range jobs {
		job := &jobs[j]
		out[j] = make([]envs.Outcome, len(job.Seeds))
		for i, seed := range job.Seeds {
			wp.Go(func(ctx context.Context) error {
				o, err := r.playSeed(ctx, seed, job.Phase.Episode(seed), job.Phase.OnError, &callMu)
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
						return err
					}
					return &JobError{Job: j, Err: err}
				}
				out[j][i] = o
				if job.Phase.Progress != nil {
					n := int(done[j].Add(1))
					callMu.Lock()
					job.Phase.Progress(n, len(job.Seeds))
					callMu.Unlock()
				}
				return nil
			})
		}
	}
	if err := wp.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

var _ PoolExecutor = (*Runner)(nil)
