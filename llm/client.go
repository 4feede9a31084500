package llm

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Errors that callers branch on. Complete's errors wrap one of these (or
// a context error, or a *StatusError) and name the request by the first
// 12 digits of its hash, the model and the number of messages; never the
// API key.
var (
	// ErrNotCached: the cache mode is ModeRead and the request has no
	// (intact) entry; no request was sent.
	ErrNotCached = errors.New("not in the cache")
	// ErrUnusableReply: the server answered 200 with a body that carries
	// no reply. Each of the four kinds below wraps it; an unusable
	// attempt is retried Config.ReplyRetries times before Complete
	// returns it (see UnusableKind).
	ErrUnusableReply = errors.New("unusable reply")
	// ErrMalformedReply: the server answered 200 with a body that is not
	// a chat completion (not JSON, an HTML page, or of the wrong shape).
	ErrMalformedReply = fmt.Errorf("%w: malformed reply", ErrUnusableReply)
	// ErrNoChoices: the reply has no choices.
	ErrNoChoices = fmt.Errorf("%w: reply has no choices", ErrUnusableReply)
	// ErrEmptyContent: choices[0].message.content is empty or null.
	ErrEmptyContent = fmt.Errorf("%w: reply has empty content", ErrUnusableReply)
	// ErrCutReply: choices[0].message.content is empty or null and
	// finish_reason is "length": the model spent max_tokens before it
	// answered (a reasoning model thinking at length).
	ErrCutReply = fmt.Errorf("%w: reply cut by max_tokens before any content", ErrUnusableReply)
	// ErrServerFault: the server answered 200 with an "error" object
	// and no choices (a gateway or server passing on its upstream's
	// failure). It is the server's fault, not the model's reply: it is
	// retried as a 5xx is (counted in Stats.ServerErrors, its body
	// logged), unless its code is a 4xx status that is not retried
	// (400, 401, 403, 404, 422, ...), which is returned at once.
	ErrServerFault = errors.New("server error in a 200 reply")
	// ErrTimeout: an HTTP attempt took longer than Config.Timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrRetriesExhausted: the attempts failed with retryable errors
	// until Config.RetryFor passed (or Config.MaxRetries retries were
	// made); the last error is wrapped too. It has a method Transient()
	// returning true (evolve/play.Transient): an episode that meets
	// it is never recorded as an error episode; the run stops, to be
	// resumed.
	ErrRetriesExhausted error = transientError("retries exhausted")
	// ErrNoMessages: Complete was given no messages, or a message without
	// a role.
	ErrNoMessages = errors.New("no messages, or a message without a role")
)

// transientError is an error of the endpoint, not of the episode.
type transientError string

func (e transientError) Error() string { return string(e) }

// Transient reports true: see ErrRetriesExhausted.
func (transientError) Transient() bool { return true }

// StatusError is an HTTP status other than 200 from the server. Retryable
// statuses (408, 429, 5xx) are retried first; the others are returned at
// once.
type StatusError struct {
	// Status is the HTTP status code.
	Status int
	// Body is the start of the response body (at most 256 bytes), with
	// every occurrence of the API key replaced by "[REDACTED]".
	Body string
}

// Error returns "HTTP 429 Too Many Requests: BODY".
func (e *StatusError) Error() string {
	s := "HTTP " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// retryable reports whether an attempt that got this status may be
// retried.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// Backoff of retries without a Retry-After header: "full jitter" (Brooker,
// "Exponential Backoff And Jitter", AWS Architecture Blog, 2015), the
// wait before retry k (k = 0, 1, ...) drawn uniformly from
// [0, min(BackoffCap, BackoffBase·2^k)].
const (
	// BackoffBase is the ceiling of the first retry's wait.
	BackoffBase = 500 * time.Millisecond
	// BackoffCap bounds every ceiling.
	BackoffCap = 30 * time.Second
	// MaxRetryAfter bounds the wait a Retry-After header can ask for; a
	// longer one is cut to it.
	MaxRetryAfter = 10 * time.Minute
)

// Clock is the time source of a Client's waits and latencies. Tests pass
// one that records waits instead of sleeping.
type Clock interface {
	// Now returns the current time (with a monotonic reading, as
	// time.Now's, for latencies).
	Now() time.Time
	// Sleep waits d, or until ctx is done, when it returns ctx's error.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the Clock of time.Now and a timer.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits d on a timer, or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctxErr(ctx)
	}
}

