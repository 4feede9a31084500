package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"evolve/agent"
	"evolve/envs"
	"evolve/envs/process"
	"evolve/llm"
	"evolve/prompt"
	"evolve/render"
)

// Agent kinds.
const (
	AgentScripted = "scripted" // the environment's own agent
	AgentLLM      = "llm"      // a language model reads the prompt and the turn's text
)

// AgentConfig is the config's agent section.
//
//	agent:
//	  kind: llm
//	  llm: {base_url: http://localhost:8000, model: Qwen/Qwen2.5-7B-Instruct, api_key_env: OPENAI_API_KEY, temperature: 0, seed: 1, max_tokens: 64, concurrency: 64}
//	  cache: readwrite          # off | read | readwrite: the response cache (never the API key)
//	  max_turns: 200            # per episode: model calls are slow
//	  history: 2                # previous turns sent with each turn
//	  max_prompt_tokens: 4096   # cl100k_base tokens per request (0: no limit)
type AgentConfig struct {
	// Kind is AgentScripted ("" means it) or AgentLLM.
	Kind string `yaml:"kind"`
	// LLM is the endpoint, model and sampling of AgentLLM (see
	// llm.Config); LLM.Concurrency is the episodes played at once.
	LLM llm.Config `yaml:"llm"`
	// Cache is the response cache's mode: "off", "read" (replay only; a
	// miss is an error) or "readwrite" (the default).
	Cache string `yaml:"cache"`
	// CacheDir is the response cache's directory ("": the user cache
	// dir's evolve/llm).
	CacheDir string `yaml:"cache_dir"`
	// MaxTurns ends an LLM episode after this many turns (a step-budget
	// timeout), default 200.
	MaxTurns int `yaml:"max_turns"`
	// MaxTries is the replies a turn may take before the fallback action,
	// default 3.
	MaxTries int `yaml:"max_tries"`
	// Radius is the map window shown around the hero, default 6.
	Radius int `yaml:"radius"`
	// History is the previous turns (the turn's message and the model's
	// reply each) sent with every turn, in [0, 100], default 2.
	History int `yaml:"history"`
	// MaxPromptTokens is the most cl100k_base tokens one request may
	// cost, in [0, 10,000,000], 0 for no limit, default 4096: over it the
	// history is dropped oldest first, then the turn's message is cut
	// (see render.Renderer.Turn).
	MaxPromptTokens int `yaml:"max_prompt_tokens"`
	// ProposeRules, for AgentLLM only, makes each generation ask the
	// model for one new rule line written from the failure analysis
	// (mutate.ProposeLLMRule, operator "llm_rule"), through the same
	// client and response cache as the episodes; the rule is screened by
	// the guard and gated like every candidate. Default false.
	ProposeRules bool `yaml:"propose_rules"`
	// ReasoningTags are tags whose blocks ("<TAG>…</TAG>") are removed
	// from every reply before it is parsed, besides think, thinking and
	// reasoning (agent.StripReasoning). Each is letters, digits, "_" or
	// "-".
	ReasoningTags []string `yaml:"reasoning_tags"`
	// MaxFallbackRate stops a run whose phase (a version played on a
	// split) took the fallback action on more than this fraction of its
	// turns, in [0, 1], default 0.2: past it the run measures the
	// fallback action, not the model. The error names the version, the
	// rate and the three most common unusable replies. 1 never stops.
	MaxFallbackRate float64 `yaml:"max_fallback_rate"`
	// FunctionCalling, for AgentLLM only, offers the actions to the
	// model as one function, "take_action" with an "action" argument
	// whose enum is the action set (agent.ActionTool), and asks it to
	// call it (tool_choice "required"); the call's arguments are the
	// reply. The server must support tools (vLLM needs
	// --enable-auto-tool-choice and a --tool-call-parser). A model that
	// answers in text is still read. Default false: the reply is text.
	FunctionCalling bool `yaml:"function_calling"`
}

// agentOut is the part of AgentConfig that shapes results (not the cache).
type agentOut struct {
	Kind     string     `yaml:"kind"`
	LLM      llm.Config `yaml:"llm"`
	MaxTurns int        `yaml:"max_turns"`
	MaxTries int        `yaml:"max_tries"`
	Radius   int        `yaml:"radius"`
	History  int        `yaml:"history"`
	MaxPT    int        `yaml:"max_prompt_tokens"`
	Propose  bool       `yaml:"propose_rules,omitempty"`    // omitted when off: run IDs of earlier configs keep
	Tags     []string   `yaml:"reasoning_tags,omitempty"`   // omitted when none
	Tools    bool       `yaml:"function_calling,omitempty"` // omitted when off
}

