package agent

import (
	"context"
	"encoding/json"

	"evolve/envs"
)

// StepAgent is a language model as the agent of a step-mode process
// environment that declares its actions (envs/process: Env.UseLLM takes
// it as a process.TextAgent). Each turn it reads the prompt version's
// text (the system message), the previous turns and the observation as
// text, and names one action, parsed strictly (ParseChoice) with a
// correction and a retry; after Options.MaxTries the first declared
// action is the fallback. Of Options, MaxTurns, Radius and Fallback are
// not used: the environment ends its episodes and writes its
// observations.
type StepAgent struct {
	Model   ChatModel
	Options LLMOptions
}

// Metrics returns LLMMetrics, the columns the agent adds to each outcome.
func (a StepAgent) Metrics() []envs.Metric { return LLMMetrics }

// NewTurns returns the chooser of one worker's episodes; it keeps the
// worker's renderer of the last prompt it played (RendererCache).
func (a StepAgent) NewTurns() *StepTurns { return &StepTurns{agent: a} }

// StepTurns chooses one episode's actions at a time for a StepAgent. It
// is not safe for concurrent use.
type StepTurns struct {
	agent   StepAgent
	rc      RendererCache
	s       *Session
	actions []string
}

// Begin starts an episode under prompt p with the declared actions,
// keeping its transcript if record is set. The error is
// render.ForSystem's: p's text does not fit the token budget.
func (t *StepTurns) Begin(p *envs.Prompt, actions []string, record bool) error {
	rd, err := t.rc.Get(p, t.agent.Options.MaxPromptTokens)
	if err != nil {
		return err
	}
	opt := t.agent.Options
	opt.Record = record
	opt.Actions = actions
	t.s = NewSession(t.agent.Model, rd, opt)
	t.actions = actions
	return nil
}

// Choose returns the index of turn step's action in the declared actions.
// Errors are the model's (Session.Choose).
func (t *StepTurns) Choose(ctx context.Context, step int, observation string) (int, error) {
	p := Parser{Names: t.actions, ReasoningTags: t.agent.Options.ReasoningTags}
	parse := func(reply string) (int, error) { return p.Parse(reply) }
	correct := func(err error) string { return CorrectionFor(err, t.actions) }
	a, found, err := t.s.Choose(ctx, step, observation, parse, correct)
	if err == nil {
		t.s.NoteAction(step, t.actions[a], !found)
	}
	return a, err
}

// Transcript returns the episode's transcript (Session.Transcript), or
// nil if Begin was not asked to record.
func (t *StepTurns) Transcript() json.RawMessage { return t.s.Transcript() }

// Metrics returns the episode's LLMMetrics values.
func (t *StepTurns) Metrics() []envs.MetricValue { return t.s.Metrics() }
