// Package llmtest runs an OpenAI-compatible chat completions server on
// loopback for tests: it answers POST /v1/chat/completions from the
// request's messages with a rule-based Policy, and can be told to fail
// given requests (429 with or without Retry-After, 500, a hang until the
// client gives up, malformed JSON, no choices, empty content, 401) so that
// a client's retries and error paths run against a real HTTP server.
//
// It counts requests and measures how many are in flight at once, and
// serves those counts as JSON at StatsPath, so a benchmark can run it in
// another process.
package llmtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"evolve/llm"
)

// Policy answers a conversation: it returns the assistant's reply to
// messages (oldest first). It is called concurrently from the server's
// handlers; it may block (to hold a request in flight).
type Policy func(messages []llm.Message) string

// Rule is one rule of Rules: a reply for a conversation whose last
// message contains a substring.
type Rule struct {
	// Contains is the substring looked for in the last message's content.
	Contains string
	// Reply is the answer when it is found.
	Reply string
}

// Rules returns a Policy that answers with the Reply of the first rule
// whose Contains occurs in the last message's content, else with def.
func Rules(def string, rules ...Rule) Policy {
	return func(messages []llm.Message) string {
		if len(messages) == 0 {
			return def
		}
		last := messages[len(messages)-1].Content
		for _, r := range rules {
			if strings.Contains(last, r.Contains) {
				return r.Reply
			}
		}
		return def
	}
}

// Fault is a way a request can fail.
type Fault string

// The faults.
const (
	// OK answers normally.
	OK Fault = ""
	// TooMany answers 429 without a Retry-After header.
	TooMany Fault = "429"
	// TooManyRetryAfter answers 429 with the Retry-After header set by
	// SetRetryAfter (default "1").
	TooManyRetryAfter Fault = "429-retry-after"
	// ServerError answers 500.
	ServerError Fault = "500"
	// Unavailable answers 503 with the Retry-After header set by
	// SetRetryAfter.
	Unavailable Fault = "503-retry-after"
	// Hang sends nothing until the client gives up (its timeout or
	// cancellation closes the request) or the server closes.
	Hang Fault = "hang"
	// Malformed answers 200 with a body that is not JSON.
	Malformed Fault = "malformed"
	// EmptyChoices answers 200 with "choices": [].
	EmptyChoices Fault = "empty-choices"
	// EmptyContent answers 200 with a choice whose content is "".
	EmptyContent Fault = "empty-content"
	// NullContent answers 200 with a choice whose content is null.
	NullContent Fault = "null-content"
	// CutContent answers 200 with a choice whose content is null and
	// finish_reason "length", as a reasoning model does when it spends
	// max_tokens thinking.
	CutContent Fault = "null-length"
	// HTML answers 200 with an HTML page (a gateway's or a login page).
	HTML Fault = "html"
	// Truncated answers 200 with the first half of a chat completion's
	// JSON, as a connection cut mid-body by a proxy.
	Truncated Fault = "truncated"
	// Unauthorized answers 401 with a body that quotes the request's
	// Authorization header, as a careless server might, to test that the
	// client redacts the key.
	Unauthorized Fault = "401"
	// ErrorObject answers 200 with an OpenAI-style error object and no
	// choices, as gateways do that pass on an upstream's failure:
	// {"error": {"message": ErrorObjectMessage, "type": "server_error",
	// "code": 503}}.
	ErrorObject Fault = "200-error"
	// ReasoningOnly answers 200 with null content and the policy's reply
	// as reasoning_content, finish_reason "length": a reasoning model
	// whose server parses the thinking out and that spent max_tokens
	// thinking.
	ReasoningOnly Fault = "reasoning-only"
	// ToolCallNoArgs answers 200 with empty content and a tool call of
	// a function "search" with arguments "{}".
	ToolCallNoArgs Fault = "tool-call-no-args"
)

