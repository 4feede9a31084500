package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// Roles of a Message, as the chat completions API names them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of a conversation.
type Message struct {
	// Role is RoleSystem, RoleUser or RoleAssistant (any other non-empty
	// role the server knows is passed through). Not empty.
	Role string `json:"role"`
	// Content is the message's text, UTF-8.
	Content string `json:"content"`
}

// Request is the body of one chat completions request, as sent on the
// wire and as stored in the cache: everything that decides the reply
// except the server. It never holds the API key.
type Request struct {
	// Model is Config.Model.
	Model string `json:"model"`
	// Messages is the conversation, oldest first; at least one.
	Messages []Message `json:"messages"`
	// Temperature is Config.Temperature, always sent.
	Temperature float64 `json:"temperature"`
	// Seed is Config.Seed; nil is not sent.
	Seed *int64 `json:"seed,omitempty"`
	// MaxTokens is Config.MaxTokens; 0 is not sent.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Tools are the functions offered to the model (function calling,
	// Client.CompleteTools); none is not sent.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice is "required" when Tools are offered (the model must
	// call one), "" (not sent) otherwise.
	ToolChoice string `json:"tool_choice,omitempty"`
}

// Tool is one function offered to the model: an entry of the request's
// "tools" array (OpenAI's chat completions API, type "function").
type Tool struct {
	// Type is "function".
	Type string `json:"type"`
	// Function declares the function.
	Function ToolFunction `json:"function"`
}

// ToolFunction is a Tool's function: its name, what it does, and its
// arguments as a JSON Schema object.
type ToolFunction struct {
	// Name is the function's name: letters, digits, "_" and "-".
	Name string `json:"name"`
	// Description tells the model what the function does.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// requestTag starts the canonical encoding of a Request. Changing the
// request's fields, their encoding or the cache's entry format changes
// it, so that no entry of an old layout is ever read by a new build.
const requestTag = "evolve llm request v1\n"

// Hash returns the request's content address: 64 lower-case hex digits of
// the SHA-256 of its canonical encoding, the UTF-8 text
//
//	evolve llm request v1\n
//	model <len>:<Model>\n
//	temperature <Temperature>\n
//	seed <Seed>\n                 ("seed none" when nil)
//	max_tokens <MaxTokens>\n
//	messages <len(Messages)>\n
//	role <len>:<Role>\n            (these two lines per message, in order)
//	content <len>:<Content>\n
//	tools <len>:<JSON of Tools>\n  (these two lines only when Tools are offered)
//	tool_choice <len>:<ToolChoice>\n
//
// where each <len> is the string's length in bytes, integers are decimal
// and Temperature is strconv.FormatFloat(t, 'g', -1, 64) (the shortest
// form that parses back to the same float64; -0 is written 0). The length
// prefixes make the encoding injective. The server's URL and the API key
// are not part of it (see the package documentation's Cache).
func (r Request) Hash() string {
	sum := sha256.Sum256(r.encode())
	return hex.EncodeToString(sum[:])
}

func (r Request) encode() []byte {
	n := len(requestTag) + 64 + len(r.Model)
	for _, m := range r.Messages {
		n += 32 + len(m.Role) + len(m.Content)
	}
	b := make([]byte, 0, n)
	b = append(b, requestTag...)
	str := func(name, s string) {
		b = append(b, name...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
		b = append(b, '\n')
	}
	str("model", r.Model)
	t := r.Temperature
	if t == 0 {
		t = 0 // -0 → 0
	}
	b = append(b, "temperature "...)
	b = strconv.AppendFloat(b, t, 'g', -1, 64)
	b = append(b, "\nseed "...)
	if r.Seed == nil {
		b = append(b, "none"...)
	} else {
		b = strconv.AppendInt(b, *r.Seed, 10)
	}
	b = append(b, "\nmax_tokens "...)
	b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	b = append(b, "\nmessages "...)
	b = strconv.AppendInt(b, int64(len(r.Messages)), 10)
	b = append(b, '\n')
	for _, m := range r.Messages {
		str("role", m.Role)
		str("content", m.Content)
	}
	if len(r.Tools) > 0 {
		// Absent without tools, so that every request without them keeps
		// its hash (and its cache entry).
		tools, err := marshal(r.Tools)
		if err != nil {
			panic("llm: encoding tools: " + err.Error()) // plain structs and valid RawMessage always encode
		}
		str("tools", string(tools))
		str("tool_choice", r.ToolChoice)
	}
	return b
}

// equal reports whether two requests are the same request.
func (r Request) equal(o Request) bool {
	if r.Model != o.Model || r.Temperature != o.Temperature || r.MaxTokens != o.MaxTokens ||
		(r.Seed == nil) != (o.Seed == nil) || (r.Seed != nil && *r.Seed != *o.Seed) ||
		len(r.Messages) != len(o.Messages) || r.ToolChoice != o.ToolChoice || len(r.Tools) != len(o.Tools) {
		return false
	}
	if len(r.Tools) > 0 {
		a, _ := marshal(r.Tools)
		b, _ := marshal(o.Tools)
		if !bytes.Equal(a, b) {
			return false
		}
	}
	for i := range r.Messages {
		if r.Messages[i] != o.Messages[i] {
			return false
		}
	}
	return true
}

// Reply is the answer to one Complete call.
type Reply struct {
	// Content is choices[0].message.content, never empty: the string, or
	// the "text" parts of an array of content parts joined by newlines;
	// when that is empty and the message has tool_calls, the first
	// call's arguments (a JSON object as text, e.g. {"action":"eat"}).
	Content string
	// FinishReason is choices[0].finish_reason as the server sent it
	// ("stop", "length" when max_tokens cut the reply, ...); "" if absent.
	FinishReason string
	// PromptTokens and CompletionTokens are the server's
	// usage.prompt_tokens and usage.completion_tokens (0 when the server
	// sent no usage); a cache hit returns the stored counts.
	PromptTokens, CompletionTokens int
	// Latency is the wall time of the successful HTTP attempt, from
	// sending the request to reading the whole reply (backoff waits and
	// failed attempts excluded); 0 on a cache hit.
	Latency time.Duration
	// Cached reports whether the reply came from the cache.
	Cached bool
	// Requests is the number of HTTP attempts made, retries included; 0 on
	// a cache hit.
	Requests int
	// Request is the request's hash (Request.Hash), its cache key; its
	// first 12 digits name the request in errors.
	Request string
}
