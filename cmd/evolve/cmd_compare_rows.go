package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"evolve/scores"
	"evolve/stats"
)

// compareRow is one row of a many-row evolve compare: a candidate against
// the baseline for one key, with the p-values adjusted across the rows.
type compareRow struct {
	// Key is the --key value ("" without --key); File the candidate
	// file.
	Key  string `json:"key"`
	File string `json:"candidate_file"`
	*comparison
	// PAdj is P adjusted across the rows by Correction; PGreaterAdj and
	// PLessAdj the one-sided p-values adjusted likewise (the verdict's).
	PAdj        float64 `json:"p_adj"`
	PGreaterAdj float64 `json:"p_greater_adj"`
	PLessAdj    float64 `json:"p_less_adj"`
	Correction  string  `json:"correction"`
}

// compareRows compares each candidate file with the baseline file, key by
// key with --key (a CSV with a key column), as benchstat compares
// benchmarks: one test per (key, candidate), p-values adjusted across
// every row by corr (each direction on its own), the verdict of a row
// from its adjusted one-sided p-values. Every candidate must hold every
// key of the baseline and no other.
func compareRows(files []string, key, split string, corr stats.Correction, o compareOptions) ([]compareRow, error) {
	load := func(path string) ([]scores.Group, error) {
		if key != "" {
			return scores.LoadKeyed(path, key)
		}
		s, err := scores.Load(path, split)
		if err != nil {
			return nil, err
		}
		return []scores.Group{{Sample: s}}, nil
	}
	base, err := load(files[0])
	if err != nil {
		return nil, err
	}
	var rows []compareRow
	for _, f := range files[1:] {
		cand, err := load(f)
		if err != nil {
			return nil, err
		}
		byKey := map[string]*scores.Sample{}
		for _, g := range cand {
			byKey[g.Key] = g.Sample
		}
		inBase := map[string]bool{}
		for _, b := range base {
			inBase[b.Key] = true
			c, ok := byKey[b.Key]
			if !ok {
				return nil, fmt.Errorf("%s has no rows of key %q, which %s has", f, b.Key, files[0])
			}
			res, err := compare(b.Sample, c, o)
			if err != nil {
				return nil, fmt.Errorf("key %q of %s: %w", b.Key, f, err)
			}
			rows = append(rows, compareRow{Key: b.Key, File: f, comparison: res, Correction: corr.String()})
		}
		for _, g := range cand {
			if !inBase[g.Key] {
				return nil, fmt.Errorf("%s has rows of key %q, which %s has not", f, g.Key, files[0])
			}
		}
	}
	adjust := func(get func(r *compareRow) float64, set func(r *compareRow, p float64)) error {
		ps := make([]float64, len(rows))
		for i := range rows {
			ps[i] = get(&rows[i])
		}
		adj, err := stats.Adjust(ps, corr)
		if err != nil {
			return err
		}
		for i := range rows {
			set(&rows[i], adj[i])
		}
		return nil
	}
	for _, a := range []struct {
		get func(r *compareRow) float64
		set func(r *compareRow, p float64)
	}{
		{func(r *compareRow) float64 { return r.P }, func(r *compareRow, p float64) { r.PAdj = p }},
		{func(r *compareRow) float64 { return r.PGreater }, func(r *compareRow, p float64) { r.PGreaterAdj = p }},
		{func(r *compareRow) float64 { return r.PLess }, func(r *compareRow, p float64) { r.PLessAdj = p }},
	} {
		if err := adjust(a.get, a.set); err != nil {
			return nil, err
		}
	}
	for i := range rows {
		r := &rows[i]
		switch {
		case r.PGreaterAdj < o.Alpha:
			r.Verdict = verdictImprovement
		case r.PLessAdj < o.Alpha:
			r.Verdict = verdictRegression
		default:
			r.Verdict = verdictNone
		}
	}
	return rows, nil
}

// printRows prints one table of the rows, benchstat-like: the key (and
// candidate file when there are several), both means, the relative
// difference, the p-value and its adjusted value, A12 and the verdict.
func printRows(w io.Writer, files []string, rows []compareRow, asJSON bool) error {
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
			diff = fmt.Sprintf("%+.1f%%", 100*(r.comparison.Candidate.Mean-r.Baseline.Mean)/math.Abs(r.Baseline.Mean))
		}
		cols := []string{key}
		if several {
			cols = append(cols, r.File)
		}
		cols = append(cols, fmt.Sprintf("%d vs %d", r.N1, r.N2), fmt.Sprintf("%.4g", r.Baseline.Mean), fmt.Sprintf("%.4g", r.comparison.Candidate.Mean),
			diff, fmt.Sprintf("%.2g", r.P), fmt.Sprintf("%.2g", r.PAdj), fmt.Sprintf("%.3f", r.A12), r.Verdict)
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
