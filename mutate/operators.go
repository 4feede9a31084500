package mutate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"evolve/prompt"
)

// Operator names, as recorded in a prompt's mutation history and in
// candidates.parquet.
const (
	OpThreshold    = "threshold_adjustment"
	OpSkillPrio    = "skill_priority"
	OpRiskTolerate = "risk_tolerance"
	OpMaxSteps     = "max_steps"
)

// ErrNoChange is returned by an operator whose result equals its input
// (for example a threshold already at its bound).
var ErrNoChange = errors.New("mutation leaves the parameters unchanged")

// Mutation is one proposed change of policy parameters.
type Mutation struct {
	// Operator is the operator's name, one of the Op constants.
	Operator string
	// Params are the complete new parameters (valid, different from the
	// input's).
	Params prompt.PolicyParameters
	// Description says what changed, e.g.
	// "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)".
	Description string
	// Reorder is true when the skill priority order changed: a candidate
	// version gets a minor bump then, a patch bump otherwise.
	Reorder bool
	// Cause is the failure cause this mutation addresses ("injury", ...),
	// or "" when it was proposed to fill up the candidates.
	Cause string
}

// Direction of a threshold adjustment.
type Direction int

// The directions.
const (
	Increase Direction = +1
	Decrease Direction = -1
)

// String returns "increase" or "decrease".
func (d Direction) String() string {
	if d == Increase {
		return "increase"
	}
	return "decrease"
}

// round3 rounds to 3 decimals so that repeated ±0.1 steps stay exact in
// YAML (0.1+0.2 prints as 0.3, not 0.30000000000000004).
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// AdjustThreshold moves the threshold field ("health_threshold" or
// "hunger_threshold") by delta > 0 in direction d, clamped to [0, 1] and
// rounded to 3 decimals. The description reads
// "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)". It
// returns an error for an unknown field or a non-positive delta, and
// ErrNoChange at a bound.
func AdjustThreshold(p prompt.PolicyParameters, field string, delta float64, d Direction) (Mutation, error) {
	if !(delta > 0) {
		return Mutation{}, fmt.Errorf("threshold delta must be positive, got %v", delta)
	}
	q := p.Clone()
	var v *float64
	switch field {
	case "health_threshold":
		v = &q.HealthThreshold
	case "hunger_threshold":
		v = &q.HungerThreshold
	default:
		return Mutation{}, fmt.Errorf("unknown threshold %q (want health_threshold or hunger_threshold)", field)
	}
	old := *v
	*v = round3(clamp(old+float64(d)*delta, prompt.MinThreshold, prompt.MaxThreshold))
	if *v == old {
		return Mutation{}, ErrNoChange
	}
	return Mutation{
		Operator:    OpThreshold,
		Params:      q,
		Description: fmt.Sprintf("Adjusted %s: %.3f → %.3f (%s, Δ=%.3f)", field, old, *v, d, math.Abs(*v-old)),
	}, nil
}

// Priority operations of ReorderSkills.
const (
	Prioritize   = "prioritize"   // move the skill to the front
	Deprioritize = "deprioritize" // move the skill to the back
	Rotate       = "rotate"       // move the first skill to the back
)

