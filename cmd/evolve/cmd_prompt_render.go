package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"evolve/agent"
	"evolve/envs"
	"evolve/experiment"
	"evolve/prompt"
	"evolve/render"
)

// cmdPromptRender is evolve prompt render.
var cmdPromptRender = &Command{
	UsageLine: "evolve prompt render [flags] REF",
	Short:     "the messages a model reads: layers, XML sections, placeholders, tokens",
	Long: `
Print the version REF names (or "embedded", the embedded base prompt) as
the messages a language model reads: the system message (the guardrail
layer first, then the task, rules, skills and policy parameters, then the
sections as XML blocks in their declared order), the history, and the
turn's user message.

--phase says how far placeholders are resolved: static ({{slug}},
{{version}}, ...) or computed (also {{param.NAME}}, {{env.name}},
{{causes}}); later phases' placeholders are printed as written. runtime
prints the request a run's language-model agent sends on the turn --vars
describes, by the run's own code path: the computed system message
(where a runtime placeholder of the prompt, such as {{observation}} in
a section, stays as written, as a run sends it), the history, and the
turn's message "Turn N." and the observation (with --env dungeon, the
line of valid actions and the reply format after it). The default is
runtime with --vars, else computed.

--vars FILE is a YAML or JSON file of the turn (unknown keys are errors):

	turn: 12
	observation: |
	  |..<.@d.|
	  HP:10(12) Hungry
	history:
	  - {role: user, content: "Turn 11. ..."}
	  - {role: assistant, content: fight}
	vars: {session_context: "Level 1"}

--max-prompt-tokens N drops history oldest first, then cuts the user
message, to fit N cl100k_base tokens. --tokens prints only the token
count (cl100k_base, with the chat overhead of each message). --json
prints {"phase", "turn", "system", "messages", "tokens", "system_tokens",
"history_tokens", "runtime_tokens", "dropped", "truncated"}.`,
	SetFlags: promptRenderFlags,
	Run:      runPromptRender,
}

// promptRenderFlagValues are the flags of evolve prompt render.
type promptRenderFlagValues struct {
	promptOpts
	varsFile  string
	phaseName string
	tokens    bool
	envName   string
	maxTokens int
}

// promptRenderFlags defines the flags of evolve prompt render on fs.
func promptRenderFlags(fs *flag.FlagSet) any {
	o := new(promptRenderFlagValues)
	o.define(fs, false)
	fs.StringVar(&o.varsFile, "vars", "", "the turn's runtime values: a YAML or JSON `FILE` (turn, observation, history, vars)")
	fs.StringVar(&o.phaseName, "phase", "", "resolve placeholders up to `PHASE`: static, computed or runtime (default runtime with --vars, else computed)")
	fs.BoolVar(&o.tokens, "tokens", false, "print only the cl100k_base token count")
	fs.StringVar(&o.envName, "env", "dungeon", "the environment `NAME` of {{env.name}} and {{causes}} (\"\" for none)")
	fs.IntVar(&o.maxTokens, "max-prompt-tokens", 0, "the token budget `N` (0 for none)")
	return o
}

// runPromptRender is evolve prompt render.
func runPromptRender(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptRenderFlagValues)
	if len(args) != 1 {
		return usagef("want one REF, got %s", plural(len(args), "argument", "arguments"))
	}
	phase := render.PhaseComputed
	if o.varsFile != "" {
		phase = render.PhaseRuntime
	}
	if o.phaseName != "" {
		var err error
		if phase, err = render.ParsePhase(o.phaseName); err != nil {
			return usagef("--phase: %v", err)
		}
	}
	if o.maxTokens < 0 {
		return usagef("--max-prompt-tokens must be >= 0 (0 for none), got %d", o.maxTokens)
	}
	if phase == render.PhaseRuntime && o.varsFile == "" {
		return usagef("--phase runtime renders a turn: give the turn's observation with --vars FILE")
	}
	var rt render.Runtime
	if o.varsFile != "" {
		if phase != render.PhaseRuntime {
			return usagef("--vars gives runtime values: it needs --phase runtime, not %s", phase)
		}
		var err error
		if rt, err = readRenderVars(o.varsFile); err != nil {
			return err
		}
	}
	p, err := renderPrompt(&o.promptOpts, args[0])
	if err != nil {
		return err
	}
	opts := render.Options{MaxPromptTokens: o.maxTokens}
	var info envs.Info
	if o.envName != "" {
		if info, err = renderEnv(o.envName); err != nil {
			return err
		}
		opts.Env = render.Env{Name: info.Name, Causes: info.CauseNames()}
	}
	var out render.Rendered
	if phase == render.PhaseRuntime {
		// What a run sends: one code path (experiment.TurnRequest).
		if o.envName == "dungeon" {
			rt.Observation = agent.DungeonObservation(rt.Observation)
		}
		out, err = experiment.TurnRequest(info, p, o.maxTokens, rt)
	} else {
		var r *render.Renderer
		if r, err = render.New(p, opts); err == nil {
			out, err = r.Preview(phase)
		}
	}
	if err != nil {
		return err
	}
	switch {
	case o.json:
		return printJSON(cmd.Stdout, struct {
			Phase render.Phase `json:"phase"`
			render.Rendered
		}{phase, out})
	case o.tokens:
		_, err = fmt.Fprintf(cmd.Stdout, "%d tokens (%s: system %d, history %d, runtime %d, reply %d); dropped %d, truncated %v\n",
			out.Tokens, render.Encoding, out.SystemTokens, out.HistoryTokens, out.RuntimeTokens, render.ReplyOverhead, out.Dropped, out.Truncated)
		return err
	}
	for _, m := range out.Messages {
		if _, err := fmt.Fprintf(cmd.Stdout, "=== %s\n%s\n", m.Role, m.Content); err != nil {
			return err
		}
	}
	return nil
}

// renderPrompt returns the resolved prompt REF names: "embedded" is the
// embedded base prompt, anything else a store ref (see cliRef).
func renderPrompt(o *promptOpts, arg string) (*prompt.Prompt, error) {
	if arg == "embedded" {
		return prompt.Base(), nil
	}
	s, g, err := o.openGraph()
	if err != nil {
		return nil, err
	}
	ref, err := cliRef(g, arg)
	if err != nil {
		return nil, err
	}
	res, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	return res.Prompt, nil
}

// renderEnv returns the Info of the registered environment name, built
// with its default configuration.
func renderEnv(name string) (envs.Info, error) {
	f, err := envs.Lookup(name)
	if err != nil {
		return envs.Info{}, fmt.Errorf("--env: %w", err)
	}
	e, err := f.New(f.Config())
	if err != nil {
		return envs.Info{}, fmt.Errorf("--env %s: %w", name, err)
	}
	return e.Info(), nil
}

// readRenderVars reads a --vars file (render.DecodeRuntime: strict YAML
// or JSON; errors name the file).
func readRenderVars(path string) (render.Runtime, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return render.Runtime{}, fmt.Errorf("--vars: %w", err)
	}
	rt, err := render.DecodeRuntime(path, data)
	if err != nil {
		return rt, fmt.Errorf("--vars %w", err)
	}
	return rt, nil
}
