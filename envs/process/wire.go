package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"evolve/envs"
	"evolve/params"
)

// Protocol is the version of the process protocol this package speaks.
const Protocol = 1

// MaxLineBytes is the longest message line, in bytes without the newline
// (16 MiB), in either direction.
const MaxLineBytes = 16 << 20

// The modes a process declares in its hello response.
const (
	ModeStep    = "step"    // reset/step on the environment, begin/act on the agent
	ModeEpisode = "episode" // play on one process that is environment and agent
)

// The roles a process declares in provides.
const (
	RoleEnvironment = "environment"
	RoleAgent       = "agent"
)

// Sentinel errors, wrapped by *Error (errors.Is finds them).
var (
	// ErrExited: the process exited, or closed its stdout, before
	// answering (a crash, or a memory limit it exceeded).
	ErrExited = errors.New("process exited")
	// ErrTimeout: no answer within message_timeout, startup_timeout or
	// the rest of episode_timeout.
	ErrTimeout = errors.New("process timed out")
	// ErrProtocol: the process wrote a line that is not the expected
	// message (malformed JSON, non-protocol text, a wrong id, type or
	// field, an undeclared cause or metric).
	ErrProtocol = errors.New("protocol violation")
	// ErrReported: the process answered with an error message. The
	// process is kept; the episode is an error episode.
	ErrReported = errors.New("process reported an error")
)

// hello is the handshake response. Its fields decode straight into the
// types of package envs and params.
type hello struct {
	ID         *int64              `json:"id"`
	Type       string              `json:"type"`
	Protocol   int                 `json:"protocol"`
	Name       string              `json:"name"`
	Provides   []string            `json:"provides"`
	Mode       string              `json:"mode"`
	Parameters params.Schema       `json:"parameters"`
	Causes     []envs.Cause        `json:"causes"`
	Metrics    []envs.Metric       `json:"metrics"`
	Remedies   map[string][]string `json:"remedies,omitempty"`
	Fill       []string            `json:"fill,omitempty"`
	// Actions is the action vocabulary of a step-mode environment (each
	// action a JSON string in a step request), for an agent that names
	// its action in text (agent kind llm); nil if not declared.
	Actions []string `json:"actions,omitempty"`
	// Direct says that a step-mode environment can play an episode
	// over the direct channel (a run request; docs/protocol.md, section
	// 2.7).
	Direct bool `json:"direct,omitempty"`

	raw []byte // the response line, for Check
}

// reply is any response but hello: the union of their fields.
type reply struct {
	ID          *int64          `json:"id"`
	Type        string          `json:"type"`
	Message     *string         `json:"message"`
	Observation json.RawMessage `json:"observation"`
	Reward      *float64        `json:"reward"`
	Done        *bool           `json:"done"`
	Info        json.RawMessage `json:"info"`
	Outcome     json.RawMessage `json:"outcome"`
	Action      json.RawMessage `json:"action"`
	Acts        json.RawMessage `json:"acts"`
}

// wireOutcome is an outcome as the protocol writes it.
type wireOutcome struct {
	Score      *float64                   `json:"score"`
	EndReason  *string                    `json:"end_reason"`
	Cause      *string                    `json:"cause"`
	Metrics    map[string]json.RawMessage `json:"metrics"`
	Trajectory json.RawMessage            `json:"trajectory"`
}

// wirePrompt is the prompt of a play request.
type wirePrompt struct {
	Slug    string `json:"slug"`
	Version string `json:"version"`
	Text    string `json:"text"`
	SHA256  string `json:"sha256"`
}

// Requests are written by appending to a reused buffer: no reflection on
// the hot path (step and act).

func appendHead(b []byte, id int64, typ string) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	return append(b, '"')
}

// appendSeeded appends a reset, begin or play request without its closing
// brace.
func appendSeeded(b []byte, id int64, typ string, seed uint64, p params.Set) ([]byte, error) {
	b = appendHead(b, id, typ)
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, seed, 10)
	b = append(b, `,"params":`...)
	if p == nil {
		return append(b, `{}`...), nil
	}
	pj, err := p.MarshalJSON()
	if err != nil {
		return b, err
	}
	return append(b, pj...), nil
}

