package failure

import (
	"slices"
	"testing"

	"evolve/envs"
)

func outcomes(causes ...string) []envs.Outcome {
	out := make([]envs.Outcome, len(causes))
	for i, c := range causes {
		out[i] = envs.Outcome{Seed: uint64(i), Cause: c}
	}
	return out
}

func TestAnalyze(t *testing.T) {
	declared := []string{"injury", "combat_loss", "starvation", "entrapment"}
	a := Analyze(declared, outcomes("injury", "none", "entrapment", "injury", "error", "starvation", "entrapment", "none"))
	if a.Episodes != 8 || a.Failures != 6 {
		t.Errorf("episodes %d failures %d, want 8 and 6 (error episodes are failures)", a.Episodes, a.Failures)
	}
	if got := a.CountsOf(declared); !slices.Equal(got, []int32{2, 0, 1, 2}) {
		t.Errorf("CountsOf = %v, want [2 0 1 2]", got)
	}
	// Ties keep the declared order; error is never ranked; absent causes
	// are left out.
	if got := a.Ranked(); !slices.Equal(got, []string{"injury", "entrapment", "starvation"}) {
		t.Errorf("Ranked = %v, want [injury entrapment starvation]", got)
	}
	if a.Rate("injury") != 0.25 || a.Share("injury") != 2.0/6 || a.Count("error") != 1 {
		t.Errorf("Rate %v Share %v Count(error) %d", a.Rate("injury"), a.Share("injury"), a.Count("error"))
	}
	empty := Analyze(declared, nil)
	if empty.Rate("injury") != 0 || empty.Share("injury") != 0 || len(empty.Ranked()) != 0 {
		t.Errorf("empty analysis: %+v", empty)
	}
}
