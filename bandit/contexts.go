package bandit

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"evolve/agent"
	"evolve/envs/dungeon"
	"evolve/online"
	"evolve/params"
)

// The dungeon study's context signals, each in [0, 1] and 0 in the
// standard dungeon (dungeon.DefaultConfig). They are computed from a
// context's dungeon configuration by [Context.Signals].
const (
	// SignalTimePressure is 1 - max_turns/3000: how much shorter the turn
	// limit is than the standard 3000 turns (0 standard, 0.8 at 600).
	SignalTimePressure = "time_pressure"
	// SignalGoalNear is (20 - max_depth)/18: how much nearer the winning
	// depth is than the standard level 20 (0 standard, 1 at level 2).
	SignalGoalNear = "goal_near"
	// SignalStallRisk is 1 - no_progress_turns/300: how much sooner a
	// stalled hero is ended than the standard 300 turns (0 standard, 0.8
	// at 60).
	SignalStallRisk = "stall_risk"
)

// signalsYAML is the study's signal table, in the format of a prompt
// store's signals.yaml (online.ParseSignals), which WriteDir copies into
// the study's directory.
//
//go:embed signals.yaml
var signalsYAML []byte

// Signals returns the declared signal set of the dungeon study, for
// online.CheckSignals: SignalTimePressure, SignalGoalNear and
// SignalStallRisk, continuous in [0, 1], read from the embedded
// signals.yaml with online.ParseSignals, the mechanism evolve serve uses
// for a store's table. A fresh slice each call.
func Signals() []online.SignalSpec {
	specs, err := online.ParseSignals("bandit/signals.yaml", signalsYAML)
	if err != nil {
		panic("bandit: the embedded signal table: " + err.Error()) // a broken build, caught by TestSignalTable
	}
	return specs
}

// Context is one environment variant of the study: a dungeon
// configuration (what the dungeon can express: its turn limit, winning
// depth and no-progress limit) that a request arrives in.
type Context struct {
	// Name names the context in tables and files: 1-32 letters, digits,
	// '.', '_' or '-'.
	Name string
	// Config is the dungeon's configuration in this context; it must pass
	// dungeon.Config.Validate.
	Config dungeon.Config
	// Description says what the context changes, for the summary.
	Description string
}

// Signals returns the context's signals (see the Signal constants),
// computed from c.Config against dungeon.DefaultConfig and clamped to
// [0, 1].
func (c Context) Signals() online.Signals {
	d := dungeon.DefaultConfig()
	clamp := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	return online.Signals{
		SignalTimePressure: clamp(1 - float64(c.Config.MaxTurns)/float64(d.MaxTurns)),
		SignalGoalNear:     clamp(float64(d.MaxDepth-c.Config.MaxDepth) / float64(d.MaxDepth-2)),
		SignalStallRisk:    clamp(1 - float64(c.Config.NoProgressTurns)/float64(d.NoProgressTurns)),
	}
}

// DefaultContexts returns the study's four contexts, one per knob of
// the dungeon's configuration plus the standard dungeon:
//
//	standard   the defaults (3000 turns, level 20 wins, 300 turns without progress)
//	short      max_turns 600: a fifth of the time
//	shallow    max_depth 4: level 4 wins
//	impatient  no_progress_turns 60: stalling for 60 turns ends the episode
func DefaultContexts() []Context {
	d := dungeon.DefaultConfig()
	with := func(f func(*dungeon.Config)) dungeon.Config { c := d; f(&c); return c }
	return []Context{
		{Name: "standard", Config: d, Description: "the standard dungeon"},
		{Name: "short", Config: with(func(c *dungeon.Config) { c.MaxTurns = 600 }), Description: "max_turns 600: a fifth of the time"},
		{Name: "shallow", Config: with(func(c *dungeon.Config) { c.MaxDepth = 4 }), Description: "max_depth 4: reaching level 4 wins"},
		{Name: "impatient", Config: with(func(c *dungeon.Config) { c.NoProgressTurns = 60 }), Description: "no_progress_turns 60: 60 turns without progress end the episode"},
	}
}

// Version is one prompt version the study selects among: policy
// parameters for the scripted agent and the context weights that the
// seed's context-aware score reads (online.TotalScore).
type Version struct {
	// Name names the version in tables and files ("v1.0.0", "explorer"):
	// 1-32 letters, digits, '.', '_' or '-'.
	Name string
	// Params are the scripted agent's policy parameters; they must pass
	// agent.Schema.Validate.
	Params params.Set
	// ContextWeights are the version's context_weights (signal -> weight,
	// signals of [Signals]), set by hand from what the version was tuned
	// for; nil for none.
	ContextWeights map[string]float64
	// TunedFor says what the version was made for, for the summary.
	TunedFor string
}

