package render

import (
	"fmt"
	"sync"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the name of the tokenizer every count uses: OpenAI's
// cl100k_base (GPT-4, GPT-3.5-turbo), through github.com/pkoukk/tiktoken-go
// with the BPE ranks embedded by github.com/pkoukk/tiktoken-go-loader, so
// counting never touches the network.
const Encoding = "cl100k_base"

// Chat overhead in cl100k_base tokens, after the OpenAI Cookbook's "How to
// count tokens with tiktoken" (num_tokens_from_messages, for gpt-4 and
// gpt-3.5-turbo-0613): each message costs MessageOverhead tokens plus its
// role's and content's tokens, and the reply is primed with ReplyOverhead
// tokens.
const (
	MessageOverhead = 3
	ReplyOverhead   = 3
)

// cl100kPattern is cl100k_base's pre-tokenization regexp, as tiktoken-go
// v0.1.8 writes it (encoding.go, cl100k_base); with the ranks it defines
// the encoding.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// cl100kSpecial are cl100k_base's special tokens (tiktoken's).
var cl100kSpecial = map[string]int{
	"<|endoftext|>":   100257,
	"<|fim_prefix|>":  100258,
	"<|fim_middle|>":  100259,
	"<|fim_suffix|>":  100260,
	"<|endofprompt|>": 100276,
}

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encBPE  *bpe
	encErr  error
)

// encoder returns the cl100k_base encoder, built once by newEncoder.
func encoder() (*tiktoken.Tiktoken, error) {
	encOnce.Do(func() { enc, encBPE, encErr = newEncoder() })
	return enc, encErr
}

// fastEncoder returns the encoder whose merge is O(n log n) (see bpe),
// built with encoder's ranks.
func fastEncoder() (*bpe, error) {
	_, err := encoder()
	return encBPE, err
}

// newEncoder builds the cl100k_base encoder from the embedded ranks
// (about 0.2 s and 30 MB). It does not use tiktoken-go's global loader,
// whose default downloads, so nothing here touches the network.
func newEncoder() (*tiktoken.Tiktoken, *bpe, error) {
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	if err != nil {
		return nil, nil, fmt.Errorf("render: loading the embedded %s ranks: %w", Encoding, err)
	}
	core, err := tiktoken.NewCoreBPE(ranks, cl100kSpecial, cl100kPattern)
	if err != nil {
		return nil, nil, fmt.Errorf("render: building %s: %w", Encoding, err)
	}
	fast, err := newBPE(ranks)
	if err != nil {
		return nil, nil, fmt.Errorf("render: building %s: %w", Encoding, err)
	}
	special := map[string]any{}
	for k := range cl100kSpecial {
		special[k] = true
	}
	return tiktoken.NewTiktoken(core, &tiktoken.Encoding{Name: Encoding, PatStr: cl100kPattern,
		MergeableRanks: ranks, SpecialTokens: cl100kSpecial}, special), fast, nil
}

// Count returns the number of cl100k_base tokens of text, as Python's
// tiktoken.get_encoding("cl100k_base").encode_ordinary(text) counts them:
// special tokens such as "<|endoftext|>" count as ordinary text. It is
// safe for concurrent use, and takes time O(n log n) in the length of
// the text's longest run that the pattern keeps as one piece (see bpe;
// BenchmarkCountRun). The error is only for an encoder that could not be
// built (a broken embedded file).
func Count(text string) (int, error) {
	b, err := fastEncoder()
	if err != nil {
		return 0, err
	}
	return b.count(text), nil
}

// Message is one chat message, as OpenAI's chat completions API has it.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role" yaml:"role"`
	// Content is the message's text.
	Content string `json:"content" yaml:"content"`
}

// CountMessages returns the cl100k_base tokens a chat request of msgs
// costs: for each message MessageOverhead plus the tokens of its role and
// content, plus ReplyOverhead (the OpenAI Cookbook's count; exact for
// gpt-4 and gpt-3.5-turbo-0613, an estimate for other chat templates).
func CountMessages(msgs []Message) (int, error) {
	n := ReplyOverhead
	for _, m := range msgs {
		k, err := countMessage(m)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// countMessage is one message's share of CountMessages.
func countMessage(m Message) (int, error) {
	r, err := Count(m.Role)
	if err != nil {
		return 0, err
	}
	c, err := Count(m.Content)
	return MessageOverhead + r + c, err
}

// truncateTokens returns the longest prefix of text whose cl100k_base
// encoding is its first at most k tokens, cut back to a whole UTF-8
// character (a token may end inside one).
func truncateTokens(text string, k int) (string, error) {
	e, err := encoder()
	if err != nil {
		return "", err
	}
	if k <= 0 {
		return "", nil
	}
	toks := encBPE.tokens(text)
	if len(toks) <= k {
		return text, nil
	}
	s := e.Decode(toks[:k])
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s, nil
}
