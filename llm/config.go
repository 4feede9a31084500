package llm

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Config configures a Client: which server and model to call and how.
// Its yaml tags are the keys of an LLM config block; decode it over
// [DefaultConfig] (with evolve/internal/strictyaml, which calls Validate)
// so that absent keys keep their defaults.
type Config struct {
	// BaseURL is the server's root, without the "/v1" suffix: the client
	// posts to BaseURL + "/v1/chat/completions". An absolute http or https
	// URL with a host, no user information, query or fragment; a path
	// prefix (a proxy's) is allowed. A trailing "/" is ignored.
	BaseURL string `yaml:"base_url" json:"base_url"`
	// Model is the model name sent in every request, as the server knows
	// it (e.g. "gpt-4o-mini", "Qwen/Qwen2.5-7B-Instruct", "llama3.1:8b").
	// Not empty.
	Model string `yaml:"model" json:"model"`
	// APIKeyEnv is the NAME of the environment variable holding the API
	// key, e.g. "OPENAI_API_KEY"; "" for a server that needs no key. The
	// key is sent as "Authorization: Bearer KEY" and never written to a
	// config, log, cache entry or error. A name is letters, digits and
	// "_", not starting with a digit, and not KeyShaped (a key pasted
	// here by mistake is refused without being shown).
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env"`
	// Temperature is the sampling temperature, in [0, 2]; always sent.
	// Default 0, which most servers treat as greedy decoding.
	Temperature float64 `yaml:"temperature" json:"temperature"`
	// Seed is the sampling seed sent with every request; nil sends none.
	// Servers that honour it (vLLM, llama.cpp, Ollama; OpenAI on a best
	// effort basis) then repeat their replies at a temperature above 0.
	Seed *int64 `yaml:"seed,omitempty" json:"seed,omitempty"`
	// MaxTokens caps the completion's length in tokens; 0 sends no cap
	// (the server's default). Default 256. At least 0.
	MaxTokens int `yaml:"max_tokens" json:"max_tokens"`
	// Timeout bounds each HTTP attempt, from sending the request to
	// reading the whole reply; a timed-out attempt is retried. Positive.
	// Default 60s.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// MaxRetries bounds how many times a call's failed attempts (429,
	// 5xx, 408, a timeout, a network error, an unusable reply) are
	// retried; 0 retries nothing. Retrying also stops when RetryFor has
	// passed. At least 0, at most MaxRetriesLimit. Default 1000 (in
	// effect: RetryFor decides).
	MaxRetries int `yaml:"max_retries" json:"max_retries"`
	// RetryFor is a call's retry budget in time: retryable failures are
	// retried, with capped exponential backoff and full jitter or as
	// Retry-After says, until this much time has passed since the call's
	// first attempt; then the call fails with ErrRetriesExhausted (and a
	// run stops, to be resumed). It is what lets a run wait out a gateway
	// restart or an outage. At least 0; 0 sets no time limit (MaxRetries
	// alone bounds the retries). Default 10m.
	RetryFor Duration `yaml:"retry_for" json:"retry_for"`
	// ReplyRetries is how many times a call's attempt answered 200 with
	// no usable reply (ErrUnusableReply: malformed JSON, an HTML page, no
	// choices, empty or null content, content cut by max_tokens) is sent
	// again before the call returns that error, for the agent to count as
	// an unusable reply of its turn. In [0, 10]; default 2.
	ReplyRetries int `yaml:"reply_retries" json:"reply_retries"`
	// Concurrency is the most HTTP requests the Client has in flight at
	// once, whatever the number of callers; it is separate from the CPU
	// workers. At least 1, at most 4096. Default 64.
	Concurrency int `yaml:"concurrency" json:"concurrency"`
}

// DefaultConfig returns the defaults: no base URL or model (both must be
// set), no API key, temperature 0, no seed, max_tokens 256, timeout 60s,
// max_retries 1000, retry_for 10m, reply_retries 2, concurrency 64.
func DefaultConfig() Config {
	return Config{
		MaxTokens:    256,
		Timeout:      Duration(60 * time.Second),
		MaxRetries:   1000,
		RetryFor:     Duration(10 * time.Minute),
		ReplyRetries: 2,
		Concurrency:  64,
	}
}

// Limits of Validate.
const (
	// MaxTemperature is the highest temperature Validate accepts
	// (OpenAI's documented range is [0, 2]).
	MaxTemperature = 2.0
	// MaxRetriesLimit is the highest max_retries Validate accepts.
	MaxRetriesLimit = 100000
	// MaxReplyRetries is the highest reply_retries Validate accepts.
	MaxReplyRetries = 10
	// MaxConcurrency is the highest concurrency Validate accepts.
	MaxConcurrency = 4096
)

