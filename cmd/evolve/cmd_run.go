package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"evolve/cmd/evolve/internal/progress"
	"evolve/experiment"
	"evolve/internal/format"
	"evolve/report"
	"evolve/stats"
)

// cmdRun is evolve run.
var cmdRun = &Command{
	UsageLine: "evolve run [--config FILE | --resume RUN_DIR] [--out DIR] [--workers N] [--executor local|slurm] [--quiet|--verbose] [--log-format text|json]",
	Short:     "evolve a prompt: train, propose, gate on val, report on test",
	Long: `
Run an evolution experiment. Without --config it runs the embedded default:
the base prompt v1.0.0 on the built-in dungeon, over the embedded frozen seed
sets (train 200, val 300, test 1000), 4 candidates a generation, one-sided
Mann-Whitney U with Holm correction, alpha 0.05 for the whole run (spent
across generations: generation g at alpha*6/(pi^2 g^2), so the run's chance
of accepting any non-improving candidate is at most 0.05), until a generation
accepts no candidate (or 10 generations). A config file needs only the keys it
changes; 'evolve run --print-config' shows the default with comments, and
'evolve validate FILE' checks a config without running it.

Each generation plays the incumbent on the train seeds, counts its failures
by the causes the environment declares (the dungeon's: injury, combat_loss,
starvation, entrapment), proposes structured mutations from the config's or
the environment's table of remedies, plays every candidate on the val seeds
(as one pool of episodes), and accepts the significant candidate with the
best val mean. With acceptance.sequential (looks: K > 1) a candidate is
tested at K looks on the first k/K of the val seeds and stops early for
efficacy or futility (docs/sequential.md). The final version and the base
are then played on the test seeds; that comparison, not the val means of
the winners, is the unbiased estimate of the improvement. Any program that
speaks the process protocol (docs/protocol.md) is an environment:
environment: {name: process, command: [python3, env.py]}; see 'evolve env
check --help'.

The run directory <out>/<run-id>/ holds manifest.yaml, prompts/ (a
prompt store: one immutable YAML file per version under <slug>/ and
versions.json; see 'evolve prompt --help'), episodes.parquet,
candidates.parquet, generations.parquet, the report (report.md,
report.html, results.tex; see 'evolve report --help') and plots/ (PNG, SVG
and PDF figures). The run ID is the
config's name and a hash of everything that shapes the results, so the same
config and seeds give the same ID and byte-identical Parquet, whatever
--workers is. New prompt versions are stamped with SOURCE_DATE_EPOCH when it
is set (for byte-identical prompt files), else with the current time.

Trajectories: by the config's trajectories policy (failed, the default:
every episode whose cause is not none; all; or none) the run keeps
episodes' trajectories in trajectories/SPLIT/VERSION.zip, one DEFLATE
entry per episode (SEED.json, or SEED.cast for a terminal recording),
byte-identical whatever --workers is. The built-in dungeon records one
byte per step (its seed and actions; 'evolve view' replays the map, the
state and the rewards from them), about 0.3 bytes a step on disk: 2.6 MB
for the default run. Recording never changes a result. 'evolve view'
shows them; 'evolve runs' lists runs.

Stop reason: the summary, the report and manifest.yaml (stop_reason) say
why the loop stopped: patience (that many generations in a row without an
accepted candidate), max_generations, no_failures (the incumbent failed no
train episode), no_candidates (nothing left to propose, with a hint) or
budget (the next generation could exceed budget.episodes, which counts
train and val episodes; manifest.yaml's episodes gives the counts).

Proposer: mutation.proposer chooses who proposes the candidates: failure
(the default: remedies of the train failures), random (uniform over the
parameter schema) or cmaes (CMA-ES over the numeric parameters); the gate,
versions and tables are the same for all (docs/proposers.md).

Interrupting and resuming: the run directory is checkpointed at every
generation boundary (checkpoint.json and the tables so far). Ctrl-C
(SIGINT) or SIGTERM stops starting episodes, discards the unfinished
generation, and exits with 130 or 143, printing the command that resumes
it; a second signal exits at once (everything on disk stays consistent).
'evolve run --resume RUN_DIR' continues a stopped or crashed run (even one
killed with SIGKILL at any moment, or stopped by a full disk) and ends with
the same outputs as a run never interrupted; it refuses a changed config,
seed file or base prompt and names what changed, verifies every version
file the run wrote, and refuses a checkpoint that disagrees with the
prompt store or the tables. Resuming a run that has already finished
prints so and exits 0, so a retry loop or a requeued job can resume
blindly. manifest.yaml keeps the original start time and lists every
session (start, end, generation, and whether it finished, was interrupted
by a signal or crashed).

Where episodes are played never changes a result. By default they are
played here, --workers at a time. With --executor slurm (or executor: {kind:
slurm, ...} in the config) each phase (a version on a split) is cut into
shards of seeds and submitted to a Slurm cluster as one job array of
'evolve shard' tasks; the run directory must be on a filesystem the nodes
share. The controller polls squeue, resubmits a failed or vanished task
(executor.retries times), merges the shards in seed order, and scancels its
jobs on Ctrl-C; --resume re-attaches to jobs still running and reuses
finished shards. The run writes the same Parquet, prompt files and report
tables as a local run; manifest.yaml lists the job IDs and nodes. See
docs/slurm.md.

Progress goes to stderr: live bars with rate and ETA on a terminal, and one
log line per phase and per generation (log/slog, --log-format text or
json). Results go to stdout.

Examples:

	evolve run
	evolve run --config exp.yaml --out /scratch/runs --workers 16
	evolve run --resume runs/default-1275011f00
	evolve run --executor slurm --out /shared/runs
	evolve run --quiet --log-format json 2> run.log
	evolve run --print-config > exp.yaml`,
	SetFlags: runFlags,
	Run:      runRun,
}

