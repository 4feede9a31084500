package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"evolve/accept"
	"evolve/power"
	"evolve/scores"
	"evolve/stats"
)

// cmdPower is evolve power.
var cmdPower = &Command{
	UsageLine: "evolve power [flags] [BASELINE [CANDIDATE]]",
	Short:     "plan how many seeds a comparison needs (power analysis)",
	Long: `
Print the number of seeds (observations per side; pairs when paired) at
which each decision reaches power --power at one-sided level --alpha, and
the power at --n, for:

	the U test            Mann-Whitney U, one-sided in the pilot's direction
	the signed-rank test  Wilcoxon, on pairs (a paired pilot only)
	non-inferiority       the gate's --hypothesis non-inferiority checks with
	                      --margin D on a shift (U test, signed-rank) and on
	                      the mean (Welch t, or paired t): the n to show a
	                      candidate like the pilot's is not worse by D
	the sequential design the group-sequential acceptance of 'evolve run'
	                      (acceptance.sequential): the U test (signed-rank
	                      when paired) at --looks looks with --spending
	                      Lan-DeMets boundaries and --futility; its n is the
	                      last look's, H1 always "candidate better"

Two ways, side by side: n by simulation, which resamples the pilot's
empirical scores (any distribution, ties included; --reps experiments per
n, seed --seed, common random numbers across n), and n by Noether's (1987)
formula, a check that assumes a continuous location model.

The pilot:

	BASELINE CANDIDATE   two samples, as 'evolve compare' reads them
	                     (FILE.txt, FILE.csv, FILE.parquet, RUN_DIR:VERSION
	                     or EVAL_DIR:VERSION, split --split, or - for
	                     standard input; files of at most 256 MiB, lines
	                     of at most 1 MiB); paired by seed when both have
	                     seeds and the same seeds
	BASELINE             one sample and a target effect: the candidate is
	                     the baseline moved by --shift S (score units;
	                     negative is worse)
	(none)               a target effect alone: --a12 A (P(candidate >
	                     baseline)), or --shift S with --sd SD, on a normal
	                     model

--plot FILE draws power against n for each design (PNG, SVG or PDF by
extension). --json prints the rows as JSON.

Examples:

	evolve power runs/exp:v1.0.0 runs/exp:v1.0.5
	evolve power --margin 25 --n 200 evals/main-eval:v1.0.0 evals/main-eval:v1.1.0
	evolve power --a12 0.6 --plot power.svg
	evolve power --shift -20 base.csv`,
	SetFlags: powerFlags,
	Run:      runPower,
}

// powerFlagValues are the flags of evolve power.
type powerFlagValues struct {
	alpha    float64
	target   float64
	margin   float64
	atN      int
	reps     int
	maxN     int
	seed     uint64
	a12      float64
	shift    float64
	sd       float64
	split    string
	plotFile string
	asJSON   bool
	looks    int
	spending string
	futility string
}

// powerFlags defines the flags of evolve power on fs.
func powerFlags(fs *flag.FlagSet) any {
	f := new(powerFlagValues)
	fs.Float64Var(&f.alpha, "alpha", 0.05, "one-sided significance level, in (0, 1)")
	fs.Float64Var(&f.target, "power", 0.8, "target power 1 - beta, in (0, 1)")
	fs.Float64Var(&f.margin, "margin", 0, "non-inferiority margin `D` in score units (0: no non-inferiority rows)")
	fs.IntVar(&f.atN, "n", 0, "also print the power at `N` observations per side (the n you use)")
	fs.IntVar(&f.reps, "reps", 1000, "simulated experiments per n")
	fs.IntVar(&f.maxN, "max-n", 5000, "largest n per side searched")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the simulations")
	fs.Float64Var(&f.a12, "a12", 0, "target effect P(candidate > baseline) + ties/2, in (0, 1), without a pilot")
	fs.Float64Var(&f.shift, "shift", 0, "target shift `S` of the candidate in score units (negative: worse)")
	fs.Float64Var(&f.sd, "sd", 1, "standard deviation of the normal model without a pilot")
	fs.StringVar(&f.split, "split", "val", "split of RUN_DIR:VERSION arguments: train, `val` or test")
	fs.StringVar(&f.plotFile, "plot", "", "draw power against n to `FILE` (.png, .svg or .pdf)")
	fs.BoolVar(&f.asJSON, "json", false, "print the rows as JSON")
	fs.IntVar(&f.looks, "looks", 3, "looks `K` of the sequential design, in [1, 20] (acceptance.sequential.looks)")
	fs.StringVar(&f.spending, "spending", "obrien-fleming", "α-spending of the sequential design: `obrien-fleming` or pocock")
	fs.StringVar(&f.futility, "futility", "", "futility bound `Z` of the sequential design (stop below z = Z before the last look; empty: none)")
	return f
}

