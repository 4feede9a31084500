package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"evolve/llm"
	"evolve/llm/llmtest"
)

// TestServerFaultIn200: a 200 with an error object is the server's
// fault: retried (with backoff, not counted as unusable), counted in
// Stats.ServerErrors, its message logged; the call then gets the reply.
// When it keeps coming the call fails with ErrRetriesExhausted naming
// the message, never as an unusable reply.
func TestServerFaultIn200(t *testing.T) {
	var logs syncBuffer
	st := newSetup(t, nil)
	st.cl.SetLogger(slog.New(slog.NewJSONHandler(&logs, nil)))
	st.srv.FailFirst(2, llmtest.ErrorObject)
	r, err := st.cl.Complete(context.Background(), msgs)
	if err != nil || r.Content != "ACTION: eat" || r.Requests != 3 {
		t.Fatalf("Complete = %+v, %v; want the reply after 3 requests", r, err)
	}
	s := st.cl.Stats()
	if s.ServerErrors != 2 || s.Unusable != 0 || s.Retries != 2 {
		t.Errorf("Stats = %+v, want 2 server errors, 0 unusable, 2 retries", s)
	}
	if n := len(st.clock.waits()); n != 2 {
		t.Errorf("%d backoff waits, want 2", n)
	}
	lines := logs.lines()
	if len(lines) != 1 || lines[0]["kind"] != llm.KindServerError || !strings.Contains(lines[0]["error"].(string), llmtest.ErrorObjectMessage) {
		t.Errorf("log %v, want one line of kind server_error with the message", lines)
	}

	st = newSetup(t, nil) // max_retries 5
	st.srv.Down(llmtest.ErrorObject)
	_, err = st.cl.Complete(context.Background(), msgs)
	if !errors.Is(err, llm.ErrRetriesExhausted) || !errors.Is(err, llm.ErrServerFault) || llm.UnusableKind(err) != "" ||
		!strings.Contains(err.Error(), llmtest.ErrorObjectMessage) {
		t.Fatalf("err = %v, want ErrRetriesExhausted wrapping the server fault's message", err)
	}
	if s := st.cl.Stats(); s.ServerErrors != 6 || s.Unusable != 0 {
		t.Errorf("Stats = %+v, want 6 server errors, 0 unusable", s)
	}
}

// TestBodyLogged: the body of a reply the client cannot use is logged,
// its first 2 KB, once per kind until ResetLogged (a run's next phase).
func TestBodyLogged(t *testing.T) {
	var logs syncBuffer
	st := newSetup(t, nil)
	st.cl.SetLogger(slog.New(slog.NewJSONHandler(&logs, nil)))
	st.srv.FailFirst(3, llmtest.HTML)
	st.srv.FailNth(4, llmtest.ReasoningOnly)
	st.srv.FailNth(5, llmtest.Malformed)
	for i := 0; i < 2; i++ {
		st.cl.Complete(context.Background(), msgs)
	}
	lines := logs.lines()
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2 (one per kind): %v", len(lines), lines)
	}
	if lines[0]["kind"] != llm.KindMalformed || !strings.Contains(lines[0]["body"].(string), "<title>502 Bad Gateway</title>") {
		t.Errorf("first line %v, want the HTML body of kind malformed", lines[0])
	}
	if lines[1]["kind"] != llm.KindCut || !strings.Contains(lines[1]["body"].(string), `"reasoning_content":"ACTION: eat"`) ||
		!strings.Contains(lines[1]["error"].(string), "reasoning_content with empty content") {
		t.Errorf("second line %v, want the cut body naming reasoning_content", lines[1])
	}
	st.cl.ResetLogged()
	st.srv.FailNth(7, llmtest.Malformed)
	st.cl.Complete(context.Background(), msgs)
	if lines := logs.lines(); len(lines) != 3 || lines[2]["kind"] != llm.KindMalformed {
		t.Errorf("after ResetLogged: %v, want a third line of kind malformed", lines)
	}
	// A long body is cut to its first 2 KB.
	st = newSetup(t, nil)
	logs = syncBuffer{}
	st.cl.SetLogger(slog.New(slog.NewJSONHandler(&logs, nil)))
	st.srv.SetPolicy(func([]llm.Message) string { return strings.Repeat("x", 5000) })
	st.srv.FailFirst(1, llmtest.ReasoningOnly)
	st.cl.Complete(context.Background(), msgs)
	if lines := logs.lines(); len(lines) != 1 || len(lines[0]["body"].(string)) != llm.LogBodyBytes || lines[0]["bytes"].(float64) < 5000 {
		t.Errorf("log %v, want a body of %d bytes out of more than 5000", lines, llm.LogBodyBytes)
	}
}