// runFlagValues are the flags of evolve run.
type runFlagValues struct {
	config      string
	resume      string
	out         string
	workers     int
	quiet       bool
	logFormat   string
	verbose     bool
	printConfig bool
	executor    string
	llmCache    string
	baseURL     string
}

// runFlags defines the flags of evolve run on fs.
func runFlags(fs *flag.FlagSet) any {
	f := new(runFlagValues)
	fs.StringVar(&f.config, "config", "", "experiment config `FILE` (YAML); default: the embedded default")
	fs.StringVar(&f.resume, "resume", "", "continue the interrupted run in `RUN_DIR` from its last checkpoint")
	fs.StringVar(&f.out, "out", "", "create the run directory under `DIR` (default: the config's output, \"runs\")")
	fs.IntVar(&f.workers, "workers", 0, "play at most `N` episodes at once (default: the config's workers, 0 = GOMAXPROCS)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live bars and no per-phase lines: one line per generation and the final table")
	fs.StringVar(&f.logFormat, "log-format", "text", "format of the progress log on stderr: `text` or json")
	fs.BoolVar(&f.verbose, "verbose", false, "also log the start of every phase")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the default config and exit")
	fs.StringVar(&f.executor, "executor", "", "play episodes on `local` (this machine) or slurm (a Slurm cluster; see docs/slurm.md) (default: the config's executor.kind)")
	fs.StringVar(&f.llmCache, "cache", "", "the language-model agent's response cache `MODE`: off, read (replay only, no requests) or readwrite (default: the config's agent.cache)")
	fs.StringVar(&f.baseURL, "base-url", "", "reach the language model at `URL` instead of the config's agent.llm.base_url (not part of the run ID: a run resumes against a moved endpoint)")
	return f
}

// runRun is evolve run.
func runRun(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*runFlagValues)
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if f.workers < 0 {
		return usagef("--workers must be >= 0 (0 = GOMAXPROCS), got %d", f.workers)
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		return usagef("--log-format must be text or json, got %q", f.logFormat)
	}
	if f.executor != "" && f.executor != "local" && f.executor != "slurm" {
		return usagef("--executor must be local or slurm, got %q", f.executor)
	}
	if f.resume != "" && f.out != "" {
		return usagef("--out cannot be used with --resume (the run continues in its own directory)")
	}
	if f.printConfig {
		_, err := cmd.Stdout.Write(experiment.DefaultYAML())
		return err
	}
	var cfg *experiment.Config
	if f.config != "" {
		var err error
		if cfg, err = experiment.Load(f.config); err != nil {
			return err
		}
	}
	disp, err := progress.New(cmd.Stderr, progress.Options{Quiet: f.quiet, Format: f.logFormat, Verbose: f.verbose})
	if err != nil {
		return usagef("%v", err)
	}
	opt := experiment.Options{Out: f.out, Workers: f.workers, Observer: disp, Version: Version(), Report: reportHook, ReportPlots: true, LLMCache: f.llmCache, LLMBaseURL: f.baseURL, Executor: f.executor, Logger: disp.Logger()}
	var res *experiment.Result
	if f.resume != "" {
		res, err = experiment.Resume(ctx, f.resume, cfg, opt)
	} else {
		if cfg == nil {
			cfg = experiment.DefaultConfig()
		}
		res, err = experiment.Run(ctx, cfg, opt)
	}
	disp.Close()
	if errors.Is(err, experiment.ErrFinished) {
		// Success for a retry loop or a requeued cluster job.
		fmt.Fprintf(cmd.Stdout, "%v\nreport: %s\n", err, filepath.Join(f.resume, report.MarkdownFile))
		return nil
	}
	var ie *experiment.InterruptedError
	if errors.As(err, &ie) {
		disp.Logger().Warn("interrupted", "dir", ie.Dir, "generations_done", ie.Generations,
			"resume", "evolve run --resume "+ie.Dir)
		return &exitError{code: interruptCode(ctx), err: err}
	}
	if err != nil {
		return err
	}
	printSummary(cmd, res)
	return nil
}

