package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"evolve/cache"
	"evolve/cmd/evolve/internal/progress"
	"evolve/eval"
	"evolve/experiment"
	"evolve/gate"
	"evolve/internal/atomicfile"
	"evolve/internal/format"
	"evolve/stats"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// cmdEval is evolve eval.
var cmdEval = &Command{
	UsageLine: "evolve eval [flags] PROMPT...",
	Short:     "play fixed prompt versions on a seed split and gate on regressions (CI)",
	Long: `
Play each PROMPT on a split of the config's seed sets (--split test by
default) or on a seed file (--seeds), --repeats times per seed, with the
parallel deterministic runner of 'evolve run', and write an eval directory
<out>/<name>-eval-<hash>/ (or --dir DIR): manifest.yaml, checkpoint.json,
prompts/ (each version's file), episodes.parquet (the schema of a run's,
with variant and repeat), summary.parquet (n, mean, std, median, IQM and
95% CIs per version and variant), comparisons.parquet (every comparison
with the baseline: both one-sided p-values, effect sizes, the verdict),
report.md, report.html, results.tex (a booktabs table for a paper) and
plots/ (a box plot of the scores, PNG, SVG and PDF). A seed file (--seeds) is recorded
as split test, with its path and hash in the manifest; it is a regular
file, a pipe or - (standard input) of at most 256 MiB, with lines of at
most 1 MiB.

A PROMPT is a prompt YAML file ("embedded" for the embedded base prompt),
RUN_DIR:VERSION (a version of a run's prompt store), or, with --store DIR,
SLUG, SLUG@BRANCH or SLUG@vX.Y.Z.

Each version is compared, within each environment variant, with the
baseline: the first PROMPT, or with --baseline PATH an earlier eval
(its directory or episodes.parquet; --baseline-version picks its version,
by default its first). A baseline eval directory must have played the same
environment configuration per variant and the same seeds, and the
baseline every (seed, repeat) a candidate plays, with the same repeats and
agent; anything else is refused before anything is played. Pairing is on the (seed, repeat)s both sides played;
--max-unmatched N refuses a paired check with more than N candidate
observations the baseline lacks (default 0; -1: no limit).

Hypotheses (--hypothesis), each one-sided, per version and variant:

	regression (default)  H0: the version is not worse than the baseline
	                      beyond the margin. It FAILS on evidence of a loss
	                      beyond the margin (p < --alpha). Passing is NOT
	                      evidence of non-inferiority: the output quotes the
	                      power to fail a version truly worse by twice the
	                      margin (half the baseline's SD without a margin).
	non-inferiority       H0: the version is worse by at least the margin.
	                      It PASSES only when H0 is rejected at --alpha:
	                      passing is evidence of non-inferiority. Needs
	                      --margin or --margin-a12.

The margin: --margin D in score units, on a location shift (--margin-on
shift, the default: the Wilcoxon signed-rank test of the differences
(x - y) + D paired by seed and repeat, else Mann-Whitney U of x + D vs y;
R's wilcox.test(x, y, mu = -D); --test) or on the mean (--margin-on mean:
the paired t test, Welch's t unpaired, or --test bootstrap-t for skewed
scores). A shift ignores rare large losses; the mean does not.
--margin-a12 M: the studentized permutation test (Pauly, Asendorf and
Konietschke 2016) of A12 = P(version > baseline) + ties/2 against 0.5 - M,
with the Brunner-Munzel statistic on the logit scale (valid under unequal
distributions; size held from 10 seeds a side).

The family is every (variant x version) check of the eval; its p-values
are adjusted by --correction: holm (default), hochberg, bonferroni,
none-per-variant (Holm within each variant only: the error rate grows
with the variants) or none. The output states the family.

--max-failure-increase P (a share in [0, 1), e.g. 0.05 = 5 points) adds a
failure-share check per version and variant: H0: the version's share of
failed episodes (cause not none; error episodes count) exceeds the
baseline's by at most P. It FAILS on evidence of a larger increase
(catching rare catastrophic losses a shift ignores): paired by seed and
repeat, the exact McNemar test (P = 0) or the exact unconditional score
test of Hsueh, Liu and Chen 2001 (P > 0); unpaired, the exact
unconditional score test of Chan 1998 (Barnard's at P = 0). These checks
form their own family, adjusted by --correction (docs/statistics.md).

Each version is also tested for an improvement (the same test with the
roles swapped, no margin, adjusted alike): a version significantly better
is reported as an improvement, never as a failure.

Variants: a config's variants: list ({name, params} overriding
environment.params), or --set environment.params.KEY=V1,V2 (repeatable;
every combination is a variant).

Outcomes are cached by (environment and its config, seed, prompt content
hash, evolve's episode semantics) as each is played: a rerun, a resume
after Ctrl-C, or main's baseline in CI plays nothing it has played before
(--cache DIR, default the user cache dir's evolve/episodes; --no-cache).
Error episodes are never cached. An entry is trusted like an episode just
played: share a cache only among jobs trusted to write it, or set
$EVOLVE_CACHE_HMAC_KEY (a secret of at least 32 bytes) in every job that
reads or writes it, so that only entries with a valid HMAC-SHA256 under
that secret are used (docs/ci.md). Only regular files of at most 64 MiB
are read; anything else is a miss and is removed. An entry that is
damaged, or that this evolve cannot read, is logged ("episode cache entry
refused", with its path and why), played again and replaced.

Trajectories: by the config's trajectories policy (failed by default: every
episode whose cause is not none; all; none) the eval keeps episodes'
trajectories in trajectories/SPLIT[/VARIANT]/LABEL.zip (see 'evolve run
--help'); the outcome cache keeps those the policy keeps, byte for byte in
the environment's format (JSON, an LLM transcript, asciicast v2 for
NetHack), so a cached episode shows the trajectory it was played with.
An episode cached without the trajectory the policy now keeps (cached
under trajectories: none, say) is played again for it. 'evolve view'
replays them.

With a language model as the agent (the config's agent: {kind: llm, ...};
see docs/llm.md) every variant plays through one client, with
agent.llm.concurrency episodes at once unless --workers is given. The
outcome cache keys on the agent's settings too, and the model's replies
are kept in its response cache (agent.cache_dir), so an eval of the same
versions with --no-cache replays every reply and makes no request.
--llm-cache off|read|readwrite overrides agent.cache for this process
(read: replay only, nothing is sent, a missing reply is an error), as
'evolve run --cache' does. --resume DIR continues with the eval's
own prompts, seeds, variants and gate (--baseline, --margin, --alpha,
--test, --fail-on-regression, --max-failure-increase, recorded when the eval starts: a resume that
gives other values is refused) and its --junit file unless another is
given; give the cache flags again (the interrupt message prints the whole
command). The outputs are written before the eval counts as finished, with
its verdict in checkpoint.json: --resume of a finished eval plays nothing,
writes any missing output, the JUnit file and the step summary again, and
exits with the verdict's status (3 for a regression under
--fail-on-regression). An eval stopped before its first checkpoint is
taken over by the same command again.

A phase (a version on a variant) whose language model took the fallback
action on more than agent.max_fallback_rate of its turns, or that recorded
more than max_error_rate of its episodes as errors (on_episode_panic:
record), stops the eval with exit 1: a failed measurement, not a
regression. The summary, report.md, the JUnit file and the verdict show
each version's shares of error episodes, fallback turns and unusable
replies (for a language model, or when an episode was an error).

Where episodes are played never changes a result. --executor slurm (or the
config's executor: {kind: slurm, ...}) hands each phase to a Slurm cluster
as one job array of 'evolve shard' tasks under the eval directory's
slurm/, as 'evolve run --executor slurm' does (docs/slurm.md): the eval
directory, the working directory and the evolve binary must be on a
filesystem the nodes share. The outcome cache is read before a phase is
submitted and written when its shards are merged; --resume reuses the
finished shards and re-attaches to jobs still queued. The tables are those
of a local eval; manifest.yaml lists the jobs.

Exit status: 0 ok; 1 failure; 2 bad command line; 3 --fail-on-regression
and a check failed (regressed, or was not shown non-inferior); 130/143 interrupted (resume with --resume DIR).

Outputs CI systems read: --junit FILE (a test case per version and variant,
failed on regression, with the numbers), --json (the comparisons), and a
Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set.

Examples:

	evolve eval --split test embedded
	evolve eval runs/default-1275011f00:v1.0.0 runs/default-1275011f00:v1.0.5
	evolve eval --config exp.yaml --repeats 3 --set environment.params.max_turns=1000,3000 a.yaml b.yaml
	evolve eval --baseline main-eval/ --fail-on-regression --margin 25 --junit junit.xml pr.yaml
	evolve eval --resume evals/default-eval-1a2b3c4d5e`,
	SetFlags: evalFlags,
	Run:      runEval,
}

