package llm_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/internal/testwait"
	"evolve/llm"
	"evolve/llm/llmtest"
)

// testKey is the API key of the tests; it must appear in no error and no
// cache file.
const testKey = "sk-llmtest-SECRET-0123456789abcdef"

const keyEnv = "LLMTEST_API_KEY"

// lookup is the environment of the tests: only keyEnv is set.
func lookup(name string) (string, bool) {
	if name == keyEnv {
		return testKey, true
	}
	return "", false
}

// policy answers like a dungeon agent: flee when the last message says
// the hero is hurt, eat when hungry, else explore.
var policy = llmtest.Rules("ACTION: explore",
	llmtest.Rule{Contains: "HP:3(", Reply: "ACTION: flee"},
	llmtest.Rule{Contains: "Hungry", Reply: "ACTION: eat"},
)

var msgs = []llm.Message{
	{Role: llm.RoleSystem, Content: "<rules>\nYou play a dungeon. Answer with ACTION: <name>.\n</rules>"},
	{Role: llm.RoleUser, Content: "<status>HP:12(12) Hungry</status>"},
}

// fakeClock records the waits instead of sleeping. Now is the real clock
// unless fixed is set.
type fakeClock struct {
	mu     sync.Mutex
	sleeps []time.Duration
	fixed  time.Time
}

func (c *fakeClock) Now() time.Time {
	if !c.fixed.IsZero() {
		return c.fixed
	}
	return time.Now()
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

func config(s *llmtest.Server) llm.Config {
	cfg := llm.DefaultConfig()
	cfg.BaseURL = s.URL
	cfg.Model = "test-model"
	cfg.APIKeyEnv = keyEnv
	seed := int64(7)
	cfg.Seed = &seed
	cfg.MaxTokens = 32
	cfg.Temperature = 0.5
	cfg.MaxRetries = 5 // the tests count attempts; retry_for is the default 10m
	return cfg
}

type setup struct {
	srv   *llmtest.Server
	cl    *llm.Client
	clock *fakeClock
	cache *llm.Cache
}

// newSetup starts a server and a client of it; edit changes the config
// and options first (nil: none).
func newSetup(t *testing.T, edit func(*llm.Config, *llm.Options)) setup {
	t.Helper()
	srv := llmtest.New(policy)
	t.Cleanup(srv.Close)
	clock := &fakeClock{}
	cfg := config(srv)
	opts := llm.Options{Clock: clock, Jitter: rand.NewPCG(1, 2), LookupEnv: lookup}
	if edit != nil {
		edit(&cfg, &opts)
	}
	cl, err := llm.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return setup{srv: srv, cl: cl, clock: clock, cache: opts.Cache}
}

func withCache(t *testing.T, mode llm.Mode) func(*llm.Config, *llm.Options) {
	dir := filepath.Join(t.TempDir(), "llm")
	return func(_ *llm.Config, o *llm.Options) {
		c, err := llm.OpenCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		o.Cache, o.Mode = c, mode
	}
}

// noKey fails the test if the key appears in s.
func noKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testKey) || strings.Contains(s, "SECRET") {
		t.Errorf("%s holds the API key: %s", what, s)
	}
}

func TestCompleteSuccess(t *testing.T) {
	st := newSetup(t, nil)
	r, err := st.cl.Complete(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	req := st.cl.Request(msgs)
	wantPrompt := llmtest.CountTokens(msgs[0].Content) + llmtest.CountTokens(msgs[1].Content)
	if r.Content != "ACTION: eat" || r.FinishReason != "stop" || r.PromptTokens != wantPrompt ||
		r.CompletionTokens != 2 || r.Cached || r.Requests != 1 || r.Request != req.Hash() || r.Latency <= 0 {
		t.Fatalf("Reply = %+v", r)
	}
	if got := st.srv.LastAuthorization(); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the Bearer key", got)
	}
	got := st.srv.LastRequest()
	if got.Model != "test-model" || got.Temperature != 0.5 || got.Seed == nil || *got.Seed != 7 ||
		got.MaxTokens != 32 || len(got.Messages) != 2 || got.Messages[1] != msgs[1] || got.Hash() != req.Hash() {
		t.Errorf("server saw %+v", got)
	}
	s := st.cl.Stats()
	if s.Calls != 1 || s.Requests != 1 || s.Retries != 0 || s.PromptTokens != int64(wantPrompt) || s.CompletionTokens != 2 || s.Errors != 0 {
		t.Errorf("Stats = %+v", s)
	}
}