// appendRaw appends `,"key":raw}` and the newline; a nil raw is null.
func appendRaw(b []byte, key string, raw json.RawMessage) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	if len(raw) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, raw...)
	}
	return append(b, "}\n"...)
}

func appendPrompt(b []byte, pr *envs.Prompt) []byte {
	if pr == nil {
		return append(b, `,"prompt":null}`+"\n"...)
	}
	pj, _ := json.Marshal(wirePrompt{Slug: pr.Slug, Version: pr.Version, Text: pr.Text, SHA256: pr.SHA256})
	b = append(b, `,"prompt":`...)
	b = append(b, pj...)
	return append(b, "}\n"...)
}

// decodeReply decodes line into r (reset first) and checks its id and, if
// it is not an error, its type. An error reply returns ErrReported with
// the process's message.
func decodeReply(line []byte, id int64, want string, r *reply) error {
	*r = reply{}
	if !fastReply(line, r) {
		*r = reply{}
		if err := json.Unmarshal(line, r); err != nil {
			return undecodable(line, "a JSON object", err)
		}
	}
	if r.ID == nil {
		return protocolf("the %s response has no id: %s", want, quoteLine(line))
	}
	if *r.ID != id {
		return protocolf("response id %d, want %d (responses answer requests in order): %s", *r.ID, id, quoteLine(line))
	}
	if r.Type == "error" {
		msg := "(no message)"
		if r.Message != nil {
			msg = *r.Message
		}
		return fmt.Errorf("%w: %s", ErrReported, msg)
	}
	if r.Type != want {
		return protocolf("response type %q, want %q or \"error\": %s", r.Type, want, quoteLine(line))
	}
	return nil
}

// undecodable explains why line, a response that did not decode into
// the wanted message (what), is not one: a NaN or an Infinity, which are
// not JSON; a line that is not a JSON object (often a log line on
// stdout); or a JSON object with a key of the wrong type.
func undecodable(line []byte, what string, err error) error {
	if tok, key := nonJSONNumber(line); tok != "" {
		where := tok
		if key != "" {
			where = strconv.Quote(key) + ": " + tok
		}
		return protocolf("%s: NaN, Infinity and -Infinity are not JSON (Python: json.dumps(obj, allow_nan=False) finds them; use null for a missing metric): %s", where, quoteLine(line))
	}
	if !isObject(line) || !json.Valid(line) {
		return protocolf("want %s, got %s (%v); write logs to stderr, not stdout", what, quoteLine(line), err)
	}
	return protocolf("%v: %s", err, quoteLine(line))
}

// nonJSONNumber returns the first NaN, Infinity or -Infinity outside a
// string in line (what Python's json.dumps writes for float("nan") and
// float("inf")) and the key it is the value of ("" in an array); tok is
// "" if line holds none.
func nonJSONNumber(line []byte) (tok, key string) {
	inStr, esc := false, false
	start := 0         // where the last string began
	var last, k []byte // the last string; the last key
	var nest []byte    // the open '{' and '['
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr, last = false, line[start:i+1]
			}
			continue
		}
		switch c {
		case '"':
			inStr, start = true, i
		case ':':
			k = last
		case '{', '[':
			nest = append(nest, c)
		case '}', ']':
			if len(nest) > 0 {
				nest = nest[:len(nest)-1]
			}
		case 'N', 'I':
			for _, t := range []string{"NaN", "Infinity"} {
				if !bytes.HasPrefix(line[i:], []byte(t)) {
					continue
				}
				if t == "Infinity" && i > 0 && line[i-1] == '-' {
					t = "-Infinity"
				}
				var name string
				if len(nest) == 0 || nest[len(nest)-1] != '{' || json.Unmarshal(k, &name) != nil {
					name = ""
				}
				return t, name
			}
		}
	}
	return "", ""
}

