package scores

import (
	"fmt"

	"evolve/stats"
)

// Row is one row of a many-row comparison (CompareRows): a candidate
// against the baseline for one key, its p-values adjusted across the
// rows. Its JSON form is what evolve compare --json prints per row: the
// Comparison's fields inline, with these.
type Row struct {
	// Key is the row's key value ("" without a key column); File the
	// candidate file.
	Key  string `json:"key"`
	File string `json:"candidate_file"`
	*Comparison
	// PAdj is P adjusted across the rows by Correction; PGreaterAdj and
	// PLessAdj the one-sided p-values adjusted likewise (each direction
	// on its own), from which the row's Verdict is taken.
	PAdj        float64 `json:"p_adj"`
	PGreaterAdj float64 `json:"p_greater_adj"`
	PLessAdj    float64 `json:"p_less_adj"`
	Correction  string  `json:"correction"`
}

// CompareRows compares each candidate file (files[1:]) with the baseline
// file (files[0]), key by key when key names a CSV column (LoadKeyed),
// else whole (Load of split), as benchstat compares benchmarks: one
// Compare per (key, candidate), in candidate then baseline-key order;
// the p-values of every row adjusted by corr (stats.Adjust; P and each
// one-sided p on its own), and each row's Verdict taken from its
// adjusted one-sided p-values at o.Alpha. len(files) >= 2.
//
// Errors: a file that does not load; a candidate that lacks a key of the
// baseline, or has a key the baseline lacks (naming both files and the
// key); Compare's, naming the key and the candidate file.
func CompareRows(files []string, key, split string, corr stats.Correction, o Options) ([]Row, error) {
	load := func(path string) ([]Group, error) {
		if key != "" {
			return LoadKeyed(path, key)
		}
		s, err := Load(path, split)
		if err != nil {
			return nil, err
		}
		return []Group{{Sample: s}}, nil
	}
	base, err := load(files[0])
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, f := range files[1:] {
		cand, err := load(f)
		if err != nil {
			return nil, err
		}
		byKey := map[string]*Sample{}
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
			res, err := Compare(b.Sample, c, o)
			if err != nil {
				return nil, fmt.Errorf("key %q of %s: %w", b.Key, f, err)
			}
			rows = append(rows, Row{Key: b.Key, File: f, Comparison: res, Correction: corr.String()})
		}
		for _, g := range cand {
			if !inBase[g.Key] {
				return nil, fmt.Errorf("%s has rows of key %q, which %s has not", f, g.Key, files[0])
			}
		}
	}
	for _, a := range []struct {
		get func(r *Row) float64
		set func(r *Row, p float64)
	}{
		{func(r *Row) float64 { return r.P }, func(r *Row, p float64) { r.PAdj = p }},
		{func(r *Row) float64 { return r.PGreater }, func(r *Row, p float64) { r.PGreaterAdj = p }},
		{func(r *Row) float64 { return r.PLess }, func(r *Row, p float64) { r.PLessAdj = p }},
	} {
		ps := make([]float64, len(rows))
		for i := range rows {
			ps[i] = a.get(&rows[i])
		}
		adj, err := stats.Adjust(ps, corr)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			a.set(&rows[i], adj[i])
		}
	}
	for i := range rows {
		rows[i].Verdict = verdict(rows[i].PGreaterAdj, rows[i].PLessAdj, o.Alpha)
	}
	return rows, nil
}