// Reply shapes: well-formed answers written as other servers write
// them. They are set like faults (FailNth, FailFraction, ...) and
// counted in Stats.Faults, but they carry the policy's reply.
const (
	// ContentParts answers with content as an array of two text parts:
	// "Here is my answer." and the policy's reply.
	ContentParts Fault = "content-parts"
	// ToolCall answers with null content and one tool call of the
	// function "take_action" whose arguments are the JSON string
	// {"action": NAME}, NAME the policy's action (its "ACTION: NAME"
	// line, else its reply trimmed), as a model that calls a function
	// does. A request that offers tools with tool_choice "required" is
	// answered so without being told (the first tool's name).
	ToolCall Fault = "tool-call"
)

// ErrorObjectMessage is the message of ErrorObject's error.
const ErrorObjectMessage = "The upstream model is overloaded; please retry"

// StatsPath is where the server serves its Stats as JSON (GET).
const StatsPath = "/llmtest/stats"

// Stats are a server's counts since it started.
type Stats struct {
	// Requests counts chat completion requests (well-formed or not), in
	// arrival order; the n-th is request n of FailNth.
	Requests int64 `json:"requests"`
	// Faults counts the requests answered with each fault.
	Faults map[Fault]int64 `json:"faults"`
	// Aborted counts requests whose client went away before the answer
	// (a Hang, a Delay or a Policy cut short).
	Aborted int64 `json:"aborted"`
	// InFlight is the number of requests in the handler now.
	InFlight int64 `json:"in_flight"`
	// MaxInFlight is the most requests that were in the handler at once.
	MaxInFlight int64 `json:"max_in_flight"`
	// MeanInFlight is the time-weighted mean of the number of requests in
	// the handler, from the first arrival to the last departure (0 before
	// any departure).
	MeanInFlight float64 `json:"mean_in_flight"`
}

// Server is an OpenAI-compatible chat completions server on loopback.
// Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT", to use as
	// llm.Config.BaseURL.
	URL string

	ts     *httptest.Server
	policy Policy
	closed chan struct{}

	mu         sync.Mutex
	n          int64
	nth        map[int64]Fault
	frac       Fault
	fracP      float64
	fracSeed   uint64
	fracRand   bool
	retryAfter string
	delay      time.Duration
	faults     map[Fault]int64
	aborted    int64
	inFlight   int64
	maxIn      int64
	first      time.Time
	lastChange time.Time
	area       float64 // ∫ in-flight dt, in request·seconds
	lastAuth   string
	lastReq    llm.Request
	down       Fault             // every request fails with it (Down)
	firstP     float64           // FailFirstAttempts's probability
	firstSeed  uint64            // and seed
	firstF     []Fault           // and faults
	seen       map[[32]byte]bool // request bodies seen (FailFirstAttempts)
}

// New starts a server answering with policy. Close it when done.
func New(policy Policy) *Server {
	s := &Server{
		policy:     policy,
		closed:     make(chan struct{}),
		nth:        map[int64]Fault{},
		faults:     map[Fault]int64{},
		seen:       map[[32]byte]bool{},
		retryAfter: "1",
	}
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL
	return s
}

// Close stops the server, releasing hung requests first, and waits for
// its handlers to return.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	s.mu.Unlock()
	s.ts.Close()
}

// FailNth makes request n (1-based, in arrival order) fail with f (OK
// clears it). It takes precedence over FailFraction.
func (s *Server) FailNth(n int64, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == OK {
		delete(s.nth, n)
	} else {
		s.nth[n] = f
	}
}

// FailFirst makes requests 1..n fail with f.
func (s *Server) FailFirst(n int64, f Fault) {
	for i := int64(1); i <= n; i++ {
		s.FailNth(i, f)
	}
}

// FailFraction makes each request fail with f with probability p in
// [0, 1], decided by a hash of (seed, request number), so the same arrival
// order gives the same faults. p outside [0, 1] panics.
func (s *Server) FailFraction(f Fault, p float64, seed uint64) {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("llmtest: FailFraction probability %v outside [0, 1]", p))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frac, s.fracP, s.fracRand = f, p, true
	s.fracSeed = seed
}

