package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"evolve/experiment"
)

// cmdShard is evolve shard.
var cmdShard = &Command{
	UsageLine: "evolve shard --phase DIR [--task N] [--workers N]",
	Short:     "play one shard of a phase on a cluster node (run by the Slurm executor)",
	Long: `
Play one shard of a phase that 'evolve run --executor slurm' handed to the
cluster, and write its outcomes. The Slurm executor submits each phase (a
version on a split) as a job array whose tasks run this command; you run it
by hand only to debug a task.

DIR is the phase's directory under <run>/slurm/: phase.json says what is
played (the run's resolved config, the version's policy parameters and
prompt, and the seeds of every shard). Task N (default: $SLURM_ARRAY_TASK_ID)
plays shard N and writes shard-NNNN.out (its outcomes) and then
shard-NNNN.exit (its exit record: exit code, node, episodes, seconds), each
atomically, so a task that is requeued and runs twice writes the same bytes
again and a half-written shard is never read. On failure it writes
shard-NNNN.exit with exit 1 and the error, and exits 1.

Exit status: 0 the shard is written, 1 it failed, 2 usage error.

Examples:

	evolve shard --phase runs/default-1275011f00/slurm/g000-train-v1.0.0-3f2a9c1b0d4e --task 0`,
	SetFlags: shardFlags,
	Run:      runShard,
}

// shardFlagValues are the flags of evolve shard.
type shardFlagValues struct {
	phase   string
	task    string
	workers int
}

// shardFlags defines the flags of evolve shard on fs.
func shardFlags(fs *flag.FlagSet) any {
	f := new(shardFlagValues)
	fs.StringVar(&f.phase, "phase", "", "the phase directory `DIR` (holding phase.json)")
	fs.StringVar(&f.task, "task", "", "the shard `N` to play, >= 0 (default: $SLURM_ARRAY_TASK_ID)")
	fs.IntVar(&f.workers, "workers", 0, "play at most `N` episodes at once (default: $SLURM_CPUS_PER_TASK, else 1; a language-model agent: its concurrency)")
	return f
}

// runShard is evolve shard.
func runShard(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*shardFlagValues)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if f.phase == "" {
		return usagef("--phase DIR is required")
	}
	if f.workers < 0 {
		return usagef("--workers must be >= 0, got %d", f.workers)
	}
	var n int
	if f.task == "" {
		var err error
		if n, err = experiment.TaskFromEnv(); err != nil {
			return usagef("%v", err)
		}
	} else if v, err := strconv.Atoi(f.task); err != nil || v < 0 {
		return usagef("--task must be a shard index >= 0, got %q", f.task)
	} else {
		n = v
	}
	w := f.workers
	if w == 0 {
		w = cpusPerTask()
	}
	if err := experiment.PlayShard(ctx, f.phase, n, w); err != nil {
		return fmt.Errorf("shard %d of %s: %w", n, f.phase, err)
	}
	return nil
}
