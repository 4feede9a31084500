package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"evolve/gate"
	"evolve/internal/format"
	"evolve/scores"
	"evolve/stats"
)

// cmdCompare is evolve compare.
var cmdCompare = &Command{
	UsageLine: "evolve compare [flags] BASELINE CANDIDATE...",
	Short:     "compare samples of scores with rank tests, one or many rows (a CI gate)",
	Long: `
Compare a candidate's scores with a baseline's, as benchstat does for
benchmarks: n, median and mean with its 95% CI for each, the difference,
a rank test (Mann-Whitney U, or the Wilcoxon signed-rank test for scores
paired by seed), its p-value and effect sizes.

BASELINE and CANDIDATE are each:

	FILE.txt (any other name)  one number per line; blank lines and # comments skipped
	FILE.csv                   a header row with a "score" column, optionally "seed"
	FILE.parquet               a "score" column (integer or float), optionally "seed"
	RUN_DIR:VERSION            the version's episodes of --split in RUN_DIR/episodes.parquet
	-                          standard input, one number per line (for one sample only)

A file is a regular file or a pipe (a device such as /dev/zero is
refused) of at most 256 MiB, with lines of at most 1 MiB; an input past a
cap is an error naming the file, the line and the cap. A CSV file's UTF-8
byte-order mark is dropped.

Many rows, as benchstat: with several CANDIDATE files, or with --key
COLUMN (CSV files with a key column: a task, an environment, a config),
evolve compare prints one table with a row per candidate and key: both
means, the relative difference, p, the p-value adjusted across all rows
(--correction holm by default; bonferroni, hochberg, bh, by, none, as R's
p.adjust), A12 and the verdict, taken from the adjusted one-sided
p-values. Every candidate must have the baseline's keys and no other.
--json prints the rows as a list (each a comparison as below, with key,
candidate_file, p_adj, p_greater_adj, p_less_adj and correction).

Statistics (all computed as candidate against baseline):

	U              the candidate's Mann-Whitney U statistic: R's W for
	               wilcox.test(candidate, baseline)
	V              the signed-rank statistic of candidate − baseline (R's V
	               for wilcox.test(candidate, baseline, paired = TRUE))
	A12            Vargha-Delaney effect size U/(n1·n2): P(candidate > baseline)
	rank-biserial  2·A12 − 1, in [−1, 1]
	HL shift       Hodges-Lehmann estimate of candidate − baseline, 95% CI;
	               with signed-rank the one-sample estimate (pseudo-median)
	               of the paired differences, R's wilcox.test(candidate,
	               baseline, paired = TRUE, conf.int = TRUE)
	method         --method auto picks the exact distribution for small
	               samples, ties or not (U: n1·n2 <= 2500; signed-rank: <= 50
	               nonzero differences), else the normal approximation with
	               tie correction and (unless --no-continuity) continuity
	               correction. With ties "exact" is the exact permutation
	               distribution of the tied ranks (as R's coin package; R's
	               wilcox.test falls back to the normal approximation). The
	               HL shift's CI is exact only without ties and with both
	               n1, n2 < 50 (as R)

The verdict is "improvement" when a one-sided test (candidate greater) is
significant at --alpha, "regression" when a one-sided test (candidate less)
is, and "no significant difference" otherwise; --alternative only chooses
the p-value reported.

The gate line is the check of 'evolve eval' (package gate) on the two
samples, with its hypothesis (--hypothesis):

	regression (default)  H0: the candidate is not worse than the baseline
	                      beyond --margin. The check FAILS on evidence of a
	                      loss beyond the margin. Passing is NOT evidence of
	                      non-inferiority; the line quotes the power to fail
	                      a candidate truly worse by twice the margin (half
	                      the baseline's SD without a margin).
	non-inferiority       H0: the candidate is worse by at least the margin.
	                      The check PASSES only when H0 is rejected at
	                      --alpha. Needs --margin or --margin-a12.

--margin D is in score units, on a location shift (--margin-on shift: the
rank test of --test on x + D, paired: (x - y) + D, as R's wilcox.test(x, y,
mu = -D)) or on the mean (--margin-on mean: Welch's t, or the paired t with
--test signed-rank). --margin-a12 M tests A12 against 0.5 - M
(studentized permutation test with the Brunner-Munzel statistic). The gate pairs on the seeds both samples played and
refuses more than --max-unmatched unpaired candidate seeds.

--max-failure-increase P (a share in [0, 1)) adds a failure-share check:
H0: the candidate's share of failed episodes (cause not none; error
counts) exceeds the baseline's by at most P; it FAILS on evidence of a
larger increase. Paired by seed: exact McNemar (P = 0) or the exact
unconditional score test of Hsueh, Liu and Chen 2001 (P > 0); unpaired:
the exact unconditional score test of Chan 1998 (Barnard's at P = 0).
It needs causes: RUN_DIR:VERSION, or CSV files with a "cause" column
(none or a failure cause); other inputs are refused. One BASELINE and one
CANDIDATE only.

Exit status:

	0  the comparison ran (whatever the verdict, unless --fail-on-regression)
	1  an input could not be read
	2  bad command line
	3  --fail-on-regression and the gate check (or the failure-share check)
	   failed

JSON output (--json) has the fields test, alternative, method (the method
actually used), alpha, n1 (baseline), n2 (candidate), u, v, n_pairs, p,
a12, rank_biserial, hl_shift, hl_ci_low, hl_ci_high, p_greater, p_less,
verdict, and baseline and candidate summaries (n, mean, median, ci_low,
ci_high), and check (the gate's check: hypothesis, margin_on, family,
failed, power, power_loss, ... as in 'evolve eval --json'; null when the
samples are too small for the gate), and failure_check with
--max-failure-increase (test "failure-increase", failure_method, mean and
baseline_mean the failure shares). v and n_pairs are null for the U
test; hl_* are null for too few observations.

Examples:

	evolve compare base.txt cand.txt
	evolve compare --test signed-rank runs/exp-1:v1.0.0 runs/exp-1:v1.0.5
	evolve compare --split test --json runs/a:v1.0.0 runs/b:v1.2.0
	evolve compare --fail-on-regression --alpha 0.01 main.csv pr.csv
	evolve compare --key task --fail-on-regression main.csv pr.csv   # a row per task, Holm across tasks
	evolve compare main.csv pr-1.csv pr-2.csv                         # a row per candidate`,
	SetFlags: compareFlags,
	Run:      runCompare,
}