// Down makes every request fail with f from now on, as an endpoint that
// is down (Unavailable, ServerError, Hang); Down(OK) brings it back. It
// takes precedence over the other faults.
func (s *Server) Down(f Fault) {
	s.mu.Lock()
	s.down = f
	s.mu.Unlock()
}

// FailFirstAttempts makes the first attempt of about a fraction p of
// the requests fail, and their retries succeed: a request (its body's
// bytes) is picked when a PCG stream keyed by (seed, the body's SHA-256)
// draws below p, and it then fails with faults[k], k drawn from the same
// stream. Unlike FailFraction the choice follows the request, not its
// arrival order, so concurrent clients see the same faults on every
// run. p outside [0, 1] or no faults panics.
func (s *Server) FailFirstAttempts(p float64, seed uint64, faults ...Fault) {
	if !(p >= 0 && p <= 1) || len(faults) == 0 {
		panic(fmt.Sprintf("llmtest: FailFirstAttempts(%v, %d faults): want p in [0, 1] and a fault", p, len(faults)))
	}
	s.mu.Lock()
	s.firstP, s.firstSeed, s.firstF = p, seed, faults
	s.mu.Unlock()
}

// firstFault is the fault of body's first attempt under
// FailFirstAttempts (OK for a later attempt or an unpicked request).
func (s *Server) firstFault(body []byte) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstP == 0 {
		return OK
	}
	h := sha256.Sum256(body)
	if s.seen[h] {
		return OK
	}
	s.seen[h] = true
	r := rand.New(rand.NewPCG(s.firstSeed, binary.LittleEndian.Uint64(h[:8])))
	if r.Float64() >= s.firstP {
		return OK
	}
	return s.firstF[r.IntN(len(s.firstF))]
}

// SetPolicy makes the server answer with policy from now on.
func (s *Server) SetPolicy(policy Policy) {
	s.mu.Lock()
	s.policy = policy
	s.mu.Unlock()
}

// SetRetryAfter sets the Retry-After header value of TooManyRetryAfter
// and Unavailable: delay-seconds ("2") or an HTTP date.
func (s *Server) SetRetryAfter(v string) {
	s.mu.Lock()
	s.retryAfter = v
	s.mu.Unlock()
}

// SetDelay makes every answer wait d (0: none) before it is sent, as a
// model's latency; a client that goes away cuts the wait short.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Requests returns the number of chat completion requests so far.
func (s *Server) Requests() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// LastAuthorization returns the Authorization header of the last request
// ("" if it had none).
func (s *Server) LastAuthorization() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastAuth
}

// LastRequest returns the body of the last well-formed request.
func (s *Server) LastRequest() llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastReq
}

// Stats returns the server's counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Requests: s.n, Aborted: s.aborted, InFlight: s.inFlight, MaxInFlight: s.maxIn, Faults: map[Fault]int64{}}
	for f, n := range s.faults {
		st.Faults[f] = n
	}
	if d := s.lastChange.Sub(s.first).Seconds(); d > 0 {
		st.MeanInFlight = s.area / d
	}
	return st
}

// fracHit decides whether request n draws the fraction fault: a PCG
// stream keyed by (seed, n) gives a uniform number in [0, 1).
func fracHit(seed uint64, n int64, p float64) bool {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	return r.Float64() < p
}

// enter and leave track the requests in the handler.
func (s *Server) enter() (n int64, f Fault, delay time.Duration, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.first.IsZero() {
		s.first, s.lastChange = now, now
	}
	s.area += float64(s.inFlight) * now.Sub(s.lastChange).Seconds()
	s.lastChange = now
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	s.n++
	n = s.n
	f, ok := s.nth[n]
	if s.down != OK {
		f, ok = s.down, true
	}
	if !ok && s.fracRand && s.fracP > 0 && fracHit(s.fracSeed, n, s.fracP) {
		f = s.frac
	}
	return n, f, s.delay, s.retryAfter
}

