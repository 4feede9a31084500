package prompt

import (
	"fmt"
	"math"
	"strings"
)

// Skill names one of the five frozen actions of the agent's vocabulary.
// The set is fixed by the prompt's skill_descriptions; mutation may only
// reorder skills, never invent one.
type Skill string

// The five skills, in the order of the base prompt's skill_priority.
const (
	SkillExplore Skill = "explore"
	SkillFight   Skill = "fight"
	SkillEat     Skill = "eat"
	SkillUseItem Skill = "use_item"
	SkillFlee    Skill = "flee"
)

// Skills lists every valid skill once, in the base prompt's priority order.
// Callers must not modify it.
var Skills = []Skill{SkillExplore, SkillFight, SkillEat, SkillUseItem, SkillFlee}

// Valid reports whether s is one of Skills.
func (s Skill) Valid() bool {
	for _, k := range Skills {
		if s == k {
			return true
		}
	}
	return false
}

// Ranges of the policy parameters. Validate enforces them and mutation
// operators clamp to them.
const (
	MinThreshold        = 0.0  // lower bound of health_threshold, hunger_threshold, risk_tolerance
	MaxThreshold        = 1.0  // upper bound of the same three fractions
	MinExplorationSteps = 10   // lower bound of max_exploration_steps (turns per level)
	MaxExplorationSteps = 2000 // upper bound of max_exploration_steps
	MinCombatAttempts   = 1    // lower bound of max_combat_attempts (exchanges per encounter)
	MaxCombatAttempts   = 20   // upper bound of max_combat_attempts
)

// PolicyParameters is the mutable part of a prompt: the interpretable
// hyperparameters that steer the scripted agent. Everything else in a prompt
// is frozen.
type PolicyParameters struct {
	// HealthThreshold in [0, 1]: below this HP fraction the agent quaffs a
	// healing potion if it has one, and otherwise flees.
	HealthThreshold float64 `yaml:"health_threshold" json:"health_threshold"`
	// HungerThreshold in [0, 1]: above this hunger fraction (0 satiated,
	// 1 starving) the agent eats if it carries food.
	HungerThreshold float64 `yaml:"hunger_threshold" json:"hunger_threshold"`
	// MaxExplorationSteps in [10, 2000] turns: after this many turns on a
	// level the agent stops exploring and heads for the down staircase.
	MaxExplorationSteps int `yaml:"max_exploration_steps" json:"max_exploration_steps"`
	// MaxCombatAttempts in [1, 20]: the most melee exchanges the agent
	// takes in one encounter before it gives up and flees.
	MaxCombatAttempts int `yaml:"max_combat_attempts" json:"max_combat_attempts"`
	// RiskTolerance in [0, 1]: 0 is conservative, 1 aggressive. It decides
	// whether to engage a monster given its estimated danger and whether to
	// descend while hurt.
	RiskTolerance float64 `yaml:"risk_tolerance" json:"risk_tolerance"`
	// SkillPriority is a permutation of Skills: the order in which
	// applicable skills are tried each turn.
	SkillPriority []Skill `yaml:"skill_priority" json:"skill_priority"`
}

// BaseParameters returns the policy parameters of the base prompt v1.0.0,
// those of the reference design: health 0.3, hunger 0.5, exploration 100,
// combat 3, risk 0.5, priority [explore, fight, eat, use_item, flee].
func BaseParameters() PolicyParameters {
	return PolicyParameters{
		HealthThreshold:     0.3,
		HungerThreshold:     0.5,
		MaxExplorationSteps: 100,
		MaxCombatAttempts:   3,
		RiskTolerance:       0.5,
		SkillPriority:       append([]Skill(nil), Skills...),
	}
}

// IsZero reports whether p is the zero value, which stands for "no
// policy parameters" (a valid p always has a skill priority).
func (p PolicyParameters) IsZero() bool {
	return p.SkillPriority == nil && p.HealthThreshold == 0 && p.HungerThreshold == 0 &&
		p.MaxExplorationSteps == 0 && p.MaxCombatAttempts == 0 && p.RiskTolerance == 0
}

// Clone returns a deep copy of p (SkillPriority is copied).
func (p PolicyParameters) Clone() PolicyParameters {
	p.SkillPriority = append([]Skill(nil), p.SkillPriority...)
	return p
}