// evalFlagValues are the flags of evolve eval.
type evalFlagValues struct {
	sets            listFlag
	config          string
	split           string
	seedsFile       string
	repeats         int
	storeDir        string
	out             string
	dir             string
	resume          string
	workers         int
	baseline        string
	baselineVersion string
	failOn          bool
	margin          float64
	marginA12       float64
	alpha           float64
	test            string
	hypothesis      string
	marginOn        string
	correction      string
	maxFailInc      float64
	maxUnmatched    int
	junit           string
	jsonOut         bool
	cacheDir        string
	noCache         bool
	llmCache        string
	baseURL         string
	executor        string
	quiet           bool
	logFormat       string
}

// evalFlags defines the flags of evolve eval on fs.
func evalFlags(fs *flag.FlagSet) any {
	f := new(evalFlagValues)
	fs.StringVar(&f.config, "config", "", "experiment config `FILE`: environment, variants, seed sets, workers (default: the embedded default)")
	fs.StringVar(&f.split, "split", "test", "the seed `SPLIT` to play: test, val or train")
	fs.StringVar(&f.seedsFile, "seeds", "", "play the seeds of `FILE` (one per line; - for standard input) instead of a split")
	fs.IntVar(&f.repeats, "repeats", 1, "play each seed `N` times, repeat r from a seed derived from (seed, r)")
	fs.Var(&f.sets, "set", "a variant parameter `environment.params.KEY=V1,V2,...` (repeatable; every combination is a variant)")
	fs.StringVar(&f.storeDir, "store", "", "prompt store `DIR` for SLUG@REF arguments")
	fs.StringVar(&f.out, "out", "evals", "create the eval directory under `DIR`")
	fs.StringVar(&f.dir, "dir", "", "write the eval directory exactly at `DIR` (new or empty; for CI scripts)")
	fs.StringVar(&f.resume, "resume", "", "continue the interrupted eval in `DIR`")
	fs.IntVar(&f.workers, "workers", 0, "play at most `N` episodes at once (default: the config's)")
	fs.StringVar(&f.baseline, "baseline", "", "compare with the eval in `PATH` (its directory or episodes.parquet) instead of the first PROMPT")
	fs.StringVar(&f.baselineVersion, "baseline-version", "", "the `VERSION` of --baseline to compare with (default: its first)")
	fs.BoolVar(&f.failOn, "fail-on-regression", false, "exit 3 when a check fails (either --hypothesis)")
	fs.Float64Var(&f.margin, "margin", 0, "margin `D` in score units (a shift, or a mean with --margin-on mean)")
	fs.Float64Var(&f.marginA12, "margin-a12", 0, "margin `M` in A12 units, in [0, 0.5): studentized permutation test (Brunner-Munzel statistic) against A12 = 0.5 - M")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "family-wise significance level `A`")
	fs.StringVar(&f.test, "test", "auto", "the `TEST`: auto (signed-rank when paired by seed, else mwu), mwu, signed-rank, or bootstrap-t (with --margin-on mean)")
	fs.StringVar(&f.hypothesis, "hypothesis", gate.HypothesisRegression, "`regression` (fail on evidence of a loss beyond the margin) or non-inferiority (pass only on evidence of no loss beyond it)")
	fs.StringVar(&f.marginOn, "margin-on", gate.MarginOnShift, "scale of --margin: `shift` (rank tests) or mean (t tests)")
	fs.StringVar(&f.correction, "correction", gate.CorrectionHolm, "adjustment over every check of the eval: `holm`, hochberg, bonferroni, none-per-variant or none")
	fs.Float64Var(&f.maxFailInc, "max-failure-increase", 0, "also fail on evidence that the share of failed episodes rose by more than `P` (a share in [0, 1); off unless given)")
	fs.IntVar(&f.maxUnmatched, "max-unmatched", 0, "refuse a paired check with more than `N` candidate observations the baseline lacks (-1: no limit)")
	fs.StringVar(&f.junit, "junit", "", "write JUnit XML to `FILE`")
	fs.BoolVar(&f.jsonOut, "json", false, "print the comparisons as JSON on stdout")
	fs.StringVar(&f.cacheDir, "cache", "", "outcome cache `DIR` (default: the user cache dir's evolve/episodes)")
	fs.BoolVar(&f.noCache, "no-cache", false, "play every episode; read and write no outcome cache")
	fs.StringVar(&f.llmCache, "llm-cache", "", "the language-model agent's response cache `MODE`: off, read (replay only, no requests) or readwrite (default: the config's agent.cache)")
	fs.StringVar(&f.baseURL, "base-url", "", "reach the language model at `URL` instead of the config's agent.llm.base_url (not part of the eval's identity)")
	fs.StringVar(&f.executor, "executor", "", "play episodes on `local` (this machine) or slurm (a Slurm cluster; see docs/slurm.md) (default: the config's executor.kind; on --resume, the eval's)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live bars and no per-phase lines")
	fs.StringVar(&f.logFormat, "log-format", "text", "`FORMAT` of the progress log on stderr: text or json")
	return f
}