// TestNoKey: without api_key_env no Authorization header is sent; with it
// but the variable unset, New fails naming the variable.
func TestNoKey(t *testing.T) {
	st := newSetup(t, func(c *llm.Config, _ *llm.Options) { c.APIKeyEnv = "" })
	if _, err := st.cl.Complete(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	if a := st.srv.LastAuthorization(); a != "" {
		t.Errorf("Authorization = %q, want none", a)
	}
	cfg := config(st.srv)
	cfg.APIKeyEnv = "LLMTEST_UNSET_VARIABLE"
	_, err := llm.New(cfg, llm.Options{LookupEnv: lookup})
	if err == nil || !strings.Contains(err.Error(), "LLMTEST_UNSET_VARIABLE is not set") {
		t.Fatalf("New with an unset key variable: %v", err)
	}
}

// TestRetryAfter: a 429 or 503 with Retry-After waits exactly what the
// header says (via the injected clock), then succeeds on the next attempt.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		fault llmtest.Fault
		value string
		want  time.Duration
	}{
		{"seconds", llmtest.TooManyRetryAfter, "2", 2 * time.Second},
		{"zero", llmtest.TooManyRetryAfter, "0", 0}, // 0: back off as usual
		{"http-date", llmtest.TooManyRetryAfter, now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second},
		{"past-date", llmtest.TooManyRetryAfter, now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"huge", llmtest.TooManyRetryAfter, "86400", llm.MaxRetryAfter},
		{"503", llmtest.Unavailable, "4", 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newSetup(t, nil)
			st.clock.fixed = now
			st.srv.SetRetryAfter(tc.value)
			st.srv.FailNth(1, tc.fault)
			r, err := st.cl.Complete(context.Background(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests != 2 || st.srv.Requests() != 2 {
				t.Fatalf("Requests = %d (server %d), want 2", r.Requests, st.srv.Requests())
			}
			w := st.clock.waits()
			if len(w) != 1 {
				t.Fatalf("waits %v, want one", w)
			}
			if tc.want > 0 && w[0] != tc.want {
				t.Fatalf("waited %v, want %v", w[0], tc.want)
			}
			if tc.want == 0 && (w[0] < 0 || w[0] > llm.BackoffBase) {
				t.Fatalf("waited %v, want a jittered wait in [0, %v]", w[0], llm.BackoffBase)
			}
			if s := st.cl.Stats(); s.Retries != 1 || s.Requests != 2 {
				t.Errorf("Stats = %+v", s)
			}
		})
	}
}

// TestBackoff: 429s without Retry-After and 500s are retried with
// full-jitter waits, wait k in [0, BackoffBase·2^k]; the same jitter seed
// gives the same waits.
func TestBackoff(t *testing.T) {
	run := func(f llmtest.Fault) []time.Duration {
		st := newSetup(t, nil)
		st.srv.FailFirst(4, f)
		r, err := st.cl.Complete(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if r.Requests != 5 || r.Content != "ACTION: eat" {
			t.Fatalf("Reply = %+v, want success on attempt 5", r)
		}
		if s := st.srv.Stats(); s.Faults[f] != 4 || s.Requests != 5 {
			t.Fatalf("server Stats = %+v", s)
		}
		return st.clock.waits()
	}
	a, b := run(llmtest.ServerError), run(llmtest.TooMany)
	if len(a) != 4 {
		t.Fatalf("waits %v, want 4", a)
	}
	distinct := false
	for k, w := range a {
		if w < 0 || w > llm.BackoffBase<<k {
			t.Errorf("wait %d = %v, outside [0, %v]", k, w, llm.BackoffBase<<k)
		}
		if b[k] != w {
			t.Errorf("wait %d: %v then %v with the same jitter seed", k, w, b[k])
		}
		distinct = distinct || w != a[0]
	}
	if !distinct {
		t.Errorf("waits %v all equal: not jittered", a)
	}
}

func TestRetriesExhausted(t *testing.T) {
	st := newSetup(t, func(c *llm.Config, _ *llm.Options) { c.MaxRetries = 2 })
	st.srv.FailFirst(10, llmtest.ServerError)
	_, err := st.cl.Complete(context.Background(), msgs)
	var se *llm.StatusError
	if !errors.Is(err, llm.ErrRetriesExhausted) || !errors.As(err, &se) || se.Status != 500 {
		t.Fatalf("err = %v, want ErrRetriesExhausted wrapping HTTP 500", err)
	}
	h := st.cl.Request(msgs).Hash()
	if !strings.Contains(err.Error(), h[:12]) || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("error %q does not name the request %s and its 3 attempts", err, h[:12])
	}
	if n := st.srv.Requests(); n != 3 {
		t.Errorf("server got %d requests, want 3", n)
	}
	if s := st.cl.Stats(); s.Errors != 1 || s.Requests != 3 || s.Retries != 2 {
		t.Errorf("Stats = %+v", s)
	}
}

