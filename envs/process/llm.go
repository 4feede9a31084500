package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"evolve/envs"
)

// TextAgent is an agent that reads text and names actions: a language
// model playing a step-mode environment (package agent's StepAgent). The
// process package only asks it for an action per turn; how it renders the
// prompt, talks to its model and parses replies is its own.
type TextAgent interface {
	// Metrics declares the columns the agent adds to each outcome, after
	// the environment's own metrics.
	Metrics() []envs.Metric
	// NewTurns returns the chooser of one worker's episodes, used by one
	// Player at a time.
	NewTurns() Turns
}

// Turns chooses the actions of one episode at a time, turn by turn.
type Turns interface {
	// Begin starts an episode under prompt p (nil: no prompt text) whose
	// actions are the environment's declared ones, in order; record asks
	// for the episode's transcript (Transcript). An error means the
	// episode cannot be played (e.g. the prompt does not fit the agent's
	// token budget).
	Begin(p *envs.Prompt, actions []string, record bool) error
	// Choose returns the index in actions of turn step's action (step
	// counts from 1), given the observation as text (ObservationText).
	// An error ends the episode as an error (the model could not be
	// reached), or is ctx's error.
	Choose(ctx context.Context, step int, observation string) (int, error)
	// Metrics returns the episode's values of the agent's metrics,
	// indexed like TextAgent.Metrics.
	Metrics() []envs.MetricValue
	// Transcript returns the episode's transcript as a JSON trajectory
	// (envs.TrajectoryJSON), or nil if Begin was not asked to record.
	Transcript() json.RawMessage
}

// UseLLM makes a text agent (a language model: package agent's
// StepAgent) the agent of a step-mode environment that declares its
// actions (hello "actions"), in place of an agent process: each turn it
// is given the observation as text (ObservationText) and names one of the
// declared actions. Info then declares the agent's metrics after the
// environment's, and ReadsText. The environment ends its episodes and
// writes its observations. Call it before NewPlayer, after CheckLLM.
func (e *Env) UseLLM(a TextAgent) {
	e.textAgent = a
}

// CheckLLM returns an error unless a language model can be e's agent:
// the environment must be in step mode, declare actions in its hello,
// have no agent command (the model replaces it), and declare no metric
// named like one of a's metrics.
func (e *Env) CheckLLM(a TextAgent) error {
	switch {
	case e.hello.Mode != ModeStep:
		return fmt.Errorf("the process environment %q is in episode mode, where it plays its own agent; a language-model agent needs step mode", e.info.Name)
	case len(e.hello.Actions) == 0:
		return fmt.Errorf("the process environment %q declares no actions in its hello: a language-model agent names one of them each turn", e.info.Name)
	case len(e.cfg.Agent) > 0:
		return fmt.Errorf("the language model replaces the agent process: remove agent: %q from the environment config", e.cfg.Agent)
	}
	for _, m := range a.Metrics() {
		if slices.ContainsFunc(e.info.Metrics, func(x envs.Metric) bool { return x.Name == m.Name }) {
			return fmt.Errorf("the process environment %q declares metric %q, a column of the language-model agent", e.info.Name, m.Name)
		}
	}
	return nil
}

// Actions returns the actions the environment declared (nil if none).
func (e *Env) Actions() []string { return slices.Clone(e.hello.Actions) }

// ObservationText writes an observation (any JSON value) as the text a
// model reads, deterministically: an object as one "key: value" line per
// key in byte order of the keys, a string value as its text, any other
// value as compact JSON with the keys of its objects sorted; anything but
// an object as its compact JSON alone. Then, on its own line, "Actions: "
// and the actions. Numbers keep their JSON text. The error is for raw
// that is not JSON.
func ObservationText(raw json.RawMessage, actions []string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("the observation is not JSON: %w", err)
	}
	var b strings.Builder
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(k + ": ")
			if s, ok := m[k].(string); ok {
				b.WriteString(s)
			} else {
				b.WriteString(compact(m[k]))
			}
			b.WriteByte('\n')
		}
	} else {
		b.WriteString(compact(v) + "\n")
	}
	b.WriteString("Actions: " + strings.Join(actions, ", "))
	return b.String(), nil
}

// compact returns v as compact JSON (json.Marshal sorts map keys and
// writes json.Number as is); nil is null.
func compact(v any) string {
	out, err := json.Marshal(v)
	if err != nil { // a decoded JSON value always encodes
		return fmt.Sprint(v)
	}
	return string(out)
}

// playLLM plays ep with the text agent (UseLLM) as the agent: reset on
// the environment process, then each turn the agent's action sent as a
// step, until done. Time spent waiting on the model does not count toward
// episode_timeout. The outcome's metrics are the environment's followed
// by the agent's.
func (p *Player) playLLM(ctx context.Context, ep envs.Episode, epDeadline time.Time) (envs.Outcome, error) {
	env, e := p.ep, p.env
	actions := e.hello.Actions
	if err := p.turns.Begin(ep.Prompt, actions, ep.Record); err != nil {
		return envs.Outcome{}, fmt.Errorf("seed %d: %w", ep.Seed, err)
	}
	if err := p.reset(ep, epDeadline); err != nil {
		return envs.Outcome{}, err
	}
	obs := p.r.Observation
	for step := 1; ; step++ {
		text, err := ObservationText(obs, actions)
		if err != nil {
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: %v", step, err), time.Time{}, time.Time{}, "")
		}
		start := time.Now()
		a, err := p.turns.Choose(ctx, step, text)
		if err != nil {
			return envs.Outcome{}, fmt.Errorf("seed %d: %w", ep.Seed, err)
		}
		epDeadline = epDeadline.Add(time.Since(start)) // the model's time is not the environment's
		env.req = append(appendHead(env.req[:0], env.id, "step"), `,"action":`...)
		env.req = append(strconv.AppendQuote(env.req, actions[a]), "}\n"...)
		if err := p.call(env, ep.Seed, "step", "step", epDeadline); err != nil {
			return envs.Outcome{}, err
		}
		r := &p.r
		switch {
		case r.Observation == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no observation", step), time.Time{}, time.Time{}, "")
		case r.Reward == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no reward", step), time.Time{}, time.Time{}, "")
		case r.Done == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no done", step), time.Time{}, time.Time{}, "")
		}
		if *r.Done {
			if r.Outcome == nil {
				return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: done is true but the response has no outcome (the last step carries the episode's outcome)", step), time.Time{}, time.Time{}, "")
			}
			out, err := p.outcome(env, ep.Seed, "step", r.Outcome)
			if err != nil {
				return out, err
			}
			for len(out.Metrics) < len(e.info.Metrics) { // a short list (an error episode's) is padded with nulls
				out.Metrics = append(out.Metrics, envs.MetricValue{Null: true})
			}
			out.Metrics = append(out.Metrics, p.turns.Metrics()...)
			if ep.Record && len(out.Trajectory) == 0 { // the environment's own trajectory is kept as given
				if tr := p.turns.Transcript(); tr != nil {
					out.Trajectory, out.TrajectoryFormat = tr, envs.TrajectoryJSON
				}
			}
			return out, nil
		}
		obs = r.Observation
	}
}