// out returns the part of a that shapes results. With forID the llm
// block keeps only what changes replies (model, temperature, seed,
// max_tokens): how the model is reached (base_url, api_key_env,
// timeout, max_retries, retry_for, reply_retries, concurrency) is left
// at zero, so that a run can be resumed against a moved endpoint and
// keeps its ID.
func (a AgentConfig) out(forID bool) *agentOut {
	l := a.LLM
	if forID {
		l = llm.Config{Model: l.Model, Temperature: l.Temperature, Seed: l.Seed, MaxTokens: l.MaxTokens}
	}
	return &agentOut{Kind: a.Kind, LLM: l, MaxTurns: a.MaxTurns, MaxTries: a.MaxTries, Radius: a.Radius,
		History: a.History, MaxPT: a.MaxPromptTokens, Propose: a.ProposeRules, Tags: a.ReasoningTags, Tools: a.FunctionCalling}
}

// defaultAgent returns the agent section's defaults.
func defaultAgent() AgentConfig {
	return AgentConfig{Kind: AgentScripted, LLM: llm.DefaultConfig(), Cache: "readwrite", MaxTurns: 200, MaxTries: 3, Radius: 6,
		History: 2, MaxPromptTokens: 4096, MaxFallbackRate: 0.2}
}

// validate checks the agent section; the error names the field.
func (a AgentConfig) validate() error {
	switch a.Kind {
	case "", AgentScripted:
		if a.ProposeRules {
			return fmt.Errorf("propose_rules: true needs kind: llm (the rule proposer asks the agent's language model)")
		}
		if a.FunctionCalling {
			return fmt.Errorf("function_calling: true needs kind: llm (it offers the actions to the language model as a function)")
		}
		return nil
	case AgentLLM:
	default:
		return fmt.Errorf("kind: %q is not scripted or llm", a.Kind)
	}
	if err := a.LLM.Validate(); err != nil {
		return fmt.Errorf("llm.%w", err)
	}
	if _, err := llm.ParseMode(a.Cache); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	switch {
	case a.MaxTurns < 1 || a.MaxTurns > 100000:
		return fmt.Errorf("max_turns: %d is out of range, allowed [1, 100000]", a.MaxTurns)
	case a.MaxTries < 1 || a.MaxTries > 10:
		return fmt.Errorf("max_tries: %d is out of range, allowed [1, 10]", a.MaxTries)
	case a.Radius < 1 || a.Radius > 40:
		return fmt.Errorf("radius: %d is out of range, allowed [1, 40]", a.Radius)
	case a.History < 0 || a.History > 100:
		return fmt.Errorf("history: %d is out of range, allowed [0, 100]", a.History)
	case a.MaxPromptTokens < 0 || a.MaxPromptTokens > 10_000_000:
		return fmt.Errorf("max_prompt_tokens: %d is out of range, allowed [0, 10000000] (0: no limit)", a.MaxPromptTokens)
	case !(a.MaxFallbackRate >= 0 && a.MaxFallbackRate <= 1):
		return fmt.Errorf("max_fallback_rate: %v is out of range, allowed [0, 1] (a fraction of turns; 1 never stops)", a.MaxFallbackRate)
	}
	for i, t := range a.ReasoningTags {
		if !tagName.MatchString(t) {
			return fmt.Errorf("reasoning_tags[%d]: %q is not a tag name (letters, digits, _ and -, without < >)", i, t)
		}
	}
	return nil
}

var tagName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// useAgent makes env play with the configured agent (NewLLMClient, then
// AttachAgent) and returns the client, nil for the scripted agent, so
// that the run can report its statistics.
func (c *Config) useAgent(env envs.Environment, tally *agent.ReplyTally) (*llm.Client, error) {
	client, err := c.NewLLMClient()
	if err != nil || client == nil {
		return nil, err
	}
	if err := c.attachAgent(env, client, tally); err != nil {
		return nil, err
	}
	return client, nil
}

