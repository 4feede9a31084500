package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"evolve/report"
)

// cmdReport is evolve report.
var cmdReport = &Command{
	UsageLine: "evolve report [--formats png,svg,pdf] RUN_DIR",
	Short:     "write report.md, report.html, results.tex and figures for a finished run",
	Long: `
Write the report of a finished run into its directory:

	report.md     the run's settings, the test-split result (base against
	              final: means with 95% CIs, IQM with bootstrap CIs, U test,
	              paired signed-rank test, A12, Hodges-Lehmann shift), the
	              lineage of accepted versions, every generation and every
	              candidate, and how each number was computed
	report.html   the same, self-contained: figures inlined as SVG, no
	              scripts, nothing fetched from the network
	results.tex   booktabs tables (val results per generation, test results)
	              to \input into a paper; needs \usepackage{booktabs}
	plots/        val score by generation with CI band, lineage of accepted
	              versions, failure causes by generation (stacked bars),
	              candidate box plots per generation; PNG, SVG and PDF

Everything is computed from manifest.yaml and the Parquet tables, so the
report can be rebuilt at any time; the same run gives byte-identical files
(PDF dates come from SOURCE_DATE_EPOCH, else the Unix epoch). 'evolve run'
writes the report when it finishes.

Examples:

	evolve report runs/default-1275011f00
	evolve report --formats png,pdf runs/default-1275011f00`,
	SetFlags: reportFlags,
	Run:      runReport,
}

// reportFlagValues are the flags of evolve report.
type reportFlagValues struct {
	formats string
}

// reportFlags defines the flags of evolve report on fs.
func reportFlags(fs *flag.FlagSet) any {
	f := new(reportFlagValues)
	fs.StringVar(&f.formats, "formats", strings.Join(report.DefaultFormats, ","), "comma-separated figure `formats`: png, svg, pdf (svg is always written for report.html)")
	return f
}

// runReport is evolve report.
func runReport(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*reportFlagValues)
	if len(args) != 1 {
		return usagef("want one RUN_DIR, got %s", plural(len(args), "argument", "arguments"))
	}
	var fmts []string
	for _, name := range strings.Split(f.formats, ",") {
		name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "."))
		switch name {
		case "png", "svg", "pdf":
			fmts = append(fmts, name)
		case "":
		default:
			return usagef("--formats: unknown format %q (allowed: png, svg, pdf)", name)
		}
	}
	if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: not a run directory", args[0])
	}
	paths, err := report.Write(args[0], report.Options{Formats: fmts})
	if err != nil {
		return err
	}
	for _, p := range paths {
		if filepath.Dir(p) == filepath.Clean(args[0]) {
			fmt.Fprintln(cmd.Stdout, p)
		}
	}
	fmt.Fprintf(cmd.Stdout, "%d figures in %s\n", len(paths)-3, filepath.Join(args[0], report.PlotsDir))
	return nil
}

// writeReport is evolve run's report hook.
func writeReport(dir string) error {
	if _, err := report.Write(dir, report.Options{}); err != nil {
		return fmt.Errorf("the run finished but its report failed (rebuild it with 'evolve report %s'): %w", dir, err)
	}
	return nil
}
