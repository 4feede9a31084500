package play

import (
	"context"

	"evolve/envs"
	"evolve/params"
)

// Phase is one unit of work an Executor plays: a version of a prompt on
// the seeds of one split. Every episode of a phase is played under the
// same policy parameters and prompt; only the seed differs.
type Phase struct {
	// Generation is the 0-based generation the phase belongs to (the
	// final test phases use the last generation's index).
	Generation int
	// Split is the seed split played: "train", "val" or "test".
	Split string
	// Params are the version's policy parameters, valid for the
	// environment's schema.
	Params params.Set
	// Prompt is the version as the agent reads it, nil if the agent reads
	// only Params. Prompt.Version names the version.
	Prompt *envs.Prompt
	// Progress, if not nil, is called with the episodes finished so far
	// and the phase's total, one call at a time.
	Progress func(done, total int)
	// OnError, if not nil, receives each episode recorded as an error
	// (Runner.RecordErrors), one call at a time.
	OnError func(*EpisodeError)
	// Record asks the players to record each episode's trajectory
	// (envs.Episode.Record); it never changes an outcome otherwise. The
	// caller stores what its trajectory policy keeps (package trajectory).
	Record bool
}

// Episode returns the episode of the phase with the given seed.
func (ph *Phase) Episode(seed uint64) envs.Episode {
	return envs.Episode{Seed: seed, Params: ph.Params, Prompt: ph.Prompt, Record: ph.Record}
}

// Executor is where the episodes of a phase are played: this machine's
// worker pool (*Runner) or a batch cluster (the Slurm executor of package
// experiment). An executor returns the same outcomes for the same phase
// and seeds, whatever it is and however it divides the work, so that a
// run's results do not depend on where it ran.
type Executor interface {
	// Play plays one episode per seed of seeds and returns the outcomes
	// in seed order: out[i] is the episode of seeds[i]. It returns
	// ctx.Err() when ctx is cancelled (after stopping the work it
	// started), an *EpisodeError for an episode that cannot be played
	// (unless errors are recorded), or an error naming what failed in
	// the executor itself (a player that cannot start, a cluster task
	// that failed too often).
	Play(ctx context.Context, ph Phase, seeds []uint64) ([]envs.Outcome, error)
	// Close releases what the executor holds (players' processes,
	// cluster jobs still queued); the executor can be used again.
	Close() error
}

// Play implements Executor: it is Run with the phase's episodes and
// hooks (Progress and OnError replace the runner's fields for the call).
func (r *Runner) Play(ctx context.Context, ph Phase, seeds []uint64) ([]envs.Outcome, error) {
	r.Progress, r.OnError = ph.Progress, ph.OnError
	return r.Run(ctx, ph.Episode, seeds)
}

var _ Executor = (*Runner)(nil)
