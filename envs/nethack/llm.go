package nethack

import (
	"context"
	"fmt"
	"strings"

	"evolve/agent"
	"evolve/envs"
)

// Action is one action of the set the language-model agent chooses from:
// its name (what the model answers) and what it does in the game.
type Action struct {
	Name string
	Doc  string
	d    decision
}

// Actions is the declared action set of the LLM agent on NetHack, in the
// order the model is shown them: the eight moves and attacks by compass
// direction (north is up), search, rest, travel to the known '>' and
// descend, eat and quaff (the first item offered), pray, and explore (one
// step of the scripted agent's exploration toward unexplored squares).
var Actions = func() []Action {
	names := [8]string{"west", "south", "north", "east", "northwest", "northeast", "southwest", "southeast"}
	var out []Action
	for i, n := range names {
		out = append(out, Action{Name: "move_" + n, Doc: "step " + n + " (into a monster: attack it)", d: decision{keys: string(dirKeys[i]), skill: "move"}})
	}
	for i, n := range names {
		out = append(out, Action{Name: "attack_" + n, Doc: "fight the monster to the " + n, d: decision{keys: "F" + string(dirKeys[i]), skill: agent.SkillFight, fight: true}})
	}
	return append(out,
		Action{Name: "search", Doc: "search for hidden doors for 1 turn", d: decision{keys: "s", skill: "search"}},
		Action{Name: "rest", Doc: "rest (search) for 10 turns to regain HP", d: decision{keys: "10s", skill: "rest"}},
		Action{Name: "descend", Doc: "go down the staircase you stand on (>)", d: decision{keys: ">", skill: "descend"}},
		Action{Name: "travel_downstairs", Doc: "travel to the down staircase > you have seen", d: decision{keys: "_>.", skill: "descend", travel: true}},
		Action{Name: "eat", Doc: "eat the first food you carry", d: decision{item: 'e', skill: agent.SkillEat}},
		Action{Name: "quaff", Doc: "drink the first potion you carry", d: decision{item: 'q', skill: agent.SkillUseItem}},
		Action{Name: "pray", Doc: "pray to your god (safe about once every 1000 turns, when HP is below 1/7)", d: decision{keys: "#pray\r", skill: agent.SkillUseItem}},
		Action{Name: "explore", Doc: "take one step toward the nearest unexplored square", d: decision{skill: agent.SkillExplore}},
	)
}()

// ActionNames returns the names of Actions, in order.
func ActionNames() []string {
	out := make([]string, len(Actions))
	for i, a := range Actions {
		out[i] = a.Name
	}
	return out
}

// llmSetup is the language model the players ask, set by UseLLM.
type llmSetup struct {
	model agent.ChatModel
	opt   agent.LLMOptions
}

// UseLLM makes the players ask model for every action instead of running
// Scripted: the system prompt is the episode's rendered prompt text, the
// user message the screen as text (ObservationText) with the action set;
// replies are parsed, corrected and fallen back on exactly as on the
// dungeon (agent.Session, agent.ParseChoice, agent.CorrectionFor). The
// fallback is the scripted agent's action under the prompt's policy
// parameters. opt.MaxTurns (else the step budget) caps an episode's
// actions. Info then declares agent.LLMMetrics after Metrics, ReadsText,
// and Rules. Call it before NewPlayer.
func (e *Env) UseLLM(model agent.ChatModel, opt agent.LLMOptions) {
	if opt.MaxTurns > 0 {
		e.budget = opt.MaxTurns
	}
	e.llm = &llmSetup{model: model, opt: opt}
}

// newPolicy returns an episode's LLM policy; rc is the player's own
// renderer cache.
func (l *llmSetup) newPolicy(ep envs.Episode, rc *agent.RendererCache) (policy, error) {
	rd, err := rc.Get(ep.Prompt, l.opt.MaxPromptTokens)
	if err != nil {
		return nil, err
	}
	p := ep.Params
	if Schema.Validate(p) != nil {
		p = BaseParameters()
	}
	return &llmPolicy{s: agent.NewSession(l.model, rd, l.opt), fb: NewScripted(p), names: ActionNames()}, nil
}

// llmPolicy asks the model through an agent.Session.
type llmPolicy struct {
	s     *agent.Session
	fb    *Scripted // the fallback, and the explore action's step
	names []string
	turn  int
}

func (p *llmPolicy) act(ctx context.Context, s *Screen, st Status) (decision, error) {
	p.turn++
	fb := p.fb.act(s, st) // keeps the scripted agent's level memory current
	parse := func(reply string) (int, error) { return agent.ParseChoice(reply, p.names) }
	correct := func(err error) string { return agent.CorrectionFor(err, p.names) }
	i, ok, err := p.s.Choose(ctx, p.turn, ObservationText(s), parse, correct)
	if err != nil {
		return decision{}, err
	}
	if !ok {
		return fb, nil
	}
	d := Actions[i].d
	if Actions[i].Name == "explore" {
		hx, hy, found := s.Hero()
		if dir, ok := p.fb.frontierStep(s, hx, hy); found && ok {
			return decision{keys: string(dirKeys[dir]), skill: agent.SkillExplore}, nil
		}
		return decision{keys: "s", skill: "search"}, nil
	}
	return d, nil
}

func (p *llmPolicy) metrics() []envs.MetricValue { return p.s.Metrics() }

// ObservationText is what the model reads each action: the message line,
// the map rows that show anything (with their row numbers; the hero is
// '@'), the two status lines, and the action set with what each does.
func ObservationText(s *Screen) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Message: %s\n\nMap:\n", s.Message())
	for y := 0; y < MapRows; y++ {
		if r := strings.TrimRight(string(s.Grid[y+1][:]), " "); r != "" {
			fmt.Fprintf(&b, "%2d|%s\n", y, r)
		}
	}
	fmt.Fprintf(&b, "\nStatus:\n%s\n%s\n\nActions:\n", s.Row(22), s.Row(23))
	for _, a := range Actions {
		fmt.Fprintf(&b, "- %s: %s\n", a.Name, a.Doc)
	}
	b.WriteString("\nAnswer with one line: ACTION: <name>\n")
	return b.String()
}