// compareFlagValues are the flags of evolve compare.
type compareFlagValues struct {
	test         string
	alt          string
	method       string
	noCont       bool
	alpha        float64
	split        string
	asJSON       bool
	failReg      bool
	hypothesis   string
	margin       float64
	marginOn     string
	marginA12    float64
	maxUnmatched int
	key          string
	maxFailInc   float64
	correction   string
}

// compareFlags defines the flags of evolve compare on fs.
func compareFlags(fs *flag.FlagSet) any {
	f := new(compareFlagValues)
	fs.StringVar(&f.test, "test", "mwu", "the rank test: `mwu` (independent samples) or signed-rank (paired by seed)")
	fs.StringVar(&f.alt, "alternative", "two-sided", "alternative hypothesis of the reported p: `two-sided`, greater (candidate better) or less")
	fs.StringVar(&f.method, "method", "auto", "p-value method: `auto`, exact or asymptotic")
	fs.BoolVar(&f.noCont, "no-continuity", false, "no continuity correction in the normal approximation")
	fs.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the verdict, in (0, 1)")
	fs.StringVar(&f.split, "split", "val", "split of RUN_DIR:VERSION arguments: train, `val` or test")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of the table")
	fs.BoolVar(&f.failReg, "fail-on-regression", false, "exit 3 when the gate check fails (either --hypothesis); with several rows, when a row is a regression")
	fs.StringVar(&f.hypothesis, "hypothesis", gate.HypothesisRegression, "the gate's `regression` (fail on evidence of a loss beyond the margin) or non-inferiority (pass only on evidence of no such loss)")
	fs.Float64Var(&f.margin, "margin", 0, "the gate's margin `D` in score units (shift, or mean with --margin-on mean)")
	fs.StringVar(&f.marginOn, "margin-on", gate.MarginOnShift, "scale of --margin: `shift` (rank tests) or mean (t tests)")
	fs.Float64Var(&f.marginA12, "margin-a12", 0, "the gate's margin `M` in A12 units, in [0, 0.5) (studentized permutation test, Brunner-Munzel statistic)")
	fs.IntVar(&f.maxUnmatched, "max-unmatched", 0, "the gate refuses more than `N` candidate seeds the baseline lacks (-1: no limit)")
	fs.StringVar(&f.key, "key", "", "compare row by row: the CSV `COLUMN` naming each score's row (a task, environment, ...)")
	fs.Float64Var(&f.maxFailInc, "max-failure-increase", 0, "also fail on evidence that the share of failed episodes rose by more than `P` (a share in [0, 1); needs causes: RUN_DIR:VERSION or CSV with a cause column)")
	fs.StringVar(&f.correction, "correction", "holm", "adjustment of the p-values across rows: `holm`, bonferroni, hochberg, bh, by or none")
	return f
}

