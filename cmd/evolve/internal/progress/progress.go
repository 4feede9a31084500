// Package progress shows an evolution run's progress: live bars with rate
// and ETA on a terminal (github.com/vbauerster/mpb/v8), and one plain line
// per phase and per generation otherwise (CI logs, Slurm output), since
// mpb prints nothing when its output is not a terminal.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"evolve/experiment"
)

// Display implements experiment.Observer.
type Display struct {
	w     io.Writer
	tty   bool
	quiet bool

	mu  sync.Mutex
	p   *mpb.Progress
	bar *mpb.Bar
	cur string
}

var _ experiment.Observer = (*Display)(nil)

// New returns a display writing to w: live bars when w is a terminal,
// plain lines otherwise; nothing but generation lines when quiet.
func New(w io.Writer, quiet bool) *Display {
	d := &Display{w: w, quiet: quiet}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !quiet {
		d.tty = true
		d.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(100), mpb.WithRefreshRate(100*time.Millisecond))
	}
	return d
}

// PhaseStart implements experiment.Observer.
func (d *Display) PhaseStart(gen int, split, version string, total int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cur = fmt.Sprintf("gen %-2d %-5s %-8s", gen, split, version)
	if !d.tty {
		return
	}
	d.bar = d.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name(d.cur, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
		mpb.AppendDecorators(
			decor.EwmaSpeed(nil, "%.0f ep/s", 30, decor.WCSyncSpace),
			decor.OnComplete(decor.EwmaETA(decor.ET_STYLE_GO, 30, decor.WCSyncSpace), "done"),
		),
		mpb.BarRemoveOnComplete(),
	)
}

// EpisodeDone implements experiment.Observer.
func (d *Display) EpisodeDone(done, total int) {
	if !d.tty {
		return
	}
	d.mu.Lock()
	b := d.bar
	d.mu.Unlock()
	if b != nil {
		b.EwmaIncrement(time.Millisecond)
	}
}

// PhaseEnd implements experiment.Observer.
func (d *Display) PhaseEnd(gen int, split, version string, elapsed time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tty && d.bar != nil {
		d.bar.SetTotal(-1, true)
		d.bar.Wait()
		d.bar = nil
	}
	if d.quiet {
		return
	}
	d.printf("%s done in %s\n", d.cur, elapsed.Round(time.Millisecond))
}

// GenerationEnd implements experiment.Observer.
func (d *Display) GenerationEnd(g experiment.Generation) {
	d.mu.Lock()
	defer d.mu.Unlock()
	acc := "none accepted"
	if g.Accepted >= 0 {
		c := g.Decision.Candidates[g.Accepted]
		acc = fmt.Sprintf("accepted %s (p=%.2g, A12=%.3f): %s", g.Candidates[g.Accepted].Version, c.Test.P, c.A12,
			g.Candidates[g.Accepted].Mutation.Description)
	}
	d.printf("generation %d: incumbent %s val mean %.1f; %d candidates, %s\n",
		g.Index, g.Incumbent, g.Val.Mean, len(g.Candidates), acc)
}

func (d *Display) printf(format string, args ...any) {
	if d.tty {
		fmt.Fprintf(d.p, format, args...)
		return
	}
	fmt.Fprintf(d.w, format, args...)
}

// Close stops the live display; call it once the run has ended.
func (d *Display) Close() {
	if d.tty {
		d.p.Shutdown()
	}
}
