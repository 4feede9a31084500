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
// per episode. They are what a replay from the response cache reproduces
// exactly (so that a rerun writes byte-identical Parquet): the model calls
// the episode needed, whether the server or the cache answered them, and
// the tokens the server reported for them. HTTP requests, cache hits and
// latency depend on the cache's state and go to the run's log and
// manifest instead.
var LLMMetrics = []envs.Metric{
	{Name: "model_calls", Type: envs.Int, Unit: "calls", Description: "chat completions the episode needed (corrections included)"},
	{Name: "prompt_tokens", Type: envs.Int, Unit: "tokens", Description: "prompt tokens, as the model reported them"},
	{Name: "completion_tokens", Type: envs.Int, Unit: "tokens", Description: "completion tokens"},
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
	var calls, ptok, ctok, fallbacks int
	ep.Reset(seed)
	for turn := 1; ; turn++ {
		msgs := []ChatMessage{{Role: "system", Content: system}, {Role: "user", Content: tx.Text(opt.Radius)}}
		action, found := opt.Fallback, false
		for try := 0; try < opt.MaxTries; try++ {
			r, err := model.Chat(ctx, msgs)
			if err != nil {
				return envs.Outcome{}, fmt.Errorf("turn %d: %w", turn, err)
			}
			calls++
			ptok, ctok = ptok+r.PromptTokens, ctok+r.CompletionTokens
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
	out.Metrics = append(out.Metrics, num(float64(calls)), num(float64(ptok)), num(float64(ctok)), num(float64(fallbacks)))
	return out, nil
}