// DefaultVersions returns the study's four versions, all derived from the
// base prompt's parameters (agent.BaseParameters) and each with context
// weights set by hand from what it was tuned for:
//
//	v1.0.0    the base prompt (max_exploration_steps 100)      {stall_risk: 1, time_pressure: 0.5}
//	v1.0.5    evolved on the standard dungeon (steps 200)      {time_pressure: -0.5, stall_risk: -0.5}
//	explorer  steps 400, risk_tolerance 0.8: explore each level fully
//	          when time is ample and the goal near             {goal_near: 1, time_pressure: -1, stall_risk: -1}
//	sprinter  steps 50: descend quickly when turns are few      {time_pressure: 1}
//
// The weights are intentions, not measurements: the study measures each
// version in each context, and one intention is wrong (sprinter is not
// the best version when turns are few; v1.0.0 is).
func DefaultVersions() []Version {
	b := agent.BaseParameters()
	steps := func(n int) params.Value { return params.IntegerValue(n) }
	return []Version{
		{Name: "v1.0.0", Params: b, TunedFor: "the base prompt: descend after 100 turns on a level",
			ContextWeights: map[string]float64{SignalStallRisk: 1, SignalTimePressure: 0.5}},
		{Name: "v1.0.5", Params: b.With("max_exploration_steps", steps(200)), TunedFor: "evolved on the standard dungeon (evolve run: steps 100 -> 200)",
			ContextWeights: map[string]float64{SignalTimePressure: -0.5, SignalStallRisk: -0.5}},
		{Name: "explorer", Params: b.With("max_exploration_steps", steps(400)).With("risk_tolerance", params.NumberValue(0.8)), TunedFor: "ample time and a near goal: explore every level, fight more",
			ContextWeights: map[string]float64{SignalGoalNear: 1, SignalTimePressure: -1, SignalStallRisk: -1}},
		{Name: "sprinter", Params: b.With("max_exploration_steps", steps(50)), TunedFor: "few turns: head for the stairs after 50 turns",
			ContextWeights: map[string]float64{SignalTimePressure: 1}},
	}
}

// validName reports whether s is 1-32 letters, digits, '.', '_' or '-'.
func validName(s string) bool {
	return s != "" && len(s) <= 32 && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) < 0
}

// checkContexts returns an error naming the first bad context: an invalid
// or repeated name, a dungeon configuration that fails Validate, or
// signals outside the declared set.
func checkContexts(cs []Context) error {
	if len(cs) == 0 {
		return fmt.Errorf("contexts: none")
	}
	seen := map[string]bool{}
	for i, c := range cs {
		switch {
		case !validName(c.Name):
			return fmt.Errorf("contexts[%d]: name %q: want 1-32 letters, digits, '.', '_' or '-'", i, c.Name)
		case seen[c.Name]:
			return fmt.Errorf("contexts[%d]: name %q is given twice", i, c.Name)
		}
		seen[c.Name] = true
		if err := c.Config.Validate(); err != nil {
			return fmt.Errorf("contexts[%d] (%s): %w", i, c.Name, err)
		}
		if err := online.CheckSignals(Signals(), c.Signals()); err != nil {
			return fmt.Errorf("contexts[%d] (%s): %w", i, c.Name, err)
		}
	}
	return nil
}

// checkVersions returns an error naming the first bad version: fewer
// than two, an invalid or repeated name, parameters that fail
// agent.Schema.Validate, or context weights naming an undeclared signal
// or not finite.
func checkVersions(vs []Version) error {
	if len(vs) < 2 {
		return fmt.Errorf("versions: %d given, a selection needs at least 2", len(vs))
	}
	declared := map[string]bool{}
	for _, s := range Signals() {
		declared[s.Name] = true
	}
	seen := map[string]bool{}
	for i, v := range vs {
		switch {
		case !validName(v.Name):
			return fmt.Errorf("versions[%d]: name %q: want 1-32 letters, digits, '.', '_' or '-'", i, v.Name)
		case seen[v.Name]:
			return fmt.Errorf("versions[%d]: name %q is given twice", i, v.Name)
		}
		seen[v.Name] = true
		if err := agent.Schema.Validate(v.Params); err != nil {
			return fmt.Errorf("versions[%d] (%s): %w", i, v.Name, err)
		}
		for _, s := range slices.Sorted(maps.Keys(v.ContextWeights)) {
			w := v.ContextWeights[s]
			if !declared[s] {
				return fmt.Errorf("versions[%d] (%s): context_weights: %q is not a signal of the study (declared: %s, %s, %s)",
					i, v.Name, s, SignalTimePressure, SignalGoalNear, SignalStallRisk)
			}
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("versions[%d] (%s): context_weights: %s = %v is not a finite number", i, v.Name, s, w)
			}
		}
	}
	return nil
}