func (s *Server) leave(f Fault, aborted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.area += float64(s.inFlight) * now.Sub(s.lastChange).Seconds()
	s.lastChange = now
	s.inFlight--
	if f != OK {
		s.faults[f]++
	}
	if aborted {
		s.aborted++
	}
}

// ServeHTTP serves POST /v1/chat/completions and GET StatsPath; anything
// else is 404 (405 for another method). A chat request that is not JSON
// of {model, messages} with a non-empty model and at least one message is
// 400, after its fault if it has one.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case StatsPath:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Stats())
		return
	case "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	_, f, delay, ra := s.enter()
	aborted := false
	defer func() { s.leave(f, aborted) }()
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		aborted = true
		return
	}
	if f == OK {
		f = s.firstFault(body) // the deferred leave counts it
	}
	auth := r.Header.Get("Authorization")
	var req llm.Request
	jerr := json.Unmarshal(body, &req)
	s.mu.Lock()
	s.lastAuth = auth
	if jerr == nil {
		s.lastReq = req
	}
	s.mu.Unlock()

	if handled, ab := writeStatusFault(w, r, f, ra, auth, s.closed); handled {
		aborted = ab
		return
	}
	if jerr != nil || req.Model == "" || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "want a JSON body with model and messages")
		return
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			aborted = true
			return
		case <-s.closed:
			t.Stop()
			return
		}
	}
	s.mu.Lock()
	policy := s.policy
	s.mu.Unlock()
	content := policy(req.Messages)
	if r.Context().Err() != nil {
		aborted = true
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if writeBodyFault(w, f) {
		return
	}
	if f == EmptyContent {
		content = ""
	}
	json.NewEncoder(w).Encode(completion(req, f, content))
}

// writeStatusFault answers the faults that come before the request is read
// (rate limits, server errors, unauthorized, a hang until the client or
// the server gives up); handled reports whether f was one of them, aborted
// whether the client went away.
func writeStatusFault(w http.ResponseWriter, r *http.Request, f Fault, ra, auth string, closed <-chan struct{}) (handled, aborted bool) {
	switch f {
	case TooMany:
		writeError(w, http.StatusTooManyRequests, "rate limited")
		return true, false
	case TooManyRetryAfter, Unavailable:
		w.Header().Set("Retry-After", ra)
		status := http.StatusTooManyRequests
		if f == Unavailable {
			status = http.StatusServiceUnavailable
		}
		writeError(w, status, "try again later")
		return true, false
	case ServerError:
		writeError(w, http.StatusInternalServerError, "internal error")
		return true, false
	case Unauthorized:
		writeError(w, http.StatusUnauthorized, "invalid credentials: "+auth)
		return true, false
	case Hang:
		select {
		case <-r.Context().Done():
			return true, true
		case <-closed:
		}
		return true, false
	}
	return false, false
}

// writeBodyFault writes the broken bodies of the faults that answer 200
// (malformed or truncated JSON, HTML, null or empty content, an error
// object) and reports whether f was one of them.
func writeBodyFault(w http.ResponseWriter, f Fault) bool {
	switch f {
	case Malformed:
		io.WriteString(w, `{"id":"chatcmpl-1","choices":[{"message":{"content":"trunc`)
		return true
	case Truncated:
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","con`)
		return true
	case HTML:
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n")
		return true
	case NullContent, CutContent:
		finish := "stop"
		if f == CutContent {
			finish = "length"
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":%q}],"usage":{"prompt_tokens":1,"completion_tokens":%d,"total_tokens":1}}`, finish, 1)
		return true
	case EmptyChoices:
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`)
		return true
	case ErrorObject:
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error","param":null,"code":503}}`, ErrorObjectMessage)
		return true
	}
	return false
}

