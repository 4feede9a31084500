package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/results"
)

// `evolve eval --max-failure-increase P` adds one failure-share check per
// version, paired by seed (exact McNemar at P = 0), in the text, JSON and
// JUnit outputs; a bad P is refused before anything is played.
func TestEvalMaxFailureIncrease(t *testing.T) {
	var b strings.Builder
	for s := 1; s <= 24; s++ {
		fmt.Fprintf(&b, "%d\n", s)
	}
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte(b.String()), 0o644)
	cache := t.TempDir()
	args := []string{"eval", "--quiet", "--cache", cache, "--seeds", seeds, "--out", t.TempDir()}

	code, _, stderr := evolve(t, append(args, "--max-failure-increase", "1", "embedded")...)
	if code != exitUsage || !strings.Contains(stderr, "--max-failure-increase must be a share in [0, 1)") {
		t.Fatalf("P = 1: exit %d, stderr %q", code, stderr)
	}

	worse := worsePrompt(t, 20)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, stdout, stderr := evolve(t, append(args, "--max-failure-increase", "0", "--junit", junit, "embedded", worse)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "failure shares (--max-failure-increase 0)") || !strings.Contains(stdout, "v1.0.1 (failure share)") ||
		!strings.Contains(stdout, "mcnemar-exact") {
		t.Errorf("text output lacks the failure check:\n%s", stdout)
	}
	if j := readJUnit(t, junit); j.Tests != 2 {
		t.Errorf("JUnit: %d cases, want 2 (score and failure share)", j.Tests)
	}

	out := t.TempDir()
	args[len(args)-1] = out
	code, stdout, stderr = evolve(t, append(args, "--max-failure-increase", "0.1", "--json", "embedded", worse)...)
	if code != exitOK {
		t.Fatalf("--json: exit %d\n%s", code, stderr)
	}
	var doc struct {
		Checks []struct {
			Test          string  `json:"test"`
			FailureMethod string  `json:"failure_method"`
			Margin        float64 `json:"margin"`
			Paired        bool    `json:"paired"`
			P             float64 `json:"p"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(doc.Checks) != 2 || doc.Checks[1].Test != "failure-increase" || doc.Checks[1].FailureMethod != "paired-exact-unconditional-score" ||
		doc.Checks[1].Margin != 0.1 || !doc.Checks[1].Paired || !(doc.Checks[1].P > 0 && doc.Checks[1].P <= 1) {
		t.Errorf("JSON checks: %+v", doc.Checks)
	}
	// comparisons.parquet: the failure check is a row of its own after
	// the score row; results.tex has its "failed" row.
	files, _ := filepath.Glob(filepath.Join(out, "*", "comparisons.parquet"))
	if len(files) != 1 {
		t.Fatalf("comparisons.parquet files: %v", files)
	}
	rows, err := results.ReadComparisons(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Check != results.CheckScore || rows[1].Check != results.CheckFailureShare ||
		rows[1].Test != "failure-increase" || rows[1].FailureMethod != "paired-exact-unconditional-score" || rows[1].Margin != 0.1 ||
		rows[1].PWorse != doc.Checks[1].P || !strings.Contains(rows[1].Family, "failure checks") || rows[1].Verdict == "" {
		t.Errorf("comparisons.parquet rows: %+v", rows)
	}
	tex, _ := os.ReadFile(filepath.Join(filepath.Dir(files[0]), "results.tex"))
	if !strings.Contains(string(tex), `\quad\emph{failed} & 24 &`) || !strings.Contains(string(tex), "paired-exact-unconditional-score") {
		t.Errorf("results.tex lacks the failure check:\n%s", tex)
	}
}

// `evolve compare --max-failure-increase` reads causes from CSV files,
// fails with exit 3 on a clear increase, and refuses inputs without
// causes and several candidates.
func TestCompareMaxFailureIncrease(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, failedUpTo int) string {
		var b strings.Builder
		b.WriteString("seed,score,cause\n")
		for i := 1; i <= 30; i++ {
			cause := "none"
			if i <= failedUpTo {
				cause = "injury"
			}
			fmt.Fprintf(&b, "%d,%d,%s\n", i, i*3, cause)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	base, worse, same := write("base.csv", 1), write("worse.csv", 11), write("same.csv", 2)
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("1\n2\n3\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"clear increase", []string{"--fail-on-regression", base, worse}, exitRegression, "FAILURE INCREASE"},
		{"one more failure", []string{"--fail-on-regression", base, same}, exitOK, "paired-exact-unconditional-score"},
		{"no causes", []string{base, plain}, exitFailure, "plain.txt has no failure causes"},
		{"several candidates", []string{base, worse, same}, exitUsage, "one BASELINE with one CANDIDATE"},
		{"bad share", []string{"--max-failure-increase", "-0.1", base, worse}, exitUsage, "must be a share in [0, 1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"compare", "--max-failure-increase", "0.05"}
			code, stdout, stderr := evolve(t, append(args, tt.args...)...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output %q, want %q", code, tt.code, stdout+stderr, tt.want)
			}
		})
	}
}