// TestStructuredReplies: content as text parts and a tool call with
// empty content are replies; tool calls without arguments and reasoning
// without content are unusable replies that say what they held.
func TestStructuredReplies(t *testing.T) {
	for _, tc := range []struct {
		fault   llmtest.Fault
		content string
		seen    string
	}{
		{llmtest.ContentParts, "Here is my answer.\nACTION: eat", ""},
		{llmtest.ToolCall, `{"action":"eat"}`, ""},
		{llmtest.ToolCallNoArgs, "", `tool_calls but no tools were offered ("search" without arguments)`},
		{llmtest.ReasoningOnly, "", "reasoning_content with empty content"},
	} {
		st := newSetup(t, func(c *llm.Config, _ *llm.Options) { c.ReplyRetries = 0 })
		st.srv.FailFirst(1, tc.fault)
		r, err := st.cl.Complete(context.Background(), msgs)
		if tc.seen == "" && (err != nil || r.Content != tc.content) {
			t.Errorf("%s: %+v, %v; want content %q", tc.fault, r, err, tc.content)
		}
		if tc.seen != "" && (llm.UnusableKind(err) == "" || llm.UnusableSeen(err) != tc.seen) {
			t.Errorf("%s: %v; want an unusable reply that names %q", tc.fault, err, tc.seen)
		}
	}
}

// actionTool is a tool of one enum argument, as the agent offers.
var actionTool = []llm.Tool{{Type: "function", Function: llm.ToolFunction{Name: "take_action", Description: "Take one action.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","enum":["eat","flee"]}},"required":["action"]}`)}}}

// TestCompleteTools: the tools and tool_choice "required" are sent, the
// tool call's arguments are the reply, the request's hash covers the
// tools (a request without them keeps its hash), and the cache replays
// the reply.
func TestCompleteTools(t *testing.T) {
	st := newSetup(t, withCache(t, llm.ModeReadWrite))
	r, err := st.cl.CompleteTools(context.Background(), msgs, actionTool)
	if err != nil || r.Content != `{"action":"eat"}` || r.FinishReason != "tool_calls" {
		t.Fatalf("CompleteTools = %+v, %v", r, err)
	}
	sent := st.srv.LastRequest()
	if len(sent.Tools) != 1 || sent.Tools[0].Function.Name != "take_action" || sent.ToolChoice != "required" ||
		!strings.Contains(string(sent.Tools[0].Function.Parameters), `"enum":["eat","flee"]`) {
		t.Errorf("sent %+v, want the tool and tool_choice required", sent)
	}
	plain, tools := st.cl.Request(msgs), st.cl.ToolRequest(msgs, actionTool)
	if plain.Hash() == tools.Hash() || st.cl.ToolRequest(msgs, nil).Hash() != plain.Hash() {
		t.Error("the hash does not tell a request with tools from one without")
	}
	again, err := st.cl.CompleteTools(context.Background(), msgs, actionTool)
	if err != nil || !again.Cached || again.Content != r.Content || st.srv.Requests() != 1 {
		t.Errorf("replay = %+v, %v after %d requests; want the cached reply", again, err, st.srv.Requests())
	}
	bad := []llm.Tool{{Type: "function", Function: llm.ToolFunction{Name: "x", Parameters: json.RawMessage(`{`)}}}
	if _, err := st.cl.CompleteTools(context.Background(), msgs, bad); err == nil || !strings.Contains(err.Error(), `tool "x"`) {
		t.Errorf("bad parameters: %v", err)
	}
}

// syncBuffer is a bytes.Buffer for a logger used from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines decodes the JSON log lines.
func (s *syncBuffer) lines() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}
