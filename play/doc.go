// Package play plays prompt versions over seed splits: the executor
// interface and this machine's parallel, deterministic runner (package
// accept decides what the scores mean).
//
// An Executor plays a Phase, one version on the seeds of one split, and
// returns the outcomes in seed order; the same phase and seeds give the
// same outcomes whatever the executor and however it divides the work.
// Runner is this machine's executor: one envs.Player per worker, reused
// across phases, with an episode that cannot be played either recorded as
// an error outcome or stopping the phase (an *EpisodeError; a Transient
// error, such as a model endpoint that stayed down, always stops it).
// PlayAll plays several phases as one pool (a PoolExecutor shares one
// queue between them; another executor plays them at once), so that no
// worker and no model window idles at a phase's tail. The Slurm executor
// is in package experiment.
package play