// ctxErr is the error of a done context: ctx.Err() (context.Canceled or
// context.DeadlineExceeded), wrapping its cause as well when the cause
// differs, so that errors.Is(err, ctx.Err()) holds for callers that
// compare with their context's error (a run loop telling a SIGINT from
// a failure).
func ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if c := context.Cause(ctx); c != nil && err != nil && !errors.Is(c, err) {
		return fmt.Errorf("%w (%w)", err, c)
	}
	return err
}

// Options are a Client's collaborators, the inputs from outside the
// config.
type Options struct {
	// Cache is the response cache; required unless Mode is ModeOff (and
	// then ignored).
	Cache *Cache
	// Mode is how the cache is used; the zero value is ModeOff.
	Mode Mode
	// Jitter is the random source of backoff waits, used under a lock.
	// nil means a PCG seeded per process and per client (see
	// jitterSource), so that processes sharing a server spread their
	// retries out. The draws' order follows the callers' timing, so jitter
	// changes only when requests are sent, never a reply.
	Jitter rand.Source
	// Clock times latencies and waits; nil means SystemClock.
	Clock Clock
	// LookupEnv reads the API key's variable; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Transport sends the requests; nil means a clone of
	// http.DefaultTransport keeping up to Config.Concurrency idle
	// connections per host.
	Transport http.RoundTripper
}

// Stats counts a Client's work since New. All fields are totals.
type Stats struct {
	// Calls counts Complete calls.
	Calls int64
	// Requests counts HTTP attempts, retries included.
	Requests int64
	// Retries counts attempts after a call's first.
	Retries int64
	// CacheHits counts calls answered from the cache.
	CacheHits int64
	// CacheMisses counts calls the cache could not answer (corrupt
	// entries included); in ModeRead each is an ErrNotCached error.
	CacheMisses int64
	// Errors counts calls that returned an error.
	Errors int64
	// PromptTokens and CompletionTokens sum the usage of the replies
	// received over HTTP (those of cache hits are not added: these are
	// the tokens this process paid for).
	PromptTokens, CompletionTokens int64
	// MaxInFlight is the most HTTP requests that were in flight at once.
	MaxInFlight int64
	// Unusable counts HTTP attempts answered 200 with no usable reply
	// (ErrUnusableReply), retried ones included.
	Unusable int64
	// ServerErrors counts HTTP attempts answered 200 with an "error"
	// object (ErrServerFault), retried ones included; they are not
	// counted in Unusable.
	ServerErrors int64
	// Outages counts the times the endpoint was marked down (DownAfter
	// failed attempts in a row), and Waited sums the time calls spent in
	// backoff waits, in nanoseconds over all callers.
	Outages int64
	Waited  time.Duration
	// CacheStored counts the replies this client stored in the response
	// cache, and CacheBytes the bytes of their entry files (compressed):
	// CacheBytes/CacheStored is the disk cost of an entry.
	CacheStored, CacheBytes int64
}

// Add returns the totals of s and o (sessions of one run): the sums of
// the counts and waits, and the larger MaxInFlight.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		Calls: s.Calls + o.Calls, Requests: s.Requests + o.Requests, Retries: s.Retries + o.Retries,
		CacheHits: s.CacheHits + o.CacheHits, CacheMisses: s.CacheMisses + o.CacheMisses, Errors: s.Errors + o.Errors,
		PromptTokens: s.PromptTokens + o.PromptTokens, CompletionTokens: s.CompletionTokens + o.CompletionTokens,
		MaxInFlight: max(s.MaxInFlight, o.MaxInFlight), Unusable: s.Unusable + o.Unusable, ServerErrors: s.ServerErrors + o.ServerErrors, Outages: s.Outages + o.Outages,
		Waited: s.Waited + o.Waited, CacheStored: s.CacheStored + o.CacheStored, CacheBytes: s.CacheBytes + o.CacheBytes,
	}
}

