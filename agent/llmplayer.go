package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/render"
)

// ChatMessage is one message of a chat with a language model.
type ChatMessage struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// ChatReply is a model's answer and what it cost.
type ChatReply struct {
	// Content is the reply's text; "" when Unusable is set.
	Content string
	// Unusable, when not "", says the model gave no usable reply after
	// its client's retries, and of what kind (llm.KindMalformed,
	// llm.KindNoChoices, llm.KindEmpty, llm.KindCut): the turn counts it
	// and goes on as for a reply it cannot parse (a correction, then the
	// fallback), never ending the episode.
	Unusable string
	// Seen, with Unusable, says what the reply held instead of content
	// when the client could tell ("reasoning_content with empty
	// content", "tool_calls but no tools were offered (…)"); "" if not.
	Seen                           string
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

// ActionModel is a ChatModel that can also offer the turn's actions as
// a function to call (LLMOptions.FunctionCalling): ChatActions asks the
// model to call ActionTool(actions), and returns the call's arguments
// (a JSON object {"action": NAME}) as the reply's Content, which the
// parser reads as any JSON reply.
type ActionModel interface {
	ChatModel
	ChatActions(ctx context.Context, messages []ChatMessage, actions []string) (ChatReply, error)
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
	// History is how many previous turns (each the turn's user message
	// and the model's reply) are sent before the turn's message; 0 sends
	// none.
	History int
	// MaxPromptTokens is the most cl100k_base tokens a request's messages
	// may cost (render.CountMessages); 0 means no limit. Every request is
	// rendered by render.Renderer.Turn under it: history dropped oldest
	// first, a (user, assistant) turn at a time, then the turn's message
	// cut. A system prompt that alone does not fit ends the episode with
	// render.ErrOverBudget (a run checks candidates first: FitsBudget).
	MaxPromptTokens int
	// Record keeps the episode's Transcript as its trajectory
	// (envs.Episode.Record); it changes nothing else.
	Record bool
	// ReasoningTags are the tags whose blocks ("<TAG>…</TAG>") are
	// removed from a reply before it is parsed, besides "think" and
	// "reasoning" (see StripReasoning).
	ReasoningTags []string
	// Tally, if not nil, counts every reply that named no action (see
	// Session.UnusableReplies), over all the episodes that share it.
	Tally *ReplyTally
	// FunctionCalling offers the actions to the model as one function,
	// ActionTool(Actions), which it is asked to call (the model must be
	// an ActionModel; another model is asked in text). The reply's
	// arguments are parsed like a JSON reply; a model that answers in
	// text instead is read as always. Default false.
	FunctionCalling bool
	// Actions are the action names offered with FunctionCalling, in
	// index order. The players set them (the dungeon's ActionNames, a
	// process environment's declared actions, NetHack's), not the
	// config.
	Actions []string
}

// LLMMetrics are the metric columns an LLM agent adds to the
// environment's, per episode. They are what a replay from the response
// cache reproduces exactly (so that a rerun writes byte-identical
// Parquet): the model calls the episode needed, the tokens the server
// reported for them, the fallbacks, and the cl100k_base tokens of the
// requests as evolve rendered them (render.Renderer.Turn). HTTP requests,
// cache hits and latency depend on the cache's state and go to the run's
// log and manifest instead.
var LLMMetrics = []envs.Metric{
	{Name: "model_calls", Type: envs.Int, Unit: "calls", Description: "chat completions the episode needed (corrections included)"},
	{Name: "prompt_tokens", Type: envs.Int, Unit: "tokens", Description: "prompt tokens, as the model reported them"},
	{Name: "completion_tokens", Type: envs.Int, Unit: "tokens", Description: "completion tokens"},
	{Name: "fallbacks", Type: envs.Int, Unit: "turns", Description: "turns whose replies named no action, so the fallback was taken"},
	{Name: "rendered_tokens", Type: envs.Int, Unit: "tokens", Description: "cl100k_base tokens of all the episode's requests as rendered (render.CountMessages)"},
	{Name: "rendered_tokens_max", Type: envs.Int, Unit: "tokens", Description: "cl100k_base tokens of the episode's largest request; at most max_prompt_tokens when that is set"},
	{Name: "history_dropped", Type: envs.Int, Unit: "messages", Description: "history messages the token budget dropped, summed over requests"},
	{Name: "truncated_turns", Type: envs.Int, Unit: "requests", Description: "requests whose turn message the token budget cut"},
	{Name: "corrections", Type: envs.Int, Unit: "requests", Description: "correction requests sent after a reply that named no action or was unusable"},
	{Name: "unusable_replies", Type: envs.Int, Unit: "calls", Description: "model calls that gave no usable reply after the client's retries (all kinds)"},
	{Name: "malformed_replies", Type: envs.Int, Unit: "calls", Description: "unusable calls: a body that is not a chat completion (not JSON, HTML, truncated)"},
	{Name: "no_choice_replies", Type: envs.Int, Unit: "calls", Description: "unusable calls: a chat completion without choices"},
	{Name: "empty_replies", Type: envs.Int, Unit: "calls", Description: "unusable calls: empty or null content"},
	{Name: "cut_replies", Type: envs.Int, Unit: "calls", Description: "unusable calls: null content with finish_reason length (max_tokens spent before any answer)"},
}

// Indexes of counts in LLMMetrics (and Session.Metrics).
const (
	metricModelCalls = iota
	metricPromptTokens
	metricCompletionTokens
	metricFallbacks
	metricRendered
	metricRenderedMax
	metricDropped
	metricTruncated
	metricCorrections
	metricUnusable
	metricMalformed
	metricNoChoices
	metricEmpty
	metricCut
	numLLMMetrics
)

// unusableMetric is the LLMMetrics index of each unusable kind.
var unusableMetric = map[string]int{"malformed": metricMalformed, "no_choices": metricNoChoices, "empty": metricEmpty, "cut": metricCut}

// Session is one episode's conversation with a model: the renderer of
// its system prompt, the history of previous turns, and the counts that
// become LLMMetrics. It is what LLMEpisode plays the dungeon with, and
// what an environment with its own action vocabulary (a process
// environment in step mode) plays with. It is not safe for concurrent
// use.
type Session struct {
	model ChatModel
	rd    *render.Renderer
	opt   LLMOptions
	hist  []render.Message // previous turns, oldest first: user, assistant, ...

	n        [numLLMMetrics]int // the counts of LLMMetrics
	unusable map[string]int     // replies that named no action, by text (cut)
	tr       *Transcript        // nil unless opt.Record
}

// NewSession returns an episode's session with model under rd
// (render.ForSystem of the episode's system prompt); of opt it uses
// MaxTries (default 3) and History.
func NewSession(model ChatModel, rd *render.Renderer, opt LLMOptions) *Session {
	if opt.MaxTries <= 0 {
		opt.MaxTries = 3
	}
	s := &Session{model: model, rd: rd, opt: opt}
	if opt.Record {
		s.tr = &Transcript{Kind: TranscriptKind}
	}
	return s
}

// Choose asks the model for turn's action given the turn's text
// observation obs: each request is rendered by rd.Turn (history, then the
// runtime message) within the token budget. A reply parse rejects, or an
// unusable reply (ChatReply.Unusable), gets a correction and a retry, up
// to opt.MaxTries replies: the correction request is the same history
// and a runtime message of the correction text followed by the turn's
// observation, so the budget drops history before it touches the map,
// and the roles always alternate. It returns the action parse gave and
// true, or false when no reply named one (the fallback is counted). The
// turn's first user message and last reply join the history, of which
// the last opt.History turns are kept. Errors: the model's (after its
// own retries: an outage, a cancel) and the renderer's
// (render.ErrOverBudget), naming the turn.
func (s *Session) Choose(ctx context.Context, turn int, obs string, parse func(string) (int, error), correction func(error) string) (int, bool, error) {
	rt := render.Runtime{Turn: turn, Observation: obs, History: s.hist}
	var first render.Message
	var reply string
	for try := 0; try < s.opt.MaxTries; try++ {
		out, err := s.rd.Turn(rt)
		if err != nil {
			return 0, false, fmt.Errorf("turn %d: rendering the prompt: %w", turn, err)
		}
		s.n[metricRendered] += out.Tokens
		s.n[metricRenderedMax] = max(s.n[metricRenderedMax], out.Tokens)
		s.n[metricDropped] += out.Dropped
		if out.Truncated {
			s.n[metricTruncated]++
		}
		if try == 0 {
			first = out.Messages[len(out.Messages)-1]
		} else {
			s.n[metricCorrections]++
		}
		msgs := make([]ChatMessage, len(out.Messages))
		for i, m := range out.Messages {
			msgs[i] = ChatMessage{Role: m.Role, Content: m.Content}
		}
		r, err := s.chat(ctx, msgs)
		if err != nil {
			return 0, false, fmt.Errorf("turn %d: %w", turn, err)
		}
		s.n[metricModelCalls]++
		s.n[metricPromptTokens] += r.PromptTokens
		s.n[metricCompletionTokens] += r.CompletionTokens
		var perr error
		a := -1
		if r.Unusable != "" {
			s.n[metricUnusable]++
			if i, ok := unusableMetric[r.Unusable]; ok {
				s.n[i]++
			}
			reply = ""
			s.note(unusableNote(r))
			perr = fmt.Errorf("the reply was unusable (%s)", strings.ReplaceAll(r.Unusable, "_", " "))
			if r.Seen != "" {
				perr = fmt.Errorf("the reply was unusable (%s: %s)", strings.ReplaceAll(r.Unusable, "_", " "), r.Seen)
			}
		} else {
			reply = r.Content
			if a, perr = parse(r.Content); perr == nil {
				s.noteTry(turn, msgs, reply, nil)
				s.remember(first, reply)
				return a, true, nil
			}
			s.note(r.Content)
		}
		noted := reply
		if r.Unusable != "" {
			noted = unusableNote(r)
		}
		s.noteTry(turn, msgs, noted, perr)
		rt.Observation = correction(perr) + "\n\n" + obs
	}
	s.n[metricFallbacks]++
	s.remember(first, reply)
	return 0, false, nil
}

// chat asks the model: with opt.FunctionCalling and an ActionModel, as
// a call of ActionTool(opt.Actions); else in text.
func (s *Session) chat(ctx context.Context, msgs []ChatMessage) (ChatReply, error) {
	if am, ok := s.model.(ActionModel); ok && s.opt.FunctionCalling && len(s.opt.Actions) > 0 {
		return am.ChatActions(ctx, msgs, s.opt.Actions)
	}
	return s.model.Chat(ctx, msgs)
}

// unusableNote is how an unusable reply is noted: "(KIND reply)", or
// "(KIND reply: SEEN)" when the client said what it held.
func unusableNote(r ChatReply) string {
	if r.Seen != "" {
		return "(" + r.Unusable + " reply: " + r.Seen + ")"
	}
	return "(" + r.Unusable + " reply)"
}

// maxNoted bounds the distinct unusable replies a Session keeps for
// UnusableReplies.
const maxNoted = 64

// note counts a reply that named no action, by its first 80 characters.
func (s *Session) note(reply string) {
	if s.unusable == nil {
		s.unusable = map[string]int{}
	}
	reply = strings.Join(strings.Fields(reply), " ")
	if r := []rune(reply); len(r) > 80 {
		reply = string(r[:80]) + "…"
	}
	if _, ok := s.unusable[reply]; ok || len(s.unusable) < maxNoted {
		s.unusable[reply]++
	}
	s.opt.Tally.Add(reply)
}

// UnusableReplies returns the replies of the session that named no
// action (white space collapsed, cut to 80 characters; an unusable reply
// as "(KIND reply)"), with their counts; at most 64 distinct ones.
func (s *Session) UnusableReplies() map[string]int { return s.unusable }

// remember appends a turn's exchange to the history, keeping the last
// opt.History turns. A turn whose replies were all unusable leaves the
// history as it was (an empty assistant message helps no model).
func (s *Session) remember(user render.Message, reply string) {
	if s.opt.History <= 0 || reply == "" {
		return
	}
	h := append(s.hist, user, render.Message{Role: "assistant", Content: reply})
	if n := 2 * s.opt.History; len(h) > n {
		h = append([]render.Message(nil), h[len(h)-n:]...)
	}
	s.hist = h
}

// Metrics returns the session's counts so far, in LLMMetrics order.
func (s *Session) Metrics() []envs.MetricValue {
	out := make([]envs.MetricValue, 0, len(LLMMetrics))
	for _, x := range s.n {
		out = append(out, envs.MetricValue{Num: float64(x)})
	}
	return out
}

// defaults fills opt's zero fields for the dungeon.
func (opt LLMOptions) defaults() LLMOptions {
	if opt.Radius <= 0 {
		opt.Radius = 6
	}
	if opt.MaxTries <= 0 {
		opt.MaxTries = 3
	}
	if opt.Fallback == 0 {
		opt.Fallback = dungeon.ActExplore
	}
	return opt
}

// LLMEpisode plays one dungeon episode with a language model choosing each
// turn's action from the system prompt (the rendered prompt version) and
// the text view of the turn (dungeon.Texter): each request is the system
// prompt, up to opt.History previous turns, and the turn's message
// (render.RuntimeTemplate), within opt.MaxPromptTokens (see
// render.ForSystem). It returns the dungeon outcome with DungeonInfo's
// metrics followed by LLMMetrics. An error of the model (after its own
// retries) or of the renderer (a system prompt over the budget) ends the
// episode with that error.
func LLMEpisode(ctx context.Context, ep dungeon.Episode, model ChatModel, system string, seed uint64, opt LLMOptions) (envs.Outcome, error) {
	rd, err := render.ForSystem(system, opt.MaxPromptTokens)
	if err != nil {
		return envs.Outcome{}, err
	}
	return llmEpisode(ctx, ep, model, rd, seed, opt)
}

// DungeonObservation is the turn's message the dungeon's LLM agent
// sends after "Turn N.": the text view (dungeon.Texter) without trailing
// blank lines, a blank line, and ReplyFormat of ActionNames.
func DungeonObservation(view string) string {
	return strings.TrimRight(view, " \n") + "\n\n" + ReplyFormat(ActionNames)
}

// llmEpisode is LLMEpisode with the system prompt's renderer built.
// With opt.Record, the outcome carries the session's Transcript
// (envs.TrajectoryJSON).
func llmEpisode(ctx context.Context, ep dungeon.Episode, model ChatModel, rd *render.Renderer, seed uint64, opt LLMOptions) (envs.Outcome, error) {
	opt = opt.defaults()
	tx, ok := ep.(dungeon.Texter)
	if !ok {
		return envs.Outcome{}, fmt.Errorf("agent: the episode has no text view")
	}
	opt.Actions = ActionNames
	s := NewSession(model, rd, opt)
	p := DungeonParser(opt.ReasoningTags)
	parse := func(reply string) (int, error) { return p.Parse(reply) }
	ep.Reset(seed)
	for turn := 1; ; turn++ {
		a, found, err := s.Choose(ctx, turn, DungeonObservation(tx.Text(opt.Radius)), parse, Correction)
		if err != nil {
			return envs.Outcome{}, err
		}
		action := dungeon.Action(a)
		if !found {
			action = opt.Fallback
		}
		s.NoteAction(turn, action.String(), !found)
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
	out.Metrics = append(out.Metrics, s.Metrics()...)
	if opt.Record {
		out.Trajectory, out.TrajectoryFormat = s.Transcript(), envs.TrajectoryJSON
	}
	return out, nil
}
