package render

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// Token IDs published in openai/tiktoken's tests/test_encoding.py
// (test_simple, test_simple_regex, test_basic_encode,
// test_encode_surrogate_pairs) for cl100k_base, and in the OpenAI
// Cookbook's "How to count tokens with tiktoken" ("tiktoken is great!",
// six tokens: "t", "ik", "token", " is", " great", "!"). Python's
// tiktoken is not installed on this machine, so these published values
// are the reference.
func TestTokensPublished(t *testing.T) {
	e, err := encoder()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		ids  []int // nil: only the count is published
		n    int
	}{
		{"hello world", []int{15339, 1917}, 2},
		{"rer", []int{38149}, 1},
		{"'rer", []int{2351, 81}, 2},
		{"today\n ", []int{31213, 198, 220}, 3},
		{"today\n \n", []int{31213, 27907}, 2},
		{"today\n  \n", []int{31213, 14211}, 2},
		{" \u00850", []int{220, 126, 227, 15}, 4},
		{"👍", []int{9468, 239, 235}, 3},
		{"tiktoken is great!", nil, 6},
		{"", []int{}, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.text), func(t *testing.T) {
			n, err := Count(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.n {
				t.Errorf("Count = %d, want %d", n, c.n)
			}
			if got := e.EncodeOrdinary(c.text); c.ids != nil && !slices.Equal(got, c.ids) {
				t.Errorf("ids = %v, want %v", got, c.ids)
			}
		})
	}
}

// The OpenAI Cookbook's "How to count tokens with tiktoken" counts its
// example_messages at 129 prompt tokens for gpt-3.5-turbo-0613 and gpt-4
// (and the API agrees); its messages carry a "name", which costs one
// token more plus the name's tokens. CountMessages has no names, so the
// names are added here as the cookbook does.
func TestCountMessagesCookbook(t *testing.T) {
	msgs := []struct{ role, name, content string }{
		{"system", "", "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{"system", "example_user", "New synergies will help drive top-line growth."},
		{"system", "example_assistant", "Things working well together will increase revenue."},
		{"system", "example_user", "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{"system", "example_assistant", "Let's talk later when we're less busy about how to do better."},
		{"user", "", "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	var plain []Message
	names := 0
	for _, m := range msgs {
		plain = append(plain, Message{Role: m.role, Content: m.content})
		if m.name != "" {
			n, err := Count(m.name)
			if err != nil {
				t.Fatal(err)
			}
			names += n + 1 // tokens_per_name = 1
		}
	}
	n, err := CountMessages(plain)
	if err != nil {
		t.Fatal(err)
	}
	if n+names != 129 {
		t.Errorf("CountMessages + names = %d + %d = %d, want 129 (OpenAI Cookbook)", n, names, n+names)
	}
}

// failTransport fails the test on any HTTP request.
type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("HTTP request to %s while building the encoder", r.URL)
	return nil, fmt.Errorf("no network in this test")
}

// Building the encoder reads only the embedded ranks: with every HTTP
// request failing the test, it builds and counts.
func TestEncoderOffline(t *testing.T) {
	old := http.DefaultTransport
	http.DefaultTransport = failTransport{t}
	defer func() { http.DefaultTransport = old }()
	t.Setenv("TIKTOKEN_CACHE_DIR", t.TempDir())
	e, fast, err := newEncoder()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(e.EncodeOrdinary("hello world")); got != 2 || fast.count("hello world") != 2 {
		t.Errorf("hello world: %d tokens, want 2", got)
	}
}

// A cut keeps whole characters and at most k tokens.
func TestTruncateTokens(t *testing.T) {
	text := "héllo wörld 👍👍 über straße"
	full, _ := Count(text)
	for k := 0; k <= full+1; k++ {
		s, err := truncateTokens(text, k)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := Count(s); n > k {
			t.Errorf("k=%d: %q has %d tokens", k, s, n)
		}
		if text[:len(s)] != s {
			t.Errorf("k=%d: %q is not a prefix", k, s)
		}
	}
}
