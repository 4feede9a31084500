package agent

import (
	"evolve/envs/dungeon"
	"evolve/params"
)

// Agent chooses one action per turn from an observation. Implementations
// are deterministic functions of the parameters they were built with and
// the observations they have seen since Reset.
type Agent interface {
	// Reset forgets everything about the previous episode.
	Reset()
	// Act returns the action for the turn described by o.
	Act(o *dungeon.Observation) dungeon.Action
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
	p        policy
	attempts int // attacks in the current encounter
}

// NewScripted returns a scripted agent for p, which must be valid for
// Schema (Schema.Validate); the agent keeps its own copy.
func NewScripted(p params.Set) *Scripted {
	return &Scripted{p: readPolicy(p)}
}

// Reset implements Agent.
func (a *Scripted) Reset() { a.attempts = 0 }

// Act implements Agent.
func (a *Scripted) Act(o *dungeon.Observation) dungeon.Action {
	if o.Eating {
		return dungeon.ActEat
	}
	if o.Adjacent == 0 {
		a.attempts = 0
	}
	hpFrac := float64(o.HP) / float64(o.MaxHP)
	for _, s := range a.p.skillPriority {
		if act, ok := a.try(s, o, hpFrac); ok {
			if act == dungeon.ActAttack {
				a.attempts++
			}
			return act
		}
	}
	if o.Adjacent > 0 {
		return dungeon.ActAttack
	}
	return a.explore(o, hpFrac)
}

// try returns the action of skill s and whether s applies to o.
func (a *Scripted) try(s string, o *dungeon.Observation, hpFrac float64) (dungeon.Action, bool) {
	p := &a.p
	lowHP := hpFrac < p.healthThreshold
	hungry := o.Hunger > p.hungerThreshold
	switch s {
	case SkillExplore:
		if o.Adjacent == 0 && (!lowHP || o.Potions == 0) && (!hungry || o.Food == 0) {
			return a.explore(o, hpFrac), true
		}
	case SkillFight:
		if o.Adjacent > 0 && o.Danger <= p.riskTolerance && a.attempts < p.maxCombatAttempts {
			return dungeon.ActAttack, true
		}
	case SkillEat:
		if hungry && o.Food > 0 {
			return dungeon.ActEat, true
		}
	case SkillUseItem:
		if lowHP && o.Potions > 0 {
			return dungeon.ActQuaff, true
		}
	case SkillFlee:
		if o.ThreatDist > 0 && o.ThreatDist <= 2 && o.CanFlee &&
			(lowHP || o.Danger > p.riskTolerance || a.attempts >= p.maxCombatAttempts) {
			return dungeon.ActFlee, true
		}
	}
	return dungeon.ActWait, false
}

// explore is the explore skill's action: explore, or descend once the
// level's exploration budget is spent, or rest when too hurt to descend.
func (a *Scripted) explore(o *dungeon.Observation, hpFrac float64) dungeon.Action {
	if hpFrac < a.p.healthThreshold && o.ThreatDist == 0 {
		return dungeon.ActWait // rest until HP is back above the threshold
	}
	if o.LevelTurns < a.p.maxExplorationSteps && o.FrontierLeft {
		return dungeon.ActExplore
	}
	if hpFrac < (1-a.p.riskTolerance)/2 {
		return dungeon.ActWait
	}
	return dungeon.ActDescend
}
