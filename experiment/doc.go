// Package experiment runs an evolution experiment: it reads and checks
// the config, evolves a prompt version generation by generation, plays
// the final version on the test split, and writes the run directory. It
// is what `evolve run` and `evolve shard` run; evolve eval uses its
// config, environment variants (EnvVariants) and executors.
//
// # The config
//
// A Config is read strictly from YAML (Load, Parse; DefaultConfig is the
// embedded default.yaml): an unknown key is an error naming the file, the
// line and the key. Preflight and Config.Check read everything a run
// reads before it makes anything (the environment, the seed files, the
// base prompt, the gate, the output directory) and report every problem
// at once, each at its config line. The run ID is the config's name and
// a hash of all that shapes the results (the resolved config, the seed
// files, the base prompt's content), so that the same inputs name the
// same run. Options, and the rundir.Settings a checkpoint keeps, are what never
// changes a result: where the run writes, how many workers, the response
// cache's mode, the executor.
//
// # A run's phases
//
// Run resolves the config, creates and locks the run directory
// <out>/<run-id>/ with the base version in its prompt store, and then:
//
//  1. plays the base version on the val seeds, once;
//  2. runs generations until Config.Patience generations in a row accept
//     no candidate, or Config.MaxGenerations have run. A generation plays
//     the incumbent on the train seeds, analyses its failures (package
//     failure), proposes candidates (package mutate), plays them on the
//     val seeds as one pool, decides by the acceptance gate (package
//     evaluate: the fixed-sample test, or the group-sequential one with
//     acceptance.sequential, at a level spent across the generations
//     unless acceptance.alpha_spending is none), and records the
//     episodes, the candidates and the accepted version;
//  3. plays the final version, and the base if it differs, on the test
//     split;
//  4. exports the Parquet tables, the plots, manifest.yaml and, through
//     Options.Report, the report.
//
// An Observer hears of every phase, episode and generation, and the stop
// reason (rundir.StopText) says why the loop ended. With a language-model agent
// a run checks before it starts that the base prompt fits the token
// budget and that the API key is set, stops when a phase takes the
// fallback action or records errors over the configured rates
// (ErrFallbackRate, ErrErrorRate), and logs while the model's endpoint is
// down.
//
// # Checkpoint and resume
//
// At every generation boundary the run writes its checkpoint (a
// rundir.Run, by rundir.WriteCheckpoint), together with the Parquet
// tables and the prompt store: the resolved config, the hashes of the
// seed files and the base prompt, the incumbent and the counts of the
// loop, every session that worked on the run, and what a resume must
// keep that the resolved config leaves out (rundir.Settings, the
// executor, the response cache's directory, the trajectories policy).
// Package rundir owns the run directory's files, its lock and the stop
// reasons; this package writes through it. When its context is
// cancelled, Run returns an *InterruptedError naming the resume command.
// Resume continues from the last checkpoint: it refuses a changed config, seed file or base prompt,
// and a directory another process holds (the run's lock); removes what a
// crash left behind; verifies the versions the run committed; and then
// writes what an uninterrupted run writes, byte for byte, whatever moment
// the run was killed at.
//
// # Executors
//
// Where the episodes are played never changes a result, so it is not part
// of the run ID (rundir.ExecutorConfig, the config's executor section).
// The local executor is an play.Runner on this machine's workers. The Slurm executor
// (docs/slurm.md) hands each phase to the cluster as one job array of
// `evolve shard` tasks (PlayShard) on a directory the nodes share, and
// merges their shards in seed order; a phase directory is named by what
// it plays, so that a resumed or requeued phase plays only the shards not
// yet written.
package experiment
