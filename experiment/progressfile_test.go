package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"evolve/rundir"
)

// TestProgressFileThrottle: the progress file is written at a phase's
// start, then at most once a second, and at the phase's last episode,
// with the counts and times of that moment.
func TestProgressFileThrottle(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	now := t0
	f := &progressFile{dir: dir, now: func() time.Time { return now },
		p: rundir.Progress{RunID: "r-1", RunStarted: t0.Add(-time.Hour)}}
	read := func() *rundir.Progress {
		t.Helper()
		p, err := rundir.ReadProgress(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.PhaseStart(3, "val", "v1.0.4,v1.0.5", 10)
	if p := read(); p.Done != 0 || p.Total != 10 || p.Generation != 3 || p.Split != "val" || len(p.Versions) != 2 || p.Versions[1] != "v1.0.5" ||
		!p.PhaseStarted.Equal(t0) || p.RunID != "r-1" || !p.RunStarted.Equal(t0.Add(-time.Hour)) || p.Rate() != 0 || p.ETA() != -1 {
		t.Fatalf("at the phase's start: %+v", p)
	}
	for _, c := range []struct {
		at       time.Duration // since the phase's start
		done     int
		wantDone int // the file's count after the call
	}{
		{500 * time.Millisecond, 1, 0}, // within a second of the last write: not written
		{1 * time.Second, 2, 2},
		{1500 * time.Millisecond, 3, 2},
		{2500 * time.Millisecond, 5, 5},
		{2600 * time.Millisecond, 10, 10}, // the last episode: written at once
	} {
		now = t0.Add(c.at)
		f.EpisodeDone(c.done, 10)
		if p := read(); p.Done != c.wantDone {
			t.Errorf("episode %d at %v: file says %d done, want %d", c.done, c.at, p.Done, c.wantDone)
		}
	}
	p := read()
	if want := 10 / 2.6; p.Rate() < want-1e-9 || p.Rate() > want+1e-9 || p.ETA() != 0 {
		t.Errorf("rate %v (want %v), ETA %v (want 0)", p.Rate(), want, p.ETA())
	}
}

// phaseStopper is an Observer that cancels the run at the second episode
// of its first train phase, and remembers that phase.
type phaseStopper struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	inside bool
	gen    int
	ver    string
	total  int
}

func (s *phaseStopper) Started(string, string, int) {}
func (s *phaseStopper) PhaseStart(gen int, split, version string, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if split == PhaseTrain && s.ver == "" {
		s.inside, s.gen, s.ver, s.total = true, gen, version, total
	}
}
func (s *phaseStopper) EpisodeDone(done, _ int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inside && done >= 2 {
		s.cancel()
	}
}
func (s *phaseStopper) PhaseEnd(int, string, string, int, time.Duration) {
	s.mu.Lock()
	s.inside = false
	s.mu.Unlock()
}
func (s *phaseStopper) GenerationEnd(Generation) {}

// TestProgressFileResume: a run stopped in the middle of a phase leaves
// the progress file of that phase; resumed to its end, the run removes
// it, so that a finished run's directory has none.
func TestProgressFileResume(t *testing.T) {
	seedDir := t.TempDir()
	writeSeeds(t, seedDir, map[string][]uint64{
		"train": {1, 2, 3, 4, 5, 6, 7, 8},
		"val":   {11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
		"test":  {21, 22, 23, 24, 25},
	})
	out := t.TempDir()
	cfg, err := Parse("tiny.yaml", []byte(fmt.Sprintf("name: tiny\nseeds: %s\nmax_generations: 2\nmutation:\n  candidates: 2\noutput: %s\n", seedDir, out)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := &phaseStopper{cancel: cancel}
	_, err = Run(ctx, cfg, Options{Now: fixedNow, Workers: 1, Observer: stop})
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("run: %v, want an interruption", err)
	}
	p, err := rundir.ReadProgress(ie.Dir)
	if err != nil {
		t.Fatalf("a run stopped mid-phase left no progress file: %v", err)
	}
	ck, err := rundir.ReadRun(ie.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.RunID != ck.RunID || !p.RunStarted.Equal(ck.Started) || p.Split != PhaseTrain || p.Generation != stop.gen ||
		len(p.Versions) != 1 || p.Versions[0] != stop.ver || p.Total != stop.total || p.Total == 0 || p.PhaseStarted.IsZero() || p.Updated.Before(p.PhaseStarted) {
		t.Errorf("progress %+v; want run %s started %v, train of %s in generation %d, %d episodes", p, ck.RunID, ck.Started, stop.ver, stop.gen, stop.total)
	}

	if _, err := Resume(context.Background(), ie.Dir, nil, Options{Now: fixedNow, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ie.Dir, rundir.ProgressFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a finished run keeps %s: %v", rundir.ProgressFile, err)
	}
}
