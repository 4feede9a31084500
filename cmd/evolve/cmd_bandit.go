package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"evolve/bandit"
)

// cmdBandit is evolve bandit simulate.
var cmdBandit = &Command{
	UsageLine: "evolve bandit simulate [--requests N] [--repeats R] [--epsilon E] [--seed S] [--out DIR] [--workers W]",
	Short:     "simulate online selection on the dungeon: regret of epsilon-greedy, UCB1, Thompson; auto-rollback",
	Long: `
An offline study of online selection (what 'evolve serve' does live) on
the built-in dungeon, where every answer can be checked against the truth.

A request arrives in a context: one of four dungeon configurations
(standard; short: max_turns 600; shallow: max_depth 4; impatient:
no_progress_turns 60), each mapped to the signals time_pressure,
goal_near and stall_risk in [0, 1]. A policy picks one of four prompt
versions (the base prompt v1.0.0; v1.0.5, evolved on the standard dungeon;
explorer; sprinter), each with hand-set context_weights. The chosen
version plays the request's episode (a seed of the embedded test split),
and its reward is the episode's score divided by the context's highest
score, in [0, 1]. Every version is first played in every context on every
seed of the pool (--pool), so all policies see the same episodes on the
same request streams (common random numbers), --repeats streams of
--requests requests each.

Policies:

	seed-egreedy     the seed: epsilon-greedy on 0.5 EMA weight + 0.5 context fit,
	                 one weight per version for all contexts (package online)
	egreedy-context  epsilon-greedy on sample means, per context (Sutton & Barto 2018)
	ucb1             UCB1 per context (Auer, Cesa-Bianchi & Fischer 2002)
	thompson         Thompson sampling per context, Beta priors (Agrawal & Goyal 2012)
	uniform          a random version
	oracle           the best version of each context (zero regret: a check)

Regret is pseudo-regret: the context's best mean reward minus the chosen
version's, summed over requests. The summary gives each policy's final
cumulative regret, mean over the streams with a 95% Student-t CI, and its
paired difference to the seed's on the same streams. Which policy wins
depends on the horizon: try --requests 2000 and --requests 20000.

The rollback study watches v1.0.5's rewards with the auto-rollback rule
(online.DefaultRollbackRule) over --trials seeded trials per shift, the
scores lowered by 0, 0.5, 1 and 2 standard deviations after a change
point: false rollbacks (shift 0), detections within the rule's window,
and the delay to detection (median, 95th percentile).

DIR receives (it is created; it must not hold these files already):

	rewards.parquet   every episode: context, version, seed, score, reward, end_reason
	regret.parquet    every request: policy, repeat, t, context, seed, version,
	                  reward, regret, cumulative_regret
	summary.md        every table and the methods; summary.csv one line per policy
	rollback.csv      the rollback study, one line per shift
	signals.yaml      the study's signal table (time_pressure, goal_near,
	                  stall_risk): copy it into a prompt store, or pass it
	                  to 'evolve serve --signals', to serve these signals
	regret.png, .svg  mean cumulative regret by request with 95% CI bands

The outputs are a function of the flags other than --workers: the same
flags give byte-identical files. Progress goes to stderr, the tables to
stdout.

Exit status: 0 ok, 1 failure (DIR holds outputs already, I/O), 2 usage
error, 130/143 interrupted.

Examples:

	evolve bandit simulate                                 # the default study, a few seconds
	evolve bandit simulate --requests 20000 --repeats 20 --out bandit-long
	evolve bandit simulate --epsilon 0.05 --seed 7 --out bandit-eps05
	duckdb -c "SELECT policy, avg(cumulative_regret) FROM 'bandit-sim/regret.parquet' WHERE t = 10000 GROUP BY ALL"`,
	SetFlags: banditFlags,
	Run:      runBandit,
}

// banditFlagValues are the flags of evolve bandit.
type banditFlagValues struct {
	requests int
	repeats  int
	epsilon  float64
	alpha    float64
	seed     string
	pool     int
	trials   int
	out      string
	workers  int
	quiet    bool
}

// banditFlags defines the flags of evolve bandit on fs.
func banditFlags(fs *flag.FlagSet) any {
	f := new(banditFlagValues)
	def := bandit.DefaultConfig()
	fs.IntVar(&f.requests, "requests", def.Requests, "requests per stream, `N` >= 1")
	fs.IntVar(&f.repeats, "repeats", def.Repeats, "independent streams `R` >= 2 (the CIs are over them)")
	fs.Float64Var(&f.epsilon, "epsilon", def.Epsilon, "exploration probability `E` in [0, 1] of the epsilon-greedy policies")
	fs.Float64Var(&f.alpha, "alpha", def.Alpha, "EMA smoothing factor `A` in (0, 1] of the seed's weights")
	fs.StringVar(&f.seed, "seed", strconv.FormatUint(def.Seed, 10), "seed `S` of every random stream, an unsigned 64-bit integer (decimal or 0x hex)")
	fs.IntVar(&f.pool, "pool", def.Pool, "episode seeds `P` in [1, 1000]: the first P of the embedded test split")
	fs.IntVar(&f.trials, "trials", def.Rollback.Trials, "rollback study trials `T` >= 1 per shift")
	fs.StringVar(&f.out, "out", "bandit-sim", "write the study into `DIR`")
	fs.IntVar(&f.workers, "workers", 0, "play episodes and simulate streams `W` at a time (0 = GOMAXPROCS); the outputs do not depend on it")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	return f
}