// runEval is evolve eval: it checks the command line, opens the outcome
// cache, plays (or resumes) the eval and emits its verdict.
func runEval(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*evalFlagValues)
	gcfg, err := checkEvalArgs(cmd, args)
	if err != nil {
		return err
	}
	disp, err := progress.New(cmd.Stderr, progress.Options{Quiet: f.quiet, Format: f.logFormat})
	if err != nil {
		return usagef("%v", err)
	}
	given := cmd.given()
	opt := eval.Options{Split: f.split, SeedsFile: f.seedsFile, Repeats: f.repeats, Sets: f.sets, Out: f.out, Dir: f.dir,
		Workers: f.workers, Observer: disp, Version: Version(), LLMCache: f.llmCache, LLMBaseURL: f.baseURL, JUnit: f.junit,
		Executor: f.executor, Logger: disp.Logger(),
		Gate: eval.GateSettings{Baseline: f.baseline, BaselineVersion: f.baselineVersion, Config: gcfg, FailOnRegression: f.failOn}}
	if given["max-failure-increase"] {
		opt.Gate.MaxFailureIncrease = &f.maxFailInc
	}
	for _, name := range []string{"baseline", "baseline-version", "fail-on-regression", "margin", "margin-a12", "alpha", "test",
		"hypothesis", "margin-on", "correction", "max-unmatched", "max-failure-increase"} {
		opt.GateGiven = opt.GateGiven || given[name]
	}
	if !f.noCache {
		if opt.Cache, err = openEvalCache(f.cacheDir, disp.Logger()); err != nil {
			return err
		}
	}
	res, err := playEval(ctx, f, args, opt)
	disp.Close()
	var ie *eval.InterruptedError
	if errors.As(err, &ie) {
		kept := "the episodes played are in the outcome cache"
		if opt.Cache == nil {
			kept = "with --no-cache the episodes of unfinished phases are played again"
		}
		return &exitError{code: interruptCode(ctx), err: fmt.Errorf("%v; %s; resume with: %s", err, kept, evalResumeHint(cmd, ie.Dir))}
	}
	if err != nil {
		return err
	}
	if opt.Cache != nil {
		st := opt.Cache.Stats()
		disp.Logger().Info("eval done", "dir", res.Dir, "played", res.Played, "cached", res.Cached, "cache_corrupt", st.Corrupt,
			"cache_old_format", st.OldFormat, "replayed_for_trajectory", res.Rerecorded)
	}
	if res.LLM != nil {
		disp.Logger().Info("model calls", "calls", res.LLM.Calls, "requests", res.LLM.Requests, "cache_hits", res.LLM.CacheHits,
			"prompt_tokens", res.LLM.PromptTokens, "completion_tokens", res.LLM.CompletionTokens)
	}
	return emitEval(cmd, res, f.jsonOut)
}