// TestTimeout: a server that never answers times each attempt out; the
// attempts are retried, then ErrTimeout is returned.
func TestTimeout(t *testing.T) {
	st := newSetup(t, func(c *llm.Config, _ *llm.Options) {
		c.Timeout = llm.Duration(20 * time.Millisecond)
		c.MaxRetries = 1
	})
	st.srv.FailFirst(2, llmtest.Hang)
	_, err := st.cl.Complete(context.Background(), msgs)
	if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, llm.ErrRetriesExhausted) {
		t.Fatalf("err = %v, want ErrTimeout after retries", err)
	}
	// A third request succeeds: the timeouts left the client usable.
	r, err := st.cl.Complete(context.Background(), msgs)
	if err != nil || r.Requests != 1 {
		t.Fatalf("after timeouts: %+v, %v", r, err)
	}
	st.srv.Close()
	if s := st.srv.Stats(); s.Requests != 3 || s.Aborted != 2 {
		t.Errorf("server Stats = %+v, want 3 requests, 2 aborted", s)
	}
}

// TestBadReplies: replies that carry no answer are retried
// reply_retries (2) times, then returned as ErrUnusableReply of their
// kind; a status that is not retried is an error at once. Both name the
// request, never the key.
func TestBadReplies(t *testing.T) {
	for _, tc := range []struct {
		fault llmtest.Fault
		want  error
		kind  string
	}{
		{llmtest.Malformed, llm.ErrMalformedReply, llm.KindMalformed},
		{llmtest.Truncated, llm.ErrMalformedReply, llm.KindMalformed},
		{llmtest.HTML, llm.ErrMalformedReply, llm.KindMalformed},
		{llmtest.EmptyChoices, llm.ErrNoChoices, llm.KindNoChoices},
		{llmtest.EmptyContent, llm.ErrEmptyContent, llm.KindEmpty},
		{llmtest.NullContent, llm.ErrEmptyContent, llm.KindEmpty},
		{llmtest.CutContent, llm.ErrCutReply, llm.KindCut},
		{llmtest.Unauthorized, nil, ""}, // a *StatusError 401
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			st := newSetup(t, nil)
			st.srv.FailFirst(3, tc.fault)
			_, err := st.cl.Complete(context.Background(), msgs)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var se *llm.StatusError
			if tc.want == nil && (!errors.As(err, &se) || se.Status != 401 || !strings.Contains(se.Body, "[REDACTED]")) {
				t.Fatalf("err = %v, want HTTP 401 with the key redacted", err)
			}
			wantReq := int64(1) // 401: not retried
			if tc.want != nil {
				wantReq = 3 // reply_retries 2
				if !errors.Is(err, llm.ErrUnusableReply) || llm.UnusableKind(err) != tc.kind {
					t.Errorf("err = %v: kind %q, want an unusable reply of kind %q", err, llm.UnusableKind(err), tc.kind)
				}
				if s := st.cl.Stats(); s.Unusable != 3 {
					t.Errorf("Stats.Unusable = %d, want 3", s.Unusable)
				}
			}
			if st.srv.Requests() != wantReq {
				t.Errorf("%d requests, want %d", st.srv.Requests(), wantReq)
			}
			h := st.cl.Request(msgs).Hash()[:12]
			if !strings.Contains(err.Error(), "llm request "+h) {
				t.Errorf("error %q does not name request %s", err, h)
			}
			noKey(t, "error", err.Error())
		})
	}
}

// TestCancelAbortsInFlight: cancelling the context ends a request the
// server is holding at once: Complete returns while the server still
// hangs, and the server sees the client go away.
func TestCancelAbortsInFlight(t *testing.T) {
	st := newSetup(t, nil) // timeout 60s: only the cancel can end it
	st.srv.FailNth(1, llmtest.Hang)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := st.cl.Complete(ctx, msgs)
		done <- err
	}()
	testwait.For(t, 10*time.Second, "the request to reach the server", func() bool { return st.srv.Stats().InFlight == 1 })
	cancel()
	err := <-done // before Close: the hang never ends by itself
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	testwait.For(t, 10*time.Second, "the server to see the client go away", func() bool { return st.srv.Stats().InFlight == 0 })
	if s := st.srv.Stats(); s.Aborted != 1 || s.Requests != 1 {
		t.Errorf("server Stats = %+v, want the request aborted", s)
	}
	if len(st.clock.waits()) != 0 {
		t.Errorf("retried after a cancel: waits %v", st.clock.waits())
	}
}