// Client calls an OpenAI-compatible chat completions endpoint. It is safe
// for concurrent use; at most Config.Concurrency requests are in flight
// at once, whatever the number of callers.
type Client struct {
	cfg   Config
	opts  Options
	url   string
	key   string
	http  *http.Client
	sem   chan struct{}
	clock Clock

	mu  sync.Mutex
	rng *rand.Rand

	calls, requests, retries, hits, misses, errs, promptTok, complTok atomic.Int64
	inFlight, maxInFlight, unusable, outages, waited                  atomic.Int64
	stored, storedBytes, serverErrs                                   atomic.Int64

	health health

	logger atomic.Pointer[slog.Logger] // SetLogger's; nil logs nothing
	logMu  sync.Mutex
	logged map[string]bool // the kinds whose body was logged since ResetLogged
}

// New returns a Client for cfg. It returns cfg.Validate's error; an error
// if the mode needs a Cache and opts.Cache is nil or the mode is unknown;
// and, unless the mode is ModeRead (which sends nothing), an error naming
// the variable (never its value) if cfg.APIKeyEnv is set and the
// variable is unset or empty.
func New(cfg Config, opts Options) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("llm config: %w", err)
	}
	if opts.Mode < ModeOff || opts.Mode > ModeReadWrite {
		return nil, fmt.Errorf("llm: unknown cache mode %d", int(opts.Mode))
	}
	if opts.Mode != ModeOff && opts.Cache == nil {
		return nil, fmt.Errorf("llm: cache mode %s needs a cache directory", opts.Mode)
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var key string
	if cfg.APIKeyEnv != "" && opts.Mode != ModeRead {
		v, ok := lookup(cfg.APIKeyEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("llm: api_key_env: environment variable %s is not set", cfg.APIKeyEnv)
		}
		key = v
	}
	src := opts.Jitter
	if src == nil {
		src = jitterSource()
	}
	clock := opts.Clock
	if clock == nil {
		clock = SystemClock{}
	}
	tr := opts.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 2 * cfg.Concurrency
		t.MaxIdleConnsPerHost = cfg.Concurrency
		tr = t
	}
	return &Client{
		cfg:   cfg,
		opts:  opts,
		url:   cfg.endpoint(),
		key:   key,
		http:  &http.Client{Transport: tr},
		sem:   make(chan struct{}, cfg.Concurrency),
		clock: clock,
		rng:   rand.New(src),
	}, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// Close closes the idle connections of the client's transport. The client
// stays usable.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Stats returns the client's counts so far.
func (c *Client) Stats() Stats {
	return Stats{
		Calls: c.calls.Load(), Requests: c.requests.Load(), Retries: c.retries.Load(),
		CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(), Errors: c.errs.Load(),
		PromptTokens: c.promptTok.Load(), CompletionTokens: c.complTok.Load(),
		MaxInFlight: c.maxInFlight.Load(), Unusable: c.unusable.Load(), ServerErrors: c.serverErrs.Load(), Outages: c.outages.Load(),
		Waited: time.Duration(c.waited.Load()), CacheStored: c.stored.Load(), CacheBytes: c.storedBytes.Load(),
	}
}

// Request returns the request Complete sends for messages (which it
// shares, not copies).
func (c *Client) Request(messages []Message) Request {
	return Request{Model: c.cfg.Model, Messages: messages, Temperature: c.cfg.Temperature, Seed: c.cfg.Seed, MaxTokens: c.cfg.MaxTokens}
}

// ToolRequest returns the request CompleteTools sends for messages and
// tools: Request's, with Tools and ToolChoice "required" (none: the
// same as Request).
func (c *Client) ToolRequest(messages []Message, tools []Tool) Request {
	r := c.Request(messages)
	if len(tools) > 0 {
		r.Tools, r.ToolChoice = tools, "required"
	}
	return r
}

