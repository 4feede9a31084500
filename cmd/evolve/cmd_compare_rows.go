package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"evolve/internal/format"
	"evolve/scores"
)

// printRows prints one table of the rows, benchstat-like: the key (and
// candidate file when there are several), both means, the relative
// difference, the p-value and its adjusted value, A12 and the verdict.
func printRows(w io.Writer, files []string, rows []scores.Row, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	several := len(files) > 2
	head := "key\tn\tbaseline mean\tcandidate mean\tdiff\tp\tp (adj.)\tA12\tverdict"
	if several {
		head = "key\tcandidate\tn\tbaseline mean\tcandidate mean\tdiff\tp\tp (adj.)\tA12\tverdict"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		key := r.Key
		if key == "" {
			key = "-"
		}
		diff := "?"
		if r.Baseline.Mean != 0 {
			diff = fmt.Sprintf("%+.1f%%", 100*(r.Comparison.Candidate.Mean-r.Baseline.Mean)/math.Abs(r.Baseline.Mean))
		}
		cols := []string{key}
		if several {
			cols = append(cols, r.File)
		}
		cols = append(cols, fmt.Sprintf("%d vs %d", r.N1, r.N2), fmt.Sprintf("%.4g", r.Baseline.Mean), fmt.Sprintf("%.4g", r.Comparison.Candidate.Mean),
			diff, format.Plain.P(r.P), format.Plain.P(r.PAdj), fmt.Sprintf("%.3f", r.A12), r.Verdict)
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r := rows[0]
	test := "Mann-Whitney U"
	if r.Test == "signed-rank" {
		test = "Wilcoxon signed-rank"
	}
	fmt.Fprintf(w, "\nbaseline: %s\n%s (%s) per row; p-values %s across the %s; verdict at alpha %v from the adjusted one-sided p-values.\n",
		files[0], test, r.Alternative, adjustedDesc(r.Correction), plural(len(rows), "row", "rows"), r.Alpha)
	return nil
}

func adjustedDesc(c string) string {
	if c == "none" {
		return "not adjusted"
	}
	return c + "-adjusted"
}
