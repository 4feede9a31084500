package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"evolve/store"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"evolve/online"
	"evolve/prompt"
)

// DefaultIdempotencyWindow is how many of the latest observations'
// request ids a Server remembers by default: a retry is recognised if
// fewer than this many other observations with a request id were
// recorded in between.
const DefaultIdempotencyWindow = 100_000

// idempotency remembers the answers to the latest observations with a
// request id, oldest first, at most max of them.
type idempotency struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*idemEntry
	order []slot // ring of the entries remembered, oldest at next
	next  int
}

// slot is one entry of the ring, with its id.
type slot struct {
	id string
	e  *idemEntry
}

// idemEntry is one request id's observation: its fingerprint (what was
// observed) and, once done is closed, its answer (ok) or its failure
// (!ok, and the entry is gone from the map).
type idemEntry struct {
	fp   string
	done chan struct{}
	ok   bool
	resp ObserveResponse
}

func newIdempotency(max int) *idempotency {
	return &idempotency{max: max, byID: map[string]*idemEntry{}}
}

// fingerprint is what an observation says, for telling a retry from a
// different observation reusing its id.
func fingerprint(slug string, v prompt.Version, o online.Observation) string {
	return slug + "@" + v.String() + " " + strconv.FormatFloat(o.Sentiment, 'g', -1, 64) + " " + strconv.Itoa(o.Corrections) + " " + o.Success.String()
}

// claim returns id's entry and whether the caller is the first with it
// (and must record the observation, then finish or release it).
func (m *idempotency) claim(id, fp string) (*idemEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byID[id]; ok {
		return e, false
	}
	e := &idemEntry{fp: fp, done: make(chan struct{})}
	m.add(id, e)
	return e, true
}

// add remembers e under id, forgetting the oldest id beyond max. The
// caller holds mu.
func (m *idempotency) add(id string, e *idemEntry) {
	if len(m.order) < m.max {
		m.order = append(m.order, slot{id, e})
	} else {
		old := m.order[m.next]
		if m.byID[old.id] == old.e { // not released and claimed again since
			delete(m.byID, old.id)
		}
		m.order[m.next] = slot{id, e}
		m.next = (m.next + 1) % m.max
	}
	m.byID[id] = e
}

// finish records e's answer and wakes the retries waiting for it.
func (m *idempotency) finish(e *idemEntry, resp ObserveResponse) {
	e.resp, e.ok = resp, true
	close(e.done)
}

// release forgets id's entry e, whose observation was not recorded, so
// that a retry records it.
func (m *idempotency) release(id string, e *idemEntry) {
	m.mu.Lock()
	if m.byID[id] == e {
		delete(m.byID, id)
	}
	m.mu.Unlock()
	close(e.done)
}

// load remembers the request ids of the observation log at path (the
// store's store.ObservationLog), so that a retry after a restart is
// recognised too: each observe event with a request id, with the alarm
// event that follows it, if any. A missing log is empty. Errors name the
// path and line; a line that does not decode is an error (the store's
// own reads would refuse it too).
func (m *idempotency) load(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading request ids: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var last *idemEntry
	var lastSeq int64
	for line := 1; sc.Scan(); line++ {
		var ev store.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("reading request ids: %s:%d: %w", path, line, err)
		}
		switch {
		case ev.Kind == store.EventObserve && ev.RequestID != "" && ev.Version != nil && ev.Observation != nil && ev.Score != nil && ev.Weight != nil:
			e := &idemEntry{fp: fingerprint(ev.Version.Slug, ev.Version.Version, *ev.Observation), done: make(chan struct{}), ok: true,
				resp: ObserveResponse{Prompt: ev.Version.Slug, Version: ev.Version.Version.String(), Seq: ev.Seq, Score: *ev.Score, Weight: *ev.Weight}}
			close(e.done)
			m.mu.Lock()
			m.add(ev.RequestID, e) // a duplicate logged before this check existed: the latest answer
			m.mu.Unlock()
			last, lastSeq = e, ev.Seq
		case ev.Kind == store.EventAlarm && last != nil && ev.Seq == lastSeq+1 && ev.Evidence != nil:
			last.resp.Alarm = &store.Alarm{Seq: ev.Seq, Time: ev.Time, Evidence: *ev.Evidence, Branch: ev.Branch,
				RolledBackTo: ev.RolledBackTo, Note: ev.Note, GraphSeq: ev.GraphSeq}
			last = nil
		default:
			last = nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading request ids: %s: %w", path, err)
	}
	return nil
}

// logPath is the observation log of the served store.
func (s *Server) logPath() string {
	return filepath.Join(s.cfg.Store.Dir(), store.ObservationLog)
}
