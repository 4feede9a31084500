package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeKeyed writes a CSV of tasks a, b, c (30 seeds each), task t's
// scores shifted by shift[t], and one plain CSV per task.
func writeKeyed(t *testing.T, dir, name string, seed uint64, shift map[string]float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0))
	var all strings.Builder
	all.WriteString("task,seed,score\n")
	for _, task := range []string{"a", "b", "c"} {
		var one strings.Builder
		one.WriteString("seed,score\n")
		for s := range 30 {
			x := 100 + 10*r.NormFloat64() + shift[task]
			fmt.Fprintf(&all, "%s,%d,%.3f\n", task, s, x)
			fmt.Fprintf(&one, "%d,%.3f\n", s, x)
		}
		os.WriteFile(filepath.Join(dir, name+"-"+task+".csv"), []byte(one.String()), 0o644)
	}
	os.WriteFile(filepath.Join(dir, name+".csv"), []byte(all.String()), 0o644)
}

// evolve compare --key gives one table with a test per key and the
// p-values Holm-adjusted across the rows: each row's p equals the
// two-file comparison of that key's scores, and p (adj.) is R's
// p.adjust(p, "holm") of the rows' p-values; the verdicts come from the
// adjusted one-sided p-values; several candidate files add rows.
func TestCompareRows(t *testing.T) {
	dir := t.TempDir()
	writeKeyed(t, dir, "base", 1, nil)
	writeKeyed(t, dir, "cand", 2, map[string]float64{"b": 15, "c": -15})
	base, cand := filepath.Join(dir, "base.csv"), filepath.Join(dir, "cand.csv")
	code, stdout, stderr := evolve(t, "compare", "--json", "--key", "task", "--fail-on-regression", base, cand)
	if code != exitRegression || !strings.Contains(stderr, "regression in 1 row: c") {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitRegression, stdout, stderr)
	}
	var rows []struct {
		Key     string  `json:"key"`
		N1      int     `json:"n1"`
		N2      int     `json:"n2"`
		P       float64 `json:"p"`
		PAdj    float64 `json:"p_adj"`
		A12     float64 `json:"a12"`
		Verdict string  `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	var ps []float64
	for i, task := range []string{"a", "b", "c"} {
		r := rows[i]
		code, out, _ := evolve(t, "compare", "--json", filepath.Join(dir, "base-"+task+".csv"), filepath.Join(dir, "cand-"+task+".csv"))
		var one comparison
		if code != exitOK || json.Unmarshal([]byte(out), &one) != nil {
			t.Fatalf("task %s alone: exit %d\n%s", task, code, out)
		}
		if r.Key != task || r.P != one.P || r.A12 != one.A12 || r.N1 != 30 || r.N2 != 30 {
			t.Errorf("row %d: key %q p %v A12 %v; alone: p %v A12 %v", i, r.Key, r.P, r.A12, one.P, one.A12)
		}
		ps = append(ps, r.P)
	}
	// Holm (1979), as R's p.adjust(p, "holm"): sorted ascending,
	// cummax((m - i + 1) p_(i)), capped at 1.
	idx := []int{0, 1, 2}
	slices.SortFunc(idx, func(a, b int) int { return int(math.Copysign(1, ps[a]-ps[b])) })
	want, run := make([]float64, 3), 0.0
	for k, i := range idx {
		run = math.Max(run, math.Min(1, float64(3-k)*ps[i]))
		want[i] = run
	}
	for i, r := range rows {
		if math.Abs(r.PAdj-want[i]) > 1e-12*math.Max(1, want[i]) {
			t.Errorf("row %s: p (adj.) %v, want %v (Holm)", r.Key, r.PAdj, want[i])
		}
	}
	if v := []string{rows[0].Verdict, rows[1].Verdict, rows[2].Verdict}; strings.Join(v, ",") != "no significant difference,improvement,regression" {
		t.Errorf("verdicts %v", v)
	}
	// Several candidate files: a row per (candidate, key), one table.
	code, stdout, _ = evolve(t, "compare", "--key", "task", "--correction", "none", base, cand, base)
	if code != exitOK || strings.Count(stdout, "cand.csv") != 3 || strings.Count(stdout, "base.csv") != 4 || !strings.Contains(stdout, "not adjusted across the 6 rows") {
		t.Errorf("two candidates: exit %d\n%s", code, stdout)
	}
	// A key missing from a candidate is an error naming it.
	os.WriteFile(filepath.Join(dir, "short.csv"), []byte("task,score\na,1\nb,2\n"), 0o644)
	if code, _, stderr := evolve(t, "compare", "--key", "task", base, filepath.Join(dir, "short.csv")); code != exitFailure || !strings.Contains(stderr, `no rows of key "c"`) {
		t.Errorf("missing key: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := evolve(t, "compare", "--key", "env", base, cand); code != exitFailure || !strings.Contains(stderr, `base.csv:1: no "env" column`) {
		t.Errorf("no key column: exit %d\n%s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("task,score\na,1\nb,x\n"), 0o644)
	if code, _, stderr := evolve(t, "compare", "--key", "task", filepath.Join(dir, "bad.csv"), cand); code != exitFailure || !strings.Contains(stderr, "bad.csv:3: score") {
		t.Errorf("bad score: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := evolve(t, "compare", "--correction", "nope", base, cand); code != exitUsage || !strings.Contains(stderr, "--correction") {
		t.Errorf("bad correction: exit %d\n%s", code, stderr)
	}
}