// ReorderSkills changes skill_priority: Prioritize moves skill to the
// front, Deprioritize to the back, Rotate moves the first skill to the back
// (skill is ignored). The description reads
// "Prioritized 'flee': [explore fight eat use_item flee] → [flee explore fight eat use_item]".
// It returns an error for an unknown operation or skill, and ErrNoChange
// when the order is already so.
func ReorderSkills(p prompt.PolicyParameters, op string, skill prompt.Skill) (Mutation, error) {
	q := p.Clone()
	old := p.SkillPriority
	var verb string
	switch op {
	case Prioritize, Deprioritize:
		if !skill.Valid() || p.Rank(skill) == len(old) {
			return Mutation{}, fmt.Errorf("unknown skill %q", skill)
		}
		rest := make([]prompt.Skill, 0, len(old))
		for _, s := range old {
			if s != skill {
				rest = append(rest, s)
			}
		}
		if op == Prioritize {
			q.SkillPriority = append([]prompt.Skill{skill}, rest...)
			verb = fmt.Sprintf("Prioritized '%s'", skill)
		} else {
			q.SkillPriority = append(rest, skill)
			verb = fmt.Sprintf("Deprioritized '%s'", skill)
		}
	case Rotate:
		if len(old) > 0 {
			q.SkillPriority = append(append([]prompt.Skill(nil), old[1:]...), old[0])
		}
		verb = "Rotated skill priority"
	default:
		return Mutation{}, fmt.Errorf("unknown priority operation %q (want prioritize, deprioritize or rotate)", op)
	}
	if q.Equal(p) {
		return Mutation{}, ErrNoChange
	}
	return Mutation{
		Operator:    OpSkillPrio,
		Params:      q,
		Description: fmt.Sprintf("%s: %s → %s", verb, skillList(old), skillList(q.SkillPriority)),
		Reorder:     true,
	}, nil
}

func skillList(s []prompt.Skill) string {
	names := make([]string, len(s))
	for i, k := range s {
		names[i] = string(k)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// RiskLabel names a risk tolerance: "conservative" below 0.35,
// "aggressive" above 0.65, "balanced" otherwise.
func RiskLabel(r float64) string {
	switch {
	case r < 0.35:
		return "conservative"
	case r > 0.65:
		return "aggressive"
	}
	return "balanced"
}

// SetRiskTolerance sets risk_tolerance to r (clamped to [0, 1], rounded to
// 3 decimals). The description reads
// "Changed risk tolerance: balanced (0.500) → aggressive (0.700)". It
// returns an error for NaN and ErrNoChange when r equals the current value.
func SetRiskTolerance(p prompt.PolicyParameters, r float64) (Mutation, error) {
	if math.IsNaN(r) {
		return Mutation{}, errors.New("risk tolerance is NaN")
	}
	q := p.Clone()
	q.RiskTolerance = round3(clamp(r, prompt.MinThreshold, prompt.MaxThreshold))
	if q.RiskTolerance == p.RiskTolerance {
		return Mutation{}, ErrNoChange
	}
	return Mutation{
		Operator: OpRiskTolerate,
		Params:   q,
		Description: fmt.Sprintf("Changed risk tolerance: %s (%.3f) → %s (%.3f)",
			RiskLabel(p.RiskTolerance), p.RiskTolerance, RiskLabel(q.RiskTolerance), q.RiskTolerance),
	}, nil
}

// SetMaxSteps sets max_exploration_steps and max_combat_attempts; a value
// of 0 leaves that field unchanged, other values are clamped to the
// field's range. The description lists each changed field, e.g.
// "Adjusted max_exploration_steps: 100 → 150". It returns ErrNoChange when
// nothing changes.
func SetMaxSteps(p prompt.PolicyParameters, explorationSteps, combatAttempts int) (Mutation, error) {
	q := p.Clone()
	var parts []string
	if explorationSteps != 0 {
		q.MaxExplorationSteps = clampInt(explorationSteps, prompt.MinExplorationSteps, prompt.MaxExplorationSteps)
		if q.MaxExplorationSteps != p.MaxExplorationSteps {
			parts = append(parts, fmt.Sprintf("max_exploration_steps: %d → %d", p.MaxExplorationSteps, q.MaxExplorationSteps))
		}
	}
	if combatAttempts != 0 {
		q.MaxCombatAttempts = clampInt(combatAttempts, prompt.MinCombatAttempts, prompt.MaxCombatAttempts)
		if q.MaxCombatAttempts != p.MaxCombatAttempts {
			parts = append(parts, fmt.Sprintf("max_combat_attempts: %d → %d", p.MaxCombatAttempts, q.MaxCombatAttempts))
		}
	}
	if len(parts) == 0 {
		return Mutation{}, ErrNoChange
	}
	return Mutation{
		Operator:    OpMaxSteps,
		Params:      q,
		Description: "Adjusted " + strings.Join(parts, "; "),
	}, nil
}

func clampInt(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
