package agent

import (
	"context"
	"encoding/json"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/llm"
	"evolve/render"
)

// LLMModel adapts an llm.Client (an OpenAI-compatible endpoint with its
// response cache) to ChatModel.
type LLMModel struct{ Client *llm.Client }

// Chat implements ChatModel. An unusable reply (llm.ErrUnusableReply,
// after the client's reply_retries) is not an error: it is a ChatReply
// with Unusable set to its kind (llm.UnusableKind), for the turn to
// count and correct.
func (m LLMModel) Chat(ctx context.Context, messages []ChatMessage) (ChatReply, error) {
	msgs := chatMessages(messages)
	return m.reply(m.Client.Complete(ctx, msgs))
}

// ChatActions implements ActionModel: Chat with ActionTool(actions)
// offered (llm.Client.CompleteTools).
func (m LLMModel) ChatActions(ctx context.Context, messages []ChatMessage, actions []string) (ChatReply, error) {
	return m.reply(m.Client.CompleteTools(ctx, chatMessages(messages), ActionTool(actions)))
}

// chatMessages converts messages to the client's.
func chatMessages(messages []ChatMessage) []llm.Message {
	msgs := make([]llm.Message, len(messages))
	for i, x := range messages {
		msgs[i] = llm.Message{Role: x.Role, Content: x.Content}
	}
	return msgs
}

// reply converts the client's answer: an unusable reply (after the
// client's reply_retries) is the turn's to count, not an error.
func (m LLMModel) reply(r llm.Reply, err error) (ChatReply, error) {
	if k := llm.UnusableKind(err); k != "" {
		return ChatReply{Unusable: k, Seen: llm.UnusableSeen(err)}, nil
	}
	if err != nil {
		return ChatReply{}, err
	}
	return ChatReply{Content: r.Content, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		Requests: r.Requests, Cached: r.Cached, Latency: r.Latency}, nil
}

// ActionToolName is the name of the function ActionTool declares.
const ActionToolName = "take_action"

// ActionTool is the action set as the one function a model may call
// (function calling): "take_action" with one required argument,
// "action", a string whose enum is names (in order). The model's call
// then has the arguments {"action": NAME}, read by Parser.Parse.
func ActionTool(names []string) []llm.Tool {
	enum, err := json.Marshal(names)
	if err != nil {
		panic("agent: encoding action names: " + err.Error()) // strings always encode
	}
	params := `{"type":"object","properties":{"action":{"type":"string","enum":` + string(enum) +
		`,"description":"The action to take this turn."}},"required":["action"],"additionalProperties":false}`
	return []llm.Tool{{Type: "function", Function: llm.ToolFunction{Name: ActionToolName,
		Description: "Take one action this turn.", Parameters: json.RawMessage(params)}}}
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
	rc    RendererCache
}

func (pl *llmPlayer) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	rd, err := pl.rc.Get(ep.Prompt, pl.opt.MaxPromptTokens)
	if err != nil {
		return envs.Outcome{}, err
	}
	opt := pl.opt
	opt.Record = ep.Record
	return llmEpisode(ctx, pl.ep, pl.model, rd, ep.Seed, opt)
}

// RendererCache keeps a player's renderer of the last system prompt it
// played (a version's episodes come one after another), so that the
// system prompt's tokens are counted once per version and the history's
// counts are reused. The zero RendererCache is ready to use.
type RendererCache struct {
	system string
	rd     *render.Renderer
}

// Get returns the renderer (render.ForSystem) of p's text ("" for a nil
// p) under a budget of max tokens (0: none), the last one if p's text is
// the last one's. Errors as render.ForSystem.
func (c *RendererCache) Get(p *envs.Prompt, max int) (*render.Renderer, error) {
	system := ""
	if p != nil {
		system = p.Text
	}
	if c.rd != nil && c.system == system {
		return c.rd, nil
	}
	rd, err := render.ForSystem(system, max)
	if err != nil {
		return nil, err
	}
	c.system, c.rd = system, rd
	return rd, nil
}

func (pl *llmPlayer) Close() error { return nil }