// runBandit is evolve bandit.
func runBandit(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*banditFlagValues)
	if len(args) == 0 || args[0] != "simulate" {
		return usagef("want the subcommand simulate (evolve bandit simulate [flags])")
	}
	if len(args) > 1 {
		return usagef("unexpected argument %q (simulate takes only flags)", args[1])
	}
	s, err := strconv.ParseUint(f.seed, 0, 64)
	if err != nil {
		return usagef("--seed must be an unsigned 64-bit integer (decimal or 0x hex), got %q", f.seed)
	}
	switch {
	case f.requests < 1:
		return usagef("--requests must be >= 1, got %d", f.requests)
	case f.repeats < 2:
		return usagef("--repeats must be >= 2 (a CI needs two streams), got %d", f.repeats)
	case !(f.epsilon >= 0 && f.epsilon <= 1):
		return usagef("--epsilon must be in [0, 1], got %v", f.epsilon)
	case !(f.alpha > 0 && f.alpha <= 1):
		return usagef("--alpha must be in (0, 1], got %v", f.alpha)
	case f.pool < 1 || f.pool > 1000:
		return usagef("--pool must be in [1, 1000] (the embedded test split's seeds), got %d", f.pool)
	case f.trials < 1:
		return usagef("--trials must be >= 1, got %d", f.trials)
	case f.workers < 0:
		return usagef("--workers must be >= 0 (0 = GOMAXPROCS), got %d", f.workers)
	}
	cfg := bandit.DefaultConfig()
	cfg.Requests, cfg.Repeats, cfg.Epsilon, cfg.Alpha, cfg.Seed, cfg.Pool, cfg.Workers = f.requests, f.repeats, f.epsilon, f.alpha, s, f.pool, f.workers
	cfg.Rollback.Trials = f.trials
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := checkOutDir(f.out); err != nil {
		return err
	}
	var progress bandit.Progress
	if !f.quiet {
		fmt.Fprintf(cmd.Stderr, "bandit simulate: seed %d; %d episodes (%d contexts x %d versions x %d seeds); %d policies x %d streams x %d requests; rollback %d shifts x %d trials\n",
			s, len(cfg.Contexts)*len(cfg.Versions)*cfg.Pool, len(cfg.Contexts), len(cfg.Versions), cfg.Pool,
			len(cfg.Policies), cfg.Repeats, cfg.Requests, len(cfg.Rollback.Shifts), cfg.Rollback.Trials)
		progress = quarters(cmd.Stderr)
	}
	res, err := bandit.Run(ctx, cfg, progress)
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: interruptCode(ctx), err: fmt.Errorf("interrupted: nothing was written")}
		}
		return err
	}
	if err := bandit.WriteDir(f.out, res); err != nil {
		return err
	}
	printBandit(cmd.Stdout, res)
	fmt.Fprintf(cmd.Stdout, "\nwrote %s: %s\n", f.out, strings.Join(bandit.Files(), ", "))
	return nil
}

// checkOutDir refuses an output directory that holds a study's files
// already, before any work.
func checkOutDir(dir string) error {
	for _, f := range bandit.Files() {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("--out %s holds %s already: choose another directory (nothing is overwritten)", dir, f)
		}
	}
	return nil
}

// quarters returns a progress function that logs each phase's start and
// every further quarter of it to w.
func quarters(w io.Writer) bandit.Progress {
	last := map[string]int{}
	return func(phase string, done, total int) {
		q := 4 * done / total
		if prev, ok := last[phase]; ok && q == prev {
			return
		}
		last[phase] = q
		fmt.Fprintf(w, "bandit simulate: %-8s %d/%d\n", phase, done, total)
	}
}

// printBandit prints the policies' final regret and the rollback study
// as aligned tables.
func printBandit(w io.Writer, res *bandit.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "policy\tregret after %d\t95%% CI\tvs seed-egreedy\t95%% CI\tbest chosen\tmean reward\n", res.Config.Requests)
	for _, s := range res.Summaries {
		vs, vsci := "-", "-"
		if s.VsSeed.N > 0 && s.Policy != bandit.PolicySeed {
			vs, vsci = fmt.Sprintf("%+.1f", s.VsSeed.Mean), fmt.Sprintf("[%+.1f, %+.1f]", s.VsSeed.CILow, s.VsSeed.CIHigh)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t[%.1f, %.1f]\t%s\t%s\t%.1f%%\t%.3f\n", s.Policy, s.Final.Mean, s.Final.CILow, s.Final.CIHigh, vs, vsci, 100*s.OptimalShare, s.MeanReward)
	}
	tw.Flush()
	rb := &res.Rollback
	fmt.Fprintf(w, "\nauto-rollback of %s (rewards: mean %.3f, sigma %.3f; rule: baseline %d, window %d, K %g; %d trials per shift):\n",
		rb.Config.Version, rb.Mean, rb.SD, rb.Config.Rule.Baseline, rb.Config.Rule.Window, rb.Config.Rule.K, rb.Config.Trials)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "shift\tfalse rollbacks\tdetected within %d\tdelay median\tdelay p95\n", rb.Config.Rule.DetectionWindow())
	for _, sc := range rb.Scenarios {
		r := sc.Result
		det, med, p95 := "-", "-", "-"
		if sc.Shift > 0 {
			det = fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*r.DetectionRate(), 100*sc.DetectionCI[0], 100*sc.DetectionCI[1])
			if len(r.Delays) > 0 {
				med, p95 = strconv.Itoa(r.DelayQuantile(0.5)), strconv.Itoa(r.DelayQuantile(0.95))
			}
		}
		fmt.Fprintf(tw, "%g sigma\t%.2f%% [%.2f, %.2f]\t%s\t%s\t%s\n", sc.Shift, 100*r.FalseRate(), 100*sc.FalseCI[0], 100*sc.FalseCI[1], det, med, p95)
	}
	tw.Flush()
}