// protocolf returns an error wrapping ErrProtocol.
func protocolf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// quoteLine quotes at most the first 200 bytes of line.
func quoteLine(line []byte) string {
	const max = 200
	if len(line) > max {
		return strconv.Quote(string(line[:max])) + fmt.Sprintf("... (%d bytes)", len(line))
	}
	return strconv.Quote(string(line))
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// checkHello validates a hello response to request id 0 and returns it.
func checkHello(line []byte) (*hello, error) {
	var r reply
	if json.Unmarshal(line, &r) == nil && r.Type == "error" && r.Message != nil {
		return nil, fmt.Errorf("%w: %s", ErrReported, *r.Message)
	}
	var h hello
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, undecodable(line, "the hello response", err)
	}
	h.raw = bytes.Clone(line)
	switch {
	case h.ID == nil:
		return nil, protocolf(`the hello response has no id (want "id":0, the hello request's id): %s`, quoteLine(line))
	case *h.ID != 0:
		return nil, protocolf(`the hello response has id %d, want 0 (the hello request's id): %s`, *h.ID, quoteLine(line))
	case h.Type != "hello":
		return nil, protocolf("response type %q, want \"hello\": %s", h.Type, quoteLine(line))
	case h.Protocol != Protocol:
		return nil, protocolf("the process speaks protocol %d; this evolve speaks protocol %d", h.Protocol, Protocol)
	case h.Name == "" || len(h.Name) > 100 || strings.ContainsFunc(h.Name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return nil, protocolf("name %q: want 1 to 100 bytes of printable text", h.Name)
	case h.Mode != ModeStep && h.Mode != ModeEpisode:
		return nil, protocolf("mode %q: want %q or %q", h.Mode, ModeStep, ModeEpisode)
	case len(h.Provides) == 0:
		return nil, protocolf("provides is empty: want [\"environment\"], [\"agent\"] or both")
	}
	for _, p := range h.Provides {
		if p != RoleEnvironment && p != RoleAgent {
			return nil, protocolf("provides: %q is not a role (want environment or agent)", p)
		}
	}
	if h.Mode == ModeEpisode && !(slices.Contains(h.Provides, RoleEnvironment) && slices.Contains(h.Provides, RoleAgent)) {
		return nil, protocolf("mode episode needs a process that provides both environment and agent, got provides %q", h.Provides)
	}
	if err := checkActions(&h); err != nil {
		return nil, err
	}
	if h.Direct && (h.Mode != ModeStep || !slices.Equal(h.Provides, []string{RoleEnvironment})) {
		return nil, protocolf("direct: only the environment process of step mode declares direct (this one provides %q in mode %s)", h.Provides, h.Mode)
	}
	return &h, nil
}

// decodeOutcome turns an outcome object into an envs.Outcome for seed,
// checking it against info: a finite score, a non-empty end reason, a
// declared cause or "none", declared metrics of their declared types.
func decodeOutcome(raw json.RawMessage, seed uint64, info *envs.Info) (envs.Outcome, error) {
	if !isObject(raw) {
		return envs.Outcome{}, protocolf("outcome: want a JSON object, got %s", quoteLine(raw))
	}
	var w wireOutcome
	if err := json.Unmarshal(raw, &w); err != nil {
		return envs.Outcome{}, protocolf("outcome: %v: %s", err, quoteLine(raw))
	}
	switch {
	case w.Score == nil:
		return envs.Outcome{}, protocolf("outcome: score is missing")
	case math.IsNaN(*w.Score) || math.IsInf(*w.Score, 0):
		return envs.Outcome{}, protocolf("outcome: score %v is not finite", *w.Score)
	case w.EndReason == nil || *w.EndReason == "":
		return envs.Outcome{}, protocolf("outcome: end_reason is missing or empty")
	case *w.EndReason == envs.EndError:
		return envs.Outcome{}, protocolf("outcome: end_reason %q is reserved; answer with an error message instead", envs.EndError)
	case w.Cause == nil:
		return envs.Outcome{}, protocolf("outcome: cause is missing (want one of %v or %q)", info.CauseNames(), envs.CauseNone)
	}
	if *w.Cause != envs.CauseNone && !slices.Contains(info.CauseNames(), *w.Cause) {
		return envs.Outcome{}, protocolf("outcome: cause %q is not declared (want one of %v or %q)", *w.Cause, info.CauseNames(), envs.CauseNone)
	}
	out := envs.Outcome{Seed: seed, Score: *w.Score, EndReason: *w.EndReason, Cause: *w.Cause}
	if len(info.Metrics) > 0 {
		out.Metrics = make([]envs.MetricValue, len(info.Metrics))
	}
	var undeclared []string
	for name := range w.Metrics {
		if !slices.ContainsFunc(info.Metrics, func(m envs.Metric) bool { return m.Name == name }) {
			undeclared = append(undeclared, name)
		}
	}
	if len(undeclared) > 0 {
		sort.Strings(undeclared)
		return envs.Outcome{}, protocolf("outcome: metrics %q are not declared (declared: %v)", undeclared, metricNames(info))
	}
	for i, m := range info.Metrics {
		raw, ok := w.Metrics[m.Name]
		v, err := metricValue(m.Type, raw, ok)
		if err != nil {
			return envs.Outcome{}, protocolf("outcome: metrics.%s: %v", m.Name, err)
		}
		out.Metrics[i] = v
	}
	if len(w.Trajectory) > 0 && string(w.Trajectory) != "null" {
		out.Trajectory = w.Trajectory
	}
	return out, nil
}

func metricNames(info *envs.Info) []string {
	out := make([]string, len(info.Metrics))
	for i, m := range info.Metrics {
		out[i] = m.Name
	}
	return out
}

// metricValue decodes one metric of type t; a missing or null value is
// Null.
func metricValue(t envs.MetricType, raw json.RawMessage, present bool) (envs.MetricValue, error) {
	s := strings.TrimSpace(string(raw))
	if !present || s == "null" {
		return envs.MetricValue{Null: true}, nil
	}
	switch t {
	case envs.Int, envs.Float:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || s[0] == '"' || math.IsInf(x, 0) {
			return envs.MetricValue{}, fmt.Errorf("%s is not a finite %s", s, t)
		}
		if t == envs.Int && (x != math.Trunc(x) || math.Abs(x) > 1<<53) {
			return envs.MetricValue{}, fmt.Errorf("%s is not a whole number in [-2^53, 2^53] (the metric is an int)", s)
		}
		return envs.MetricValue{Num: x}, nil
	case envs.Bool:
		switch s {
		case "true":
			return envs.MetricValue{Num: 1}, nil
		case "false":
			return envs.MetricValue{Num: 0}, nil
		}
		return envs.MetricValue{}, fmt.Errorf("%s is not true or false (the metric is a bool)", s)
	case envs.String:
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return envs.MetricValue{}, fmt.Errorf("%s is not a string (the metric is a string)", s)
		}
		return envs.MetricValue{Str: str}, nil
	}
	return envs.MetricValue{}, fmt.Errorf("unknown metric type %q", t)
}