// Complete returns the model's reply to messages (oldest first).
//
// With a cache (ModeRead, ModeReadWrite) it first looks the request up;
// a hit returns the stored reply with Cached true. In ModeRead a miss is
// an error wrapping ErrNotCached. Otherwise it posts the request, waiting
// for one of the Config.Concurrency slots, and retries after a 408, 429
// or 5xx status, a 200 with an "error" object (ErrServerFault), an
// attempt that took longer than Config.Timeout (ErrTimeout) or a network
// error, until Config.RetryFor has passed since the first attempt (the
// last wait is cut so that the last attempt is made when it ends) or
// Config.MaxRetries retries were made: it waits as the Retry-After
// header says (seconds or an HTTP date, at most MaxRetryAfter), else a
// full-jitter backoff (BackoffBase, BackoffCap). In ModeReadWrite it
// stores the reply before returning it; a failed store is an error.
//
// Errors, each naming the request (hash prefix, model, message count):
// ErrNoMessages; ErrNotCached; a *StatusError for another status,
// returned at once, and ErrServerFault for a 200 whose error's code is
// such a status; ErrMalformedReply, ErrNoChoices, ErrEmptyContent or
// ErrCutReply for a 200 that carries no reply, after
// Config.ReplyRetries more attempts (UnusableKind names the kind,
// UnusableSeen what the body held instead); ErrRetriesExhausted wrapping
// the last retryable error; ctx's error (context.Canceled,
// DeadlineExceeded or its cause) as soon as ctx is done, which aborts
// the request in flight.
func (c *Client) Complete(ctx context.Context, messages []Message) (Reply, error) {
	return c.CompleteTools(ctx, messages, nil)
}

// CompleteTools is Complete with tools offered to the model (function
// calling; ToolRequest): the model is asked to call one of them, and the
// reply's Content is then the first call's arguments, a JSON object
// (see Reply.Content). With no tools it is Complete. A tool's Parameters
// that are not JSON are an error naming the tool; nothing is sent.
func (c *Client) CompleteTools(ctx context.Context, messages []Message, tools []Tool) (Reply, error) {
	c.calls.Add(1)
	r, err := c.complete(ctx, c.ToolRequest(messages, tools))
	if err != nil {
		c.errs.Add(1)
	}
	return r, err
}

// reqError names a request in an error.
func reqError(h string, req Request, err error) error {
	return fmt.Errorf("llm request %s (model %q, %d messages): %w", h[:12], req.Model, len(req.Messages), err)
}

func (c *Client) complete(ctx context.Context, req Request) (Reply, error) {
	for _, t := range req.Tools {
		if !json.Valid(t.Function.Parameters) {
			return Reply{}, fmt.Errorf("llm: tool %q: parameters are not JSON", t.Function.Name)
		}
	}
	h := req.Hash()
	if len(req.Messages) == 0 {
		return Reply{}, reqError(h, req, ErrNoMessages)
	}
	for _, m := range req.Messages {
		if m.Role == "" {
			return Reply{}, reqError(h, req, ErrNoMessages)
		}
	}
	if c.opts.Mode != ModeOff {
		r, ok, err := c.opts.Cache.get(req, h)
		if err != nil {
			return Reply{}, reqError(h, req, err)
		}
		if ok {
			c.hits.Add(1)
			return r, nil
		}
		c.misses.Add(1)
		if c.opts.Mode == ModeRead {
			return Reply{}, reqError(h, req, fmt.Errorf("%w (cache mode read, %s)", ErrNotCached, c.opts.Cache.path(h)))
		}
	}
	body, err := marshal(req)
	if err != nil {
		return Reply{}, reqError(h, req, err)
	}
	r, err := c.fetch(ctx, body, len(req.Tools) > 0)
	if err != nil {
		return Reply{}, reqError(h, req, err)
	}
	r.Request = h
	c.promptTok.Add(int64(r.PromptTokens))
	c.complTok.Add(int64(r.CompletionTokens))
	if c.opts.Mode == ModeReadWrite {
		n, err := c.opts.Cache.put(req, h, r)
		if err != nil {
			return Reply{}, reqError(h, req, err)
		}
		c.stored.Add(1)
		c.storedBytes.Add(int64(n))
	}
	return r, nil
}

