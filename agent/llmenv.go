package agent

import (
	"context"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/llm"
)

// LLMModel adapts an llm.Client (an OpenAI-compatible endpoint with its
// response cache) to ChatModel.
type LLMModel struct{ Client *llm.Client }

// Chat implements ChatModel.
func (m LLMModel) Chat(ctx context.Context, messages []ChatMessage) (ChatReply, error) {
	msgs := make([]llm.Message, len(messages))
	for i, x := range messages {
		msgs[i] = llm.Message{Role: x.Role, Content: x.Content}
	}
	r, err := m.Client.Complete(ctx, msgs)
	if err != nil {
		return ChatReply{}, err
	}
	return ChatReply{Content: r.Content, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		Requests: r.Requests, Cached: r.Cached, Latency: r.Latency}, nil
}

// UseLLM makes the dungeon's players ask model for every turn's action
// instead of running the scripted agent: the system prompt is the
// episode's rendered prompt text (envs.Episode.Prompt.Text), the user
// message the turn's text view (see LLMEpisode). Info then declares
// LLMMetrics after the dungeon's metrics, ReadsText, and DungeonRules as
// the rule library of text mutations. Call it before NewPlayer.
func (e *DungeonEnv) UseLLM(model ChatModel, opt LLMOptions) {
	e.model, e.llmOpt = model, opt
}

// llmPlayer plays dungeon episodes with a language model.
type llmPlayer struct {
	ep    dungeon.Episode
	model ChatModel
	opt   LLMOptions
}

func (pl *llmPlayer) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	system := ""
	if ep.Prompt != nil {
		system = ep.Prompt.Text
	}
	return LLMEpisode(ctx, pl.ep, pl.model, system, ep.Seed, pl.opt)
}

func (pl *llmPlayer) Close() error { return nil }