// checkEvalArgs checks the command line of evolve eval before anything is
// read or played, and returns the gate's configuration. Its errors are
// usage errors, but for a --baseline that is not an eval and a --junit
// or $GITHUB_STEP_SUMMARY file whose directory does not exist.
func checkEvalArgs(cmd *Command, args []string) (gate.Config, error) {
	f := cmd.Flags.(*evalFlagValues)
	given := cmd.given()
	if f.resume == "" && len(args) == 0 {
		return gate.Config{}, usagef("no PROMPT to evaluate")
	}
	if f.resume != "" {
		if len(args) > 0 {
			return gate.Config{}, usagef("--resume continues an eval with its own prompts; give no PROMPT")
		}
		for _, name := range []string{"config", "split", "seeds", "repeats", "set", "store", "out", "dir"} {
			if given[name] {
				return gate.Config{}, usagef("--%s cannot be used with --resume (the eval continues with its own settings; give only the gate, cache and output flags)", name)
			}
		}
	}
	if err := checkEvalFlags(f, given); err != nil {
		return gate.Config{}, err
	}
	gcfg := gate.Config{Alpha: f.alpha, Test: stats.TestName(f.test), Margin: f.margin, MarginA12: f.marginA12,
		Hypothesis: f.hypothesis, MarginOn: f.marginOn, Correction: f.correction, MaxUnmatched: f.maxUnmatched}
	if err := gcfg.Validate(); err != nil {
		return gate.Config{}, usagef("%v", err)
	}
	if f.baseline != "" {
		if err := eval.CheckBaselinePath(f.baseline); err != nil {
			return gate.Config{}, err
		}
	}
	for _, p := range []struct{ flag, path string }{{"--junit", f.junit}, {"$GITHUB_STEP_SUMMARY", os.Getenv("GITHUB_STEP_SUMMARY")}} {
		if p.path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(p.path)); err != nil || !st.IsDir() {
			return gate.Config{}, fmt.Errorf("%s %s: its directory does not exist", p.flag, p.path)
		}
	}
	return gcfg, nil
}