// NewLLMClient returns the client of the language-model agent, nil (and
// no error) for the scripted agent: the response cache opened in mode
// agent.cache at agent.cache_dir (the user cache dir's evolve/llm when
// ""), and the endpoint of agent.llm. Errors: a bad cache mode, a cache
// directory that cannot be made, and llm.New's (an API key variable
// named but unset).
func (c *Config) NewLLMClient() (*llm.Client, error) {
	if c.Agent.Kind != AgentLLM {
		return nil, nil
	}
	mode, err := llm.ParseMode(c.Agent.Cache)
	if err != nil {
		return nil, err
	}
	opts := llm.Options{Mode: mode}
	if mode != llm.ModeOff {
		dir := c.Agent.CacheDir
		if dir == "" {
			if dir, err = llm.DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		if opts.Cache, err = llm.OpenCache(dir); err != nil {
			return nil, err
		}
	}
	return llm.New(c.Agent.LLM, opts)
}

// AttachAgent makes env ask client (NewLLMClient's; one client may serve
// several environments, as the variants of an eval) for every turn's
// action, with the agent section's radius, tries, turns, history and
// token budget. It does nothing for the scripted agent. Errors: an
// environment without a language-model agent (a process environment in
// episode mode brings its own), or one that cannot use it (its CheckLLM).
func (c *Config) AttachAgent(env envs.Environment, client *llm.Client) error {
	return c.attachAgent(env, client, nil)
}

// attachAgent is AttachAgent with a tally of the replies that named no
// action (nil: none kept).
func (c *Config) attachAgent(env envs.Environment, client *llm.Client, tally *agent.ReplyTally) error {
	if c.Agent.Kind != AgentLLM {
		return nil
	}
	model := agent.LLMModel{Client: client}
	opt := agent.LLMOptions{Radius: c.Agent.Radius, MaxTries: c.Agent.MaxTries, MaxTurns: c.Agent.MaxTurns,
		History: c.Agent.History, MaxPromptTokens: c.Agent.MaxPromptTokens, ReasoningTags: c.Agent.ReasoningTags, Tally: tally,
		FunctionCalling: c.Agent.FunctionCalling}
	switch e := env.(type) {
	case interface {
		UseLLM(agent.ChatModel, agent.LLMOptions)
	}:
		e.UseLLM(model, opt)
	case *process.Env:
		ta := stepAgent{agent.StepAgent{Model: model, Options: opt}}
		if err := e.CheckLLM(ta); err != nil {
			return fmt.Errorf("agent: kind llm: %w", err)
		}
		e.UseLLM(ta)
	default:
		return fmt.Errorf("agent: kind llm: the %s environment has no language-model agent (a process environment brings its own, in episode mode)", c.Environment.Name)
	}
	return nil
}

// stepAgent is agent.StepAgent as the process.TextAgent of a step-mode
// process environment.
type stepAgent struct{ agent.StepAgent }

// NewTurns implements process.TextAgent.
func (a stepAgent) NewTurns() process.Turns { return a.StepAgent.NewTurns() }

// AgentIdentity names the agent that plays the episodes, for caches of
// outcomes (cache.Key.Agent): "" for the scripted agent (the environment
// plays its own), else "llm sha256:HEX", the SHA-256 of the YAML of the
// agent settings that shape an episode (kind, llm, max_turns, max_tries,
// radius, history, max_prompt_tokens, propose_rules, reasoning_tags,
// function_calling (the last three only when set); never the cache
// mode, its directory or the API key's value).
func (c *Config) AgentIdentity() string {
	if c.Agent.Kind != AgentLLM {
		return ""
	}
	data, err := yaml.Marshal(c.Agent.out(true))
	if err != nil {
		panic("experiment: encoding the agent section: " + err.Error()) // plain structs always encode
	}
	sum := sha256.Sum256(data)
	return AgentLLM + " sha256:" + hex.EncodeToString(sum[:])
}

// SystemText is the text an agent that reads the prompt is given, for an
// environment that declares info: when info.ReadsText, the layers of
// package render (guardrails first, the task and rules, the sections as
// XML blocks) with the static and computed placeholders resolved; else
// p's plain rendering (prompt.Prompt.Render). Errors are render.New's and
// Preview's (bad section declarations, an unresolved placeholder).
func SystemText(info envs.Info, p *prompt.Prompt) (string, error) {
	if !info.ReadsText {
		return p.Render(), nil
	}
	rd, err := render.New(p, render.Options{Env: render.Env{Name: info.Name, Causes: info.CauseNames()}})
	if err != nil {
		return "", err
	}
	out, err := rd.Preview(render.PhaseComputed)
	if err != nil {
		return "", err
	}
	return out.System, nil
}

// TurnRequest is the request the language-model agent sends for p on a
// turn rt in an environment that declares info (as the agent's player
// does: the system text of SystemText, for an agent that reads text,
// rendered by render.ForSystem under a budget of maxPromptTokens, 0 for
// none, then Turn). rt.Observation is the turn's message as the
// episode writes it (for the dungeon, agent.DungeonObservation of its
// text view). A placeholder of the runtime phase in p's text
// ({{observation}}, an injected section's) stays as written in the
// system message, as in a run. "evolve prompt render --vars" prints it,
// so that what it shows is what a run sends. Errors: SystemText's and
// Turn's (render.ErrOverBudget).
func TurnRequest(info envs.Info, p *prompt.Prompt, maxPromptTokens int, rt render.Runtime) (render.Rendered, error) {
	info.ReadsText = true
	system, err := SystemText(info, p)
	if err != nil {
		return render.Rendered{}, err
	}
	rd, err := render.ForSystem(system, maxPromptTokens)
	if err != nil {
		return render.Rendered{}, err
	}
	return rd.Turn(rt)
}