// Equal reports whether p and q have the same values, including the order
// of SkillPriority.
func (p PolicyParameters) Equal(q PolicyParameters) bool {
	if p.HealthThreshold != q.HealthThreshold || p.HungerThreshold != q.HungerThreshold ||
		p.MaxExplorationSteps != q.MaxExplorationSteps || p.MaxCombatAttempts != q.MaxCombatAttempts ||
		p.RiskTolerance != q.RiskTolerance || len(p.SkillPriority) != len(q.SkillPriority) {
		return false
	}
	for i := range p.SkillPriority {
		if p.SkillPriority[i] != q.SkillPriority[i] {
			return false
		}
	}
	return true
}

// String formats p on one line, e.g.
// "health=0.300 hunger=0.500 explore=100 combat=3 risk=0.500 priority=[explore fight eat use_item flee]".
func (p PolicyParameters) String() string {
	names := make([]string, len(p.SkillPriority))
	for i, s := range p.SkillPriority {
		names[i] = string(s)
	}
	return fmt.Sprintf("health=%.3f hunger=%.3f explore=%d combat=%d risk=%.3f priority=[%s]",
		p.HealthThreshold, p.HungerThreshold, p.MaxExplorationSteps, p.MaxCombatAttempts,
		p.RiskTolerance, strings.Join(names, " "))
}

// ParamError reports a policy parameter outside its allowed range.
type ParamError struct {
	Field   string // YAML name, e.g. "health_threshold" or "skill_priority[2]"
	Value   string // the offending value as written
	Allowed string // the allowed range or set, e.g. "[0, 1]"
	// Problem says what is wrong with Value; "" means "is out of range".
	Problem string
}

// Error returns "policy_parameters.FIELD: VALUE PROBLEM, allowed ALLOWED".
func (e *ParamError) Error() string { return "policy_parameters." + e.Field + ": " + e.Detail() }

// Detail is the error without the field: "VALUE PROBLEM, allowed ALLOWED".
func (e *ParamError) Detail() string {
	problem := e.Problem
	if problem == "" {
		problem = "is out of range"
	}
	return fmt.Sprintf("%s %s, allowed %s", e.Value, problem, e.Allowed)
}

// Validate checks every field of p against its documented range and returns
// a *ParamError for the first field that is out of range, NaN, or (for
// skill_priority) not a permutation of Skills.
func (p PolicyParameters) Validate() error {
	fracs := []struct {
		name string
		v    float64
	}{
		{"health_threshold", p.HealthThreshold},
		{"hunger_threshold", p.HungerThreshold},
		{"risk_tolerance", p.RiskTolerance},
	}
	for _, f := range fracs {
		if math.IsNaN(f.v) || f.v < MinThreshold || f.v > MaxThreshold {
			return &ParamError{Field: f.name, Value: fmt.Sprint(f.v), Allowed: "[0, 1]"}
		}
	}
	if p.MaxExplorationSteps < MinExplorationSteps || p.MaxExplorationSteps > MaxExplorationSteps {
		return &ParamError{Field: "max_exploration_steps", Value: fmt.Sprint(p.MaxExplorationSteps),
			Allowed: fmt.Sprintf("[%d, %d]", MinExplorationSteps, MaxExplorationSteps)}
	}
	if p.MaxCombatAttempts < MinCombatAttempts || p.MaxCombatAttempts > MaxCombatAttempts {
		return &ParamError{Field: "max_combat_attempts", Value: fmt.Sprint(p.MaxCombatAttempts),
			Allowed: fmt.Sprintf("[%d, %d]", MinCombatAttempts, MaxCombatAttempts)}
	}
	allowed := "a permutation of [explore fight eat use_item flee]"
	if len(p.SkillPriority) != len(Skills) {
		return &ParamError{Field: "skill_priority", Value: fmt.Sprint(p.SkillPriority), Allowed: allowed}
	}
	seen := make(map[Skill]int, len(Skills))
	for i, s := range p.SkillPriority {
		field := fmt.Sprintf("skill_priority[%d]", i)
		if !s.Valid() {
			return &ParamError{Field: field, Value: fmt.Sprintf("%q", s), Problem: "is not a skill", Allowed: allowed}
		}
		if j, ok := seen[s]; ok {
			return &ParamError{Field: field, Value: fmt.Sprintf("%q", s), Problem: fmt.Sprintf("repeats skill_priority[%d]", j), Allowed: allowed}
		}
		seen[s] = i
	}
	return nil
}

// Rank returns the position of s in p.SkillPriority (0 = tried first), or
// len(p.SkillPriority) if s is absent.
func (p PolicyParameters) Rank(s Skill) int {
	for i, k := range p.SkillPriority {
		if k == s {
			return i
		}
	}
	return len(p.SkillPriority)
}