// MaxActions is the most actions a hello may declare.
const MaxActions = 256

// checkActions checks a hello's actions: only the environment of step
// mode declares them; 1 to MaxActions names of 1 to 100 bytes of
// printable text without surrounding space, distinct in any case (a
// model's reply is matched to them case-insensitively).
func checkActions(h *hello) error {
	if h.Actions == nil {
		return nil
	}
	if h.Mode != ModeStep || !slices.Equal(h.Provides, []string{RoleEnvironment}) {
		return protocolf("actions: only the environment process of step mode declares actions (this one provides %q in mode %s)", h.Provides, h.Mode)
	}
	if len(h.Actions) == 0 || len(h.Actions) > MaxActions {
		return protocolf("actions: %d actions, want 1 to %d", len(h.Actions), MaxActions)
	}
	seen := map[string]int{}
	for i, a := range h.Actions {
		if a == "" || len(a) > 100 || strings.TrimSpace(a) != a || strings.ContainsFunc(a, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return protocolf("actions[%d]: %q: want 1 to 100 bytes of printable text without surrounding space", i, a)
		}
		if j, dup := seen[strings.ToLower(a)]; dup {
			return protocolf("actions[%d]: %q repeats actions[%d] %q (actions must differ in more than case)", i, a, j, h.Actions[j])
		}
		seen[strings.ToLower(a)] = i
	}
	return nil
}
