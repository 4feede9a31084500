package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"text/tabwriter"

	"evolve/ablate"
	"evolve/experiment"
)

// cmdAblate is evolve ablate.
var cmdAblate = &Command{
	UsageLine: "evolve ablate [--config FILE | --resume DIR] [--parallel N] [--json] [--quiet]",
	Short:     "compare proposers (failure, random, cmaes) at an equal episode budget over replicates and environments",
	Long: `
Run an ablation of the proposer: every proposer of the config (failure,
random, cmaes; mutation.proposer) on R replicate seed sets of every
environment, all at the same budget of train and val episodes
(budget.episodes), and report which proposer wins, with rliable's
statistics (Agarwal et al., NeurIPS 2021). See docs/ablation.md and
examples/ablation.yaml.

Replicate r's seed sets are those 'evolve seeds new --seed S_r' writes,
S_r the r-th SplitMix64 output from the config's seed, written under
DIR/seeds/ENV/rNN/; the proposers of a replicate share them, and so
share its test split. Each (environment, replicate, proposer) is an
ordinary run directory, DIR/runs/ENV/rNN/PROPOSER/RUN-ID/, which 'evolve
view', 'evolve runs' and 'evolve run --resume' read as any other. The
config's parallel (or --parallel) runs play at once, replicates first;
the results do not depend on it.

DIR is the config's output/name. It holds:

	ablation.yaml      the config as run (what --resume DIR reads)
	ablation.parquet   one row per run: environment, replicate, proposer,
	                   final and base test means, normalised score,
	                   episodes used, ...
	anytime.parquet    the incumbent's val mean against the episodes used
	report.md          per environment: the final test mean per proposer
	report.html        with its CI across replicates, the IQM with its
	results.tex        bootstrap CI, P(X > Y) per pair with its CI; across
	plots/             environments the same on normalised scores, and
	summary.json       performance profiles and anytime curves

Scores are normalised per environment as rliable does across tasks:
(final − base)/(best − base), base the base version's test mean over the
replicates and best the environment's best_known or else the best final
test mean of the ablation (docs/ablation.md).

Stopping and resuming: Ctrl-C stops the runs at their next checkpoint;
running the same command again (or 'evolve ablate --resume DIR')
continues every unfinished run, even after kill -9, reads the finished
ones, and writes the same ablation.parquet as an uninterrupted ablation.
A finished ablation is only read and reported again.

Exit status: 0 done, 1 a run or the report failed, 2 usage error, 130 or
143 interrupted.

Examples:

	evolve ablate --config examples/ablation.yaml
	evolve ablate --config examples/ablation.yaml --parallel 8 --json > table.json
	evolve ablate --resume ablations/example`,
	SetFlags: ablateFlags,
	Run:      runAblate,
}

// ablateFlagValues are the flags of evolve ablate.
type ablateFlagValues struct {
	config, resume string
	parallel       int
	json, quiet    bool
}

// ablateFlags defines the flags of evolve ablate on fs.
func ablateFlags(fs *flag.FlagSet) any {
	o := new(ablateFlagValues)
	fs.StringVar(&o.config, "config", "", "ablation config `FILE` (YAML; see examples/ablation.yaml)")
	fs.StringVar(&o.resume, "resume", "", "continue the ablation in `DIR` with the config it records")
	fs.IntVar(&o.parallel, "parallel", 0, "play at most `N` runs at once (default: the config's parallel, 0 = GOMAXPROCS)")
	fs.BoolVar(&o.json, "json", false, "print the report's tables as JSON (summary.json) instead of text")
	fs.BoolVar(&o.quiet, "quiet", false, "no line per run on stderr")
	return o
}

// runAblate runs evolve ablate: load the config, run or resume every run,
// write the tables and the report, print the table.
func runAblate(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*ablateFlagValues)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if (o.config == "") == (o.resume == "") {
		return usagef("want exactly one of --config FILE and --resume DIR")
	}
	if o.parallel < 0 {
		return usagef("--parallel must be >= 0 (0 = the config's), got %d", o.parallel)
	}
	var (
		cfg *ablate.Config
		err error
	)
	if o.config != "" {
		cfg, err = ablate.Load(o.config)
	} else {
		cfg, err = ablate.Resume(o.resume)
		if err == nil && filepath.Clean(cfg.Dir()) != filepath.Clean(o.resume) {
			// The recorded output is relative to where the ablation started.
			cfg.Output, cfg.Name = filepath.Dir(filepath.Clean(o.resume)), filepath.Base(filepath.Clean(o.resume))
		}
	}
	if err != nil {
		return err
	}
	lock, err := ablate.Open(cfg)
	if err != nil {
		return err
	}
	defer lock.Close()
	logw := cmd.Stderr
	if o.quiet {
		logw = io.Discard
	}
	opt := ablate.Options{Parallel: o.parallel, Version: Version(), RunReport: reportHook, Logger: slog.New(slog.NewTextHandler(logw, nil))}
	outs, err := ablate.Run(ctx, cfg, opt)
	if errors.Is(err, experiment.ErrInterrupted) || errors.Is(err, context.Canceled) {
		return &exitError{code: interruptCode(ctx), err: fmt.Errorf("%w; continue with: evolve ablate --resume %s", err, cfg.Dir())}
	}
	if err != nil {
		return err
	}
	if err := ablate.Write(cfg, outs); err != nil {
		return err
	}
	sum, err := ablate.WriteReport(cfg, outs, nil)
	if err != nil {
		return err
	}
	if o.json {
		data, err := ablate.JSON(sum)
		if err != nil {
			return err
		}
		_, err = cmd.Stdout.Write(data)
		return err
	}
	w := tabwriter.NewWriter(cmd.Stdout, 2, 8, 2, ' ', 0)
	for _, e := range sum.Environments {
		fmt.Fprintf(w, "%s (budget %d episodes)\nproposer\truns\tfinal test mean [95%% CI]\tIQM [95%% CI]\tbase test mean\tepisodes used\n", e.Name, e.Budget)
		for _, p := range e.Proposers {
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%.1f\t%.0f\n", p.Proposer, p.Runs, p.FinalTest.Format(1), p.IQM.Format(1), p.BaseTest, p.Episodes)
		}
		for _, pr := range e.Improvement {
			fmt.Fprintf(w, "P(%s > %s)\t%s\n", pr.X, pr.Y, pr.P.Format(3))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "across environments (normalised)\nproposer\tIQM [95% CI]\tmean [95% CI]")
	for _, a := range sum.Aggregate {
		fmt.Fprintf(w, "%s\t%s\t%s\n", a.Proposer, a.IQM.Format(3), a.Mean.Format(3))
	}
	w.Flush()
	fmt.Fprintf(cmd.Stdout, "\nablation directory: %s\nreport: %s\n", cfg.Dir(), filepath.Join(cfg.Dir(), ablate.ReportFile))
	return nil
}
