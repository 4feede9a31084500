package nethack

import (
	"context"
	"fmt"
	"strings"

	"evolve/agent"
	"evolve/envs"
	nh "evolve/envs/nethack"
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
		out = append(out, Action{Name: "move_" + n, Doc: "step " + n + " (into a monster: attack it)", d: decision{keys: string(nh.DirKeys[i]), skill: "move"}})
	}
	for i, n := range names {
		out = append(out, Action{Name: "attack_" + n, Doc: "fight the monster to the " + n, d: decision{keys: "F" + string(nh.DirKeys[i]), skill: agent.SkillFight, fight: true}})
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
	opt := l.opt
	opt.Actions = ActionNames()
	opt.Record = ep.Record
	return &llmPolicy{s: agent.NewSession(l.model, rd, opt), fb: NewScripted(p), names: opt.Actions}, nil
}

// MessageHistory is how many earlier messages the LLM agent's observation
// shows (View.History), the most recent ones.
const MessageHistory = 12

// llmPolicy asks the model through an agent.Session.
type llmPolicy struct {
	s     *agent.Session
	fb    *Scripted // the fallback, and the explore action's step
	names []string
	turn  int
	view  View     // what the play loop gathered for this action (see)
	hist  []string // earlier messages, "T:n message", at most MessageHistory
}

// see implements viewer.
func (p *llmPolicy) see(v View) { p.view = v }

func (p *llmPolicy) act(ctx context.Context, s *Screen, st Status) (decision, error) {
	p.turn++
	fb := p.fb.act(s, st) // keeps the scripted agent's level memory current
	parse := func(reply string) (int, error) { return agent.ParseChoice(reply, p.names) }
	correct := func(err error) string { return agent.CorrectionFor(err, p.names) }
	v := p.view
	v.History = p.hist
	obs := ObservationText(s, v)
	for _, m := range v.Messages {
		p.hist = append(p.hist, fmt.Sprintf("T:%d %s", st.T, m))
	}
	if n := len(p.hist); n > MessageHistory {
		p.hist = append(p.hist[:0:0], p.hist[n-MessageHistory:]...)
	}
	i, ok, err := p.s.Choose(ctx, p.turn, obs, parse, correct)
	if err != nil {
		return decision{}, err
	}
	if !ok {
		p.s.NoteAction(p.turn, fb.skill, true)
		return fb, nil
	}
	p.s.NoteAction(p.turn, Actions[i].Name, false)
	d := Actions[i].d
	if Actions[i].Name == "explore" {
		hx, hy, found := s.Hero()
		if dir, ok := p.fb.frontierStep(s, hx, hy); found && ok {
			return decision{keys: string(nh.DirKeys[dir]), skill: agent.SkillExplore}, nil
		}
		return decision{keys: "s", skill: "search"}, nil
	}
	return d, nil
}

func (p *llmPolicy) metrics() []envs.MetricValue { return p.s.Metrics() }

// ObservationText is what the model reads each action: every message
// since its last action (the --More-- pages included), the earlier
// messages of v.History with their game turns, the map rows that show
// anything (with their row numbers; the hero is '@'), the hero's
// position, the two status lines, the inventory, and the action set with
// what each does.
func ObservationText(s *Screen, v View) string {
	var b strings.Builder
	b.WriteString("Messages since your last action:\n")
	if len(v.Messages) == 0 {
		b.WriteString("(none)\n")
	}
	for _, m := range v.Messages {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	if len(v.History) > 0 {
		b.WriteString("\nEarlier messages (oldest first):\n")
		for _, m := range v.History {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	b.WriteString("\nMap (y|row; x counts characters after the |, from 0):\n")
	for y := 0; y < MapRows; y++ {
		if r := strings.TrimRight(string(s.Grid[y+1][:]), " "); r != "" {
			fmt.Fprintf(&b, "%2d|%s\n", y, r)
		}
	}
	switch {
	case !v.HeroOK:
		b.WriteString("\nYou: not found on the map\n")
	case v.HeroByCursor:
		fmt.Fprintf(&b, "\nYou: x=%d, y=%d (shown as %q, not @: you may be polymorphed, invisible or hallucinating)\n", v.HeroX, v.HeroY, s.MapCell(v.HeroX, v.HeroY))
	default:
		fmt.Fprintf(&b, "\nYou: @ at x=%d, y=%d\n", v.HeroX, v.HeroY)
	}
	fmt.Fprintf(&b, "\nStatus:\n%s\n%s\n", s.Row(22), s.Row(23))
	if v.Inventory != nil || v.InventoryT > 0 {
		fmt.Fprintf(&b, "\nInventory (as of turn %d):\n", v.InventoryT)
		if len(v.Inventory) == 0 {
			b.WriteString("(nothing)\n")
		}
		for _, l := range v.Inventory {
			fmt.Fprintf(&b, "%s\n", l)
		}
	}
	b.WriteString("\nActions:\n")
	for _, a := range Actions {
		fmt.Fprintf(&b, "- %s: %s\n", a.Name, a.Doc)
	}
	b.WriteString("\nAnswer with one line: ACTION: <name>\n")
	return b.String()
}