// TestCancelDuringBackoff: a cancel during a retry's wait ends Complete.
func TestCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st := newSetup(t, func(_ *llm.Config, o *llm.Options) {
		o.Clock = cancelClock{cancel}
	})
	st.srv.FailFirst(5, llmtest.ServerError)
	_, err := st.cl.Complete(ctx, msgs)
	if !errors.Is(err, context.Canceled) || st.srv.Requests() != 1 {
		t.Fatalf("err = %v after %d requests, want context.Canceled after 1", err, st.srv.Requests())
	}
}

// cancelClock cancels at the first wait.
type cancelClock struct{ cancel context.CancelFunc }

func (cancelClock) Now() time.Time { return time.Now() }
func (c cancelClock) Sleep(ctx context.Context, d time.Duration) error {
	c.cancel()
	return ctx.Err()
}

// TestConcurrencyLimit: 12 callers, concurrency 4: the server never has
// more than 4 requests at once, and has 4 while the policy holds them.
func TestConcurrencyLimit(t *testing.T) {
	release := make(chan struct{})
	srv := llmtest.New(func(m []llm.Message) string { <-release; return "ACTION: wait" })
	t.Cleanup(srv.Close)
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseAll) // before srv.Close, which waits for the held requests
	cfg := config(srv)
	cfg.Concurrency = 4
	cl, err := llm.New(cfg, llm.Options{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			m := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("x ", i+1)}}
			_, errs[i] = cl.Complete(context.Background(), m)
		})
	}
	testwait.For(t, 10*time.Second, "the server to hold 4 requests at once", func() bool { return srv.Stats().InFlight == 4 })
	releaseAll()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if s := srv.Stats(); s.MaxInFlight != 4 || s.Requests != 12 {
		t.Errorf("server Stats = %+v, want 12 requests, at most 4 at once", s)
	}
	if s := cl.Stats(); s.MaxInFlight != 4 {
		t.Errorf("client Stats = %+v", s)
	}
}

func TestNoMessages(t *testing.T) {
	st := newSetup(t, nil)
	for _, m := range [][]llm.Message{nil, {{Role: "", Content: "x"}}} {
		if _, err := st.cl.Complete(context.Background(), m); !errors.Is(err, llm.ErrNoMessages) {
			t.Errorf("Complete(%v) = %v, want ErrNoMessages", m, err)
		}
	}
	if st.srv.Requests() != 0 {
		t.Errorf("%d requests sent", st.srv.Requests())
	}
}

// TestFailFraction: about the asked fraction of requests fail, the same
// ones for the same seed, and the client's retries hide them.
func TestFailFraction(t *testing.T) {
	count := func() (int64, []time.Duration) {
		st := newSetup(t, func(c *llm.Config, _ *llm.Options) { c.MaxRetries = 20 })
		st.srv.FailFraction(llmtest.ServerError, 0.3, 42)
		for i := range 200 {
			m := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("y ", i+1)}}
			if _, err := st.cl.Complete(context.Background(), m); err != nil {
				t.Fatal(err)
			}
		}
		return st.srv.Stats().Faults[llmtest.ServerError], st.clock.waits()
	}
	n1, w1 := count()
	n2, w2 := count()
	// 200 successes need 200/(1-0.3) ≈ 286 requests, ≈ 86 of them 500s;
	// the binomial sd is about 8, so [50, 130] is a wide band.
	if n1 < 50 || n1 > 130 || n1 != n2 || len(w1) != len(w2) {
		t.Fatalf("faults %d and %d, want the same number near 86", n1, n2)
	}
}

func TestNewErrors(t *testing.T) {
	srv := llmtest.New(policy)
	defer srv.Close()
	cfg := config(srv)
	if _, err := llm.New(cfg, llm.Options{Mode: llm.ModeRead, LookupEnv: lookup}); err == nil || !strings.Contains(err.Error(), "needs a cache") {
		t.Errorf("read mode without a cache: %v", err)
	}
	cfg.Concurrency = 0
	if _, err := llm.New(cfg, llm.Options{LookupEnv: lookup}); err == nil || !strings.Contains(err.Error(), "concurrency") {
		t.Errorf("invalid config: %v", err)
	}
}

func TestMain(m *testing.M) {
	if role(os.Getenv(roleEnv)) {
		return
	}
	os.Exit(m.Run())
}
