package progress

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// rateWindow is the number of most recent completions the rate is measured
// over: enough that the bursts of a worker pool (several episodes ending
// within a millisecond, then none for a while) average out, few enough
// that the rate follows a phase whose episodes get longer.
const rateWindow = 64

// meter measures a phase's episode rate and time to completion from the
// times at which episodes complete, read from an injected clock (so tests
// need no sleeps).
//
// The rate is the number of completions in a sliding window of the last
// rateWindow completions divided by the time they took: with done
// completions at times t_1 <= ... <= t_done and the phase started at t_0,
//
//	rate = k / (t_done − t_(done−k)),  k = min(done, rateWindow)
//
// in episodes per second (t_0 is the phase's start). The ETA is the remaining episodes at that rate,
// counted down from the last completion: (total − done)/rate − (now −
// t_done), at least 0. Before the first completion neither is known.
//
// A meter is safe for concurrent use by the observer (episodeDone) and
// the bar's decorators (rateText, etaText).
type meter struct {
	mu    sync.Mutex
	now   func() time.Time
	total int
	start time.Time
	times []time.Time // the last rateWindow+1 completion times, a ring
	done  int         // completions so far
}

// newMeter starts measuring a phase of total episodes at now().
func newMeter(now func() time.Time, total int) *meter {
	return &meter{now: now, total: total, start: now(), times: make([]time.Time, 0, rateWindow+1)}
}

// episodeDone records one completion at now().
func (m *meter) episodeDone() {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.now()
	if len(m.times) < cap(m.times) {
		m.times = append(m.times, t)
	} else {
		m.times[m.done%len(m.times)] = t
	}
	m.done++
}

// rate returns the episodes per second over the window and whether it is
// known (at least one completion, after a positive time). The caller holds
// mu.
func (m *meter) rate() (float64, bool) {
	if m.done == 0 {
		return 0, false
	}
	k, from := m.done, m.start
	if m.done > rateWindow {
		// t_(done−rateWindow), the oldest time in the full ring.
		k, from = rateWindow, m.times[m.done%len(m.times)]
	}
	span := m.last().Sub(from).Seconds()
	if span <= 0 {
		return 0, false
	}
	return float64(k) / span, true
}

// last is the time of the latest completion; done must be > 0.
func (m *meter) last() time.Time { return m.times[(m.done-1)%len(m.times)] }

// eta returns the estimated time until the phase's last episode completes,
// and whether it is known. The caller holds mu.
func (m *meter) eta() (time.Duration, bool) {
	if m.done >= m.total {
		return 0, true
	}
	r, ok := m.rate()
	if !ok {
		return 0, false
	}
	left := float64(m.total-m.done)/r - m.now().Sub(m.last()).Seconds()
	if left < 0 {
		left = 0
	}
	return time.Duration(left * float64(time.Second)), true
}

// rateText formats the rate for the bar: "123 ep/s", or "- ep/s" before
// it is known.
func (m *meter) rateText() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rate()
	if !ok {
		return "- ep/s"
	}
	if r < 10 {
		return fmt.Sprintf("%.1f ep/s", r)
	}
	return fmt.Sprintf("%.0f ep/s", r)
}

// etaText formats the ETA for the bar, rounded up to the second: "ETA 1m05s",
// or "ETA -" before it is known.
func (m *meter) etaText() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.eta()
	if !ok {
		return "ETA -"
	}
	s := int64(math.Ceil(d.Round(time.Millisecond).Seconds()))
	if s >= 60 {
		return fmt.Sprintf("ETA %dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("ETA %ds", s)
}
