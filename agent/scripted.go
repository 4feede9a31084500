package agent

import (
	"evolve/envs"
	"evolve/prompt"
)

// Agent chooses one action per turn from an observation. Implementations
// are deterministic functions of the parameters they were built with and
// the observations they have seen since Reset.
type Agent interface {
	// Reset forgets everything about the previous episode.
	Reset()
	// Act returns the action for the turn described by o.
	Act(o *envs.Observation) envs.Action
}

// Scripted is the scripted policy agent. Each turn it tries the skills in
// the order of SkillPriority and takes the first that applies:
//
//   - explore applies when no monster is adjacent, HP is at or above
//     health_threshold (or no potion is left), and hunger is at or below
//     hunger_threshold (or no food is left). It walks to the nearest
//     unexplored tile or seen item; after max_exploration_steps turns on a
//     level (or with nothing left to explore) it heads for the down
//     staircase and descends, unless its HP fraction is below
//     (1 - risk_tolerance)/2, in which case it rests.
//   - fight applies when a monster is adjacent, the estimated danger of the
//     nearest monster is at most risk_tolerance, and fewer than
//     max_combat_attempts attacks were made in this encounter.
//   - eat applies when hunger exceeds hunger_threshold and food is carried.
//   - use_item applies when the HP fraction is below health_threshold and a
//     potion of healing is carried.
//   - flee applies when a monster is within 2 tiles, a step away from it is
//     free, and the HP fraction is
//     below health_threshold, the danger exceeds risk_tolerance, or the
//     encounter's combat attempts are spent.
//
// When no skill applies the agent attacks an adjacent monster (cornered)
// or else explores. An encounter ends when no monster is adjacent.
type Scripted struct {
	p        prompt.PolicyParameters
	attempts int // attacks in the current encounter
}

// NewScripted returns a scripted agent for p. p must be valid (see
// prompt.PolicyParameters.Validate); the agent keeps its own copy.
func NewScripted(p prompt.PolicyParameters) *Scripted {
	return &Scripted{p: p.Clone()}
}

// Reset implements Agent.
func (a *Scripted) Reset() { a.attempts = 0 }

// Act implements Agent.
func (a *Scripted) Act(o *envs.Observation) envs.Action {
	if o.Eating {
		return envs.ActEat
	}
	if o.Adjacent == 0 {
		a.attempts = 0
	}
	hpFrac := float64(o.HP) / float64(o.MaxHP)
	for _, s := range a.p.SkillPriority {
		if act, ok := a.try(s, o, hpFrac); ok {
			if act == envs.ActAttack {
				a.attempts++
			}
			return act
		}
	}
	if o.Adjacent > 0 {
		return envs.ActAttack
	}
	return a.explore(o, hpFrac)
}

// try returns the action of skill s and whether s applies to o.
func (a *Scripted) try(s prompt.Skill, o *envs.Observation, hpFrac float64) (envs.Action, bool) {
	p := &a.p
	lowHP := hpFrac < p.HealthThreshold
	hungry := o.Hunger > p.HungerThreshold
	switch s {
	case prompt.SkillExplore:
		if o.Adjacent == 0 && (!lowHP || o.Potions == 0) && (!hungry || o.Food == 0) {
			return a.explore(o, hpFrac), true
		}
	case prompt.SkillFight:
		if o.Adjacent > 0 && o.Danger <= p.RiskTolerance && a.attempts < p.MaxCombatAttempts {
			return envs.ActAttack, true
		}
	case prompt.SkillEat:
		if hungry && o.Food > 0 {
			return envs.ActEat, true
		}
	case prompt.SkillUseItem:
		if lowHP && o.Potions > 0 {
			return envs.ActQuaff, true
		}
	case prompt.SkillFlee:
		if o.ThreatDist > 0 && o.ThreatDist <= 2 && o.CanFlee &&
			(lowHP || o.Danger > p.RiskTolerance || a.attempts >= p.MaxCombatAttempts) {
			return envs.ActFlee, true
		}
	}
	return envs.ActWait, false
}

// explore is the explore skill's action: explore, or descend once the
// level's exploration budget is spent, or rest when too hurt to descend.
func (a *Scripted) explore(o *envs.Observation, hpFrac float64) envs.Action {
	if hpFrac < a.p.HealthThreshold && o.ThreatDist == 0 {
		return envs.ActWait // rest until HP is back above the threshold
	}
	if o.LevelTurns < a.p.MaxExplorationSteps && o.FrontierLeft {
		return envs.ActExplore
	}
	if hpFrac < (1-a.p.RiskTolerance)/2 {
		return envs.ActWait
	}
	return envs.ActDescend
}
