package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/seeds"
)

// TestSeedsNew writes a small set for a fixed seed and compares every file
// and the transcript with golden files; then evolve validate accepts the
// set, a run uses it, and a second seeds new into the same directory is
// refused without touching it.
func TestSeedsNew(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "set")
	// Flags after the directory, as any command takes them.
	code, stdout, stderr := evolve(t, "seeds", "new", dir, "--train", "3", "--val", "4", "--test", "5", "--seed", "42")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	goldenFile(t, "seeds_new/stdout.golden", strings.ReplaceAll(stdout, dir, "DIR"))
	for _, name := range []string{"train.txt", "val.txt", "test.txt", seeds.SumsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		goldenFile(t, "seeds_new/"+name+".golden", string(b))
	}

	code, stdout, stderr = evolve(t, "validate", dir)
	if code != exitOK || !strings.Contains(stdout, "seed set: train 3, val 4, test 5 seeds") {
		t.Errorf("evolve validate %s: exit %d\n%s%s", dir, code, stdout, stderr)
	}

	before, _ := os.ReadFile(filepath.Join(dir, "val.txt"))
	code, _, stderr = evolve(t, "seeds", "new", "--seed", "43", dir)
	if code != exitFailure || !strings.Contains(stderr, dir) || !strings.Contains(stderr, "not empty") {
		t.Errorf("seeds new into a full directory: exit %d, stderr %q; want 1 naming it", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "val.txt")); string(after) != string(before) {
		t.Error("seeds new into a full directory changed val.txt")
	}

	// A config naming the set (relative to the config's directory) runs.
	cfg := filepath.Join(root, "exp.yaml")
	if err := os.WriteFile(cfg, []byte("name: tiny\nseeds: set\nmax_generations: 1\nmutation:\n  candidates: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = evolve(t, "run", "--config", cfg, "--out", filepath.Join(root, "runs"), "--quiet")
	if code != exitOK {
		t.Fatalf("run with the new set: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "test split (n=5)") {
		t.Errorf("the run did not play the set's 5 test seeds:\n%s", stdout)
	}
}

func TestSeedsUsage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"seeds"}, "want the subcommand new"},
		{"unknown subcommand", []string{"seeds", "old", dir}, "want the subcommand new"},
		{"no dir", []string{"seeds", "new", "--seed", "1"}, "want one DIR after new, got 0 arguments"},
		{"two dirs", []string{"seeds", "new", "--seed", "1", dir, dir}, "want one DIR after new, got 2 arguments"},
		{"no seed", []string{"seeds", "new", dir}, "--seed S is required"},
		{"bad seed", []string{"seeds", "new", "--seed", "-1", dir}, `--seed must be an unsigned 64-bit integer (decimal or 0x hex), got "-1"`},
		{"zero train", []string{"seeds", "new", "--seed", "1", "--train", "0", dir}, "--train must be in [1, 1000000], got 0"},
		{"huge test", []string{"seeds", "new", "--seed", "1", "--test", "1000001", dir}, "--test must be in [1, 1000000], got 1000001"},
		{"bad flag", []string{"seeds", "new", "--vall", "3", dir}, "flag provided but not defined: -vall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := evolve(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "usage: evolve seeds new") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 with %q and the usage", code, stderr, tt.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("a usage error created %s", dir)
			}
		})
	}
	code, stdout, _ := evolve(t, "seeds", "--help")
	for _, s := range []string{"usage: evolve seeds new", "SHA256SUMS", "disjoint", "-seed S", "Examples:"} {
		if code != exitOK || !strings.Contains(stdout, s) {
			t.Errorf("seeds --help (exit %d) lacks %q:\n%s", code, s, stdout)
		}
	}
}
