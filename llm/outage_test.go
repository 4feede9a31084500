package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/internal/testwait"
	"evolve/llm"
	"evolve/llm/llmtest"
)

// stepClock is a Clock whose Sleep advances Now by the wait, so that a
// retry budget of minutes runs out at once.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return ctx.Err()
}

// TestRetryFor: an endpoint that stays down (503, Retry-After 7) is
// retried as Retry-After says until retry_for (1m) has passed, the last
// wait cut so that the last attempt is made at 1m; then the call fails
// with ErrRetriesExhausted naming the budget; once it is up again the
// client answers at once.
func TestRetryFor(t *testing.T) {
	clock := &stepClock{now: time.Unix(1e9, 0)}
	st := newSetup(t, func(c *llm.Config, o *llm.Options) {
		c.MaxRetries = 1000
		c.RetryFor = llm.Duration(time.Minute)
		o.Clock = clock
	})
	st.srv.SetRetryAfter("7")
	st.srv.Down(llmtest.Unavailable)
	_, err := st.cl.Complete(context.Background(), msgs)
	if !errors.Is(err, llm.ErrRetriesExhausted) || !strings.Contains(err.Error(), "retry_for 1m0s") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("err = %v, want ErrRetriesExhausted after retry_for 1m0s with the last HTTP 503", err)
	}
	// 0, 7, ..., 56 s, then 60 s: 10 attempts.
	if n := st.srv.Requests(); n != 10 {
		t.Errorf("%d requests, want 10 (one per Retry-After of 7 s within 1 min, and one at 1 min)", n)
	}
	want := []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second, 4 * time.Second}
	if fmt.Sprint(clock.waits) != fmt.Sprint(want) {
		t.Fatalf("waits %v, want %v (Retry-After, the last cut to end at retry_for)", clock.waits, want)
	}
	if d, last, ok := st.cl.Waiting(); !ok || d != 32*time.Second || !strings.Contains(last, "503") {
		t.Errorf("Waiting() = %v, %q, %v; want down for 32s (since the 5th failure, at 28 s, to the last at 60 s) after HTTP 503", d, last, ok)
	}
	st.srv.Down(llmtest.OK)
	if r, err := st.cl.Complete(context.Background(), msgs); err != nil || r.Requests != 1 {
		t.Fatalf("after the outage: %+v, %v", r, err)
	}
	if _, _, ok := st.cl.Waiting(); ok {
		t.Error("Waiting() still reports the endpoint down after an answer")
	}
}

// TestRetryForBackoff: with backoff waits (500 without Retry-After),
// a call keeps trying until retry_for (20s) has passed, whatever the
// jitter draws: its attempts span exactly 20 s, the last one at 20 s.
func TestRetryForBackoff(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		clock := &stepClock{now: time.Unix(1e9, 0)}
		st := newSetup(t, func(c *llm.Config, o *llm.Options) {
			c.MaxRetries = 1000
			c.RetryFor = llm.Duration(20 * time.Second)
			o.Clock = clock
			o.Jitter = rand.NewPCG(seed, 1)
		})
		st.srv.Down(llmtest.ServerError)
		_, err := st.cl.Complete(context.Background(), msgs)
		if !errors.Is(err, llm.ErrRetriesExhausted) || !strings.Contains(err.Error(), "retry_for 20s") {
			t.Fatalf("jitter seed %d: err = %v, want ErrRetriesExhausted after retry_for 20s", seed, err)
		}
		var spent time.Duration
		for _, w := range clock.waits {
			spent += w
		}
		if spent != 20*time.Second {
			t.Errorf("jitter seed %d: the attempts span %v (%d requests, waits %v), want 20s", seed, spent, st.srv.Requests(), clock.waits)
		}
	}
}