// reportHook writes the run's report, plots included (report.Write
// draws report.DefaultFormats, png and svg among them), once its tables
// and manifest are written.
var reportHook = writeReport

// printSummary prints the run's table and where its outputs are.
func printSummary(cmd *Command, res *experiment.Result) {
	w := tabwriter.NewWriter(cmd.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "generation\tincumbent\tval mean\taccepted\tp\tp (adj.)\tA12\tval mean (accepted)\tmutation")
	accepted := map[string]int{}
	for i, c := range res.Candidates {
		if c.Accepted {
			accepted[fmt.Sprint(c.Generation)] = i
		}
	}
	for _, g := range res.Generations {
		i, ok := accepted[fmt.Sprint(g.Generation)]
		if !ok {
			fmt.Fprintf(w, "%d\t%s\t%.1f\t-\t-\t-\t-\t-\t-\n", g.Generation, g.Incumbent, g.ValMean)
			continue
		}
		c := res.Candidates[i]
		fmt.Fprintf(w, "%d\t%s\t%.1f\t%s\t%s\t%s\t%.3f\t%.1f\t%s\n", g.Generation, g.Incumbent, g.ValMean,
			c.Version, format.Plain.P(c.P), format.Plain.P(c.PAdj), c.A12, c.Mean, strings.ReplaceAll(c.Mutation, "\n", " "))
	}
	w.Flush()
	half := func(lo, hi float64) float64 { return (hi - lo) / 2 }
	if res.TestBaseErrors == 0 && res.TestFinalErrors == 0 {
		fmt.Fprintf(cmd.Stdout, "\ntest split (n=%d): base %s mean %.1f ± %.1f (95%% CI); final %s mean %.1f ± %.1f (95%% CI)",
			res.TestFinal.N, res.Base, res.TestBase.Mean, half(res.TestBase.CILow, res.TestBase.CIHigh),
			res.Final, res.TestFinal.Mean, half(res.TestFinal.CILow, res.TestFinal.CIHigh))
	} else {
		// Error episodes are counted beside the means, never averaged in.
		side := func(role, version string, s stats.Summary, errs int) string {
			if s.N == 0 {
				return fmt.Sprintf("%s %s no mean (all %d episodes errors)", role, version, errs)
			}
			return fmt.Sprintf("%s %s mean %.1f ± %.1f (95%% CI, n=%d, %d errors left out)", role, version, s.Mean, half(s.CILow, s.CIHigh), s.N, errs)
		}
		fmt.Fprintf(cmd.Stdout, "\ntest split: %s; %s", side("base", res.Base, res.TestBase, res.TestBaseErrors),
			side("final", res.Final, res.TestFinal, res.TestFinalErrors))
	}
	if res.Final != res.Base && res.TestBase.Mean != 0 && res.TestBase.N > 0 && res.TestFinal.N > 0 {
		fmt.Fprintf(cmd.Stdout, ", %+.1f%%", 100*(res.TestFinal.Mean/res.TestBase.Mean-1))
	}
	if res.StopReason != "" {
		fmt.Fprintf(cmd.Stdout, "\nstopped: %s", res.StopReason)
		if res.StopHint != "" {
			fmt.Fprintf(cmd.Stdout, " (%s)", res.StopHint)
		}
	}
	fmt.Fprintf(cmd.Stdout, "\nrun directory: %s\nreport: %s\n", res.Dir, filepath.Join(res.Dir, report.MarkdownFile))
}
