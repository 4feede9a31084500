// Package progress shows an evolution run's progress. On a terminal it
// draws a live bar per phase (train, val, test) with episodes done, rate
// and ETA (github.com/vbauerster/mpb/v8); in any case it logs one
// structured line per phase and per generation with log/slog, as text or
// JSON, which is all that appears when the output is not a terminal (CI
// logs, Slurm output; mpb prints nothing there).
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"evolve/envs"
	"evolve/experiment"
)

// Options configure a Display.
type Options struct {
	// Quiet logs only the start, the generations and the end.
	Quiet bool
	// Format is the log format: "text" (slog's key=value lines) or "json".
	Format string
	// Bars forces live bars on (true) or off (false); nil means "when the
	// output is a terminal".
	Bars *bool
	// Verbose also logs the start of every phase (at debug level).
	Verbose bool
	// Now is the clock the bars' rate and ETA are measured with; nil means
	// time.Now. Tests inject a fake one.
	Now func() time.Time
}

// Display implements experiment.Observer.
type Display struct {
	log   *slog.Logger
	quiet bool

	now func() time.Time

	// mu guards bar and meter. It is never held while calling into mpb:
	// mpb renders from its own goroutine and a call may wait for it.
	mu    sync.Mutex
	p     *mpb.Progress // nil without live bars
	bar   *mpb.Bar
	meter *meter // the current bar's rate and ETA
}

var _ experiment.Observer = (*Display)(nil)

// New returns a display writing to w. It returns an error for an unknown
// Format.
func New(w io.Writer, opt Options) (*Display, error) {
	d := &Display{quiet: opt.Quiet, now: opt.Now}
	if d.now == nil {
		d.now = time.Now
	}
	bars := false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bars = true
	}
	if opt.Bars != nil {
		bars = *opt.Bars
	}
	out := w
	if bars && !opt.Quiet {
		opts := []mpb.ContainerOption{mpb.WithOutput(w), mpb.WithWidth(100), mpb.WithRefreshRate(150 * time.Millisecond)}
		if opt.Bars != nil {
			// Forced on: render even to a non-terminal (mpb would
			// otherwise print nothing, not even the log lines).
			opts = append(opts, mpb.WithAutoRefresh())
		}
		d.p = mpb.New(opts...)
		out = d.p // lines print above the bars
	}
	var h slog.Handler
	ho := &slog.HandlerOptions{Level: slog.LevelInfo}
	if opt.Verbose {
		ho.Level = slog.LevelDebug
	}
	switch opt.Format {
	case "", "text":
		h = slog.NewTextHandler(out, ho)
	case "json":
		h = slog.NewJSONHandler(out, ho)
	default:
		return nil, fmt.Errorf("unknown log format %q (want text or json)", opt.Format)
	}
	d.log = slog.New(h)
	return d, nil
}

// Logger returns the display's structured logger, for messages of the
// command around the run.
func (d *Display) Logger() *slog.Logger { return d.log }

// Started implements experiment.Observer.
func (d *Display) Started(runID, dir string, resumed int) {
	if resumed >= 0 {
		d.log.Info("resuming run", "run_id", runID, "dir", dir, "generations_done", resumed)
		return
	}
	d.log.Info("run started", "run_id", runID, "dir", dir)
}

// PhaseStart implements experiment.Observer.
func (d *Display) PhaseStart(gen int, split, version string, total int) {
	d.log.Debug("phase started", "gen", gen, "split", split, "version", version, "episodes", total)
	if d.p == nil {
		return
	}
	name := fmt.Sprintf("gen %-2d %-5s %-8s", gen, split, version)
	// The rate and ETA come from a meter fed the real completion times;
	// mpb's EWMA decorators need each increment's duration, which a pool
	// of workers finishing episodes concurrently does not have (feeding
	// them a constant showed that constant's rate and an ETA of 0s).
	m := newMeter(d.now, total)
	text := func(f func() string) decor.DecorFunc { return func(decor.Statistics) string { return f() } }
	bar := d.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncSpace)),
		mpb.AppendDecorators(
			decor.Any(text(m.rateText), decor.WCSyncSpace),
			decor.OnComplete(decor.Any(text(m.etaText), decor.WCSyncSpace), "done"),
		),
		mpb.BarRemoveOnComplete(),
	)
	d.mu.Lock()
	d.bar, d.meter = bar, m
	d.mu.Unlock()
}

// EpisodeDone implements experiment.Observer.
func (d *Display) EpisodeDone(done, total int) {
	d.mu.Lock()
	b, m := d.bar, d.meter
	d.mu.Unlock()
	if b != nil {
		m.episodeDone()
		b.Increment()
	}
}

// PhaseEnd implements experiment.Observer.
func (d *Display) PhaseEnd(gen int, split, version string, episodes int, elapsed time.Duration) {
	d.mu.Lock()
	b := d.bar
	d.bar, d.meter = nil, nil
	d.mu.Unlock()
	if b != nil {
		b.SetTotal(-1, true)
		b.Wait()
	}
	if d.quiet {
		return
	}
	rate := float64(episodes) / elapsed.Seconds()
	d.log.Info("phase done", "gen", gen, "split", split, "version", version, "episodes", episodes,
		"seconds", round(elapsed.Seconds(), 3), "episodes_per_s", round(rate, 0))
}

// GenerationEnd implements experiment.Observer.
func (d *Display) GenerationEnd(g experiment.Generation) {
	attrs := []any{"gen", g.Index, "incumbent", g.Incumbent, "val_mean", round(g.Val.Mean, 1)}
	for _, c := range g.Failures.Causes {
		attrs = append(attrs, c, g.Failures.Count(c))
	}
	if n := g.Failures.Count(envs.CauseError); n > 0 {
		attrs = append(attrs, envs.CauseError, n)
	}
	attrs = append(attrs, "candidates", len(g.Candidates))
	if g.Accepted >= 0 {
		c := g.Decision.Candidates[g.Accepted].Check
		attrs = append(attrs, "accepted", g.Candidates[g.Accepted].Version, "p", c.P, "p_adj", c.PAdj,
			"a12", round(c.A12, 3), "accepted_val_mean", round(c.Mean, 1),
			"mutation", g.Candidates[g.Accepted].Mutation.Description)
	} else {
		attrs = append(attrs, "accepted", "none")
	}
	d.log.Info("generation done", attrs...)
}

func round(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	if x < 0 {
		return float64(int64(x*p-0.5)) / p
	}
	return float64(int64(x*p+0.5)) / p
}

// Close stops the live display; call it once the run has ended, before
// printing anything else.
func (d *Display) Close() {
	if d.p != nil {
		d.p.Shutdown()
	}
}
