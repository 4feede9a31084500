package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strconv"
	"text/tabwriter"

	"evolve/evaluate"
	"evolve/power"
	"evolve/scores"
	"evolve/stats"
)

func init() {
	register(&command{
		name:     "power",
		synopsis: "plan how many seeds a comparison needs (power analysis)",
		usage:    "[flags] [BASELINE [CANDIDATE]]",
		help: `
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
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			alpha := fs.Float64("alpha", 0.05, "one-sided significance level, in (0, 1)")
			target := fs.Float64("power", 0.8, "target power 1 - beta, in (0, 1)")
			margin := fs.Float64("margin", 0, "non-inferiority margin `D` in score units (0: no non-inferiority rows)")
			atN := fs.Int("n", 0, "also print the power at `N` observations per side (the n you use)")
			reps := fs.Int("reps", 1000, "simulated experiments per n")
			maxN := fs.Int("max-n", 5000, "largest n per side searched")
			seed := fs.Uint64("seed", 1, "seed of the simulations")
			a12 := fs.Float64("a12", 0, "target effect P(candidate > baseline) + ties/2, in (0, 1), without a pilot")
			shift := fs.Float64("shift", 0, "target shift `S` of the candidate in score units (negative: worse)")
			sd := fs.Float64("sd", 1, "standard deviation of the normal model without a pilot")
			split := fs.String("split", "val", "split of RUN_DIR:VERSION arguments: train, `val` or test")
			plotFile := fs.String("plot", "", "draw power against n to `FILE` (.png, .svg or .pdf)")
			asJSON := fs.Bool("json", false, "print the rows as JSON")
			looks := fs.Int("looks", 3, "looks `K` of the sequential design, in [1, 20] (acceptance.sequential.looks)")
			spending := fs.String("spending", "obrien-fleming", "α-spending of the sequential design: `obrien-fleming` or pocock")
			futility := fs.String("futility", "", "futility bound `Z` of the sequential design (stop below z = Z before the last look; empty: none)")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				given := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
				cfg := power.Config{Alpha: *alpha, Power: *target, Margin: *margin, Reps: *reps, MaxN: *maxN, Seed: *seed}
				switch {
				case !(*alpha > 0 && *alpha < 1):
					return usagef("--alpha must be in (0, 1), got %v", *alpha)
				case !(*target > 0 && *target < 1):
					return usagef("--power must be in (0, 1), got %v", *target)
				case *margin < 0:
					return usagef("--margin must be >= 0, got %v", *margin)
				case *reps < 1:
					return usagef("--reps must be >= 1, got %d", *reps)
				case *maxN < 2:
					return usagef("--max-n must be >= 2, got %d", *maxN)
				case *atN < 0:
					return usagef("--n must be >= 0, got %d", *atN)
				case given["a12"] && !(*a12 > 0 && *a12 < 1):
					return usagef("--a12 must be in (0, 1), got %v", *a12)
				case !(*sd > 0):
					return usagef("--sd must be > 0, got %v", *sd)
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
				var pilot power.Pilot
				source := ""
				switch len(args) {
				case 2:
					base, err := scores.Load(args[0], *split)
					if err != nil {
						return err
					}
					cand, err := scores.Load(args[1], *split)
					if err != nil {
						return err
					}
					pilot = power.Pilot{Baseline: base.Scores, Candidate: cand.Scores}
					if base.Seeds != nil && cand.Seeds != nil {
						if x, y, err := scores.Pair(cand, base); err == nil {
							pilot = power.Pilot{Baseline: y, Candidate: x, Paired: true}
						}
					}
					source = fmt.Sprintf("pilot %s (n %d) vs %s (n %d)", base.Source, len(pilot.Baseline), cand.Source, len(pilot.Candidate))
					if pilot.Paired {
						source += ", paired by seed"
					}
				case 1:
					base, err := scores.Load(args[0], *split)
					if err != nil {
						return err
					}
					c := make([]float64, len(base.Scores))
					for i, v := range base.Scores {
						c[i] = v + *shift
					}
					pilot = power.Pilot{Baseline: base.Scores, Candidate: c}
					source = fmt.Sprintf("pilot %s (n %d), candidate = baseline %+g", base.Source, len(base.Scores), *shift)
				default:
					s := *shift
					if given["a12"] {
						s = power.ShiftForA12(*a12, *sd)
					}
					p, err := power.FromEffect(s, *sd, 2000)
					if err != nil {
						return usagef("%v", err)
					}
					pilot = p
					source = fmt.Sprintf("normal model, sd %g, shift %.4g (A12 %.3f)", *sd, s, 0.5*math.Erfc(-s/(*sd)/2))
				}
				sp, err := stats.ParseSpending(*spending)
				if err != nil {
					return usagef("--spending: %v", err)
				}
				seq := evaluate.Sequential{Looks: *looks, Spending: sp}
				if *futility != "" {
					f, err := strconv.ParseFloat(*futility, 64)
					if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
						return usagef("--futility must be a number (a z value), got %q", *futility)
					}
					seq.Futility = &f
				}
				seqDesign, err := power.Sequential(seq, *alpha, pilot.Paired)
				if err != nil {
					return usagef("--looks: %v", err)
				}
				rows, err := power.Plan(pilot, cfg, *atN, seqDesign)
				if err != nil {
					return err
				}
				if *plotFile != "" {
					var series []power.Series
					for _, d := range append(power.Designs(pilot, cfg), seqDesign) {
						pts, err := power.Curve(pilot, d, cfg, power.Grid(5, min(*maxN, 2000), 12))
						if err != nil {
							return err
						}
						series = append(series, power.Series{Design: d.Name, Points: pts})
					}
					fig, err := power.Figure(series, *target, *alpha)
					if err != nil {
						return err
					}
					if err := fig.Save(*plotFile); err != nil {
						return err
					}
				}
				if *asJSON {
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
					}{Pilot: source, Alpha: *alpha, Power: *target, Reps: *reps, Seed: *seed}
					for _, r := range rows {
						j := rowJSON{Design: r.Design}
						if r.NNoether > 0 {
							j.NNoether = &r.NNoether
						}
						if r.NSim <= *maxN {
							j.NSim = &r.NSim
						}
						if *atN > 0 {
							j.N, j.PowerAtN = *atN, &r.PowerAtN.Power
						}
						out.Rows = append(out.Rows, j)
					}
					enc := json.NewEncoder(env.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(out)
				}
				fmt.Fprintf(env.stdout, "%s\nalpha %g (one-sided), target power %g, %d simulated experiments per n, seed %d\n\n", source, *alpha, *target, *reps, *seed)
				tw := tabwriter.NewWriter(env.stdout, 2, 8, 2, ' ', 0)
				head := "design\tn (simulation)\tn (Noether)"
				if *atN > 0 {
					head += fmt.Sprintf("\tpower at n = %d [95%% CI]", *atN)
				}
				fmt.Fprintln(tw, head+"\t")
				for _, r := range rows {
					ns := fmt.Sprint(r.NSim)
					if r.NSim > *maxN {
						ns = fmt.Sprintf("> %d", *maxN)
					}
					nn := "-"
					if r.NNoether > 0 {
						nn = fmt.Sprint(r.NNoether)
					}
					line := r.Design + "\t" + ns + "\t" + nn
					if *atN > 0 {
						line += fmt.Sprintf("\t%.1f%% [%.1f, %.1f]", 100*r.PowerAtN.Power, 100*r.PowerAtN.Low, 100*r.PowerAtN.High)
					}
					fmt.Fprintln(tw, line+"\t")
				}
				return tw.Flush()
			}
		},
	})
}
