package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"evolve/internal/atomicfile"
)

// A run killed in its first checkpoint write leaves a directory with no
// checkpoint.json. --resume takes it over as a plain rerun does (it
// failed with "holds no checkpoint.json", so a retry loop that only calls
// --resume failed forever): from the checkpoint the write left whole, or,
// when the write left nothing usable, afresh with --config; without
// --config the error says to give it. Each continuation must write the
// files of a run never interrupted.
func TestResumeStillborn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	cfg := crashConfig(t)
	refOut := t.TempDir()
	points := writePoints(t, cfg, refOut)
	if len(points) == 0 || points[0] != "checkpoint.json" {
		t.Fatalf("the first write is %v, want checkpoint.json", points[:1])
	}
	ref := runDir(t, refOut)
	want := runFiles(t, ref)

	t.Run("killed before the rename", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=1"}, "run", "--config", cfg, "--out", out, "--quiet")
		if code != -int(syscall.SIGKILL) {
			t.Fatalf("exit %d, want killed\n%s", code, stderr)
		}
		dir := runDir(t, out)
		if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err == nil {
			t.Fatal("checkpoint.json exists: the kill came after the first checkpoint")
		}
		if code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--quiet"); code != 0 {
			t.Fatalf("--resume: exit %d\n%s", code, stderr)
		}
		if diffs := sameFiles(want, runFiles(t, dir)); len(diffs) > 0 {
			t.Errorf("after --resume: %s", strings.Join(diffs, "; "))
		}
	})

	t.Run("killed while writing", func(t *testing.T) {
		out := t.TempDir()
		dir := filepath.Join(out, filepath.Base(ref))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{"run.lock": "", ".checkpoint.json.tmp-" + strconv.Itoa(12345): `{"schema": 1, "run_id": "cra`} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--quiet")
		if code != exitFailure || !strings.Contains(stderr, "resume with --config FILE") {
			t.Fatalf("--resume without a recorded config: exit %d, want %d and a hint to give --config\n%s", code, exitFailure, stderr)
		}
		other := filepath.Join(t.TempDir(), "other.yaml")
		data, _ := os.ReadFile(cfg)
		os.WriteFile(other, append(data, "patience: 7\n"...), 0o644)
		if code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--config", other, "--quiet"); code != exitFailure || !strings.Contains(stderr, "not the run of that directory") {
			t.Fatalf("--resume with another config: exit %d\n%s", code, stderr)
		}
		if code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--config", cfg, "--quiet"); code != 0 {
			t.Fatalf("--resume --config: exit %d\n%s", code, stderr)
		}
		if d := runDir(t, out); d != dir {
			t.Fatalf("made another run directory %s", d)
		}
		if diffs := sameFiles(want, runFiles(t, dir)); len(diffs) > 0 {
			t.Errorf("after --resume --config: %s", strings.Join(diffs, "; "))
		}
	})
}
