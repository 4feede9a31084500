package main

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/results"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ and doc.go")

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update if intended):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

const (
	cmpBase  = "testdata/compare/base.txt"
	cmpCand  = "testdata/compare/cand.txt"
	cmpMain  = "testdata/compare/main.csv"
	cmpSame  = "testdata/compare/pr_same.csv"
	cmpWorse = "testdata/compare/pr_worse.csv"
)

func TestCompareGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"compare_mwu.golden", []string{cmpBase, cmpCand}},
		{"compare_signed_rank.golden", []string{"--test", "signed-rank", "--alternative", "greater", cmpBase, cmpCand}},
		{"compare_json.golden", []string{"--json", cmpBase, cmpCand}},
		{"compare_csv_regression.golden", []string{"--test", "signed-rank", cmpMain, cmpWorse}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := evolve(t, append([]string{"compare"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			goldenFile(t, tc.golden, stdout)
		})
	}
}

// The statistics of R's ?wilcox.test depression example (the reference
// values are in the comments of testdata/compare/cand.txt): paired, V = 40,
// p = 0.0390625 two-sided and 0.01953125 greater; unpaired, U = 58 (pairs
// counted here) and, with no ties, an exact two-sided p of twice the
// one-sided one.
func TestCompareMatchesR(t *testing.T) {
	run := func(args ...string) comparison {
		code, stdout, stderr := evolve(t, append([]string{"compare", "--json"}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var c comparison
		if err := json.Unmarshal([]byte(stdout), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := run(cmpBase, cmpCand)
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	pairs := 0
	for _, a := range x {
		for _, b := range y {
			if a > b {
				pairs++
			}
		}
	}
	if pairs != 58 || c.U != 58 || math.Abs(c.P-2*c.PGreater) > 1e-15 || c.Method != "exact" || c.N1 != 9 || c.N2 != 9 || c.V != nil {
		t.Errorf("mwu: %+v, want U %d, p = 2 p_greater, exact, n 9/9, no V", c, pairs)
	}
	if math.Abs(c.A12-58.0/81) > 1e-15 || math.Abs(c.RankBiserial-(2*58.0/81-1)) > 1e-15 {
		t.Errorf("A12 %v rank-biserial %v", c.A12, c.RankBiserial)
	}
	c = run("--test", "signed-rank", cmpBase, cmpCand)
	if c.V == nil || *c.V != 40 || math.Abs(c.P-0.0390625) > 1e-12 || *c.NPairs != 9 || math.Abs(c.PGreater-0.01953125) > 1e-12 {
		t.Errorf("signed-rank: %+v, want V 40, p 0.03906, p_greater 0.01953", c)
	}
	// Swapping the samples swaps greater and less.
	s := run("--test", "signed-rank", cmpCand, cmpBase)
	if s.PGreater != c.PLess || s.PLess != c.PGreater {
		t.Errorf("swapped: greater %v less %v, want %v %v", s.PGreater, s.PLess, c.PLess, c.PGreater)
	}
}

func TestCompareExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		verdict string
	}{
		{"no difference", []string{cmpMain, cmpSame}, exitOK, "no significant difference"},
		{"improvement", []string{cmpWorse, cmpMain}, exitOK, "improvement"},
		{"regression reported", []string{cmpMain, cmpWorse}, exitOK, "regression"},
		{"regression gate", []string{"--fail-on-regression", cmpMain, cmpWorse}, exitRegression, "regression"},
		{"gate passes", []string{"--fail-on-regression", cmpMain, cmpSame}, exitOK, "no significant difference"},
		{"strict alpha", []string{"--fail-on-regression", "--alpha", "1e-12", cmpMain, cmpWorse}, exitOK, "no significant difference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := evolve(t, append([]string{"compare", "--json"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			var c comparison
			if err := json.Unmarshal([]byte(stdout), &c); err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", c.Verdict, tt.verdict)
			}
			if tt.code == exitRegression && !strings.Contains(stderr, "regression: candidate: REGRESSION") {
				t.Errorf("stderr = %q", stderr)
			}
		})
	}
}

func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1\n2\nabc\n"), 0o644)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{cmpBase}, exitUsage, "want BASELINE and CANDIDATE, got 1 argument"},
		{[]string{"--test", "t", cmpBase, cmpCand}, exitUsage, `--test must be mwu or signed-rank, got "t"`},
		{[]string{"--alternative", "bigger", cmpBase, cmpCand}, exitUsage, `--alternative: "bigger" is not one of two-sided, greater, less`},
		{[]string{"--method", "magic", cmpBase, cmpCand}, exitUsage, `--method: "magic" is not one of auto, exact, asymptotic`},
		{[]string{"--alpha", "1.5", cmpBase, cmpCand}, exitUsage, "--alpha must be in (0, 1), got 1.5"},
		{[]string{"--split", "dev", cmpBase, cmpCand}, exitUsage, `--split must be train, val or test, got "dev"`},
		{[]string{cmpBase, bad}, exitFailure, bad + `:3: "abc" is not a number`},
		{[]string{cmpBase, filepath.Join(dir, "none.txt")}, exitFailure, "none.txt: no such file or directory"},
		{[]string{"--test", "signed-rank", cmpBase, cmpMain}, exitFailure, "cannot pair: only one of testdata/compare/main.csv and testdata/compare/base.txt has seeds"},
	}
	for _, tt := range tests {
		code, _, stderr := evolve(t, append([]string{"compare"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("compare %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.stderr)
		}
	}
}

// RUN_DIR:VERSION takes a version's episodes of a split from a run.
func TestCompareRunDir(t *testing.T) {
	dir := t.TempDir()
	var eps []results.EpisodeRow
	for seed := uint64(1); seed <= 30; seed++ {
		for _, v := range []struct {
			version string
			score   float64
		}{{"v1.0.0", float64(100 + seed)}, {"v1.0.1", float64(140 + seed)}} {
			eps = append(eps, results.EpisodeRow{Run: "r", Generation: 0, Version: v.version, Split: results.SplitVal, Seed: seed, Score: v.score, Cause: "none", EndReason: "killed"})
			eps = append(eps, results.EpisodeRow{Run: "r", Generation: 1, Version: v.version, Split: results.SplitTest, Seed: seed + 100, Score: v.score - 50, Cause: "none", EndReason: "killed"})
		}
	}
	if err := results.WriteEpisodes(filepath.Join(dir, "episodes.parquet"), nil, eps); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := evolve(t, "compare", "--json", "--test", "signed-rank", dir+":v1.0.0", dir+":v1.0.1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c comparison
	json.Unmarshal([]byte(stdout), &c)
	if c.N1 != 30 || c.Baseline.Mean != 115.5 || c.Candidate.Mean != 155.5 || *c.NPairs != 30 || c.Verdict != "improvement" {
		t.Errorf("%+v", c)
	}
	code, stdout, _ = evolve(t, "compare", "--json", "--split", "test", dir+":v1.0.0", dir+":v1.0.1")
	json.Unmarshal([]byte(stdout), &c)
	if code != exitOK || c.Baseline.Mean != 65.5 {
		t.Errorf("--split test: exit %d, baseline mean %v, want 65.5", code, c.Baseline.Mean)
	}
	code, _, stderr = evolve(t, "compare", dir+":v1.0.0", dir+":v9.9.9")
	if code != exitFailure || !strings.Contains(stderr, `version "v9.9.9" has no val episodes (versions with val episodes: v1.0.0, v1.0.1)`) {
		t.Errorf("unknown version: exit %d, %s", code, stderr)
	}
}