// fetch posts body until it gets a reply, a final error, or runs out of
// time (Config.RetryFor since its first attempt) or retries. The errors
// name no request (the caller wraps them).
func (c *Client) fetch(ctx context.Context, body []byte, tools bool) (Reply, error) {
	start := c.clock.Now()
	var last error
	prober, unusable := false, 0
	defer func() {
		if prober {
			c.health.release()
		}
	}()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			c.retries.Add(1)
		}
		if !prober {
			p, err := c.health.gate(ctx, c.clock, start, time.Duration(c.cfg.RetryFor))
			if err != nil {
				if ctx.Err() != nil {
					return Reply{}, ctxErr(ctx)
				}
				return Reply{}, fmt.Errorf("%w: %w", ErrRetriesExhausted, err)
			}
			prober = p
		}
		r, wait, err := c.attempt(ctx, body, tools)
		if err == nil {
			c.health.up()
			r.Requests = attempt + 1
			return r, nil
		}
		if ctx.Err() != nil {
			return Reply{}, fmt.Errorf("attempt %d: %w", attempt+1, ctxErr(ctx))
		}
		if wait < 0 { // not retryable
			return Reply{}, err
		}
		if errors.Is(err, ErrUnusableReply) {
			// The endpoint is up: it answered.
			c.health.up()
			c.unusable.Add(1)
			if unusable++; unusable > c.cfg.ReplyRetries {
				return Reply{}, fmt.Errorf("%w (%d attempts gave no usable reply)", err, unusable)
			}
		} else if errors.Is(err, ErrServerFault) {
			// The server is up but failing, as with a 5xx.
			c.serverErrs.Add(1)
			if c.health.down(c.clock.Now(), err) {
				c.outages.Add(1)
			}
		} else if c.health.down(c.clock.Now(), err) {
			c.outages.Add(1)
		}
		last = err
		if c.cfg.MaxRetries >= 0 && attempt >= c.cfg.MaxRetries {
			return Reply{}, fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt+1, last)
		}
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		if c.cfg.RetryFor > 0 {
			// Retry until retry_for has passed: a wait past it is cut so
			// that the last attempt is made when it ends.
			spent := c.clock.Now().Sub(start)
			left := time.Duration(c.cfg.RetryFor) - spent
			if left <= 0 {
				return Reply{}, fmt.Errorf("%w after %d attempts in %v (retry_for %v): %w", ErrRetriesExhausted, attempt+1,
					spent.Round(time.Second), c.cfg.RetryFor, last)
			}
			wait = min(wait, left)
		}
		c.waited.Add(int64(wait))
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return Reply{}, fmt.Errorf("waiting to retry after %w: %w", last, ctxErr(ctx))
		}
	}
}

// Waiting reports whether the endpoint is down (DownAfter attempts in a
// row failed with a retryable transport or status error, and no attempt
// has succeeded since): for how long, and the last error's text (the
// key redacted), for a progress line "waiting for the endpoint (N s,
// last error ...)". ok is false while the endpoint answers.
func (c *Client) Waiting() (since time.Duration, last string, ok bool) {
	c.health.mu.Lock()
	defer c.health.mu.Unlock()
	if !c.health.isDown {
		return 0, "", false
	}
	return c.clock.Now().Sub(c.health.since), c.health.last, true
}

// backoff returns the full-jitter wait before retry k (0-based).
func (c *Client) backoff(k int) time.Duration {
	ceil := BackoffCap
	if k < 30 {
		ceil = min(BackoffCap, BackoffBase<<k)
	}
	c.mu.Lock()
	d := c.rng.Int64N(int64(ceil) + 1)
	c.mu.Unlock()
	return time.Duration(d)
}

// maxBody bounds the reply body read.
const maxBody = 16 << 20

