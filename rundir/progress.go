package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"evolve/internal/atomicfile"
)

// ProgressFile is a running run's progress within its current phase
// (Progress, JSON), rewritten atomically during each phase and removed
// when the run's last phase ends, before the exports: a finished run's
// directory has none, and a run stopped mid-phase keeps the one of the
// phase it stopped in.
const ProgressFile = "progress.json"

// Progress is what ProgressFile holds: where a running run is within its
// current phase. The Parquet tables are written only at generation
// boundaries, so this is the one record of the episodes played since.
type Progress struct {
	// RunID is the run's ID (the checkpoint's run_id).
	RunID string `json:"run_id"`
	// Generation is the generation the phase belongs to, counted from 0
	// as the Parquet tables count.
	Generation int `json:"generation"`
	// Split is the phase's split: "train", "val" or "test".
	Split string `json:"split"`
	// Versions are the versions the phase plays: one, or a pool (a
	// generation's candidates on val, the final and base versions on
	// test).
	Versions []string `json:"versions"`
	// Done of Total episodes of the phase are played; 0 <= Done <= Total.
	Done  int `json:"done"`
	Total int `json:"total"`
	// PhaseStarted is when the phase started and RunStarted when the run
	// was first started (both UTC); Updated is when the file was written.
	PhaseStarted time.Time `json:"phase_started"`
	RunStarted   time.Time `json:"run_started"`
	Updated      time.Time `json:"updated"`
}

// Rate is the phase's pace in episodes per second since it started,
// measured at Updated; 0 before the first episode or a second.
func (p *Progress) Rate() float64 {
	s := p.Updated.Sub(p.PhaseStarted).Seconds()
	if p.Done <= 0 || s <= 0 {
		return 0
	}
	return float64(p.Done) / s
}

// ETA is the time the phase's remaining episodes take at Rate, counted
// from Updated; -1 when Rate is 0 (not yet known).
func (p *Progress) ETA() time.Duration {
	r := p.Rate()
	if r == 0 {
		return -1
	}
	return time.Duration(float64(p.Total-p.Done) / r * float64(time.Second))
}

// WriteProgress writes p as dir's ProgressFile: JSON and a final
// newline, atomically (a reader sees the old file or the new one, never
// a part).
func WriteProgress(dir string, p *Progress) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ProgressFile), append(data, '\n'), 0o644)
}

// ReadProgress reads dir's ProgressFile. It returns an error wrapping
// fs.ErrNotExist when there is none (no phase running, or the run
// finished), and one naming the file when it does not parse or its
// counts are out of range (Done not in [0, Total]).
func ReadProgress(dir string) (*Progress, error) {
	path := filepath.Join(dir, ProgressFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Progress
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Total < 0 || p.Done < 0 || p.Done > p.Total {
		return nil, fmt.Errorf("%s: done %d of total %d: want 0 <= done <= total", path, p.Done, p.Total)
	}
	return &p, nil
}

// RemoveProgress removes dir's ProgressFile; none is not an error.
func RemoveProgress(dir string) error {
	err := os.Remove(filepath.Join(dir, ProgressFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
