package agent

import (
	"testing"

	"evolve/envs/dungeon"
	"evolve/params"
	"evolve/prompt"
)

func TestScriptedAct(t *testing.T) {
	base := BaseParameters()
	fleeFirst := base.With("skill_priority", params.OrderingValue([]string{"flee", "explore", "fight", "eat", "use_item"}))
	eatFirst := base.With("skill_priority", params.OrderingValue([]string{"eat", "explore", "fight", "use_item", "flee"}))
	healthy := dungeon.Observation{HP: 16, MaxHP: 16, FrontierLeft: true}
	with := func(o dungeon.Observation, f func(*dungeon.Observation)) dungeon.Observation { f(&o); return o }

	tests := []struct {
		name string
		p    params.Set
		o    dungeon.Observation
		want dungeon.Action
	}{
		{"explore when safe", base, healthy, dungeon.ActExplore},
		{"descend after budget", base, with(healthy, func(o *dungeon.Observation) { o.LevelTurns = 100 }), dungeon.ActDescend},
		{"descend when explored", base, with(healthy, func(o *dungeon.Observation) { o.FrontierLeft = false }), dungeon.ActDescend},
		{"fight adjacent weak monster", base, with(healthy, func(o *dungeon.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.2, true
		}), dungeon.ActAttack},
		{"flee dangerous monster", base, with(healthy, func(o *dungeon.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.9, true
		}), dungeon.ActFlee},
		{"cornered: attack", base, with(healthy, func(o *dungeon.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.9, false
		}), dungeon.ActAttack},
		{"explore before far flee (base order)", base, with(healthy, func(o *dungeon.Observation) {
			o.ThreatDist, o.Danger, o.CanFlee = 2, 0.9, true
		}), dungeon.ActExplore},
		{"flee first flees early", fleeFirst, with(healthy, func(o *dungeon.Observation) {
			o.ThreatDist, o.Danger, o.CanFlee = 2, 0.9, true
		}), dungeon.ActFlee},
		{"quaff when low", base, with(healthy, func(o *dungeon.Observation) { o.HP, o.Potions = 4, 1 }), dungeon.ActQuaff},
		{"rest when low without potion", base, with(healthy, func(o *dungeon.Observation) { o.HP = 4 }), dungeon.ActWait},
		{"eat when hungry", base, with(healthy, func(o *dungeon.Observation) { o.Hunger, o.Food = 0.6, 1 }), dungeon.ActEat},
		{"no food: keep exploring", base, with(healthy, func(o *dungeon.Observation) { o.Hunger = 0.9 }), dungeon.ActExplore},
		{"fight before eat (base order)", base, with(healthy, func(o *dungeon.Observation) {
			o.Hunger, o.Food, o.Adjacent, o.ThreatDist, o.Danger = 0.6, 1, 1, 1, 0.1
		}), dungeon.ActAttack},
		{"eat first eats next to a monster", eatFirst, with(healthy, func(o *dungeon.Observation) {
			o.Hunger, o.Food, o.Adjacent, o.ThreatDist, o.Danger = 0.6, 1, 1, 1, 0.1
		}), dungeon.ActEat},
		{"meal continues", base, with(healthy, func(o *dungeon.Observation) { o.Eating, o.Adjacent = true, 1 }), dungeon.ActEat},
		{"too hurt to descend: rest", func() params.Set {
			return base.With("health_threshold", params.NumberValue(0.1))
		}(), with(healthy, func(o *dungeon.Observation) { o.HP, o.LevelTurns = 3, 500 }), dungeon.ActWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewScripted(tt.p)
			if got := a.Act(&tt.o); got != tt.want {
				t.Errorf("Act = %v, want %v", got, tt.want)
			}
		})
	}
}

// After max_combat_attempts attacks in one encounter the agent stops
// fighting and flees; a new encounter resets the count.
func TestCombatAttempts(t *testing.T) {
	p := BaseParameters()
	a := NewScripted(p)
	o := dungeon.Observation{HP: 16, MaxHP: 16, Adjacent: 1, ThreatDist: 1, Danger: 0.1, CanFlee: true}
	for i := 0; i < p.Int("max_combat_attempts"); i++ {
		if got := a.Act(&o); got != dungeon.ActAttack {
			t.Fatalf("attempt %d: %v, want attack", i+1, got)
		}
	}
	if got := a.Act(&o); got != dungeon.ActFlee {
		t.Fatalf("after %d attempts: %v, want flee", p.Int("max_combat_attempts"), got)
	}
	clear := dungeon.Observation{HP: 16, MaxHP: 16, FrontierLeft: true}
	a.Act(&clear)
	if got := a.Act(&o); got != dungeon.ActAttack {
		t.Fatalf("new encounter: %v, want attack", got)
	}
	a.Act(&o)
	a.Act(&o)
	a.Reset()
	if got := a.Act(&o); got != dungeon.ActAttack {
		t.Fatalf("after Reset: %v, want attack", got)
	}
}

