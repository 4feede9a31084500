package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evolve runs lists a run directory with its status and stop reason, as
// a table and as JSON; evolve view refuses a non-loopback address without
// a token and a missing directory.
func TestRunsAndViewCLI(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "runs", "small-0123456789")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, "checkpoint.json"), []byte(`{"schema":1,"run_id":"small-0123456789","config":"name: small\nmax_generations: 3\n",`+
		`"generations":3,"done":true,"stop_reason":"max_generations","started":"2026-11-25T10:00:00Z","finished":"2026-11-25T10:01:00Z"}`), 0o644)
	code, out, errs := evolve(t, "runs", filepath.Join(dir, "runs"))
	if code != exitOK || !strings.Contains(out, "small-0123456789") || !strings.Contains(out, "max_generations") || !strings.Contains(out, "finished") {
		t.Fatalf("evolve runs: %d\n%s%s", code, out, errs)
	}
	code, out, _ = evolve(t, "runs", "--json", filepath.Join(dir, "runs"))
	var list []map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["status"] != "finished" || list[0]["stop_reason"] != "max_generations" {
		t.Fatalf("evolve runs --json: %d %s", code, out)
	}
	if code, _, _ := evolve(t, "runs", filepath.Join(dir, "missing")); code != exitFailure {
		t.Errorf("a missing directory: exit %d, want %d", code, exitFailure)
	}
	// A file is not a directory of runs: an error, not an empty table.
	file := filepath.Join(run, "checkpoint.json")
	for _, args := range [][]string{{"runs", file}, {"runs", "--json", file}, {"runs", filepath.Join(dir, "runs"), file}} {
		code, out, errs := evolve(t, args...)
		if want := "evolve runs: " + file + " is not a directory: give the directories that hold runs and evals (e.g. runs, evals)\n"; code != exitFailure || out != "" || errs != want {
			t.Errorf("evolve %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(args, " "), code, out, errs, want)
		}
	}
	if code, _, errs := evolve(t, "view", "--addr", "0.0.0.0:0", dir); code != exitUsage || !strings.Contains(errs, "token") {
		t.Errorf("view on 0.0.0.0 without a token: exit %d: %s", code, errs)
	}
}
