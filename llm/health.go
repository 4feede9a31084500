package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DownAfter is how many attempts in a row (over all of a Client's
// callers, with no success between them) must fail with a retryable
// transport or status error before the Client treats the endpoint as
// down. While it is down, one call at a time (the probe) sends; the
// others wait for the probe to succeed, each within its own
// Config.RetryFor. Five in a row is unlikely from independent faults
// (at a 12% fault rate, 2.5e-5 per attempt) and certain within one
// timeout of an outage at 64 requests in flight.
const DownAfter = 5

// probePoll is how often a call waiting for the endpoint checks whether
// the probe's call has given up, so that it can send the next probe.
const probePoll = time.Second

// health is a Client's view of its endpoint: up, or down since a time
// with one probing call. It is a circuit breaker in the sense of
// Nygard, "Release It!" (2007), ch. 5: closed (up), open (down, calls
// wait), half-open (one probe).
type health struct {
	mu      sync.Mutex
	fails   int           // retryable failures in a row
	isDown  bool          // fails reached DownAfter and nothing succeeded since
	probing bool          // a call holds the probe
	since   time.Time     // when the endpoint went down
	last    string        // the last failure's text
	upCh    chan struct{} // closed when the endpoint comes back
}

// down records a failed attempt at now and reports whether it marked the
// endpoint down.
func (h *health) down(now time.Time, err error) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fails++
	h.last = err.Error()
	if h.isDown || h.fails < DownAfter {
		return false
	}
	h.isDown, h.since, h.upCh = true, now, make(chan struct{})
	return true
}

// up records an answer: the endpoint is up, and waiting calls go on.
func (h *health) up() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fails = 0
	if h.isDown {
		h.isDown = false
		close(h.upCh)
	}
}

// release gives up the probe (its call returned).
func (h *health) release() {
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
}

// errBudget: a call waited for the endpoint longer than its retry_for.
var errBudget = errors.New("the endpoint stayed down")

// gate returns at once while the endpoint is up (probe false). While it
// is down, the first caller becomes the probe (probe true: it sends, and
// keeps the probe until its call returns) and the others wait until the
// endpoint is up or the probe is free, or until budget has passed since
// start (an error wrapping errBudget with the last failure), or ctx is
// done (ctx's error).
func (h *health) gate(ctx context.Context, clock Clock, start time.Time, budget time.Duration) (probe bool, err error) {
	for {
		h.mu.Lock()
		if !h.isDown {
			h.mu.Unlock()
			return false, nil
		}
		if !h.probing {
			h.probing = true
			h.mu.Unlock()
			return true, nil
		}
		upCh, last, since := h.upCh, h.last, h.since
		h.mu.Unlock()
		left := budget - clock.Now().Sub(start)
		if budget <= 0 {
			left = probePoll // no time limit
		} else if left <= 0 {
			return false, fmt.Errorf("%w for %v (retry_for %v); last error: %s", errBudget,
				clock.Now().Sub(since).Round(time.Second), budget, last)
		}
		t := time.NewTimer(min(left, probePoll))
		select {
		case <-upCh:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false, ctxErr(ctx)
		}
		t.Stop()
	}
}

// Unusable kinds, as UnusableKind names them and the LLM agent counts
// them per episode.
const (
	KindMalformed = "malformed"  // ErrMalformedReply
	KindNoChoices = "no_choices" // ErrNoChoices
	KindEmpty     = "empty"      // ErrEmptyContent
	KindCut       = "cut"        // ErrCutReply
	// KindServerError names, in the client's log (SetLogger), a 200
	// with an "error" object (ErrServerFault); it is not an unusable
	// reply and UnusableKind never returns it.
	KindServerError = "server_error"
)

// UnusableKind names the kind of an error wrapping ErrUnusableReply
// (KindMalformed, KindNoChoices, KindEmpty or KindCut), "" for any other
// error.
func UnusableKind(err error) string {
	switch {
	case errors.Is(err, ErrCutReply):
		return KindCut
	case errors.Is(err, ErrEmptyContent):
		return KindEmpty
	case errors.Is(err, ErrNoChoices):
		return KindNoChoices
	case errors.Is(err, ErrMalformedReply):
		return KindMalformed
	}
	return ""
}
