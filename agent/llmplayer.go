package agent

import (
	"context"
	"fmt"
	"time"

	"evolve/envs"
	"evolve/envs/dungeon"
)

// ChatMessage is one message of a chat with a language model.
type ChatMessage struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// ChatReply is a model's answer and what it cost.
type ChatReply struct {
	Content                        string
	PromptTokens, CompletionTokens int
	Requests                       int           // HTTP requests made (0 on a cache hit)
	Cached                         bool          // replayed from the response cache
	Latency                        time.Duration // the model's time (0 on a cache hit)
}

// ChatModel answers a chat. Implementations are safe for concurrent use;
// package llm's client (an OpenAI-compatible endpoint with a response
// cache) is the real one.
type ChatModel interface {
	Chat(ctx context.Context, messages []ChatMessage) (ChatReply, error)
}

// LLMOptions configure an LLM agent's episodes.
type LLMOptions struct {
	// Radius is the map window around the hero shown each turn (default 6).
	Radius int
	// MaxTries is how many replies a turn may take: after the first
	// unusable one a correction is sent, and after MaxTries the fallback
	// action is taken and counted (default 3).
	MaxTries int
	// Fallback is the action taken when no reply names one (default
	// explore).
	Fallback dungeon.Action
	// MaxTurns ends an episode after this many turns as a step-budget
	// timeout (0: the dungeon's own limit). Model calls are slow: keep it
	// small.
	MaxTurns int
}

// LLMMetrics are the metric columns an LLM agent adds to the dungeon's,
// per episode.
var LLMMetrics = []envs.Metric{
	{Name: "requests", Type: envs.Int, Unit: "requests", Description: "HTTP requests to the model"},
	{Name: "cache_hits", Type: envs.Int, Unit: "replies", Description: "replies replayed from the response cache"},
	{Name: "prompt_tokens", Type: envs.Int, Unit: "tokens", Description: "prompt tokens, as the model reported them"},
	{Name: "completion_tokens", Type: envs.Int, Unit: "tokens", Description: "completion tokens"},
	{Name: "model_latency_ms", Type: envs.Float, Unit: "ms", Description: "the model's time, summed over the episode's requests"},
	{Name: "fallbacks", Type: envs.Int, Unit: "turns", Description: "turns whose replies named no action, so the fallback was taken"},
}

// LLMEpisode plays one dungeon episode with a language model choosing each
// turn's action from the system prompt (the rendered prompt version) and
// the text view of the turn (dungeon.Texter). It returns the dungeon
// outcome with DungeonInfo's metrics followed by LLMMetrics. An error of
// the model (after its own retries) ends the episode with that error.
func LLMEpisode(ctx context.Context, ep dungeon.Episode, model ChatModel, system string, seed uint64, opt LLMOptions) (envs.Outcome, error) {
	if opt.Radius <= 0 {
		opt.Radius = 6
	}
	if opt.MaxTries <= 0 {
		opt.MaxTries = 3
	}
	if opt.Fallback == 0 {
		opt.Fallback = dungeon.ActExplore
	}
	tx, ok := ep.(dungeon.Texter)
	if !ok {
		return envs.Outcome{}, fmt.Errorf("agent: the episode has no text view")
	}
	var requests, hits, ptok, ctok, fallbacks int
	var latency time.Duration
	ep.Reset(seed)
	for turn := 1; ; turn++ {
		msgs := []ChatMessage{{Role: "system", Content: system}, {Role: "user", Content: tx.Text(opt.Radius)}}
		action, found := opt.Fallback, false
		for try := 0; try < opt.MaxTries; try++ {
			r, err := model.Chat(ctx, msgs)
			if err != nil {
				return envs.Outcome{}, fmt.Errorf("turn %d: %w", turn, err)
			}
			requests += r.Requests
			if r.Cached {
				hits++
			}
			ptok, ctok, latency = ptok+r.PromptTokens, ctok+r.CompletionTokens, latency+r.Latency
			a, perr := ParseAction(r.Content)
			if perr == nil {
				action, found = a, true
				break
			}
			msgs = append(msgs, ChatMessage{Role: "assistant", Content: r.Content}, ChatMessage{Role: "user", Content: Correction(perr)})
		}
		if !found {
			fallbacks++
		}
		if ep.Step(action) {
			break
		}
		if opt.MaxTurns > 0 && turn >= opt.MaxTurns {
			ep.Stop(dungeon.EndStepBudget)
			break
		}
	}
	o := ep.Outcome()
	out := DungeonOutcome(&o)
	num := func(x float64) envs.MetricValue { return envs.MetricValue{Num: x} }
	out.Metrics = append(out.Metrics, num(float64(requests)), num(float64(hits)), num(float64(ptok)), num(float64(ctok)),
		num(float64(latency.Microseconds())/1000), num(float64(fallbacks)))
	return out, nil
}
