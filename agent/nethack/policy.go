package nethack

import (
	"evolve/agent"
	"evolve/envs"
	"evolve/params"
)

// Eating corpses: the values of the eat_corpses parameter.
const (
	EatNever  = "never"  // never eat a corpse; only carried food
	EatHungry = "hungry" // eat a safe fresh corpse once Hungry (or worse)
	EatAlways = "always" // eat a safe fresh corpse whenever not Satiated
)

// Elbereth: the values of the elbereth parameter.
const (
	ElberethOff = "off" // never engrave
	ElberethLow = "low" // engrave Elbereth when low on HP with a hostile adjacent and nowhere to flee
)

// Schema is the NetHack scripted agent's parameter table (Scripted): the
// dungeon agent's six parameters, with NetHack's meaning, and the
// parameters that answer NetHack's own failure causes (Remedies). Each
// Default is the base prompt's value (examples/nethack/base_prompt.yaml).
var Schema = params.Schema{
	{Name: "health_threshold", Kind: params.Number, Min: 0, Max: 1, Step: 0.1, Unit: "fraction of max HP", Default: 0.3,
		Doc: "below this HP fraction the agent quaffs a potion if it may have one, flees adjacent monsters, and rests before exploring on"},
	{Name: "hunger_threshold", Kind: params.Number, Min: 0, Max: 1, Step: 0.1, Unit: "fraction (0 satiated, 1 fainting)", Default: 0.5,
		Doc: "at or above this hunger (not hungry 0.25, Hungry 0.5, Weak 0.75, Fainting 1) the eat skill eats carried food"},
	{Name: "max_exploration_steps", Kind: params.Integer, Min: 10, Max: 2000, Step: 50, Unit: "actions per level", Default: 100,
		Doc: "how eagerly the agent descends: after this many actions on a level it stops exploring and travels to a known down staircase"},
	{Name: "max_combat_attempts", Kind: params.Integer, Min: 1, Max: 20, Step: 2, Unit: "attacks per encounter", Default: 3,
		Doc: "the most attacks the fight skill makes in one encounter before it gives up (and flee takes over)"},
	{Name: "risk_tolerance", Kind: params.Number, Min: 0, Max: 1, Step: 0.2, Unit: "0 conservative, 1 aggressive", Default: 0.0,
		Doc: "fight a monster whose estimated danger is at most this; descend only with HP above (1 - risk)/2 of its maximum"},
	{Name: "skill_priority", Kind: params.Ordering, Items: []string{agent.SkillExplore, agent.SkillFight, agent.SkillEat, agent.SkillUseItem, agent.SkillFlee},
		Default: []any{agent.SkillExplore, agent.SkillFight, agent.SkillEat, agent.SkillUseItem, agent.SkillFlee},
		Doc:     "the order in which applicable skills are tried each action (praying or eating when Weak comes first whatever the order)"},
	{Name: "search_turns", Kind: params.Integer, Min: 5, Max: 30, Step: 5, Unit: "turns per spot", Default: 10,
		Doc: "turns searched for hidden doors and corridors at each dead end or wall spot once a level has no unexplored frontier"},
	{Name: "eat_corpses", Kind: params.Enum, Items: []string{EatNever, EatHungry, EatAlways}, Default: EatHungry,
		Doc: "when to eat a safe fresh corpse of a monster the agent killed (safeCorpse): never, once Hungry, or whenever not Satiated"},
	{Name: "pray_hp_fraction", Kind: params.Number, Min: 0.02, Max: 0.14, Step: 0.04, Unit: "fraction of max HP", Default: 0.14,
		Doc: "pray when HP is below this fraction of its maximum (or at most 5), with the prayer timeout likely expired; the game counts only HP below 1/7 or at most 5 as trouble"},
	{Name: "elbereth", Kind: params.Enum, Items: []string{ElberethOff, ElberethLow}, Default: ElberethOff,
		Doc: "off, or low: engrave Elbereth in the dust when HP is below health_threshold, a hostile is adjacent and there is nowhere to flee"},
}

