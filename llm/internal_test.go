package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/internal/strictyaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (run with -update if intended):\ngot:\n%s\nwant:\n%s", p, got, want)
	}
}

func seed(v int64) *int64 { return &v }

var goldenReq = Request{
	Model: "Qwen/Qwen2.5-7B-Instruct",
	Messages: []Message{
		{Role: RoleSystem, Content: "<guardrails>\nNever quit.\n</guardrails>\n<rules>\nEat when \"Hungry\" & safe.\n</rules>"},
		{Role: RoleUser, Content: "<map>\n..@..\n</map>\nHP:12(12) — Hungry ✓"},
	},
	Temperature: 0.7,
	Seed:        seed(42),
	MaxTokens:   64,
}

// TestEntryGolden pins the cache entry format (see the package doc) and
// the wire request body.
func TestEntryGolden(t *testing.T) {
	e, err := encodeEntry(goldenReq, Reply{Content: "ACTION: eat", FinishReason: "stop", PromptTokens: 31, CompletionTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "entry.json", e)
	r, err := decodeEntry(e, goldenReq)
	if err != nil || r.Content != "ACTION: eat" || r.PromptTokens != 31 || r.CompletionTokens != 3 || r.FinishReason != "stop" {
		t.Fatalf("decode: %+v, %v", r, err)
	}
	body, err := marshal(goldenReq)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "request.json", append(body, '\n'))
}

// TestRequestHash: the hash is the SHA-256 of the documented encoding
// (the reference value computed by sha256sum of testdata/request.key),
// and every field changes it.
func TestRequestHash(t *testing.T) {
	golden(t, "request.key", goldenReq.encode())
	sum := sha256.Sum256(goldenReq.encode())
	if goldenReq.Hash() != hex.EncodeToString(sum[:]) {
		t.Fatal("Hash is not the SHA-256 of encode")
	}
	// From `sha256sum testdata/request.key` (GNU coreutils). A change of
	// this value orphans every cache entry: change requestTag with it.
	const want = "7e12d8f6e96772b0dce4489adc1292c6b7bbd90b699109616e975cb4cc5bfb34"
	if got := goldenReq.Hash(); got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	base := Request{Model: "m", Messages: []Message{{Role: "user", Content: "ab"}}}
	variants := []Request{
		base,
		{Model: "m2", Messages: base.Messages},
		{Model: "m", Messages: base.Messages, Temperature: 0.1},
		{Model: "m", Messages: base.Messages, Seed: seed(0)},
		{Model: "m", Messages: base.Messages, Seed: seed(1)},
		{Model: "m", Messages: base.Messages, MaxTokens: 1},
		{Model: "m", Messages: []Message{{Role: "system", Content: "ab"}}},
		{Model: "m", Messages: []Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}},
		{Model: "m", Messages: []Message{{Role: "user", Content: "ab"}, {Role: "user", Content: ""}}},
		{Model: "m", Messages: nil},
	}
	seen := map[string]int{}
	for i, v := range variants {
		h := v.Hash()
		if j, dup := seen[h]; dup {
			t.Errorf("variants %d and %d share hash %s", j, i, h)
		}
		seen[h] = i
	}
	neg := base
	neg.Temperature = -0.0
	if neg.Hash() != base.Hash() {
		t.Error("-0 and 0 hash differently")
	}
}

