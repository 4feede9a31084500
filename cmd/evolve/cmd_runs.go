package main

import (
	"context"
	"flag"

	"evolve/rundir"
)

// cmdRuns is evolve runs.
var cmdRuns = &Command{
	UsageLine: "evolve runs [--json] [DIR...]",
	Short:     "list the runs and evals under directories, with status and stop reason",
	Long: `
List every run and eval directory under each DIR (default: runs and
evals, those that exist), recursively: ID, kind (run or eval), status,
start time (UTC), duration (a running one's since its start),
generations done of the most, accepted versions, the base → final mean
test score of a finished run (an eval's versions with their mean score),
a finished eval's verdict, the stop reason, and the directory. Newest
first.

An eval's verdict is the one it reached against its baseline, read from
its checkpoint: regression (a check failed: a loss beyond the margin, or
a larger failure share), not non-inferior (non-inferiority not shown),
improvement (no check failed and a candidate is better), pass (neither);
"-" when nothing was compared.

Status comes from the directory's lock, checkpoint and sessions:

	running      a process holds its lock (run.lock, eval.lock)
	finished     its checkpoint says done
	interrupted  stopped by a signal; evolve run --resume DIR continues it
	crashed      the process died without a word (kill -9, power loss);
	             --resume continues it too

The stop reason of a run says why its loop stopped: patience (that many
generations without an accepted candidate), max_generations, no_failures
(the incumbent failed no train episode), no_candidates (nothing left to
propose; the hint says what to change), budget (the next generation could
exceed budget.episodes), or interrupted/crashed.

--json writes the same as a JSON array, one object per directory, for
scripts and CI. Nothing is written to the directories.

Exit status: 0 listed (even if empty), 1 a DIR cannot be read, 2 usage.

Examples:

	evolve runs
	evolve runs runs/ evals/ /scratch/sweep
	evolve runs --json runs/ | jq '.[] | select(.status=="crashed") | .dir'`,
	SetFlags: runsFlags,
	Run:      runRuns,
}

// runsFlagValues are the flags of evolve runs.
type runsFlagValues struct {
	asJSON bool
}

// runsFlags defines the flags of evolve runs on fs.
func runsFlags(fs *flag.FlagSet) any {
	f := new(runsFlagValues)
	fs.BoolVar(&f.asJSON, "json", false, "write a JSON array instead of a table")
	return f
}

// runRuns is evolve runs.
func runRuns(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*runsFlagValues)
	roots, err := viewRoots(args)
	if err != nil {
		return err
	}
	entries, err := rundir.List(roots)
	if err != nil {
		return err
	}
	if f.asJSON {
		return rundir.WriteJSON(cmd.Stdout, entries)
	}
	return rundir.WriteTable(cmd.Stdout, entries)
}