// checkEvalFlags returns a usage error naming the first flag of evolve
// eval out of its range or contradicting another; given holds the flags
// the command line set.
func checkEvalFlags(f *evalFlagValues, given map[string]bool) error {
	switch {
	case f.repeats < 1:
		return usagef("--repeats must be >= 1, got %d", f.repeats)
	case f.workers < 0:
		return usagef("--workers must be >= 0 (0 = the config's), got %d", f.workers)
	case f.margin < 0:
		return usagef("--margin must be >= 0, got %v", f.margin)
	case f.marginA12 < 0 || f.marginA12 >= 0.5:
		return usagef("--margin-a12 must be in [0, 0.5), got %v", f.marginA12)
	case f.margin > 0 && f.marginA12 > 0:
		return usagef("--margin and --margin-a12 cannot both be given: a regression is measured in score units or in A12, not both")
	case stats.CheckAlpha(f.alpha) != nil:
		return usagef("--%v", stats.CheckAlpha(f.alpha))
	case given["seeds"] && given["split"]:
		return usagef("--seeds plays a seed file (recorded as split test); --split cannot be used with it")
	case given["dir"] && given["out"]:
		return usagef("--dir names the eval directory itself; --out cannot be used with it")
	case given["cache"] && f.noCache:
		return usagef("--cache and --no-cache cannot both be given")
	case f.llmCache != "" && f.llmCache != "off" && f.llmCache != "read" && f.llmCache != "readwrite":
		return usagef("--llm-cache must be off, read or readwrite, got %q", f.llmCache)
	case given["max-failure-increase"] && !(f.maxFailInc >= 0 && f.maxFailInc < 1):
		return usagef("--max-failure-increase must be a share in [0, 1) (0.05 = 5 percentage points), got %v", f.maxFailInc)
	case f.executor != "" && f.executor != "local" && f.executor != "slurm":
		return usagef("--executor must be local or slurm, got %q", f.executor)
	case given["baseline-version"] && f.baseline == "":
		return usagef("--baseline-version picks a version of --baseline; give --baseline too")
	}
	return nil
}

// evalResumeHint is the command that resumes the eval in dir: evolve eval
// --resume DIR with every flag of this command line but those a resume
// refuses.
func evalResumeHint(cmd *Command, dir string) string {
	line := []string{"evolve eval --resume " + dir}
	cmd.Flag.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "config", "split", "seeds", "repeats", "set", "store", "out", "dir", "resume":
		default:
			line = append(line, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return strings.Join(line, " ")
}

// openEvalCache opens the outcome cache in dir (default: the user cache
// dir's evolve/episodes), logging to logger, with the HMAC key of
// $EVOLVE_CACHE_HMAC_KEY if it is set.
func openEvalCache(dir string, logger *slog.Logger) (*cache.Cache, error) {
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(); err != nil {
			return nil, err
		}
	}
	c, err := cache.Open(dir)
	if err != nil {
		return nil, err
	}
	c.SetLogger(logger)
	if key := os.Getenv(cache.HMACKeyEnv); key != "" {
		if err := c.SetHMACKey([]byte(key)); err != nil {
			return nil, fmt.Errorf("$%s: %w", cache.HMACKeyEnv, err)
		}
	}
	return c, nil
}

