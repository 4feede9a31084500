package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A session of evolve prompt commands on a fresh store, checked against
// one golden transcript (go test -update to rewrite it).
func TestPromptSession(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	store := filepath.Join(t.TempDir(), "prompts")
	const ten = "../../store/testdata/migrate/ten.json"
	steps := []struct {
		args []string
		code int
	}{
		{[]string{"migrate", "--dry-run", ten}, exitFailure},
		{[]string{"migrate", ten}, exitFailure},
		{[]string{"migrate", "--dry-run", "testdata/prompt/nine.json"}, exitOK},
		{[]string{"migrate", "testdata/prompt/nine.json"}, exitOK},
		{[]string{"list"}, exitOK},
		{[]string{"show", "--resolved", "coding-agent"}, exitOK},
		{[]string{"show", "coding-agent", "--render"}, exitOK},
		{[]string{"log", "--all", "base-agent"}, exitOK},
		{[]string{"diff", "base-agent", "base-agent@exp"}, exitOK},
		{[]string{"diff", "--resolved", "coding-agent@v1.0.0", "writing-agent"}, exitOK},
		{[]string{"branch", "coding-agent@v1.0.0", "exp-1"}, exitOK},
		{[]string{"rollback", "--reason", "tools regression", "coding-agent"}, exitOK},
		{[]string{"rollback", "coding-agent"}, exitFailure},
		{[]string{"rollback", "--to", "v1.0.1", "coding-agent@main"}, exitOK},
		{[]string{"log", "coding-agent"}, exitOK},
		{[]string{"validate", "testdata/prompt/rejected.yaml", "testdata/prompt/nine.json"}, exitFailure},
		{[]string{"show", "nobody"}, exitFailure},
		{[]string{"branch", "coding-agent", "exp-1"}, exitFailure},
		{[]string{"diff", "coding-agent"}, exitUsage},
		{[]string{"show", "v1.0.0"}, exitUsage},
	}
	var transcript strings.Builder
	for _, st := range steps {
		args := append([]string{"prompt"}, st.args...)
		args = append(args, "--store", store)
		code, stdout, stderr := evolve(t, args...)
		if code != st.code {
			t.Errorf("evolve %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(st.args, " "), code, st.code, stdout, stderr)
		}
		shown := make([]string, len(st.args))
		for i, a := range st.args {
			shown[i] = a
			if strings.Contains(a, " ") {
				shown[i] = strconv.Quote(a)
			}
		}
		fmt.Fprintf(&transcript, "$ evolve prompt %s\n%s", strings.Join(shown, " "), stdout)
		if stderr != "" {
			fmt.Fprintf(&transcript, "[stderr]\n%s", stderr)
		}
		fmt.Fprintf(&transcript, "[exit %d]\n\n", code)
	}
	goldenFile(t, "prompt_session.golden", strings.ReplaceAll(transcript.String(), store, "STORE"))
}

// The dry run of a migration with one bad entry among ten lists all ten,
// the bad one with its problems, and writes nothing.
func TestPromptMigrateDryRunJSON(t *testing.T) {
	store := filepath.Join(t.TempDir(), "prompts")
	code, stdout, _ := evolve(t, "prompt", "migrate", "--dry-run", "--json", "--store", store, "../../store/testdata/migrate/ten.json")
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	var plan struct {
		DryRun  bool `json:"dry_run"`
		Applied bool `json:"applied"`
		Entries []struct {
			Entry    int    `json:"entry"`
			Action   string `json:"action"`
			Version  string `json:"version"`
			Problems []struct {
				Field string `json:"field"`
				Msg   string `json:"msg"`
			} `json:"problems"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if !plan.DryRun || plan.Applied || len(plan.Entries) != 10 {
		t.Fatalf("plan: dry %v applied %v, %d entries", plan.DryRun, plan.Applied, len(plan.Entries))
	}
	for i, e := range plan.Entries {
		bad := i == 6
		if e.Entry != i || (e.Action == "invalid") != bad || (len(e.Problems) == 1) != bad || (e.Version == "") != (bad || e.Action == "unchanged") {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if p := plan.Entries[6].Problems; len(p) == 2 && (p[0].Field != "policy_parameters.health_threshold" || p[1].Field != "sections.notes") {
		t.Errorf("entry 6 problems: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(store, "versions.json")); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote the index: %v", err)
	}
}

// Without --store, evolve prompt uses the most recent run's store, else
// ./prompts, and says so.
func TestPromptDefaultStore(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := evolve(t, "prompt", "list")
	if code != exitFailure || !strings.Contains(stderr, "using the prompt store prompts") || !strings.Contains(stderr, "no prompt store in prompts (no versions.json)") {
		t.Errorf("no store: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat("prompts"); !os.IsNotExist(err) {
		t.Error("a read command created ./prompts")
	}
	for _, run := range []string{"old", "new"} {
		if code, _, stderr := evolve(t, "prompt", "migrate", "--store", filepath.Join("runs", run, "prompts"), filepath.Join(wd, "testdata/prompt/nine.json")); code != 0 {
			t.Fatalf("migrate: %s", stderr)
		}
	}
	old := filepath.Join("runs", "old", "prompts", "versions.json")
	past := mustStat(t, old).ModTime().Add(-3600e9)
	os.Chtimes(old, past, past)
	code, stdout, stderr := evolve(t, "prompt", "list")
	if code != 0 || !strings.Contains(stderr, "using the prompt store "+filepath.Join("runs", "new", "prompts")) || !strings.Contains(stdout, "coding-agent") {
		t.Errorf("default store: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// Commands that write never default to a run's store: they wrote
	// into the most recent run's, changing its artifacts.
	index := filepath.Join("runs", "new", "prompts", "versions.json")
	before, _ := os.ReadFile(index)
	for _, args := range [][]string{{"branch", "coding-agent", "exp-2"}, {"rollback", "coding-agent"}, {"promote", "coding-agent@v1.0.0"}} {
		code, _, stderr := evolve(t, append([]string{"prompt"}, args...)...)
		if code != exitFailure || !strings.Contains(stderr, "writing to the prompt store prompts") || !strings.Contains(stderr, "--store runs/RUN_ID/prompts") {
			t.Errorf("prompt %v without --store: exit %d, stderr %s", args, code, stderr)
		}
	}
	if code, _, stderr := evolve(t, "prompt", "migrate", filepath.Join(wd, "testdata/prompt/nine.json")); code != 0 || !strings.Contains(stderr, "writing to the prompt store prompts") {
		t.Errorf("migrate without --store: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join("prompts", "versions.json")); err != nil {
		t.Errorf("migrate without --store did not write ./prompts: %v", err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Errorf("a write without --store changed the most recent run's store %s", index)
	}
	if code, stdout, stderr := evolve(t, "prompt", "branch", "--store", filepath.Join("runs", "new", "prompts"), "coding-agent", "exp-2"); code != 0 || !strings.Contains(stdout, "created branch exp-2") {
		t.Errorf("branch --store RUN's store: exit %d, %s %s", code, stdout, stderr)
	}
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestPromptUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"prompt", "--help"}, exitOK, "migrate FILE              bulk import", ""},
		{[]string{"help", "prompt"}, exitOK, "REF names a version: SLUG (HEAD of main)", ""},
		{[]string{"prompt", "log", "--help"}, exitOK, "usage: evolve prompt log [flags] [REF]", ""},
		{[]string{"prompt", "migrate", "-h"}, exitOK, "-dry-run", ""},
		{[]string{"prompt"}, exitUsage, "", "want a subcommand: branch, diff, list, log, migrate, new, promote, render, rollback, show, validate"},
		{[]string{"prompt", "frob"}, exitUsage, "", `unknown subcommand "frob"`},
		{[]string{"prompt", "list", "--wat"}, exitUsage, "", "list: flag provided but not defined: -wat"},
		{[]string{"prompt", "rollback", "--to", "1.0", "x"}, exitUsage, "", `rollback: --to: invalid version "1.0"`},
		{[]string{"prompt", "validate"}, exitUsage, "", "validate: want at least one FILE"},
		{[]string{"prompt", "validate", "/nonexistent.yaml"}, exitFailure, "/nonexistent.yaml: REJECTED (file)", ""},
		// The check of every entry point (prompt.Checker): these were VALID.
		{[]string{"prompt", "validate", "testdata/prompt/badparams.yaml"}, exitFailure,
			"testdata/prompt/badparams.yaml: REJECTED (prompt dungeon-agent@v1.0.0)\n" +
				"    testdata/prompt/badparams.yaml:25: policy_parameters.max_combat_attempts: \"three\" is not an integer, allowed [1, 20] (the dungeon environment's parameters)\n" +
				"    testdata/prompt/badparams.yaml:27: policy_parameters.skill_priority: [explore fight eat use_item] has 4 items, not 5", ""},
		{[]string{"prompt", "validate", "--max-chars", "10", "testdata/prompt/nine.json"}, exitFailure,
			"entry 0: sections.identity: 35 characters, more than the limit of 10", ""},
		{[]string{"prompt", "list", "--max-chars", "-1"}, exitUsage, "", "list: --max-chars must be >= 0 (0 for no limit), got -1"},
	}
	for _, tt := range tests {
		code, stdout, stderr := evolve(t, tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("evolve %v: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q / %q", tt.args, code, tt.code, stdout, stderr, tt.stdout, tt.stderr)
		}
	}
}
