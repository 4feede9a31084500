package mutate

import (
	"errors"
	"testing"

	"evolve/failure"
	"evolve/prompt"
)

func TestOperators(t *testing.T) {
	base := prompt.BaseParameters()
	tests := []struct {
		name     string
		apply    func() (Mutation, error)
		wantDesc string
		check    func(p prompt.PolicyParameters) bool
		reorder  bool
	}{
		{
			"health up",
			func() (Mutation, error) { return AdjustThreshold(base, "health_threshold", 0.1, Increase) },
			"Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)",
			func(p prompt.PolicyParameters) bool { return p.HealthThreshold == 0.4 },
			false,
		},
		{
			"hunger down",
			func() (Mutation, error) { return AdjustThreshold(base, "hunger_threshold", 0.1, Decrease) },
			"Adjusted hunger_threshold: 0.500 → 0.400 (decrease, Δ=0.100)",
			func(p prompt.PolicyParameters) bool { return p.HungerThreshold == 0.4 },
			false,
		},
		{
			"health clamped at 1",
			func() (Mutation, error) { return AdjustThreshold(base, "health_threshold", 0.9, Increase) },
			"Adjusted health_threshold: 0.300 → 1.000 (increase, Δ=0.700)",
			func(p prompt.PolicyParameters) bool { return p.HealthThreshold == 1 },
			false,
		},
		{
			"prioritize flee",
			func() (Mutation, error) { return ReorderSkills(base, Prioritize, prompt.SkillFlee) },
			"Prioritized 'flee': [explore fight eat use_item flee] → [flee explore fight eat use_item]",
			func(p prompt.PolicyParameters) bool { return p.SkillPriority[0] == prompt.SkillFlee },
			true,
		},
		{
			"deprioritize fight",
			func() (Mutation, error) { return ReorderSkills(base, Deprioritize, prompt.SkillFight) },
			"Deprioritized 'fight': [explore fight eat use_item flee] → [explore eat use_item flee fight]",
			func(p prompt.PolicyParameters) bool { return p.SkillPriority[4] == prompt.SkillFight },
			true,
		},
		{
			"rotate",
			func() (Mutation, error) { return ReorderSkills(base, Rotate, "") },
			"Rotated skill priority: [explore fight eat use_item flee] → [fight eat use_item flee explore]",
			func(p prompt.PolicyParameters) bool { return p.SkillPriority[0] == prompt.SkillFight },
			true,
		},
		{
			"risk up",
			func() (Mutation, error) { return SetRiskTolerance(base, 0.7) },
			"Changed risk tolerance: balanced (0.500) → aggressive (0.700)",
			func(p prompt.PolicyParameters) bool { return p.RiskTolerance == 0.7 },
			false,
		},
		{
			"risk down",
			func() (Mutation, error) { return SetRiskTolerance(base, 0.3) },
			"Changed risk tolerance: balanced (0.500) → conservative (0.300)",
			func(p prompt.PolicyParameters) bool { return p.RiskTolerance == 0.3 },
			false,
		},
		{
			"max steps both",
			func() (Mutation, error) { return SetMaxSteps(base, 150, 5) },
			"Adjusted max_exploration_steps: 100 → 150; max_combat_attempts: 3 → 5",
			func(p prompt.PolicyParameters) bool { return p.MaxExplorationSteps == 150 && p.MaxCombatAttempts == 5 },
			false,
		},
		{
			"max steps clamped",
			func() (Mutation, error) { return SetMaxSteps(base, 5000, 0) },
			"Adjusted max_exploration_steps: 100 → 2000",
			func(p prompt.PolicyParameters) bool { return p.MaxExplorationSteps == 2000 && p.MaxCombatAttempts == 3 },
			false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.apply()
			if err != nil {
				t.Fatal(err)
			}
			if m.Description != tt.wantDesc {
				t.Errorf("Description = %q\nwant          %q", m.Description, tt.wantDesc)
			}
			if !tt.check(m.Params) {
				t.Errorf("Params = %v", m.Params)
			}
			if m.Reorder != tt.reorder {
				t.Errorf("Reorder = %v, want %v", m.Reorder, tt.reorder)
			}
			if err := m.Params.Validate(); err != nil {
				t.Errorf("result invalid: %v", err)
			}
			if !base.Equal(prompt.BaseParameters()) {
				t.Fatal("operator modified its input")
			}
		})
	}
}