// playEval resumes the eval of --resume, or plays the PROMPTs args name
// under --config's experiment.
func playEval(ctx context.Context, f *evalFlagValues, args []string, opt eval.Options) (*eval.Result, error) {
	if f.resume != "" {
		return eval.Resume(ctx, f.resume, opt)
	}
	cfg := experiment.DefaultConfig()
	if f.config != "" {
		var err error
		if cfg, err = experiment.Load(f.config); err != nil {
			return nil, err
		}
	}
	opt.Config = cfg
	versions, err := eval.ResolvePrompts(args, f.storeDir)
	if err != nil {
		return nil, err
	}
	return eval.Run(ctx, versions, opt)
}

// emitEval writes what CI reads of a finished eval (also of one finished
// before, on --resume): the step summary, the JUnit file, the comparisons
// on stdout (or --json), and returns the verdict's status: exit 3 when the
// eval's gate fails on regression and a version regressed.
func emitEval(cmd *Command, res *eval.Result, jsonOut bool) error {
	checks := res.Verdict.Checks()
	if res.AlreadyFinished {
		fmt.Fprintf(cmd.Stderr, "evolve eval: %s had finished; its verdict follows\n", res.Dir)
	}
	if len(checks) > 0 {
		if err := gate.AppendStepSummary(eval.StepSummary(res)); err != nil {
			return err
		}
	}
	if junit := res.JUnit; junit != "" {
		err := atomicfile.Write(junit, 0o644, func(f *os.File) error { return gate.WriteJUnit(f, "evolve eval "+res.ID, checks) })
		if err != nil {
			return err
		}
	}
	if jsonOut {
		data, err := gate.JSON(checks)
		if err != nil {
			return err
		}
		cmd.Stdout.Write(append(data, '\n'))
	} else {
		printEval(cmd, res)
	}
	if bad := res.Verdict.Regressions(); res.Gate.FailOnRegression && len(bad) > 0 {
		return &exitError{code: exitRegression, err: fmt.Errorf("regression: %s", strings.Join(bad, "; "))}
	}
	return nil
}

// printEval prints the summary table and the comparisons.
func printEval(cmd *Command, res *eval.Result) {
	w := tabwriter.NewWriter(cmd.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "variant\tversion\tn\tmean\t95% CI\tIQM")
	for _, s := range res.Summaries {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1f\t[%.1f, %.1f]\t%.1f\n", orDash(s.Variant), s.Version, s.N, s.Mean, s.CILow, s.CIHigh, s.IQM)
	}
	w.Flush()
	if v := res.Verdict; v != nil && len(v.Health) > 0 {
		fmt.Fprintln(cmd.Stdout, "\nmeasurement:")
		for _, h := range v.Health {
			fmt.Fprintln(cmd.Stdout, "  "+h.String())
		}
	}
	if v := res.Verdict; len(v.Comparisons) > 0 {
		c0 := v.Comparisons[0].Check
		fmt.Fprintf(cmd.Stdout, "\nhypothesis %s; family: %s\n", c0.Hypothesis, c0.Family)
		for _, c := range v.Comparisons {
			msg := c.Check.Message
			if c.Improvement {
				msg += "; IMPROVEMENT: better, p (adj.) = " + format.Plain.P(c.PBetterAdj)
			}
			fmt.Fprintln(cmd.Stdout, msg)
		}
		if len(v.FailureChecks) > 0 {
			fmt.Fprintf(cmd.Stdout, "\nfailure shares (--max-failure-increase %v); family: %s\n", v.FailureChecks[0].Margin, v.FailureChecks[0].Family)
			for _, c := range v.FailureChecks {
				fmt.Fprintln(cmd.Stdout, c.Message)
			}
		}
		fmt.Fprintln(cmd.Stdout, eval.Headline(v))
	}
	fmt.Fprintf(cmd.Stdout, "\neval directory: %s (%d played, %d from the cache)\n", res.Dir, res.Played, res.Cached)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// failWord names a failed check under hypothesis h in the exit message.
func failWord(h string) string {
	if h == gate.HypothesisNonInferiority {
		return "not shown non-inferior"
	}
	return "regression"
}