// BaseParameters returns Schema's defaults: the base prompt's policy.
func BaseParameters() params.Set { return Schema.Defaults() }

// Remedies is the default remedy table (mutate.Remedy syntax): for each
// failure cause of Causes, the parameter changes that answer it, most
// direct first.
//
//   - starvation: eat corpses sooner, eat carried food sooner, put eating
//     first;
//   - prayer: pray only deeper in trouble, rely on potions and flight;
//   - helpless (paralysed, asleep): fight less, flee earlier;
//   - hazard (traps, bad corpses, drowning): fewer corpses eaten, fewer
//     risks, less time per level;
//   - combat_loss: flee first, fight less, flee earlier, Elbereth;
//   - injury (caught outside a fight it chose: exploring, fleeing,
//     resting): take more risks first, since a timid agent flees what it
//     could beat and is caught fleeing (on the quick config's first 200
//     val seeds risk_tolerance 0 -> 1 cut injury deaths 38 -> 25); then
//     flee and rest earlier, Elbereth, pray higher, items first;
//   - trapped, no_path: search longer for hidden passages, fight rather
//     than flee what blocks the way (a timid agent oscillates before a
//     monster in a corridor), explore longer for the stairs; trapped also
//     leaves a level sooner;
//   - action_cap: descend sooner (fewer actions per level);
//   - unanswered_prompt, hero_lost: agent faults that no parameter fixes
//     (the agent answers every prompt and finds the hero by the cursor);
//     their remedies only lower the exposure (fewer actions per level,
//     fewer fights with lycanthropes and hallucinogens);
//   - action_loop (a command the game keeps refusing, typically eating
//     and declining the corpse underfoot): fewer corpses offered, another
//     skill order;
//   - standoff (a monster next to the hero that it neither fights nor
//     passes): take more risks, attack longer.
//
// Info declares the entries of the causes Causes declares (remediesOf).
var Remedies = map[string][]string{
	"starvation":        {"eat_corpses+", "hunger_threshold-", "prioritize skill_priority eat"},
	"prayer":            {"pray_hp_fraction-", "prioritize skill_priority use_item", "health_threshold+"},
	"helpless":          {"risk_tolerance-", "health_threshold+", "prioritize skill_priority flee"},
	"hazard":            {"eat_corpses-", "risk_tolerance-", "max_exploration_steps-"},
	"combat_loss":       {"prioritize skill_priority flee", "risk_tolerance-", "health_threshold+", "elbereth+"},
	"injury":            {"risk_tolerance+", "health_threshold+", "elbereth+", "pray_hp_fraction+", "prioritize skill_priority use_item"},
	"trapped":           {"search_turns+", "max_exploration_steps-", "risk_tolerance+"},
	"no_path":           {"search_turns+", "risk_tolerance+", "max_exploration_steps+"},
	"action_cap":        {"max_exploration_steps-", "search_turns-"},
	"unanswered_prompt": {"max_exploration_steps-"},
	"hero_lost":         {"risk_tolerance-", "eat_corpses-"},
	"action_loop":       {"eat_corpses-", "rotate skill_priority"},
	"standoff":          {"risk_tolerance+", "max_combat_attempts+"},
}

// remediesOf returns the entries of Remedies for the declared causes.
func remediesOf(causes []envs.Cause) map[string][]string {
	out := map[string][]string{}
	for _, c := range causes {
		if r, ok := Remedies[c.Name]; ok {
			out[c.Name] = r
		}
	}
	return out
}

// Fill is the default fill list: remedies that fill a generation up when
// the causes' remedies are too few.
var Fill = []string{"rotate skill_priority", "risk_tolerance+", "max_exploration_steps+", "search_turns+", "max_combat_attempts+", "health_threshold-"}
