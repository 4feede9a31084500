package failure

import (
	"testing"

	"evolve/envs"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		o    envs.Outcome
		want Cause
	}{
		{"killed while exploring", envs.Outcome{End: envs.EndKilled}, Injury},
		{"killed in chosen fight", envs.Outcome{End: envs.EndKilled, InChosenFight: true}, CombatLoss},
		{"starved", envs.Outcome{End: envs.EndStarved}, Starvation},
		{"no progress", envs.Outcome{End: envs.EndNoProgress}, Entrapment},
		{"step budget", envs.Outcome{End: envs.EndStepBudget}, Entrapment},
		{"turn limit", envs.Outcome{End: envs.EndTurnLimit}, None},
		{"max depth", envs.Outcome{End: envs.EndMaxDepth}, None},
		{"fight flag ignored when starved", envs.Outcome{End: envs.EndStarved, InChosenFight: true}, Starvation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(&tt.o); got != tt.want {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAnalyze(t *testing.T) {
	outs := []envs.Outcome{
		{End: envs.EndKilled}, {End: envs.EndKilled}, {End: envs.EndKilled, InChosenFight: true},
		{End: envs.EndStarved}, {End: envs.EndNoProgress}, {End: envs.EndNoProgress},
		{End: envs.EndNoProgress}, {End: envs.EndTurnLimit},
	}
	a := Analyze(outs)
	if a.Episodes != 8 || a.Failures != 7 {
		t.Fatalf("Episodes, Failures = %d, %d, want 8, 7", a.Episodes, a.Failures)
	}
	want := [NumCauses]int{None: 1, Injury: 2, CombatLoss: 1, Starvation: 1, Entrapment: 3}
	if a.Counts != want {
		t.Errorf("Counts = %v, want %v", a.Counts, want)
	}
	if got := a.Rate(Entrapment); got != 3.0/8 {
		t.Errorf("Rate(Entrapment) = %v, want 0.375", got)
	}
	if got := a.Share(Injury); got != 2.0/7 {
		t.Errorf("Share(Injury) = %v, want 2/7", got)
	}
	ranked := a.Ranked()
	wantRanked := []Cause{Entrapment, Injury, CombatLoss, Starvation}
	if len(ranked) != len(wantRanked) {
		t.Fatalf("Ranked = %v, want %v", ranked, wantRanked)
	}
	for i := range ranked {
		if ranked[i] != wantRanked[i] {
			t.Fatalf("Ranked = %v, want %v (ties keep canonical order)", ranked, wantRanked)
		}
	}
	var empty Analysis
	if empty.Rate(Injury) != 0 || empty.Share(Injury) != 0 || len(empty.Ranked()) != 0 {
		t.Error("empty analysis: want zero rates and no ranked causes")
	}
}

func TestParseCause(t *testing.T) {
	for c := None; c < NumCauses; c++ {
		got, err := ParseCause(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCause(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseCause("drowned"); err == nil {
		t.Error("ParseCause(drowned): want error")
	}
}