// TestProbeWhileDown: while every request fails, the client's callers
// do not all retry: after DownAfter failures in a row one call probes
// and the others wait; when the endpoint is back all of them finish.
func TestProbeWhileDown(t *testing.T) {
	srv := llmtest.New(policy)
	t.Cleanup(srv.Close)
	// sent counts each caller's requests ("caller 3" in the body) as they
	// reach the server.
	var mu sync.Mutex
	sent := map[string]int{}
	callerRE := regexp.MustCompile(`caller [0-9]+`)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		sent[string(callerRE.Find(body))]++
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	most := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, k := range sent {
			n = max(n, k)
		}
		return n
	}
	cfg := config(srv)
	cfg.BaseURL, cfg.MaxRetries, cfg.RetryFor = front.URL, 1000, llm.Duration(time.Minute)
	cl, err := llm.New(cfg, llm.Options{Clock: llm.SystemClock{}, Jitter: rand.NewPCG(1, 2), LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	srv.Down(llmtest.ServerError)
	const callers = 16
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("caller %d", i)}}
			_, errs[i] = cl.Complete(context.Background(), m)
		}()
	}
	// The outage lasts until one caller has sent 4 requests: the probe,
	// backing off from 0.5 s, after some 2 s (at most 3.5 s).
	if !testwait.Until(30*time.Second, func() bool { return most() >= 4 }) {
		t.Errorf("no caller sent a 4th request within 30 s of outage: no probe retried")
	}
	down := srv.Requests()
	if _, last, ok := cl.Waiting(); !ok || !strings.Contains(last, "HTTP 500") {
		t.Errorf("Waiting() = %q, %v during the outage", last, ok)
	}
	srv.Down(llmtest.OK)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	// Without the probe every caller would retry on its own, backing off
	// from 0.5 s: by the busiest one's 4th request the 16 would have sent
	// some 40; with it, the first 16 and a few probes.
	if down > callers+8 {
		mu.Lock()
		t.Errorf("%d requests from %d callers by the busiest one's 4th, want at most %d (one probe at a time); per caller %v", down, callers, callers+8, sent)
		mu.Unlock()
	}
	if s := cl.Stats(); s.Outages != 1 {
		t.Errorf("Stats.Outages = %d, want 1", s.Outages)
	}
	t.Logf("%d requests during the outage, %d in all", down, srv.Requests())
}

// TestCancelCause: a cancel with a cause (a signal) during a request is
// an error that is both ctx.Err() and the cause, so that a run loop
// comparing with ctx.Err() sees an interruption, not a failure.
func TestCancelCause(t *testing.T) {
	st := newSetup(t, nil)
	st.srv.FailNth(1, llmtest.Hang)
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := errors.New("interrupt signal")
	inFlight := make(chan bool, 1)
	go func() {
		// Cancel once the request is at the server (the hang holds it).
		inFlight <- testwait.Until(10*time.Second, func() bool { return st.srv.Stats().InFlight > 0 })
		cancel(sig)
	}()
	_, err := st.cl.Complete(ctx, msgs)
	if !<-inFlight {
		t.Fatalf("the request did not reach the server within 10 s (err = %v)", err)
	}
	if !errors.Is(err, ctx.Err()) || !errors.Is(err, context.Canceled) || !errors.Is(err, sig) {
		t.Fatalf("err = %v, want context.Canceled wrapping the cause", err)
	}
}

// TestFailFirstAttempts: a picked request fails once and its retry is
// answered; the pick follows the request, so a second client sending
// the same request to a fresh server meets the same fault.
func TestFailFirstAttempts(t *testing.T) {
	st := newSetup(t, nil)
	st.srv.FailFirstAttempts(1, 3, llmtest.Truncated)
	r, err := st.cl.Complete(context.Background(), msgs)
	if err != nil || r.Requests != 2 || r.Content != "ACTION: eat" {
		t.Fatalf("reply %+v, %v; want ACTION: eat after 2 requests", r, err)
	}
	if s := st.srv.Stats(); s.Faults[llmtest.Truncated] != 1 {
		t.Errorf("server faults %v, want 1 truncated", s.Faults)
	}
}

// jitterWaits returns the backoff waits of a client with the default
// jitter source (Options.Jitter nil) whose first 5 attempts get a 500.
func jitterWaits() ([]time.Duration, error) {
	srv := llmtest.New(policy)
	defer srv.Close()
	srv.Down(llmtest.ServerError)
	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.MaxRetries = srv.URL, "m", 4
	clock := &stepClock{now: time.Unix(1e9, 0)}
	cl, err := llm.New(cfg, llm.Options{Clock: clock})
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	if _, err := cl.Complete(context.Background(), msgs); !errors.Is(err, llm.ErrRetriesExhausted) {
		return nil, fmt.Errorf("want ErrRetriesExhausted, got %v", err)
	}
	return clock.waits, nil
}

// TestJitterPerProcess: the default backoff jitter differs between two
// processes and between two clients of one process, so that processes
// sharing a server do not retry in step.
func TestJitterPerProcess(t *testing.T) {
	var out [2]string
	for i := range out {
		b, err := subprocess(t, "jitter").Output()
		if err != nil {
			t.Fatalf("subprocess: %v", err)
		}
		out[i] = strings.TrimSpace(string(b))
	}
	if out[0] == out[1] {
		t.Errorf("two processes drew the same waits %s", out[0])
	}
	a, err := jitterWaits()
	if err != nil {
		t.Fatal(err)
	}
	b, err := jitterWaits()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) == fmt.Sprint(b) {
		t.Errorf("two clients of one process drew the same waits %v", a)
	}
	if len(a) != 4 {
		t.Errorf("waits %v, want 4 (max_retries 4)", a)
	}
}
