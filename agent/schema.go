package agent

import "evolve/params"

// The skills of the scripted agent: the items of skill_priority, and the
// names of the base prompt's skill_descriptions.
const (
	SkillExplore = "explore"
	SkillFight   = "fight"
	SkillEat     = "eat"
	SkillUseItem = "use_item"
	SkillFlee    = "flee"
)

// Schema is the scripted agent's parameter table: the one place a policy
// parameter of the dungeon agent is declared (name, type, range, step,
// unit, doc). Validation, mutation, the prompt store and the reports loop
// over it; a new parameter is one entry here plus its use in Scripted.
var Schema = params.Schema{
	{Name: "health_threshold", Kind: params.Number, Min: 0, Max: 1, Step: 0.1, Unit: "fraction of max HP",
		Doc: "below this HP fraction the agent quaffs a healing potion if it has one, and otherwise flees"},
	{Name: "hunger_threshold", Kind: params.Number, Min: 0, Max: 1, Step: 0.1, Unit: "fraction (0 satiated, 1 starving)",
		Doc: "above this hunger the agent eats if it carries food"},
	{Name: "max_exploration_steps", Kind: params.Integer, Min: 10, Max: 2000, Step: 50, Unit: "turns per level",
		Doc: "after this many turns on a level the agent stops exploring and heads for the down staircase"},
	{Name: "max_combat_attempts", Kind: params.Integer, Min: 1, Max: 20, Step: 2, Unit: "exchanges per encounter",
		Doc: "the most melee exchanges the agent takes in one encounter before it gives up and flees"},
	{Name: "risk_tolerance", Kind: params.Number, Min: 0, Max: 1, Step: 0.2, Unit: "0 conservative, 1 aggressive",
		Doc: "engage a monster when its estimated danger is at most this; descend while hurt above (1 - risk)/2"},
	{Name: "skill_priority", Kind: params.Ordering, Items: []string{SkillExplore, SkillFight, SkillEat, SkillUseItem, SkillFlee},
		Doc: "the order in which applicable skills are tried each turn"},
}

// policy is Schema's values as the scripted agent reads them.
type policy struct {
	healthThreshold, hungerThreshold, riskTolerance float64
	maxExplorationSteps, maxCombatAttempts          int
	skillPriority                                   []string
}

func readPolicy(p params.Set) policy {
	return policy{
		healthThreshold:     p.Number("health_threshold"),
		hungerThreshold:     p.Number("hunger_threshold"),
		maxExplorationSteps: p.Int("max_exploration_steps"),
		maxCombatAttempts:   p.Int("max_combat_attempts"),
		riskTolerance:       p.Number("risk_tolerance"),
		skillPriority:       p.Ordering("skill_priority"),
	}
}
