package agent

import (
	"testing"

	"evolve/envs"
	"evolve/prompt"
)

func TestScriptedAct(t *testing.T) {
	base := prompt.BaseParameters()
	fleeFirst := base.Clone()
	fleeFirst.SkillPriority = []prompt.Skill{"flee", "explore", "fight", "eat", "use_item"}
	eatFirst := base.Clone()
	eatFirst.SkillPriority = []prompt.Skill{"eat", "explore", "fight", "use_item", "flee"}
	healthy := envs.Observation{HP: 16, MaxHP: 16, FrontierLeft: true}
	with := func(o envs.Observation, f func(*envs.Observation)) envs.Observation { f(&o); return o }

	tests := []struct {
		name string
		p    prompt.PolicyParameters
		o    envs.Observation
		want envs.Action
	}{
		{"explore when safe", base, healthy, envs.ActExplore},
		{"descend after budget", base, with(healthy, func(o *envs.Observation) { o.LevelTurns = 100 }), envs.ActDescend},
		{"descend when explored", base, with(healthy, func(o *envs.Observation) { o.FrontierLeft = false }), envs.ActDescend},
		{"fight adjacent weak monster", base, with(healthy, func(o *envs.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.2, true
		}), envs.ActAttack},
		{"flee dangerous monster", base, with(healthy, func(o *envs.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.9, true
		}), envs.ActFlee},
		{"cornered: attack", base, with(healthy, func(o *envs.Observation) {
			o.Adjacent, o.ThreatDist, o.Danger, o.CanFlee = 1, 1, 0.9, false
		}), envs.ActAttack},
		{"explore before far flee (base order)", base, with(healthy, func(o *envs.Observation) {
			o.ThreatDist, o.Danger, o.CanFlee = 2, 0.9, true
		}), envs.ActExplore},
		{"flee first flees early", fleeFirst, with(healthy, func(o *envs.Observation) {
			o.ThreatDist, o.Danger, o.CanFlee = 2, 0.9, true
		}), envs.ActFlee},
		{"quaff when low", base, with(healthy, func(o *envs.Observation) { o.HP, o.Potions = 4, 1 }), envs.ActQuaff},
		{"rest when low without potion", base, with(healthy, func(o *envs.Observation) { o.HP = 4 }), envs.ActWait},
		{"eat when hungry", base, with(healthy, func(o *envs.Observation) { o.Hunger, o.Food = 0.6, 1 }), envs.ActEat},
		{"no food: keep exploring", base, with(healthy, func(o *envs.Observation) { o.Hunger = 0.9 }), envs.ActExplore},
		{"fight before eat (base order)", base, with(healthy, func(o *envs.Observation) {
			o.Hunger, o.Food, o.Adjacent, o.ThreatDist, o.Danger = 0.6, 1, 1, 1, 0.1
		}), envs.ActAttack},
		{"eat first eats next to a monster", eatFirst, with(healthy, func(o *envs.Observation) {
			o.Hunger, o.Food, o.Adjacent, o.ThreatDist, o.Danger = 0.6, 1, 1, 1, 0.1
		}), envs.ActEat},
		{"meal continues", base, with(healthy, func(o *envs.Observation) { o.Eating, o.Adjacent = true, 1 }), envs.ActEat},
		{"too hurt to descend: rest", func() prompt.PolicyParameters {
			p := base.Clone()
			p.HealthThreshold = 0.1
			return p
		}(), with(healthy, func(o *envs.Observation) { o.HP, o.LevelTurns = 3, 500 }), envs.ActWait},
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
	p := prompt.BaseParameters()
	a := NewScripted(p)
	o := envs.Observation{HP: 16, MaxHP: 16, Adjacent: 1, ThreatDist: 1, Danger: 0.1, CanFlee: true}
	for i := 0; i < p.MaxCombatAttempts; i++ {
		if got := a.Act(&o); got != envs.ActAttack {
			t.Fatalf("attempt %d: %v, want attack", i+1, got)
		}
	}
	if got := a.Act(&o); got != envs.ActFlee {
		t.Fatalf("after %d attempts: %v, want flee", p.MaxCombatAttempts, got)
	}
	clear := envs.Observation{HP: 16, MaxHP: 16, FrontierLeft: true}
	a.Act(&clear)
	if got := a.Act(&o); got != envs.ActAttack {
		t.Fatalf("new encounter: %v, want attack", got)
	}
	a.Act(&o)
	a.Act(&o)
	a.Reset()
	if got := a.Act(&o); got != envs.ActAttack {
		t.Fatalf("after Reset: %v, want attack", got)
	}
}

// The agent copies its parameters: changing the caller's slice later does
// not change its behaviour.
func TestScriptedCopiesParams(t *testing.T) {
	p := prompt.BaseParameters()
	a := NewScripted(p)
	p.SkillPriority[0] = prompt.SkillFlee
	o := envs.Observation{HP: 16, MaxHP: 16, FrontierLeft: true, ThreatDist: 2, Danger: 0.9, CanFlee: true}
	if got := a.Act(&o); got != envs.ActExplore {
		t.Fatalf("Act = %v, want explore (agent must keep its own copy)", got)
	}
}