// runPower is evolve power: it reads the pilot, plans each design's n,
// draws the power curves (--plot) and prints the rows.
func runPower(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*powerFlagValues)
	given := cmd.given()
	if err := checkPowerArgs(f, given, args); err != nil {
		return err
	}
	cfg := power.Config{Alpha: f.alpha, Power: f.target, Margin: f.margin, Reps: f.reps, MaxN: f.maxN, Seed: f.seed}
	pilot, source, err := powerPilot(f, given, args)
	if err != nil {
		return err
	}
	sp, err := stats.ParseSpending(f.spending)
	if err != nil {
		return usagef("--spending: %v", err)
	}
	seq := accept.Sequential{Looks: f.looks, Spending: sp}
	if f.futility != "" {
		z, err := strconv.ParseFloat(f.futility, 64)
		if err != nil || math.IsNaN(z) || math.IsInf(z, 0) {
			return usagef("--futility must be a number (a z value), got %q", f.futility)
		}
		seq.Futility = &z
	}
	seqDesign, err := power.Sequential(seq, f.alpha, pilot.Paired)
	if err != nil {
		return usagef("--looks: %v", err)
	}
	rows, err := power.Plan(pilot, cfg, f.atN, seqDesign)
	if err != nil {
		return err
	}
	if f.plotFile != "" {
		if err := plotPower(f, pilot, cfg, seqDesign); err != nil {
			return err
		}
	}
	if f.asJSON {
		return printPowerJSON(cmd.Stdout, f, source, rows)
	}
	return printPower(cmd.Stdout, f, source, rows)
}

// checkPowerArgs returns a usage error naming the first flag of evolve
// power out of its range, or arguments that do not make a pilot with the
// target effect given (given holds the flags the command line set).
func checkPowerArgs(f *powerFlagValues, given map[string]bool, args []string) error {
	switch {
	case stats.CheckAlpha(f.alpha) != nil:
		return usagef("--%v", stats.CheckAlpha(f.alpha))
	case !(f.target > 0 && f.target < 1):
		return usagef("--power must be in (0, 1), got %v", f.target)
	case f.margin < 0:
		return usagef("--margin must be >= 0, got %v", f.margin)
	case f.reps < 1:
		return usagef("--reps must be >= 1, got %d", f.reps)
	case f.maxN < 2:
		return usagef("--max-n must be >= 2, got %d", f.maxN)
	case f.atN < 0:
		return usagef("--n must be >= 0, got %d", f.atN)
	case given["a12"] && !(f.a12 > 0 && f.a12 < 1):
		return usagef("--a12 must be in (0, 1), got %v", f.a12)
	case !(f.sd > 0):
		return usagef("--sd must be > 0, got %v", f.sd)
	case len(args) > 2:
		return usagef("want at most BASELINE and CANDIDATE, got %d arguments", len(args))
	case stdinOnce(args) != nil:
		return stdinOnce(args)
	case len(args) == 2 && (given["a12"] || given["shift"]):
		return usagef("--a12 and --shift set a target effect; a two-sample pilot has its own")
	case len(args) == 1 && !given["shift"]:
		return usagef("one pilot sample needs --shift S (the candidate is the baseline moved by S)")
	case len(args) == 0 && given["a12"] == given["shift"]:
		return usagef("without a pilot give one target effect: --a12 A or --shift S (with --sd)")
	}
	return nil
}