// attempt makes one HTTP attempt. On failure wait is -1 if the error is
// final, 0 to back off, and > 0 to wait that long (Retry-After).
func (c *Client) attempt(ctx context.Context, body []byte, tools bool) (r Reply, wait time.Duration, err error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Reply{}, -1, ctxErr(ctx)
	}
	defer func() { <-c.sem }()
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		m := c.maxInFlight.Load()
		if n <= m || c.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	c.requests.Add(1)

	actx, cancel := context.WithTimeoutCause(ctx, time.Duration(c.cfg.Timeout), ErrTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return Reply{}, -1, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := c.clock.Now()
	resp, err := c.http.Do(hreq)
	if err != nil {
		return Reply{}, 0, c.netError(actx, err)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	latency := c.clock.Now().Sub(start)
	if err != nil {
		return Reply{}, 0, c.netError(actx, err)
	}
	if resp.StatusCode != http.StatusOK {
		serr := &StatusError{Status: resp.StatusCode, Body: c.snippet(data)}
		if !retryable(resp.StatusCode) {
			return Reply{}, -1, serr
		}
		return Reply{}, retryAfter(resp.Header.Get("Retry-After"), c.clock.Now()), serr
	}
	if len(data) > maxBody {
		err := fmt.Errorf("%w: body longer than %d bytes", ErrMalformedReply, maxBody)
		c.logBody(KindMalformed, err, data)
		return Reply{}, 0, err
	}
	r, err = parseReply(data, tools)
	if err != nil {
		if fe := (*faultError)(nil); errors.As(err, &fe) && fe.final {
			return Reply{}, -1, fmt.Errorf("%w (body %q)", err, c.snippet(data[:min(len(data), 256)]))
		}
		kind := UnusableKind(err)
		if kind == "" {
			kind = KindServerError
		}
		c.logBody(kind, err, data)
		return Reply{}, 0, fmt.Errorf("%w (body %q)", err, c.snippet(data[:min(len(data), 64)]))
	}
	r.Latency = latency
	return r, 0, nil
}

// netError describes a transport error of an attempt whose context is
// actx: ErrTimeout if the attempt's deadline passed, else err (which names
// the URL, never the key).
func (c *Client) netError(actx context.Context, err error) error {
	if errors.Is(context.Cause(actx), ErrTimeout) {
		return fmt.Errorf("%w (timeout %v)", ErrTimeout, c.cfg.Timeout)
	}
	return err
}

// snippet returns the start of a body for an error, with the key
// redacted and control characters replaced.
func (c *Client) snippet(data []byte) string {
	s := string(data)
	if c.key != "" {
		s = strings.ReplaceAll(s, c.key, "[REDACTED]")
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) > 256 {
		s = strings.ToValidUTF8(s[:256], "") + "…"
	}
	return s
}

// retryAfter parses a Retry-After header value: delay-seconds (a
// non-negative integer) or an HTTP date (RFC 9110 10.2.3), relative to
// now. It returns 0 for an absent or unparsable value or a date in the
// past (meaning: back off as usual), and at most MaxRetryAfter.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		if n > int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0
	}
	return max(0, min(d, MaxRetryAfter))
}

