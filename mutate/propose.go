package mutate

import (
	"errors"
	"fmt"

	"evolve/failure"
	"evolve/prompt"
)

// Config holds the proposer's step sizes.
type Config struct {
	// Candidates is k, the most candidates proposed per generation, >= 1.
	Candidates int `yaml:"candidates" json:"candidates"`
	// ThresholdDelta is the step of health_threshold and hunger_threshold,
	// in (0, 1].
	ThresholdDelta float64 `yaml:"threshold_delta" json:"threshold_delta"`
	// RiskDelta is the step of risk_tolerance, in (0, 1].
	RiskDelta float64 `yaml:"risk_delta" json:"risk_delta"`
	// ExplorationDelta is the step of max_exploration_steps, in turns, >= 1.
	ExplorationDelta int `yaml:"exploration_delta" json:"exploration_delta"`
	// CombatDelta is the step of max_combat_attempts, >= 1.
	CombatDelta int `yaml:"combat_delta" json:"combat_delta"`
}

// DefaultConfig returns k = 4 candidates, threshold steps of 0.1, risk
// steps of 0.2, exploration steps of 50 turns and combat steps of 2.
func DefaultConfig() Config {
	return Config{Candidates: 4, ThresholdDelta: 0.1, RiskDelta: 0.2, ExplorationDelta: 50, CombatDelta: 2}
}

// Validate returns an error naming the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Candidates < 1 || c.Candidates > 64:
		return fmt.Errorf("candidates: %d is out of range, allowed [1, 64]", c.Candidates)
	case !(c.ThresholdDelta > 0 && c.ThresholdDelta <= 1):
		return fmt.Errorf("threshold_delta: %v is out of range, allowed (0, 1]", c.ThresholdDelta)
	case !(c.RiskDelta > 0 && c.RiskDelta <= 1):
		return fmt.Errorf("risk_delta: %v is out of range, allowed (0, 1]", c.RiskDelta)
	case c.ExplorationDelta < 1 || c.ExplorationDelta > prompt.MaxExplorationSteps:
		return fmt.Errorf("exploration_delta: %d is out of range, allowed [1, %d]", c.ExplorationDelta, prompt.MaxExplorationSteps)
	case c.CombatDelta < 1 || c.CombatDelta > prompt.MaxCombatAttempts:
		return fmt.Errorf("combat_delta: %d is out of range, allowed [1, %d]", c.CombatDelta, prompt.MaxCombatAttempts)
	}
	return nil
}

// remedy is one way to answer a failure cause.
type remedy func(p prompt.PolicyParameters, c Config) (Mutation, error)

// Remedies maps each failure cause to its remedies, most direct first.
// The first of each follows the reference design's table:
//
//	injury      more conservative health_threshold; prioritise use_item; more combat attempts (stop turning your back)
//	combat_loss prioritise flee; lower risk_tolerance; higher health_threshold
//	starvation  lower hunger_threshold (eat earlier); prioritise eat
//	entrapment  more max_exploration_steps; deprioritise flee (stop oscillating)
var Remedies = map[failure.Cause][]string{
	failure.Injury:     {"health_threshold+", "prioritize use_item", "max_combat_attempts+"},
	failure.CombatLoss: {"prioritize flee", "risk_tolerance-", "health_threshold+"},
	failure.Starvation: {"hunger_threshold-", "prioritize eat"},
	failure.Entrapment: {"max_exploration_steps+", "deprioritize flee"},
}

var remedyFuncs = map[string]remedy{
	"health_threshold+": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return AdjustThreshold(p, "health_threshold", c.ThresholdDelta, Increase)
	},
	"hunger_threshold-": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return AdjustThreshold(p, "hunger_threshold", c.ThresholdDelta, Decrease)
	},
	"risk_tolerance-": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return SetRiskTolerance(p, p.RiskTolerance-c.RiskDelta)
	},
	"max_exploration_steps+": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return SetMaxSteps(p, p.MaxExplorationSteps+c.ExplorationDelta, 0)
	},
	"max_combat_attempts+": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return SetMaxSteps(p, 0, p.MaxCombatAttempts+c.CombatDelta)
	},
	"prioritize use_item": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return ReorderSkills(p, Prioritize, prompt.SkillUseItem)
	},
	"prioritize flee": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return ReorderSkills(p, Prioritize, prompt.SkillFlee)
	},
	"prioritize eat": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return ReorderSkills(p, Prioritize, prompt.SkillEat)
	},
	"deprioritize flee": func(p prompt.PolicyParameters, c Config) (Mutation, error) {
		return ReorderSkills(p, Deprioritize, prompt.SkillFlee)
	},
}

// Propose returns up to c.Candidates distinct mutations of p that answer
// the failures in a, in the order of the package's steps. Every returned
// Params is valid and differs from p and from each other. The result is a
// deterministic function of (a, p, c). It returns an error only for an
// invalid p or c; with no failures it proposes fill-ups (a rotation and
// risk and exploration steps) so that a generation is never empty.
func Propose(a failure.Analysis, p prompt.PolicyParameters, c Config) ([]Mutation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var out []Mutation
	add := func(m Mutation) {
		if len(out) >= c.Candidates || m.Params.Equal(p) {
			return
		}
		for _, o := range out {
			if o.Params.Equal(m.Params) {
				return
			}
		}
		out = append(out, m)
	}
	ranked := a.Ranked()
	for round := 0; len(out) < c.Candidates; round++ {
		any := false
		for _, cause := range ranked {
			rs := Remedies[cause]
			if round >= len(rs) {
				continue
			}
			any = true
			m, err := remedyFuncs[rs[round]](p, c)
			if errors.Is(err, ErrNoChange) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("remedy %q for %s: %w", rs[round], cause, err)
			}
			m.Cause = cause.String()
			add(m)
		}
		if !any {
			break
		}
	}
	// Fill-ups: explore the neighbourhood when failures suggest too little.
	fill := []func() (Mutation, error){
		func() (Mutation, error) { return ReorderSkills(p, Rotate, "") },
		func() (Mutation, error) { return SetRiskTolerance(p, p.RiskTolerance+c.RiskDelta) },
		func() (Mutation, error) { return SetMaxSteps(p, p.MaxExplorationSteps+c.ExplorationDelta, 0) },
		func() (Mutation, error) { return SetMaxSteps(p, 0, p.MaxCombatAttempts+c.CombatDelta) },
	}
	for _, f := range fill {
		if m, err := f(); err == nil {
			add(m)
		}
	}
	return out, nil
}