// powerPilot returns the pilot of evolve power and a line describing it:
// two samples (paired by seed when both have the same seeds), one sample
// and a shifted copy, or a normal model of the target effect.
func powerPilot(f *powerFlagValues, given map[string]bool, args []string) (power.Pilot, string, error) {
	switch len(args) {
	case 2:
		base, err := scores.Load(args[0], f.split)
		if err != nil {
			return power.Pilot{}, "", err
		}
		cand, err := scores.Load(args[1], f.split)
		if err != nil {
			return power.Pilot{}, "", err
		}
		pilot := power.Pilot{Baseline: base.Scores, Candidate: cand.Scores}
		if base.Seeds != nil && cand.Seeds != nil {
			if x, y, err := scores.Pair(cand, base); err == nil {
				pilot = power.Pilot{Baseline: y, Candidate: x, Paired: true}
			}
		}
		source := fmt.Sprintf("pilot %s (n %d) vs %s (n %d)", base.Source, len(pilot.Baseline), cand.Source, len(pilot.Candidate))
		if pilot.Paired {
			source += ", paired by seed"
		}
		return pilot, source, nil
	case 1:
		base, err := scores.Load(args[0], f.split)
		if err != nil {
			return power.Pilot{}, "", err
		}
		c := make([]float64, len(base.Scores))
		for i, v := range base.Scores {
			c[i] = v + f.shift
		}
		source := fmt.Sprintf("pilot %s (n %d), candidate = baseline %+g", base.Source, len(base.Scores), f.shift)
		return power.Pilot{Baseline: base.Scores, Candidate: c}, source, nil
	}
	s := f.shift
	if given["a12"] {
		s = power.ShiftForA12(f.a12, f.sd)
	}
	p, err := power.FromEffect(s, f.sd, 2000)
	if err != nil {
		return power.Pilot{}, "", usagef("%v", err)
	}
	return p, fmt.Sprintf("normal model, sd %g, shift %.4g (A12 %.3f)", f.sd, s, 0.5*math.Erfc(-s/(f.sd)/2)), nil
}

// plotPower draws power against n for each design to --plot.
func plotPower(f *powerFlagValues, pilot power.Pilot, cfg power.Config, seqDesign power.Design) error {
	var series []power.Series
	for _, d := range append(power.Designs(pilot, cfg), seqDesign) {
		pts, err := power.Curve(pilot, d, cfg, power.Grid(5, min(f.maxN, 2000), 12))
		if err != nil {
			return err
		}
		series = append(series, power.Series{Design: d.Name, Points: pts})
	}
	fig, err := power.Figure(series, f.target, f.alpha)
	if err != nil {
		return err
	}
	return fig.Save(f.plotFile)
}

// printPowerJSON prints the rows of evolve power --json.
func printPowerJSON(w io.Writer, f *powerFlagValues, source string, rows []power.Row) error {
	type rowJSON struct {
		Design   string   `json:"design"`
		NNoether *int     `json:"n_noether"`
		NSim     *int     `json:"n_simulated"`
		N        int      `json:"n,omitempty"`
		PowerAtN *float64 `json:"power_at_n,omitempty"`
	}
	out := struct {
		Pilot string    `json:"pilot"`
		Alpha float64   `json:"alpha"`
		Power float64   `json:"power"`
		Reps  int       `json:"reps"`
		Seed  uint64    `json:"seed"`
		Rows  []rowJSON `json:"rows"`
	}{Pilot: source, Alpha: f.alpha, Power: f.target, Reps: f.reps, Seed: f.seed}
	for _, r := range rows {
		j := rowJSON{Design: r.Design}
		if r.NNoether > 0 {
			j.NNoether = &r.NNoether
		}
		if r.NSim <= f.maxN {
			j.NSim = &r.NSim
		}
		if f.atN > 0 {
			j.N, j.PowerAtN = f.atN, &r.PowerAtN.Power
		}
		out.Rows = append(out.Rows, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printPower prints the rows of evolve power as a table.
func printPower(w io.Writer, f *powerFlagValues, source string, rows []power.Row) error {
	fmt.Fprintf(w, "%s\nalpha %g (one-sided), target power %g, %d simulated experiments per n, seed %d\n\n", source, f.alpha, f.target, f.reps, f.seed)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	head := "design\tn (simulation)\tn (Noether)"
	if f.atN > 0 {
		head += fmt.Sprintf("\tpower at n = %d [95%% CI]", f.atN)
	}
	fmt.Fprintln(tw, head+"\t")
	for _, r := range rows {
		ns := fmt.Sprint(r.NSim)
		if r.NSim > f.maxN {
			ns = fmt.Sprintf("> %d", f.maxN)
		}
		nn := "-"
		if r.NNoether > 0 {
			nn = fmt.Sprint(r.NNoether)
		}
		line := r.Design + "\t" + ns + "\t" + nn
		if f.atN > 0 {
			line += fmt.Sprintf("\t%.1f%% [%.1f, %.1f]", 100*r.PowerAtN.Power, 100*r.PowerAtN.Low, 100*r.PowerAtN.High)
		}
		fmt.Fprintln(tw, line+"\t")
	}
	return tw.Flush()
}
