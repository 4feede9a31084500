package gate

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"evolve/stats"
)

// failSample returns a sample of n episodes on seeds 1..n with the
// episodes at the given seeds failed.
func failSample(version, variant string, n int, failed ...int) FailureSample {
	s := FailureSample{Version: version, Variant: variant}
	bad := map[int]bool{}
	for _, f := range failed {
		bad[f] = true
	}
	for i := 1; i <= n; i++ {
		s.Seeds = append(s.Seeds, uint64(i))
		s.Failed = append(s.Failed, bad[i])
	}
	return s
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

func TestCompareFailures(t *testing.T) {
	base := failSample("main", "", 40, 1, 2)
	worse := failSample("pr1", "", 40, seq(1, 12)...) // 10 discordant pairs, candidate-only
	same := failSample("pr2", "", 40, 1, 3)
	unpaired := worse
	unpaired.Seeds = nil
	unpaired.Version = "pr3"
	checks, err := CompareFailures([]FailureSample{base}, []FailureSample{worse, same, unpaired}, FailureConfig{MaxIncrease: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	wantPaired, _ := stats.FailureIncreasePaired(12, 2, 10, 0, 40, 0.05)
	wantSame, _ := stats.FailureIncreasePaired(2, 2, 1, 1, 40, 0.05)
	wantUnpaired, _ := stats.FailureIncrease(12, 40, 2, 40, 0.05)
	adj, _ := stats.Adjust([]float64{wantPaired.P, wantSame.P, wantUnpaired.P}, stats.Holm)
	for i, c := range []struct {
		want   stats.FailureIncreaseResult
		paired bool
	}{{wantPaired, true}, {wantSame, true}, {wantUnpaired, false}} {
		ch := checks[i]
		if ch.Test != stats.TestFailureIncrease || ch.FailureMethod != c.want.Method || ch.Paired != c.paired ||
			ch.P != c.want.P || ch.PAdj != adj[i] || ch.Failed != (adj[i] < 0.05) || ch.Regression != ch.Failed ||
			ch.Mean != c.want.Share || ch.BaselineMean != c.want.ShareBaseline || ch.Margin != 0.05 {
			t.Errorf("check %d: %+v; want %+v, p adj %v", i, ch, c.want, adj[i])
		}
		if !strings.HasSuffix(ch.Name(), "(failure share)") || !strings.Contains(ch.Family, "separate from the score checks") {
			t.Errorf("check %d: name %q, family %q", i, ch.Name(), ch.Family)
		}
	}
	if !checks[0].Failed || checks[1].Failed {
		t.Errorf("10 more failures in 40 pairs: failed %v (p %v); same share: failed %v", checks[0].Failed, checks[0].PAdj, checks[1].Failed)
	}
	if len(checks[2].Warnings) != 1 || !strings.Contains(checks[2].Warnings[0], "unpaired") {
		t.Errorf("unpaired warnings %q", checks[2].Warnings)
	}
	if !strings.Contains(checks[0].Message, "FAILURE INCREASE") || !strings.Contains(checks[0].Message, "failed share higher by more than 0.05") {
		t.Errorf("message %q", checks[0].Message)
	}
	// Outputs name the check and its method; JSON round-trips.
	js, err := JSON(checks)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"failure_method": "paired-exact-unconditional-score"`)) || !bytes.Contains(js, []byte(`"test": "failure-increase"`)) {
		t.Errorf("JSON lacks the method:\n%s", js)
	}
	var back Check
	if err := back.UnmarshalJSON(mustMarshal(t, checks[0])); err != nil || back.FailureMethod != checks[0].FailureMethod {
		t.Errorf("round trip: %v, %q", err, back.FailureMethod)
	}
	md := Markdown(checks, "eval")
	if !strings.Contains(md, "pr1 (failure share)") || !strings.Contains(md, "❌ failure increase") {
		t.Errorf("Markdown:\n%s", md)
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, "eval", checks); err != nil || !strings.Contains(junit.String(), "method: paired-exact-unconditional-score") {
		t.Errorf("JUnit (%v):\n%s", err, junit.String())
	}
}

func mustMarshal(t *testing.T, c Check) []byte {
	t.Helper()
	b, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompareFailuresErrors(t *testing.T) {
	base := failSample("main", "", 10, 1)
	cand := failSample("pr", "", 10, 1)
	for _, c := range []struct {
		name  string
		base  []FailureSample
		cands []FailureSample
		cfg   FailureConfig
		want  error
	}{
		{"increase 1", []FailureSample{base}, []FailureSample{cand}, FailureConfig{MaxIncrease: 1}, ErrConfig},
		{"increase NaN", []FailureSample{base}, []FailureSample{cand}, FailureConfig{MaxIncrease: math.NaN()}, ErrConfig},
		{"alpha", []FailureSample{base}, []FailureSample{cand}, FailureConfig{Alpha: 2}, ErrConfig},
		{"correction", []FailureSample{base}, []FailureSample{cand}, FailureConfig{Correction: "sidak"}, ErrConfig},
		{"no baseline", []FailureSample{base}, []FailureSample{failSample("pr", "hard", 10)}, FailureConfig{}, ErrNoBaseline},
		{"empty", []FailureSample{base}, []FailureSample{{Version: "pr"}}, FailureConfig{}, ErrTooFew},
	} {
		if _, err := CompareFailures(c.base, c.cands, c.cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
