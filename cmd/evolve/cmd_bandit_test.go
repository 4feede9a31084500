package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/bandit"
)

func TestBanditUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{"help", []string{"bandit", "--help"}, exitOK, []string{"usage: evolve bandit simulate", "seed-egreedy", "thompson", "regret.parquet", "Examples:", "-requests N"}, nil},
		{"no subcommand", []string{"bandit"}, exitUsage, nil, []string{"want the subcommand simulate"}},
		{"unknown subcommand", []string{"bandit", "simulat"}, exitUsage, nil, []string{"want the subcommand simulate"}},
		{"extra argument", []string{"bandit", "simulate", "x"}, exitUsage, nil, []string{`unexpected argument "x"`}},
		{"requests", []string{"bandit", "simulate", "--requests", "0"}, exitUsage, nil, []string{"--requests must be >= 1, got 0"}},
		{"repeats", []string{"bandit", "simulate", "--repeats", "1"}, exitUsage, nil, []string{"--repeats must be >= 2"}},
		{"epsilon", []string{"bandit", "simulate", "--epsilon", "1.5"}, exitUsage, nil, []string{"--epsilon must be in [0, 1], got 1.5"}},
		{"alpha", []string{"bandit", "simulate", "--alpha", "0"}, exitUsage, nil, []string{"--alpha must be in (0, 1], got 0"}},
		{"pool", []string{"bandit", "simulate", "--pool", "5000"}, exitUsage, nil, []string{"--pool must be in [1, 1000]"}},
		{"trials", []string{"bandit", "simulate", "--trials", "0"}, exitUsage, nil, []string{"--trials must be >= 1, got 0"}},
		{"seed", []string{"bandit", "simulate", "--seed", "-3"}, exitUsage, nil, []string{`--seed must be an unsigned 64-bit integer (decimal or 0x hex), got "-3"`}},
		{"workers", []string{"bandit", "simulate", "--workers", "-1"}, exitUsage, nil, []string{"--workers must be >= 0 (0 = GOMAXPROCS), got -1"}},
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

// TestBanditSimulate runs a small study on 1 and 2 workers: byte-identical
// files and tables, the tables as in testdata/bandit_simulate.golden
// (go test -update rewrites it), progress on stderr, and a second run
// into the same directory refused with nothing overwritten.
func TestBanditSimulate(t *testing.T) {
	dir := t.TempDir()
	small := []string{"bandit", "simulate", "--requests", "300", "--repeats", "3", "--pool", "20", "--trials", "100", "--seed", "7"}
	var outs [2]string
	for i, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "w"+w)
		code, stdout, stderr := evolve(t, append(small, "--workers", w, "--out", out)...)
		if code != exitOK {
			t.Fatalf("workers %s: exit %d\nstdout: %s\nstderr: %s", w, code, stdout, stderr)
		}
		for _, s := range []string{"bandit simulate: seed 7; 320 episodes (4 contexts x 4 versions x 20 seeds)", "episodes 320/320", "streams  18/18", "rollback 4/4"} {
			if !strings.Contains(stderr, s) {
				t.Errorf("workers %s: stderr lacks %q:\n%s", w, s, stderr)
			}
		}
		outs[i] = strings.ReplaceAll(stdout, out, "DIR")
	}
	if outs[0] != outs[1] {
		t.Errorf("stdout differs between 1 and 2 workers:\n%s\n---\n%s", outs[0], outs[1])
	}
	for _, f := range bandit.Files() {
		a, err := os.ReadFile(filepath.Join(dir, "w1", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "w2", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 2 workers", f)
		}
	}
	for _, s := range []string{"oracle           0.0 ", "auto-rollback of v1.0.5", "wrote DIR: rewards.parquet, regret.parquet"} {
		if !strings.Contains(outs[0], s) {
			t.Errorf("stdout lacks %q:\n%s", s, outs[0])
		}
	}
	golden := filepath.Join("testdata", "bandit_simulate.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(outs[0]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if outs[0] != string(want) {
		t.Errorf("stdout differs from %s (go test -update rewrites it):\n%s", golden, outs[0])
	}

	before, err := os.ReadFile(filepath.Join(dir, "w1", bandit.SummaryMD))
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := evolve(t, append(small, "--quiet", "--requests", "200", "--out", filepath.Join(dir, "w1"))...)
	if code != exitFailure || !strings.Contains(stderr, "holds rewards.parquet already") {
		t.Errorf("rerun into the same --out: exit %d, stderr %q; want 1 and 'holds rewards.parquet already'", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "w1", bandit.SummaryMD))
	if !bytes.Equal(before, after) {
		t.Error("the refused rerun changed summary.md")
	}
}
