package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"evolve/cmd/evolve/internal/progress"
	"evolve/experiment"
)

func init() {
	register(&command{
		name:     "run",
		synopsis: "evolve a prompt: train, propose, gate on val, report on test",
		usage:    "[--config FILE] [--out DIR] [--workers N] [--quiet]",
		help: `
Run an evolution experiment. Without --config it runs the embedded default:
the base prompt v1.0.0 on the built-in dungeon, over the embedded frozen seed
sets (train 200, val 300, test 1000), 4 candidates a generation, one-sided
Mann-Whitney U with Holm correction at alpha 0.05, until a generation accepts
no candidate (or 10 generations). A config file needs only the keys it
changes; 'evolve run --print-config' shows the default with comments.

Each generation plays the incumbent on the train seeds, classifies its
failures (injury, combat_loss, starvation, entrapment), proposes structured
mutations, plays each candidate on the val seeds, and accepts the
significant candidate with the best val mean. The final version and the
base are then played on the test seeds.

The run directory <out>/<run-id>/ holds manifest.yaml, prompts/ (one
immutable YAML file per version and versions.json), episodes.parquet,
candidates.parquet, generations.parquet and plots/. The run ID is the
config's name and a hash of everything that shapes the results, so the same
config and seeds give the same ID and byte-identical Parquet, whatever
--workers is. New prompt versions are stamped with SOURCE_DATE_EPOCH when it
is set (for byte-identical prompt files), else with the current time.

Examples:

	evolve run
	evolve run --config exp.yaml --out /scratch/runs --workers 16
	evolve run --print-config > exp.yaml`,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			config := fs.String("config", "", "experiment config `FILE` (YAML); default: the embedded default")
			out := fs.String("out", "", "create the run directory under `DIR` (default: the config's output, \"runs\")")
			workers := fs.Int("workers", 0, "play at most `N` episodes at once (default: the config's workers, 0 = GOMAXPROCS)")
			quiet := fs.Bool("quiet", false, "print only one line per generation and the final table")
			printConfig := fs.Bool("print-config", false, "print the default config and exit")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				if *workers < 0 {
					return usagef("--workers must be >= 0 (0 = GOMAXPROCS), got %d", *workers)
				}
				if *printConfig {
					_, err := env.stdout.Write(experiment.DefaultYAML())
					return err
				}
				cfg := experiment.DefaultConfig()
				if *config != "" {
					var err error
					if cfg, err = experiment.Load(*config); err != nil {
						return err
					}
				}
				disp := progress.New(env.stderr, *quiet)
				res, err := experiment.Run(ctx, cfg, experiment.Options{
					Out: *out, Workers: *workers, Observer: disp, Version: Version(),
				})
				disp.Close()
				if err != nil {
					return err
				}
				printSummary(env, res)
				return nil
			}
		},
	})
}

// printSummary prints the run's table and where its outputs are.
func printSummary(env *cmdEnv, res *experiment.Result) {
	w := tabwriter.NewWriter(env.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "generation\tincumbent\tval mean\taccepted\tp\tA12\tval mean (accepted)\tmutation")
	for _, g := range res.Generations {
		if g.Accepted < 0 {
			fmt.Fprintf(w, "%d\t%s\t%.1f\t-\t-\t-\t-\t-\n", g.Index, g.Incumbent, g.Val.Mean)
			continue
		}
		c := g.Decision.Candidates[g.Accepted]
		fmt.Fprintf(w, "%d\t%s\t%.1f\t%s\t%.2g\t%.3f\t%.1f\t%s\n", g.Index, g.Incumbent, g.Val.Mean,
			g.Candidates[g.Accepted].Version, c.Test.P, c.A12, c.Summary.Mean, g.Candidates[g.Accepted].Mutation.Description)
	}
	w.Flush()
	fmt.Fprintf(env.stdout, "\ntest split (n=%d): %s mean %.1f [95%% CI %.1f, %.1f]; final %s mean %.1f [95%% CI %.1f, %.1f]\n",
		res.TestFinal.N, res.Base, res.TestBase.Mean, res.TestBase.CILow, res.TestBase.CIHigh,
		res.Final, res.TestFinal.Mean, res.TestFinal.CILow, res.TestFinal.CIHigh)
	fmt.Fprintf(env.stdout, "run directory: %s\n", res.Dir)
}
