package online

import (
	"math"
	"testing"
)

// TestDetector walks a detector through its baseline, a quiet window and
// an alarming one, with values worked by hand.
func TestDetector(t *testing.T) {
	rule := RollbackRule{Baseline: 4, Window: 2, K: 2, MinSigma: 0.01}
	d := NewDetector(rule)
	// Baseline 0.6 0.8 0.6 0.8: mean 0.7, sample sd sqrt(0.04/3) = 0.11547.
	for _, x := range []float64{0.6, 0.8, 0.6, 0.8} {
		if _, ok := d.Add(x); ok {
			t.Fatal("alarm during the baseline")
		}
	}
	sigma, ok := d.Sigma()
	if !ok || math.Abs(sigma-math.Sqrt(0.04/3)) > 1e-12 {
		t.Fatalf("sigma %v %v", sigma, ok)
	}
	// Threshold 0.7 - 2 * 0.11547 * sqrt(1/2 + 1/4) = 0.5.
	thr := 0.7 - 2*sigma*math.Sqrt(0.75)
	if math.Abs(thr-0.5) > 1e-12 {
		t.Fatalf("threshold %v", thr)
	}
	for _, x := range []float64{0.5, 0.52} { // mean 0.51: quiet
		if _, ok := d.Add(x); ok {
			t.Fatal("alarm at mean 0.51")
		}
	}
	if _, ok := d.Add(0.1); ok {
		t.Fatal("alarm in the middle of a window")
	}
	saved := d.State()
	e, ok := d.Add(0.5) // mean 0.3 < 0.5
	if !ok {
		t.Fatal("no alarm at window mean 0.3")
	}
	want := Evidence{Window: 2, Baseline: 4, BaselineMean: 0.7, RecentMean: 0.3, Sigma: sigma, K: 2, Threshold: thr, Observations: 8}
	if math.Abs(e.BaselineMean-0.7) > 1e-12 || math.Abs(e.RecentMean-0.3) > 1e-12 || math.Abs(e.Threshold-thr) > 1e-12 {
		t.Errorf("evidence %+v, want %+v", e, want)
	}
	e.BaselineMean, e.RecentMean, e.Threshold = want.BaselineMean, want.RecentMean, want.Threshold
	if e != want {
		t.Errorf("evidence %+v, want %+v", e, want)
	}
	if _, ok := d.Add(0); ok {
		t.Error("a latched detector alarmed again")
	}
	if f, ok := d.Fired(); !ok || f.Observations != 8 {
		t.Errorf("Fired %+v %v", f, ok)
	}
	// Restoring the saved state and adding the same score alarms the same.
	r := RestoreDetector(rule, saved)
	if e2, ok := r.Add(0.5); !ok || e2.RecentMean != d.State().Fired.RecentMean {
		t.Errorf("restored detector: %+v %v", e2, ok)
	}
	d.Reset()
	if _, ok := d.Fired(); ok || d.State() != (DetectorState{}) {
		t.Errorf("after Reset: %+v", d.State())
	}
}

// TestDetectorMinSigma: a constant baseline alarms only below the floor.
func TestDetectorMinSigma(t *testing.T) {
	d := NewDetector(RollbackRule{Baseline: 3, Window: 1, K: 1, MinSigma: 0.1})
	for range 3 {
		d.Add(1)
	}
	// threshold 1 - 0.1 sqrt(1 + 1/3) = 0.88453
	if _, ok := d.Add(0.9); ok {
		t.Error("alarm at 0.9")
	}
	if _, ok := d.Add(0.88); !ok {
		t.Error("no alarm at 0.88")
	}
}

func TestRollbackRuleValidate(t *testing.T) {
	for _, r := range []RollbackRule{
		{Baseline: 1, Window: 1, K: 1},
		{Baseline: 2, Window: 0, K: 1},
		{Baseline: 2, Window: 1, K: 0},
		{Baseline: 2, Window: 1, K: math.NaN()},
		{Baseline: 2, Window: 1, K: 1, MinSigma: -1},
	} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if err := DefaultRollbackRule.Validate(); err != nil {
		t.Error(err)
	}
}
