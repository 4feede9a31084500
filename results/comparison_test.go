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
