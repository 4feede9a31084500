package results

import (
	"math"
	"path/filepath"
	"testing"
)

// comparisons.parquet round-trips, sorted by variant and version, NaN kept.
func TestComparisonsRoundTrip(t *testing.T) {
	rows := []ComparisonRow{
		{Eval: "e", Variant: "b", Version: "v1.0.10", Baseline: "v1.0.0", N: 5, PWorse: 0.5, PBetter: 0.01, HLLow: math.NaN(), Verdict: VerdictImprovement},
		{Eval: "e", Variant: "a", Version: "v1.0.2", Baseline: "v1.0.0", N: 5, PWorse: 0.01, Verdict: VerdictRegression},
		{Eval: "e", Variant: "b", Version: "v1.0.9", Baseline: "v1.0.0", N: 5, Verdict: VerdictNoDifference},
	}
	path := filepath.Join(t.TempDir(), "comparisons.parquet")
	if err := WriteComparisons(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadComparisons(path)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"a v1.0.2", "b v1.0.9", "b v1.0.10"}
	if len(got) != 3 {
		t.Fatalf("%d rows", len(got))
	}
	for i, r := range got {
		if r.Variant+" "+r.Version != order[i] {
			t.Errorf("row %d: %s %s, want %s", i, r.Variant, r.Version, order[i])
		}
	}
	if !math.IsNaN(got[2].HLLow) || got[2].Verdict != VerdictImprovement || got[2].PBetter != 0.01 {
		t.Errorf("row %+v", got[2])
	}
	if _, err := ReadSummaries(path); err == nil {
		t.Error("comparisons read as a summary table")
	}
}

// A failure-share row sorts right after its version's score row, whatever
// the input order, and keeps its own columns.
func TestComparisonsFailureRows(t *testing.T) {
	nan := math.NaN()
	rows := []ComparisonRow{
		{Eval: "e", Version: "v1.0.2", Check: CheckFailureShare, Test: "failure-increase", FailureMethod: "mcnemar-exact", Mean: 0.2, BaselineMean: 0.1,
			PWorse: 0.001, PWorseAdj: 0.002, PBetter: nan, A12: nan, Margin: 0.05, Family: "failure checks: 2 checks, Holm", Verdict: VerdictRegression},
		{Eval: "e", Version: "v1.0.10", Check: CheckScore, Test: "mwu", Family: "2 checks, Holm", Verdict: VerdictNoDifference},
		{Eval: "e", Version: "v1.0.10", Check: CheckFailureShare, Test: "failure-increase", Verdict: VerdictNoDifference},
		{Eval: "e", Version: "v1.0.2", Check: CheckScore, Test: "mwu", Verdict: VerdictNoDifference},
	}
	path := filepath.Join(t.TempDir(), "comparisons.parquet")
	if err := WriteComparisons(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadComparisons(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v1.0.2 score", "v1.0.2 failure-share", "v1.0.10 score", "v1.0.10 failure-share"}
	for i, r := range got {
		if r.Version+" "+r.Check != want[i] {
			t.Errorf("row %d: %s %s, want %s", i, r.Version, r.Check, want[i])
		}
	}
	f := got[1]
	if f.FailureMethod != "mcnemar-exact" || f.PWorseAdj != 0.002 || !math.IsNaN(f.PBetter) || f.Margin != 0.05 ||
		f.Family != "failure checks: 2 checks, Holm" || f.Verdict != VerdictRegression {
		t.Errorf("failure row %+v", f)
	}
}