func TestOperatorErrors(t *testing.T) {
	base := prompt.BaseParameters()
	top := base.Clone()
	top.HealthThreshold = 1
	cases := []struct {
		name     string
		err      error
		noChange bool
	}{
		{"unknown threshold", second(AdjustThreshold(base, "fear_threshold", 0.1, Increase)), false},
		{"non-positive delta", second(AdjustThreshold(base, "health_threshold", 0, Increase)), false},
		{"at bound", second(AdjustThreshold(top, "health_threshold", 0.1, Increase)), true},
		{"unknown skill", second(ReorderSkills(base, Prioritize, "dance")), false},
		{"unknown op", second(ReorderSkills(base, "shuffle", "")), false},
		{"already first", second(ReorderSkills(base, Prioritize, prompt.SkillExplore)), true},
		{"same risk", second(SetRiskTolerance(base, 0.5)), true},
		{"no steps", second(SetMaxSteps(base, 0, 0)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("want error")
			}
			if got := errors.Is(c.err, ErrNoChange); got != c.noChange {
				t.Errorf("errors.Is(ErrNoChange) = %v, want %v (err: %v)", got, c.noChange, c.err)
			}
		})
	}
}

func second(_ Mutation, err error) error { return err }

func TestPropose(t *testing.T) {
	base := prompt.BaseParameters()
	a := failure.Analysis{Episodes: 100, Failures: 90}
	a.Counts[failure.Entrapment] = 40
	a.Counts[failure.Injury] = 30
	a.Counts[failure.CombatLoss] = 15
	a.Counts[failure.Starvation] = 5
	a.Counts[failure.None] = 10
	ms, err := Propose(a, base, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Adjusted max_exploration_steps: 100 → 150",
		"Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)",
		"Prioritized 'flee': [explore fight eat use_item flee] → [flee explore fight eat use_item]",
		"Adjusted hunger_threshold: 0.500 → 0.400 (decrease, Δ=0.100)",
	}
	if len(ms) != len(want) {
		t.Fatalf("got %d mutations, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		if m.Description != want[i] {
			t.Errorf("mutation %d = %q, want %q", i, m.Description, want[i])
		}
	}
	if ms[0].Cause != "entrapment" || ms[1].Cause != "injury" {
		t.Errorf("causes = %q, %q", ms[0].Cause, ms[1].Cause)
	}

	// Deterministic, distinct, valid, different from the input.
	again, _ := Propose(a, base, DefaultConfig())
	for i := range ms {
		if !ms[i].Params.Equal(again[i].Params) || ms[i].Description != again[i].Description {
			t.Fatalf("Propose is not deterministic at %d", i)
		}
	}
	for i := range ms {
		if ms[i].Params.Equal(base) {
			t.Errorf("mutation %d equals the input", i)
		}
		if err := ms[i].Params.Validate(); err != nil {
			t.Errorf("mutation %d invalid: %v", i, err)
		}
		for j := 0; j < i; j++ {
			if ms[i].Params.Equal(ms[j].Params) {
				t.Errorf("mutations %d and %d are equal", i, j)
			}
		}
	}
}

func TestProposeLimitsAndFill(t *testing.T) {
	base := prompt.BaseParameters()
	c := DefaultConfig()
	c.Candidates = 8
	var none failure.Analysis // no failures: only fill-ups
	ms, err := Propose(none, base, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 {
		t.Fatalf("no failures: got %d fill-up mutations, want 4", len(ms))
	}
	for _, m := range ms {
		if m.Cause != "" {
			t.Errorf("fill-up has cause %q", m.Cause)
		}
	}
	c.Candidates = 2
	a := failure.Analysis{Episodes: 10, Failures: 10}
	a.Counts[failure.Starvation] = 10
	ms, _ = Propose(a, base, c)
	if len(ms) != 2 || ms[0].Operator != OpThreshold || ms[1].Operator != OpSkillPrio {
		t.Fatalf("starvation with k=2: got %+v", ms)
	}
	bad := base.Clone()
	bad.HealthThreshold = 2
	if _, err := Propose(a, bad, c); err == nil {
		t.Error("invalid params: want error")
	}
	c.Candidates = 0
	if _, err := Propose(a, base, c); err == nil {
		t.Error("k = 0: want error")
	}
}
