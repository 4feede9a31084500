package experiment

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/envs"
	"evolve/failure"
	"evolve/rundir"
	"evolve/trajectory"
)

// The default run keeps its failed episodes' trajectories, byte-identical
// with 1 and 2 workers, and records why it stopped.
func TestDefaultRunTrajectories(t *testing.T) {
	a, b := defaultRun(t, 1), defaultRun(t, 2)
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		root := filepath.Join(dir, trajectory.Dir)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				out[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return out
	}
	fa, fb := files(a.Dir), files(b.Dir)
	if len(fa) == 0 {
		t.Fatal("the default run stored no trajectories")
	}
	for name, x := range fa {
		if !bytes.Equal(x, fb[name]) {
			t.Errorf("%s differs between 1 and 2 workers", name)
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("%d archives with 1 worker, %d with 2", len(fa), len(fb))
	}
	// Every failed test episode of the final version has its trajectory,
	// and no successful one.
	infos, err := trajectory.List(a.Dir, trajectory.Phase{Split: PhaseTest, Version: a.Final})
	if err != nil || len(infos) == 0 {
		t.Fatalf("test trajectories of %s: %v (%d)", a.Final, err, len(infos))
	}
	if a.StopReason != rundir.StopPatience {
		t.Errorf("stop reason %q, want %q", a.StopReason, rundir.StopPatience)
	}
	m, err := os.ReadFile(filepath.Join(a.Dir, "manifest.yaml"))
	if err != nil || !strings.Contains(string(m), "stop_reason: patience") || !strings.Contains(string(m), "trajectories: failed") {
		t.Errorf("manifest lacks stop_reason or trajectories: %v", err)
	}
}

func TestStopReason(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Patience, cfg.MaxGenerations = 2, 5
	r := &run{cfg: cfg}
	r.info.Remedies = map[string][]string{"injury": {"health_threshold+"}}
	r.info.Causes = nil
	fails := failure.Analysis{Failures: 3, Counts: map[string]int{"starvation": 3}}
	for _, tc := range []struct {
		name       string
		stall      int
		gen        Generation
		want, hint string
	}{
		{"max generations", 0, Generation{Failures: fails, Candidates: []Candidate{{}}}, rundir.StopMaxGenerations, ""},
		{"patience", 2, Generation{Failures: fails, Candidates: []Candidate{{}}}, rundir.StopPatience, ""},
		{"no failures", 2, Generation{}, rundir.StopNoFailures, ""},
		{"no candidates", 2, Generation{Failures: fails}, rundir.StopNoCandidates, "every remedy"},
		// The failure-driven proposer has nothing else to offer the same
		// incumbent: the loop stops before patience runs out.
		{"no candidates before patience", 1, Generation{Failures: fails}, rundir.StopNoCandidates, "every remedy"},
		{"no failures before patience", 0, Generation{}, rundir.StopNoFailures, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.ck.Stall = tc.stall
			got, hint := r.stopReason(tc.gen)
			if got != tc.want || !strings.Contains(hint, tc.hint) {
				t.Errorf("stopReason = %q, %q; want %q with a hint containing %q", got, hint, tc.want, tc.hint)
			}
		})
	}
	for _, tc := range []struct {
		proposer string
		gen      Generation
		want     bool
	}{
		{"", Generation{Failures: fails}, true},
		{"failure", Generation{Failures: fails, Candidates: []Candidate{{}}}, false},
		{"cmaes", Generation{Failures: fails}, true},
		{"random", Generation{Failures: fails}, false}, // it draws afresh next generation
	} {
		r.cfg.Mutation.Proposer = tc.proposer
		if got := r.exhausted(tc.gen); got != tc.want {
			t.Errorf("proposer %q, %d candidates: exhausted = %v, want %v", tc.proposer, len(tc.gen.Candidates), got, tc.want)
		}
	}
	r.cfg.Mutation.Proposer = ""
	// A failing cause without a remedy is named in the hint.
	r.info.Causes = []envs.Cause{{Name: "starvation"}}
	_, hint := r.stopReason(Generation{Failures: fails})
	if !strings.Contains(hint, "starvation") || !strings.Contains(hint, "mutation.remedies") {
		t.Errorf("hint %q does not name the cause without a remedy", hint)
	}
}