// TestParseReply covers the reply shapes of the servers the docs name.
func TestParseReply(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Reply
		err        error
	}{
		{"openai", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`,
			Reply{Content: "hi", FinishReason: "stop", PromptTokens: 9, CompletionTokens: 1}, nil},
		{"no-usage", `{"choices":[{"message":{"content":"hi"}}]}`, Reply{Content: "hi"}, nil},
		{"length", `{"choices":[{"message":{"content":"h"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
			Reply{Content: "h", FinishReason: "length", PromptTokens: 1, CompletionTokens: 1}, nil},
		{"not-json", `<html>502</html>`, Reply{}, ErrMalformedReply},
		{"truncated", `{"choices":[{"message":{"content":"hi`, Reply{}, ErrMalformedReply},
		{"choices-not-list", `{"choices":{}}`, Reply{}, ErrMalformedReply},
		{"negative-usage", `{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":-1}}`, Reply{}, ErrMalformedReply},
		{"no-choices", `{"choices":[]}`, Reply{}, ErrNoChoices},
		{"error-200", `{"error":{"message":"model overloaded"}}`, Reply{}, ErrServerFault},
		{"null-content", `{"choices":[{"message":{"content":null}}]}`, Reply{}, ErrEmptyContent},
		{"empty-content", `{"choices":[{"message":{"content":""}}]}`, Reply{}, ErrEmptyContent},
		{"no-message", `{"choices":[{"finish_reason":"stop"}]}`, Reply{}, ErrEmptyContent},
		// Structured replies: content parts, a tool call with empty
		// content (arguments a JSON string, or an object as Ollama
		// sends), and what is seen instead of content.
		{"content-parts", `{"choices":[{"message":{"content":[{"type":"text","text":"I am hungry."},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"ACTION: eat"}]},"finish_reason":"stop"}]}`,
			Reply{Content: "I am hungry.\nACTION: eat", FinishReason: "stop"}, nil},
		{"content-number", `{"choices":[{"message":{"content":3}}]}`, Reply{}, ErrMalformedReply},
		{"tool-call", `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"take_action","arguments":"{\"action\": \"attack\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}`,
			Reply{Content: `{"action": "attack"}`, FinishReason: "tool_calls", PromptTokens: 5, CompletionTokens: 7}, nil},
		{"tool-call-empty-content", `{"choices":[{"message":{"content":"","tool_calls":[{"function":{"name":"take_action","arguments":{"action":"flee"}}}]}}]}`,
			Reply{Content: `{"action":"flee"}`}, nil},
		{"tool-call-no-args", `{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"search","arguments":"{}"}}]}}]}`, Reply{}, ErrEmptyContent},
		{"reasoning-only", `{"choices":[{"message":{"content":null,"reasoning_content":"The goblin is weak, so"},"finish_reason":"length"}]}`, Reply{}, ErrCutReply},
		{"error-string", `{"error":"upstream timed out"}`, Reply{}, ErrServerFault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseReply([]byte(tc.body), false)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || r != tc.want {
				t.Fatalf("parseReply = %+v, %v; want %+v, %v", r, err, tc.want, tc.err)
			}
		})
	}
	// Errors name what was seen instead of content.
	for _, tc := range []struct {
		body  string
		tools bool
		seen  string
	}{
		{`{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"search","arguments":"{}"}}]}}]}`, false, `tool_calls but no tools were offered ("search" without arguments)`},
		{`{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"take_action","arguments":""}}]}}]}`, true, `tool_calls of "take_action" without arguments`},
		{`{"choices":[{"message":{"content":"","reasoning_content":"Let me think"}}]}`, false, "reasoning_content with empty content"},
		{`{"choices":[{"message":{"content":"","reasoning":"Let me think"}}]}`, false, "reasoning with empty content"},
		{`{"choices":[{"message":{"content":null,"refusal":"I can't help with that."}}]}`, false, `a refusal: "I can't help with that."`},
	} {
		_, err := parseReply([]byte(tc.body), tc.tools)
		if got := UnusableSeen(err); got != tc.seen || !strings.Contains(err.Error(), tc.seen) || UnusableKind(err) == "" {
			t.Errorf("parseReply(%s): %v, seen %q; want an unusable reply that names %q", tc.body, err, got, tc.seen)
		}
	}
	// A 200 with an error object: the server's fault, with its message
	// and code; a 4xx code that is not retried is final.
	for _, tc := range []struct {
		body, text string
		final      bool
	}{
		{`{"error":{"message":"model overloaded","type":"server_error","code":503}}`, `server error in a 200 reply: "model overloaded" (code 503)`, false},
		{`{"error":{"message":"context length exceeded","code":"400"}}`, `"context length exceeded" (code 400)`, true},
		{`{"error":{"message":"slow down","code":429}}`, `"slow down" (code 429)`, false},
		{`{"error":{"type":"upstream_error"},"choices":[]}`, `"upstream_error"`, false},
	} {
		_, err := parseReply([]byte(tc.body), false)
		var fe *faultError
		if !errors.As(err, &fe) || !errors.Is(err, ErrServerFault) || UnusableKind(err) != "" || !strings.Contains(err.Error(), tc.text) || fe.final != tc.final {
			t.Errorf("parseReply(%s) = %v; want a server fault %q, final %v", tc.body, err, tc.text, tc.final)
		}
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"1", time.Second}, {" 5 ", 5 * time.Second}, {"-3", 0},
		{"1.5", 0}, {"soon", 0}, {"99999999999999999999", 0}, {"600", 10 * time.Minute}, {"601", MaxRetryAfter},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"Mon, 23 Nov 2026 12:00:07 GMT", 7 * time.Second},  // RFC 1123, the preferred form
		{"Monday, 23-Nov-26 12:00:07 GMT", 7 * time.Second}, // RFC 850
		{"Mon Nov 23 12:00:07 2026", 7 * time.Second},       // asctime
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},  // past
		{now.Add(time.Hour).Format(http.TimeFormat), MaxRetryAfter},
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	c := &Client{rng: rand.New(rand.NewPCG(3, 4))}
	for k := range 64 {
		ceil := min(BackoffCap, BackoffBase<<min(k, 30))
		if k >= 30 {
			ceil = BackoffCap
		}
		var maxSeen time.Duration
		for range 200 {
			d := c.backoff(k)
			if d < 0 || d > ceil {
				t.Fatalf("backoff(%d) = %v outside [0, %v]", k, d, ceil)
			}
			maxSeen = max(maxSeen, d)
		}
		// 200 uniform draws: the largest is below 0.9·ceil with
		// probability 0.9^200 ≈ 7e-10.
		if maxSeen < ceil*9/10 {
			t.Errorf("backoff(%d): largest of 200 draws %v, want near %v", k, maxSeen, ceil)
		}
	}
}

