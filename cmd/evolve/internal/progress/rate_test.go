package progress

import (
	"bytes"
	"math"
	"sync"
	"testing"
	"time"

	"evolve/experiment"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func ms(n int) time.Duration             { return time.Duration(n) * time.Millisecond }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }

// step is a batch of completions: after advancing the clock by wait, n
// episodes complete at once (as when several workers finish together).
type step struct {
	wait time.Duration
	n    int
}

func TestMeter(t *testing.T) {
	repeat := func(n int, s step) []step {
		out := make([]step, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	tests := []struct {
		name     string
		total    int
		steps    []step
		idle     time.Duration // clock advance after the last completion
		wantRate float64       // episodes/s; 0 means unknown
		rateText string
		etaText  string
	}{
		{name: "nothing done yet", total: 100, idle: ms(5000),
			rateText: "- ep/s", etaText: "ETA -"},
		// The bug this replaces: half-second episodes showed "1000 ep/s"
		// and "0s".
		{name: "half-second episodes", total: 10, steps: repeat(2, step{ms(500), 1}),
			wantRate: 2, rateText: "2.0 ep/s", etaText: "ETA 4s"},
		{name: "steady 10 per second", total: 100, steps: repeat(10, step{ms(100), 1}),
			wantRate: 10, rateText: "10 ep/s", etaText: "ETA 9s"},
		// The ETA counts down between completions (9 s − 2.5 s, rounded
		// up) and never goes below zero.
		{name: "counts down while idle", total: 100, steps: repeat(10, step{ms(100), 1}), idle: ms(2500),
			wantRate: 10, rateText: "10 ep/s", etaText: "ETA 7s"},
		{name: "idle past the estimate", total: 100, steps: repeat(10, step{ms(100), 1}), idle: ms(60_000),
			wantRate: 10, rateText: "10 ep/s", etaText: "ETA 0s"},
		// Two workers finishing together every second: 2 episodes/s.
		{name: "bursts of two", total: 300, steps: repeat(4, step{ms(1000), 2}),
			wantRate: 2, rateText: "2.0 ep/s", etaText: "ETA 2m26s"},
		// The window forgets the fast start: the last 64 completions came
		// 50 ms apart, so 20 episodes/s, not the average of 33.
		{name: "slows down", total: 1000, steps: append(repeat(100, step{ms(10), 1}), repeat(100, step{ms(50), 1})...),
			wantRate: 20, rateText: "20 ep/s", etaText: "ETA 40s"},
		{name: "finished", total: 3, steps: repeat(3, step{ms(200), 1}),
			wantRate: 5, rateText: "5.0 ep/s", etaText: "ETA 0s"},
		{name: "all at the start instant", total: 4, steps: []step{{0, 2}},
			rateText: "- ep/s", etaText: "ETA -"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClock()
			m := newMeter(c.now, tt.total)
			for _, s := range tt.steps {
				c.add(s.wait)
				for range s.n {
					m.episodeDone()
				}
			}
			c.add(tt.idle)
			r, ok := m.rate()
			if ok != (tt.wantRate != 0) || math.Abs(r-tt.wantRate) > 1e-9*tt.wantRate {
				t.Errorf("rate() = %v, %v; want %v (0: unknown)", r, ok, tt.wantRate)
			}
			if got := m.rateText(); got != tt.rateText {
				t.Errorf("rateText() = %q, want %q", got, tt.rateText)
			}
			if got := m.etaText(); got != tt.etaText {
				t.Errorf("etaText() = %q, want %q", got, tt.etaText)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for mpb's render goroutine and the
// logger writing at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestDisplayBars drives a display with live bars from concurrent workers,
// as a run does; it must neither deadlock nor race (go test -race) and
// must log each phase.
func TestDisplayBars(t *testing.T) {
	var out syncBuffer
	on := true
	c := newFakeClock()
	var clockMu sync.Mutex
	now := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); c.add(ms(3)); return c.now() }
	d, err := New(&out, Options{Bars: &on, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for gen := range 2 {
		d.PhaseStart(gen, "val", "v1.0.0", 200)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < 200; i += 4 {
					d.EpisodeDone(i+1, 200)
				}
			}()
		}
		wg.Wait()
		d.PhaseEnd(gen, "val", "v1.0.0", 200, time.Second)
	}
	d.GenerationEnd(experiment.Generation{Accepted: -1})
	d.Close()
	out.mu.Lock()
	defer out.mu.Unlock()
	if n := bytes.Count(out.b.Bytes(), []byte("phase done")); n != 2 {
		t.Errorf("%d 'phase done' lines, want 2:\n%s", n, out.b.String())
	}
}