// wireReply is the part of a chat completion the client reads; other
// fields are ignored.
type wireReply struct {
	Choices []struct {
		Message *struct {
			// Content is a string, null, or an array of content parts
			// ({"type": "text", "text": "…"}).
			Content          json.RawMessage `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"` // DeepSeek, vLLM's reasoning parsers
			Reasoning        *string         `json:"reasoning"`         // Ollama, OpenRouter
			Refusal          *string         `json:"refusal"`
			ToolCalls        []struct {
				Function struct {
					Name string `json:"name"`
					// Arguments is a JSON string holding an object
					// (OpenAI), or the object itself (Ollama).
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Error is an error object ({"message", "type", "code"}) or a string.
	Error json.RawMessage `json:"error"`
}

// seenError is an unusable reply's error with what the body held
// instead of content ("reasoning_content with empty content").
type seenError struct {
	err  error
	seen string
}

func (e *seenError) Error() string { return e.err.Error() + " (" + e.seen + ")" }
func (e *seenError) Unwrap() error { return e.err }

// UnusableSeen returns what an unusable reply held instead of content,
// for a message that names it: "reasoning_content with empty content",
// "tool_calls but no tools were offered", "a refusal", ...; "" when
// the error says no more than its kind.
func UnusableSeen(err error) string {
	var se *seenError
	if errors.As(err, &se) {
		return se.seen
	}
	return ""
}

// faultError is ErrServerFault with the server's message and code.
type faultError struct {
	msg, code string
	final     bool // the code is a 4xx status that is not retried
}

func (e *faultError) Error() string {
	s := ErrServerFault.Error() + ": " + strconv.Quote(e.msg)
	if e.code != "" {
		s += " (code " + e.code + ")"
	}
	return s
}
func (e *faultError) Unwrap() error { return ErrServerFault }

// serverFault reads a 200's "error" value: an object with message and
// code (a number or a string), or a string.
func serverFault(raw json.RawMessage) *faultError {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return &faultError{msg: text}
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return &faultError{msg: string(raw)}
	}
	fe := &faultError{msg: obj.Message}
	if fe.msg == "" {
		fe.msg = obj.Type
	}
	var code string
	if json.Unmarshal(obj.Code, &code) != nil {
		code = string(obj.Code) // a number
	}
	if code != "null" {
		fe.code = code
	}
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n < 500 && !retryable(n) {
		fe.final = true
	}
	return fe
}

// contentText reads a message's content: a string, null (""), or an
// array of content parts whose "text" parts are joined by newlines
// (other parts, such as images, are skipped). ok is false for any other
// JSON value.
func contentText(raw json.RawMessage) (text string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if json.Unmarshal(raw, &text) == nil {
		return text, true
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		if p.Text != nil && (p.Type == "" || p.Type == "text" || p.Type == "output_text") {
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// parseReply reads a chat completion body, whose request offered tools
// if tools is set:
//
//   - choices[0].message.content, a string or an array of text parts
//     (contentText); when it is empty and the message has tool_calls,
//     the content is the first call's arguments (a JSON object, as
//     text), whether or not tools were offered;
//   - finish_reason, and usage (0 tokens without usage; negative counts
//     are malformed).
//
// Errors: ErrMalformedReply if the body is not such JSON; a *faultError
// (ErrServerFault) for an "error" value and no choices; ErrNoChoices
// without choices; ErrCutReply for an empty or null content with
// finish_reason "length", else ErrEmptyContent; the last two say what
// the message held instead (UnusableSeen): reasoning_content, tool
// calls without arguments, a refusal.
func parseReply(data []byte, tools bool) (Reply, error) {
	var w wireReply
	if err := json.Unmarshal(data, &w); err != nil {
		return Reply{}, fmt.Errorf("%w: %v", ErrMalformedReply, err)
	}
	if len(w.Choices) == 0 {
		if len(w.Error) > 0 && string(w.Error) != "null" {
			return Reply{}, serverFault(w.Error)
		}
		return Reply{}, ErrNoChoices
	}
	ch := w.Choices[0]
	content, seen := "", ""
	if m := ch.Message; m != nil {
		var ok bool
		if content, ok = contentText(m.Content); !ok {
			return Reply{}, fmt.Errorf("%w: content is neither a string nor an array of text parts", ErrMalformedReply)
		}
		if strings.TrimSpace(content) == "" {
			switch {
			case len(m.ToolCalls) > 0:
				args := toolArguments(m.ToolCalls[0].Function.Arguments)
				if a := strings.TrimSpace(args); a != "" && a != "{}" && a != "null" {
					content = args
				} else if tools {
					seen = fmt.Sprintf("tool_calls of %q without arguments", m.ToolCalls[0].Function.Name)
				} else {
					seen = fmt.Sprintf("tool_calls but no tools were offered (%q without arguments)", m.ToolCalls[0].Function.Name)
				}
			case m.ReasoningContent != nil && strings.TrimSpace(*m.ReasoningContent) != "":
				seen = "reasoning_content with empty content"
			case m.Reasoning != nil && strings.TrimSpace(*m.Reasoning) != "":
				seen = "reasoning with empty content"
			case m.Refusal != nil && strings.TrimSpace(*m.Refusal) != "":
				seen = "a refusal: " + strconv.Quote(*m.Refusal)
			}
		}
	}
	if strings.TrimSpace(content) == "" {
		err := ErrEmptyContent
		if ch.FinishReason == "length" {
			err = ErrCutReply
		}
		if seen != "" {
			return Reply{}, &seenError{err, seen}
		}
		return Reply{}, err
	}
	r := Reply{Content: content, FinishReason: ch.FinishReason}
	if w.Usage != nil {
		if w.Usage.PromptTokens < 0 || w.Usage.CompletionTokens < 0 {
			return Reply{}, fmt.Errorf("%w: negative usage", ErrMalformedReply)
		}
		r.PromptTokens, r.CompletionTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
	}
	return r, nil
}

// toolArguments returns a tool call's arguments as text: the string a
// JSON string holds, else the raw JSON (an object).
func toolArguments(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// LogBodyBytes is how much of a body SetLogger's log shows.
const LogBodyBytes = 2 << 10

// SetLogger makes the client log, at level Warn, the body of the first
// reply of each kind that it could not use (KindMalformed,
// KindNoChoices, KindEmpty, KindCut, and KindServerError for a 200 with
// an "error") since the last ResetLogged: its first LogBodyBytes bytes,
// the API key redacted, with the error. nil logs nothing (the default).
// Safe to call at any time.
func (c *Client) SetLogger(l *slog.Logger) { c.logger.Store(l) }

// ResetLogged forgets which kinds were logged, so that the next body of
// each kind is logged again: a run calls it as each phase starts, to log
// each kind's body once per phase.
func (c *Client) ResetLogged() {
	c.logMu.Lock()
	c.logged = nil
	c.logMu.Unlock()
}

// logBody logs data, the body of an attempt that failed with err, if
// it is the first of its kind since ResetLogged.
func (c *Client) logBody(kind string, err error, data []byte) {
	l := c.logger.Load()
	if l == nil {
		return
	}
	c.logMu.Lock()
	first := !c.logged[kind]
	if first {
		if c.logged == nil {
			c.logged = map[string]bool{}
		}
		c.logged[kind] = true
	}
	c.logMu.Unlock()
	if !first {
		return
	}
	body := string(data[:min(len(data), LogBodyBytes)])
	if c.key != "" {
		body = strings.ReplaceAll(body, c.key, "[REDACTED]")
	}
	body = strings.ToValidUTF8(body, "\uFFFD")
	l.Warn("model server reply not used; its body follows (first of its kind this phase)",
		"kind", kind, "error", err.Error(), "bytes", len(data), "body", body)
}

// jitterSeq numbers the clients of this process that draw their own
// jitter, so that two clients of one process draw differently too.
var jitterSeq atomic.Uint64

// jitterSeed is this process's seed of backoff jitter: 8 bytes of
// crypto/rand, or the process ID and the start time if it fails.
var jitterSeed = func() uint64 {
	var b [8]byte
	if _, err := cryptorand.Read(b[:]); err == nil {
		return binary.LittleEndian.Uint64(b[:])
	}
	return uint64(os.Getpid())<<32 ^ uint64(time.Now().UnixNano())
}()

// jitterSource returns the random source of a client's backoff waits
// when Options.Jitter is nil: a PCG seeded by (the process's jitterSeed,
// the client's number). Processes that share a server must not draw the
// same waits, or their retries arrive together; this randomness is not
// seeded from the experiment's seeds on purpose. It decides only how
// long a retry waits, never which request is sent or what is recorded:
// results stay byte-identical whatever it draws.
func jitterSource() rand.Source {
	return rand.NewPCG(jitterSeed, jitterSeq.Add(1))
}