// runCompare is evolve compare.
func runCompare(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*compareFlagValues)
	if len(args) < 2 {
		return usagef("want BASELINE and CANDIDATE, got %s", plural(len(args), "argument", "arguments"))
	}
	if err := stdinOnce(args); err != nil {
		return err
	}
	corr, err := stats.ParseCorrection(f.correction)
	if err != nil {
		return usagef("--correction: %q is not one of holm, bonferroni, hochberg, bh, by, none", f.correction)
	}
	testName, err := stats.ParseTestName(f.test, stats.UseCompare)
	if err != nil {
		return usagef("--test must be %s, got %q", stats.OrList(stats.TestNames(stats.UseCompare)), f.test)
	}
	a, err := stats.ParseAlternative(f.alt)
	if err != nil {
		return usagef("--alternative: %q is not one of two-sided, greater, less", f.alt)
	}
	m, err := stats.ParseMethod(f.method)
	if err != nil {
		return usagef("--method: %q is not one of auto, exact, asymptotic", f.method)
	}
	if err := stats.CheckAlpha(f.alpha); err != nil {
		return usagef("--%v", err)
	}
	if f.split != "train" && f.split != "val" && f.split != "test" {
		return usagef("--split must be train, val or test, got %q", f.split)
	}
	failInc := cmd.given()["max-failure-increase"]
	if failInc && !(f.maxFailInc >= 0 && f.maxFailInc < 1) {
		return usagef("--max-failure-increase must be a share in [0, 1) (0.05 = 5 percentage points), got %v", f.maxFailInc)
	}
	if failInc && (len(args) > 2 || f.key != "") {
		return usagef("--max-failure-increase compares one BASELINE with one CANDIDATE; it cannot be used with several candidates or --key")
	}
	if len(args) > 2 || f.key != "" {
		rows, err := scores.CompareRows(args, f.key, f.split, corr, scores.Options{Test: testName, Alternative: a, Method: m, NoContinuity: f.noCont, Alpha: f.alpha})
		if err != nil {
			return err
		}
		if err := printRows(cmd.Stdout, args, rows, f.asJSON); err != nil {
			return err
		}
		var bad []string
		for _, r := range rows {
			if r.Verdict == scores.Regression {
				bad = append(bad, strings.TrimSpace(r.Key+" "+r.File))
			}
		}
		if f.failReg && len(bad) > 0 {
			return &exitError{code: exitRegression, err: fmt.Errorf("regression in %s: %s (adjusted one-sided p < alpha %v)", plural(len(bad), "row", "rows"), strings.Join(bad, ", "), f.alpha)}
		}
		return nil
	}
	gcfg := gate.Config{Alpha: f.alpha, Hypothesis: f.hypothesis, Margin: f.margin, MarginOn: f.marginOn, MarginA12: f.marginA12, MaxUnmatched: f.maxUnmatched}
	if err := gcfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	base, err := scores.Load(args[0], f.split)
	if err != nil {
		return err
	}
	cand, err := scores.Load(args[1], f.split)
	if err != nil {
		return err
	}
	res, err := scores.Compare(base, cand, scores.Options{Test: testName, Alternative: a, Method: m, NoContinuity: f.noCont, Alpha: f.alpha})
	if err != nil {
		return err
	}
	check, why, err := compareGate(base, cand, testName, gcfg, f.failReg)
	if err != nil {
		return err
	}
	res.Check = check
	if failInc {
		if res.FailureCheck, err = compareFailures(base, cand, gcfg, f.maxFailInc); err != nil {
			return err
		}
	}
	if f.asJSON {
		enc := json.NewEncoder(cmd.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printComparison(cmd.Stdout, base, cand, res)
		printGate(cmd.Stdout, check, why)
		if res.FailureCheck != nil {
			fmt.Fprintf(cmd.Stdout, "failure share (H1: %s): %s\n", gate.H1(*res.FailureCheck), res.FailureCheck.Message)
		}
	}
	if fc := res.FailureCheck; f.failReg && fc != nil && fc.Failed {
		return &exitError{code: exitRegression, err: fmt.Errorf("failure increase: %s", fc.Message)}
	}
	if f.failReg && check != nil && check.Failed {
		return &exitError{code: exitRegression, err: fmt.Errorf("%s: %s", failWord(check.Hypothesis), check.Message)}
	}
	return nil
}

