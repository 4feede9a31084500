package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evolve runs the CLI in-process and returns its exit status and output.
func evolve(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), &out, &errb, args)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{"no args", nil, exitUsage, nil, []string{"Usage:", "run"}},
		{"help", []string{"--help"}, exitOK, []string{"Commands:", "run ", "Exit status"}, nil},
		{"help run", []string{"help", "run"}, exitOK, []string{"usage: evolve run", "--workers"}, nil},
		{"run --help", []string{"run", "--help"}, exitOK, []string{"usage: evolve run", "-config FILE", "Examples:"}, nil},
		{"version", []string{"version"}, exitOK, []string{"evolve "}, nil},
		{"unknown command", []string{"frobnicate"}, exitUsage, nil, []string{`unknown command "frobnicate"`}},
		{"unknown flag", []string{"run", "--wokers", "2"}, exitUsage, nil, []string{"flag provided but not defined: -wokers", "usage: evolve run"}},
		{"bad flag value", []string{"run", "--workers", "two"}, exitUsage, nil, []string{`invalid value "two" for flag -workers`}},
		{"negative workers", []string{"run", "--workers", "-1"}, exitUsage, nil, []string{"--workers must be >= 0 (0 = GOMAXPROCS), got -1"}},
		{"extra argument", []string{"run", "extra"}, exitUsage, nil, []string{`unexpected argument "extra"`}},
		{"missing config", []string{"run", "--config", "/nonexistent/exp.yaml"}, exitFailure, nil, []string{"/nonexistent/exp.yaml", "no such file"}},
		{"print config", []string{"run", "--print-config"}, exitOK, []string{"name: default", "max_generations: 10"}, nil},
		{"report --help", []string{"report", "--help"}, exitOK, []string{"usage: evolve report", "results.tex", "booktabs", "Examples:"}, nil},
		{"report no dir", []string{"report"}, exitUsage, nil, []string{"want one RUN_DIR, got 0 arguments"}},
		{"report bad format", []string{"report", "--formats", "png,jpg", "x"}, exitUsage, nil, []string{`--formats: unknown format "jpg" (allowed: png, svg, pdf)`}},
		{"report not a run", []string{"report", "/nonexistent/run"}, exitFailure, nil, []string{"/nonexistent/run: not a run directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := evolve(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
}

func TestRunBadConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "exp.yaml")
	os.WriteFile(cfg, []byte("name: x\nacceptance:\n  alpah: 0.1\n"), 0o644)
	code, _, stderr := evolve(t, "run", "--config", cfg)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	want := cfg + `:3: acceptance: unknown key "alpah" (known: alpha, alpha_spending, correction, sequential, test)`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", stderr, want)
	}
}

// A small run end to end through the CLI: the summary table and the run
// directory.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("plays episodes")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "exp.yaml")
	os.WriteFile(cfg, []byte("name: small\nmax_generations: 1\nmutation:\n  candidates: 2\n"), 0o644)
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", filepath.Join(dir, "runs"), "--workers", "2")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	for _, s := range []string{"generation  incumbent", "test split (n=1000)", "run directory: " + filepath.Join(dir, "runs", "small-")} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	// The run wrote its report; evolve report rebuilds it identically.
	runDir := strings.TrimSpace(strings.TrimPrefix(stdout[strings.Index(stdout, "run directory: "):strings.Index(stdout, "\nreport: ")], "run directory: "))
	// evolve validate RUN_DIR checks the run (not as a seed set).
	if code, out, errs := evolve(t, "validate", runDir); code != exitOK || !strings.Contains(out, "ok (run directory: ") || !strings.Contains(out, "prompt versions verified") {
		t.Errorf("validate RUN_DIR: exit %d\n%s%s", code, out, errs)
	}
	before := map[string][]byte{}
	for _, f := range []string{"report.md", "report.html", "results.tex", "plots/lineage.pdf", "plots/failure_causes.png", "plots/candidates.svg"} {
		b, err := os.ReadFile(filepath.Join(runDir, f))
		if err != nil || len(b) == 0 {
			t.Errorf("run wrote no %s: %v", f, err)
		}
		before[f] = b
	}
	code, out, errs := evolve(t, "report", runDir)
	if code != exitOK || !strings.Contains(out, filepath.Join(runDir, "results.tex")) || !strings.Contains(out, "12 figures in") {
		t.Errorf("evolve report: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	for f, b := range before {
		if again, _ := os.ReadFile(filepath.Join(runDir, f)); !bytes.Equal(again, b) {
			t.Errorf("evolve report rewrote %s differently", f)
		}
	}
	// Not a terminal: plain progress lines on stderr.
	for _, s := range []string{`msg="phase done" gen=0 split=train version=v1.0.0 episodes=200`, `msg="generation done" gen=0 incumbent=v1.0.0`} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
}