// completion is the chat completion answering req with content under
// fault f (content parts, tool calls, reasoning only, or none), with usage
// counted by CountTokens.
func completion(req llm.Request, f Fault, content string) map[string]any {
	if f == OK && len(req.Tools) > 0 && req.ToolChoice == "required" {
		f = ToolCall
	}
	message := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	switch f {
	case ContentParts:
		message["content"] = []any{map[string]any{"type": "text", "text": "Here is my answer."}, map[string]any{"type": "text", "text": content}}
	case ToolCall, ToolCallNoArgs:
		name, args := "take_action", "{}"
		if f == ToolCall {
			if len(req.Tools) > 0 {
				name = req.Tools[0].Function.Name
			}
			a, _ := json.Marshal(map[string]string{"action": ActionName(content)})
			args = string(a)
		} else {
			name = "search"
		}
		message["content"] = nil
		message["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
		finish = "tool_calls"
	case ReasoningOnly:
		message["content"] = nil
		message["reasoning_content"] = content
		finish = "length"
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += CountTokens(m.Content)
	}
	compl := CountTokens(content)
	return map[string]any{
		"id":      "chatcmpl-llmtest",
		"object":  "chat.completion",
		"created": 0,
		"model":   req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       message,
			"finish_reason": finish,
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": compl, "total_tokens": prompt + compl},
	}
}

// CountTokens is the server's stand-in for a tokenizer: the number of
// white-space separated words in s. Deterministic, so usage is the same
// on every run.
func CountTokens(s string) int { return len(strings.Fields(s)) }

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "llmtest", "code": status}})
}

// ProposedRules are the rules RuleProposer writes by default, per failure
// cause of the dungeon; none is a rule of the dungeon's rule library, so
// that each makes a new candidate.
var ProposedRules = map[string]string{
	"injury":      "Step back into an explored corridor and wait whenever HP is below 40 percent of its maximum.",
	"starvation":  "Keep one food ration in reserve and eat it the first turn the status line shows Hungry.",
	"combat_loss": "Fight in corridors, where only one monster at a time can reach you.",
	"entrapment":  "When no new tile has appeared for 20 turns, walk to the nearest staircase and take it.",
}

// DefaultProposedRule is RuleProposer's rule for a cause ProposedRules
// does not hold.
const DefaultProposedRule = "Before every action, read the status line and act on what it shows."

// proposerCause is the line that ends the rule proposer's request and
// names the cause (mutate.RuleProposerRequest).
const proposerCause = "Write one new rule for the failure cause "

// proposerSystem starts the rule proposer's system message
// (mutate.RuleProposerSystem). The package does not import mutate, so
// that mutate's own tests can use it.
const proposerSystem = "You are the rule proposer of evolve."

// RuleProposer returns a Policy that answers the requests of evolve's
// rule proposer (mutate.ProposeLLMRule: those of two or more messages
// whose first is a system message starting "You are the rule proposer
// of evolve." and whose last holds "Write one new rule for the failure
// cause CAUSE.") with rule(CAUSE), and every other request with next. A
// nil rule answers ProposedRules[cause], else DefaultProposedRule.
func RuleProposer(next Policy, rule func(cause string) string) Policy {
	if rule == nil {
		rule = func(cause string) string {
			if r, ok := ProposedRules[cause]; ok {
				return r
			}
			return DefaultProposedRule
		}
	}
	return func(messages []llm.Message) string {
		if len(messages) < 2 || messages[0].Role != llm.RoleSystem || !strings.HasPrefix(messages[0].Content, proposerSystem) {
			return next(messages)
		}
		last := messages[len(messages)-1].Content
		i := strings.LastIndex(last, proposerCause)
		if i < 0 {
			return next(messages)
		}
		return rule(strings.TrimSuffix(strings.TrimSpace(last[i+len(proposerCause):]), "."))
	}
}
