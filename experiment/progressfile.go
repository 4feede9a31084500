package experiment

import (
	"strings"
	"sync"
	"time"

	"evolve/rundir"
)

// progressEvery is the least time between two writes of the progress
// file within a phase; a phase's first and last episode are always
// written.
const progressEvery = time.Second

// progressFile is an Observer that keeps the run directory's
// rundir.ProgressFile up to date (at a phase's start, then at most every
// progressEvery and at its last episode) and passes every call on to
// next (nil for none). The file is advisory: an error writing it is
// ignored, never the run's.
type progressFile struct {
	next Observer
	dir  string
	now  func() time.Time

	mu   sync.Mutex // PhaseStart runs on Run's goroutine, EpisodeDone on workers'
	p    rundir.Progress
	last time.Time // the last write
}

// trackProgress makes r's observer write r.dir's progress file; call it
// once, on the goroutine running the run, after the checkpoint is read
// or created.
func (r *run) trackProgress() {
	r.opt.Observer = &progressFile{next: r.opt.Observer, dir: r.dir, now: time.Now,
		p: rundir.Progress{RunID: r.id, RunStarted: r.ck.Started.UTC()}}
}

func (f *progressFile) Started(runID, dir string, resumed int) {
	if f.next != nil {
		f.next.Started(runID, dir, resumed)
	}
}

func (f *progressFile) PhaseStart(gen int, split, version string, total int) {
	f.mu.Lock()
	now := f.now().UTC()
	f.p.Generation, f.p.Split, f.p.Versions = gen, split, strings.Split(version, ",")
	f.p.Done, f.p.Total, f.p.PhaseStarted = 0, total, now
	f.write(now)
	f.mu.Unlock()
	if f.next != nil {
		f.next.PhaseStart(gen, split, version, total)
	}
}

func (f *progressFile) EpisodeDone(done, total int) {
	f.mu.Lock()
	now := f.now().UTC()
	f.p.Done, f.p.Total = done, total
	if done >= total || now.Sub(f.last) >= progressEvery {
		f.write(now)
	}
	f.mu.Unlock()
	if f.next != nil {
		f.next.EpisodeDone(done, total)
	}
}

func (f *progressFile) PhaseEnd(gen int, split, version string, episodes int, elapsed time.Duration) {
	if f.next != nil {
		f.next.PhaseEnd(gen, split, version, episodes, elapsed)
	}
}

func (f *progressFile) GenerationEnd(g Generation) {
	if f.next != nil {
		f.next.GenerationEnd(g)
	}
}

// write writes the progress as of now; the caller holds f.mu.
func (f *progressFile) write(now time.Time) {
	f.p.Updated, f.last = now, now
	_ = rundir.WriteProgress(f.dir, &f.p)
}