// The agent copies its parameters: changing the caller's slice later does
// not change its behaviour.
func TestScriptedCopiesParams(t *testing.T) {
	p := BaseParameters()
	a := NewScripted(p)
	p[5].Value.List[0] = SkillFlee
	o := dungeon.Observation{HP: 16, MaxHP: 16, FrontierLeft: true, ThreatDist: 2, Danger: 0.9, CanFlee: true}
	if got := a.Act(&o); got != dungeon.ActExplore {
		t.Fatalf("Act = %v, want explore (agent must keep its own copy)", got)
	}
}

// The dungeon's declarations are valid, its base parameters are the
// embedded base prompt's and valid for Schema.
func TestDungeonInfo(t *testing.T) {
	info := DungeonInfo()
	if err := info.Check(); err != nil {
		t.Fatal(err)
	}
	if err := Schema.Validate(BaseParameters()); err != nil {
		t.Fatal(err)
	}
	if got, want := prompt.Base().PolicyParameters.String(), BaseParameters().String(); got != want {
		t.Errorf("embedded base prompt's parameters %s, want %s", got, want)
	}
}

// The schema refuses what the dungeon agent cannot play, naming the
// parameter and what is allowed.
func TestSchemaErrors(t *testing.T) {
	base := BaseParameters()
	tests := []struct {
		name string
		p    params.Set
		want string
	}{
		{"out of range", base.With("health_threshold", params.NumberValue(1.3)), "policy_parameters.health_threshold: 1.3 is out of range, allowed [0, 1]"},
		{"integer below", base.With("max_exploration_steps", params.IntegerValue(-5)), "policy_parameters.max_exploration_steps: -5 is out of range, allowed [10, 2000]"},
		{"fraction for an integer", base.With("max_combat_attempts", params.NumberValue(2.5)), "policy_parameters.max_combat_attempts: 2.5 is not an integer, allowed [1, 20]"},
		{"text for a number", base.With("max_combat_attempts", params.EnumValue("three")), `policy_parameters.max_combat_attempts: "three" is not an integer, allowed [1, 20]`},
		{"unknown skill", base.With("skill_priority", params.OrderingValue([]string{"explore", "fight", "eat", "use_item", "pray"})),
			`policy_parameters.skill_priority[4]: "pray" is not an item, allowed a permutation of [explore fight eat use_item flee]`},
		{"missing skill", base.With("skill_priority", params.OrderingValue([]string{"explore", "fight", "eat", "use_item"})),
			"policy_parameters.skill_priority: [explore fight eat use_item] has 4 items, not 5, allowed a permutation of [explore fight eat use_item flee]"},
		{"undeclared", base.With("patience", params.IntegerValue(3)),
			"policy_parameters.patience: 3 is not a declared parameter, allowed [health_threshold hunger_threshold max_exploration_steps max_combat_attempts risk_tolerance skill_priority]"},
		{"missing", base[:4], "policy_parameters.risk_tolerance: (missing) is required, allowed [0, 1]\npolicy_parameters.skill_priority: (missing) is required, allowed a permutation of [explore fight eat use_item flee]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Schema.Validate(tt.p)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Validate = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// Classify maps each way a dungeon episode ends to its failure cause.
func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		o    dungeon.Outcome
		want string
	}{
		{"killed while exploring", dungeon.Outcome{End: dungeon.EndKilled}, "injury"},
		{"killed in chosen fight", dungeon.Outcome{End: dungeon.EndKilled, InChosenFight: true}, "combat_loss"},
		{"starved", dungeon.Outcome{End: dungeon.EndStarved}, "starvation"},
		{"no progress", dungeon.Outcome{End: dungeon.EndNoProgress}, "entrapment"},
		{"step budget", dungeon.Outcome{End: dungeon.EndStepBudget}, "entrapment"},
		{"turn limit", dungeon.Outcome{End: dungeon.EndTurnLimit}, "none"},
		{"max depth", dungeon.Outcome{End: dungeon.EndMaxDepth}, "none"},
		{"fight flag ignored when starved", dungeon.Outcome{End: dungeon.EndStarved, InChosenFight: true}, "starvation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(&tt.o); got != tt.want {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}