// comparison is evolve compare's result (scores.Compare), as --json
// prints it.
type comparison = scores.Comparison

// printComparison prints the benchstat-like table.
func printComparison(w io.Writer, base, cand *scores.Sample, c *comparison) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	ci := func(s scores.Summary) string {
		if s.CILow == nil {
			return ""
		}
		return fmt.Sprintf("[%.4g, %.4g]", *s.CILow, *s.CIHigh)
	}
	fmt.Fprintln(tw, "\tn\tmedian\tmean\t95% CI\t")
	for _, row := range []struct {
		name string
		s    scores.Summary
	}{{"baseline", c.Baseline}, {"candidate", c.Candidate}} {
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.4g\t%s\t\n", row.name, row.s.N, row.s.Median, row.s.Mean, ci(row.s))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nbaseline:  %s\ncandidate: %s\n\n", base.Source, cand.Source)
	diff := c.Candidate.Mean - c.Baseline.Mean
	rel := ""
	if c.Baseline.Mean != 0 {
		rel = fmt.Sprintf(" (%+.1f%%)", 100*diff/math.Abs(c.Baseline.Mean))
	}
	fmt.Fprintf(w, "difference of means  %+.4g%s\n", diff, rel)
	if c.HLShift != nil {
		if c.Test == stats.TestSignedRank {
			fmt.Fprintf(w, "Hodges-Lehmann paired difference %+.4g", *c.HLShift)
		} else {
			fmt.Fprintf(w, "Hodges-Lehmann shift %+.4g", *c.HLShift)
		}
		if c.HLCILow != nil && c.HLCIHigh != nil {
			fmt.Fprintf(w, " [95%% CI %.4g, %.4g]", *c.HLCILow, *c.HLCIHigh)
		}
		fmt.Fprintln(w)
	}
	if c.Test == stats.TestSignedRank {
		fmt.Fprintf(w, "Wilcoxon signed-rank (%s, %s, %d pairs): V = %g, p = %s\n", c.Alternative, c.Method, *c.NPairs, *c.V, format.Plain.Sig(c.P, 3))
	} else {
		fmt.Fprintf(w, "Mann-Whitney U (%s, %s): U = %g, p = %s\n", c.Alternative, c.Method, c.U, format.Plain.Sig(c.P, 3))
	}
	fmt.Fprintf(w, "A12 = %.3f, rank-biserial = %+.3f\n", c.A12, c.RankBiserial)
	fmt.Fprintf(w, "verdict at alpha %v: %s", c.Alpha, c.Verdict)
	switch c.Verdict {
	case scores.Improvement:
		fmt.Fprintf(w, " (one-sided p = %s)", format.Plain.Sig(c.PGreater, 3))
	case scores.Regression:
		fmt.Fprintf(w, " (one-sided p = %s)", format.Plain.Sig(c.PLess, 3))
	}
	fmt.Fprintln(w)
}

// stdinOnce returns a usage error if more than one of the sample
// arguments is "-": standard input can be read once.
func stdinOnce(args []string) error {
	if n := slices.Index(args, "-"); n >= 0 && slices.Contains(args[n+1:], "-") {
		return usagef("- (standard input) can be given for one sample only")
	}
	return nil
}