// TestConfig: defaults, YAML decoding through strictyaml (unknown keys,
// durations, the optional seed) and every validation error by field.
func TestConfig(t *testing.T) {
	cfg := DefaultConfig()
	err := strictyaml.Decode("llm.yaml", []byte("base_url: http://127.0.0.1:8000\nmodel: m\nseed: 3\ntimeout: 90s\napi_key_env: OPENAI_API_KEY\n"), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed == nil || *cfg.Seed != 3 || time.Duration(cfg.Timeout) != 90*time.Second || cfg.MaxRetries != 1000 || time.Duration(cfg.RetryFor) != 10*time.Minute || cfg.ReplyRetries != 2 || cfg.Concurrency != 64 || cfg.MaxTokens != 256 {
		t.Fatalf("decoded %+v", cfg)
	}
	if cfg.endpoint() != "http://127.0.0.1:8000/v1/chat/completions" {
		t.Fatalf("endpoint %s", cfg.endpoint())
	}
	for _, tc := range []struct{ yaml, want string }{
		{"base_url: http://h\nmodel: m\nmodle: x\n", `llm.yaml:3: unknown key "modle"`},
		{"base_url: http://h\nmodel: m\ntimeout: soon\n", `want a duration such as 60s or 500ms, got "soon"`},
		{"base_url: http://h\nmodel: m\nconcurrency: 0\n", `llm.yaml:3: concurrency: want an integer in [1, 4096], got 0`},
		{"base_url: http://h/v1\nmodel: m\n", `llm.yaml:1: base_url: drop the trailing /v1`},
		{"model: m\n", `base_url: missing`},
	} {
		c := DefaultConfig()
		err := strictyaml.Decode("llm.yaml", []byte(tc.yaml), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	good := DefaultConfig()
	good.BaseURL, good.Model = "https://api.openai.com", "gpt-4o-mini"
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit  func(*Config)
		field string
	}{
		{func(c *Config) { c.BaseURL = "" }, "base_url"},
		{func(c *Config) { c.BaseURL = "localhost:8000" }, "base_url"},
		{func(c *Config) { c.BaseURL = "ftp://h" }, "base_url"},
		{func(c *Config) { c.BaseURL = "http://user:pw@h" }, "base_url"},
		{func(c *Config) { c.BaseURL = "http://h?x=1" }, "base_url"},
		{func(c *Config) { c.BaseURL = "http://h/v1/" }, "base_url"},
		{func(c *Config) { c.Model = " " }, "model"},
		{func(c *Config) { c.APIKeyEnv = "sk-SECRETKEY" }, "api_key_env"},
		{func(c *Config) { c.APIKeyEnv = "gsk_SECRETabcdefghijklmnopqrstuv0123456789" }, "api_key_env"},
		{func(c *Config) { c.APIKeyEnv = "a1b2c3d4e5f6SECRETa7b8c9d0e1f2" }, "api_key_env"},
		{func(c *Config) { c.Temperature = -0.1 }, "temperature"},
		{func(c *Config) { c.Temperature = 2.5 }, "temperature"},
		{func(c *Config) { c.MaxTokens = -1 }, "max_tokens"},
		{func(c *Config) { c.Timeout = 0 }, "timeout"},
		{func(c *Config) { c.MaxRetries = -1 }, "max_retries"},
		{func(c *Config) { c.MaxRetries = 100001 }, "max_retries"},
		{func(c *Config) { c.RetryFor = -1 }, "retry_for"},
		{func(c *Config) { c.ReplyRetries = 11 }, "reply_retries"},
		{func(c *Config) { c.Concurrency = 5000 }, "concurrency"},
	} {
		c := good
		tc.edit(&c)
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.field+": ") {
			t.Errorf("%+v: err = %v, want a %s error", c, err, tc.field)
		}
		if err != nil && (strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "pw")) {
			t.Errorf("error quotes a credential: %v", err)
		}
	}
	for _, name := range []string{"OPENAI_API_KEY", "GROQ_API_KEY", "HF_TOKEN", "MY_VERY_LONG_PROVIDER_API_KEY_2"} {
		if KeyShaped(name) {
			t.Errorf("KeyShaped(%q) = true for a variable name", name)
		}
	}
	bad := Config{}
	if n := len(bad.Validate().(interface{ Unwrap() []error }).Unwrap()); n != 4 {
		t.Errorf("zero Config: %d problems, want 4 (base_url, model, timeout, concurrency)", n)
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`))
	f.Add([]byte(`{"choices":[]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null}}]}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`{"error":{"message":"overloaded","code":503}}`))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"eat"}]}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"act","arguments":"{\"action\":\"eat\"}"}}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseReply(b, len(b)%2 == 0)
		if err != nil {
			if !errors.Is(err, ErrMalformedReply) && !errors.Is(err, ErrNoChoices) && !errors.Is(err, ErrEmptyContent) && !errors.Is(err, ErrServerFault) {
				t.Fatalf("error %v is none of the sentinels", err)
			}
			return
		}
		if r.Content == "" || r.PromptTokens < 0 || r.CompletionTokens < 0 {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "1", "-1", "120", "Mon, 23 Nov 2026 12:00:07 GMT", "1e3", "+5"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := retryAfter(v, now); d < 0 || d > MaxRetryAfter {
			t.Fatalf("retryAfter(%q) = %v outside [0, %v]", v, d, MaxRetryAfter)
		}
	})
}

// FuzzDecodeEntry: no input panics; whatever decodes re-encodes to
// itself (so a decoded entry is exactly what Put would write).
func FuzzDecodeEntry(f *testing.F) {
	e, _ := encodeEntry(goldenReq, Reply{Content: "ACTION: eat", FinishReason: "stop", PromptTokens: 31, CompletionTokens: 3})
	f.Add(e)
	f.Add(e[:len(e)/2])
	f.Add([]byte(`{"format":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeEntry(b, goldenReq)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		again, err := encodeEntry(goldenReq, r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := decodeEntry(again, goldenReq)
		if err != nil || r2 != r {
			t.Fatalf("re-encoded entry decodes to %+v, %v; want %+v", r2, err, r)
		}
	})
}