// FieldError is a problem with one field of a Config. Its message is
// "FIELD: MSG", the form evolve/internal/strictyaml places at the field's
// line.
type FieldError struct {
	// Field is the yaml key, e.g. "base_url".
	Field string
	// Msg says what is wrong and what is allowed; it quotes the bad value
	// except for api_key_env, whose value may be a key pasted by mistake
	// (see KeyShaped).
	Msg string
}

// Error returns "FIELD: MSG".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// keyPrefixes start the API keys of common providers (OpenAI "sk-",
// Groq "gsk_", Hugging Face "hf_", xAI "xai-", Google "AIza", GitHub
// "ghp_", Replicate "r8_", Perplexity "pplx-", Anthropic "sk-ant-").
var keyPrefixes = []string{"sk-", "sk_", "gsk_", "hf_", "xai-", "AIza", "ghp_", "github_pat_", "r8_", "pplx-", "nvapi-", "fw_"}

// KeyShaped reports whether s looks like an API key rather than the name
// of an environment variable: it starts with a provider's key prefix
// (sk-, gsk_, hf_, xai-, AIza, ...), or it is 24 characters or more and
// mixes lower-case letters and digits (variable names are conventionally
// upper case: OPENAI_API_KEY). Such a value is never echoed.
func KeyShaped(s string) bool {
	for _, p := range keyPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if len(s) < 24 {
		return false
	}
	lower, digit := false, false
	for _, r := range s {
		lower = lower || (r >= 'a' && r <= 'z')
		digit = digit || (r >= '0' && r <= '9')
	}
	return lower && digit
}

// Validate checks every field and returns nil or all the problems at once,
// joined by errors.Join, each a *FieldError naming its field (see the
// fields' docs for what is allowed).
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.BaseURL == "" {
		bad("base_url", "missing: the server's root URL, e.g. http://127.0.0.1:8000")
	} else if u, err := url.Parse(c.BaseURL); err != nil {
		bad("base_url", "not a URL: %q", c.BaseURL)
	} else {
		switch {
		case u.Scheme != "http" && u.Scheme != "https":
			bad("base_url", "want an http:// or https:// URL, got %q", c.BaseURL)
		case u.Host == "":
			bad("base_url", "no host in %q", c.BaseURL)
		case u.User != nil:
			// Not quoted: it holds a credential.
			bad("base_url", "must not hold user information (credentials); name the key's variable in api_key_env")
		case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
			bad("base_url", "must not have a query or fragment: %q", c.BaseURL)
		case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1"):
			bad("base_url", "drop the trailing /v1 (the client appends /v1/chat/completions): %q", c.BaseURL)
		}
	}
	if strings.TrimSpace(c.Model) == "" {
		bad("model", "missing: the model name the server serves")
	}
	if c.APIKeyEnv != "" && (!envName.MatchString(c.APIKeyEnv) || KeyShaped(c.APIKeyEnv)) {
		// The value is not quoted: it may be the key itself.
		bad("api_key_env", "want the NAME of an environment variable (letters, digits, _), not the key; the value is not shown")
	}
	if math.IsNaN(c.Temperature) || c.Temperature < 0 || c.Temperature > MaxTemperature {
		bad("temperature", "want a number in [0, %g], got %v", MaxTemperature, c.Temperature)
	}
	if c.MaxTokens < 0 {
		bad("max_tokens", "want 0 (no cap) or a positive number of tokens, got %d", c.MaxTokens)
	}
	if c.Timeout <= 0 {
		bad("timeout", "want a positive duration such as 60s, got %v", c.Timeout)
	}
	if c.MaxRetries < 0 || c.MaxRetries > MaxRetriesLimit {
		bad("max_retries", "want an integer in [0, %d], got %d", MaxRetriesLimit, c.MaxRetries)
	}
	if c.RetryFor < 0 {
		bad("retry_for", "want a duration such as 10m (how long a call retries a failing endpoint; 0: no limit), got %v", c.RetryFor)
	}
	if c.ReplyRetries < 0 || c.ReplyRetries > MaxReplyRetries {
		bad("reply_retries", "want an integer in [0, %d], got %d", MaxReplyRetries, c.ReplyRetries)
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		bad("concurrency", "want an integer in [1, %d], got %d", MaxConcurrency, c.Concurrency)
	}
	return errors.Join(errs...)
}

// endpoint returns the chat completions URL of a valid config.
func (c Config) endpoint() string {
	return strings.TrimRight(c.BaseURL, "/") + "/v1/chat/completions"
}

// Duration is a time.Duration written as a Go duration string ("60s",
// "1m30s", "500ms") in YAML and JSON.
type Duration time.Duration

// UnmarshalText parses a Go duration string; the error quotes it.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration such as 60s or 500ms, got %q", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as time.Duration.String does ("1m0s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// String returns the duration as time.Duration.String does.
func (d Duration) String() string { return time.Duration(d).String() }
