package online

import (
	"fmt"
	"math"
)

// RollbackRule is the auto-rollback rule: a version whose recent
// observation scores fall below its own baseline by more than K standard
// errors, over a whole window, is rolled back.
//
// # The rule
//
//  1. Baseline: the version's first Baseline scores give its baseline
//     mean m and sample standard deviation s; sigma = max(s, MinSigma)
//     (the floor keeps a constant baseline from alarming at any dip).
//  2. Windows: the scores after the baseline are cut into consecutive,
//     non-overlapping windows of Window scores. At the end of each
//     window its mean r is compared with the baseline.
//  3. Alarm when r < m - K sigma sqrt(1/Window + 1/Baseline). The
//     detector latches: it alarms once, and the version is rolled back.
//
// # Derivation
//
// Under no change the scores are independent with mean mu and standard
// deviation sigma. The window mean and the baseline mean are independent
// means of Window and Baseline scores, so r - m has mean 0 and variance
// sigma^2 (1/Window + 1/Baseline), approximately normal by the central
// limit theorem: one window alarms with probability Phi(-K). Over a
// version's first H monitored scores there are floor(H/Window) windows,
// and by the union bound the false rollback rate is at most
// floor(H/Window) Phi(-K). With DefaultRollbackRule (Baseline 150,
// Window 50, K 4) that is 20 x 3.17e-5 = 0.063% per 1,000 scores for
// normal scores with a known sigma; estimating sigma from the baseline
// and skewed scores raise it (simulated below).
//
// If the mean drops by delta sigma from some score on, the first window
// wholly after the drop ends within 2 Window - 1 scores of it, and its
// mean is below m by delta sigma on average, so it alone alarms with
// probability about Phi(delta / sqrt(1/Window + 1/Baseline) - K). For
// delta = 1 and the default rule: Phi(6.12 - 4) = Phi(2.12) = 0.983. So
// the detection window, DetectionWindow, is 2 Window scores after the
// change.
//
// Simulated (TestRollbackStudy: 20,000 seeded trials per figure; the
// drop comes after 200 to 249 monitored scores), with scores of the
// design's observation model (DefaultObservationScores: sd 0.123436,
// skewed): a one-sigma drop is rolled back within DetectionWindow = 100
// scores in 98.45% of trials (median delay 58 scores, p95 86), and under
// no change 0.17% of trials roll back within 1,000 monitored scores.
// With normal scores: 98.55% and 0.07%.
//
// A rule of windows is a Shewhart chart of window means (Montgomery,
// Introduction to Statistical Quality Control, 7th ed., 2013, ch. 6) with
// limits estimated from a Phase I baseline of the same process; the
// sqrt(1/Window + 1/Baseline) term accounts for the baseline's own
// error.
type RollbackRule struct {
	Baseline int     `json:"baseline"`  // scores of the baseline, >= 2
	Window   int     `json:"window"`    // scores per window, >= 1
	K        float64 `json:"k"`         // alarm threshold in standard errors of r - m, > 0
	MinSigma float64 `json:"min_sigma"` // floor of the baseline's standard deviation, >= 0 (scores are in [0, 1])
}

// DefaultRollbackRule is the rule whose rates RollbackRule documents:
// Baseline 150, Window 50, K 4, MinSigma 0.01.
var DefaultRollbackRule = RollbackRule{Baseline: 150, Window: 50, K: 4, MinSigma: 0.01}

// Validate returns an error naming the first field out of its range.
func (r RollbackRule) Validate() error {
	switch {
	case r.Baseline < 2:
		return fmt.Errorf("rollback baseline must be >= 2 scores: %d", r.Baseline)
	case r.Window < 1:
		return fmt.Errorf("rollback window must be >= 1 score: %d", r.Window)
	case !(r.K > 0) || math.IsInf(r.K, 0):
		return fmt.Errorf("rollback k must be a positive number: %v", r.K)
	case !(r.MinSigma >= 0) || math.IsInf(r.MinSigma, 0):
		return fmt.Errorf("rollback min sigma must be >= 0: %v", r.MinSigma)
	}
	return nil
}

// DetectionWindow is the number of scores after a change within which
// the rule's documented detection rate holds: 2 Window (see
// RollbackRule).
func (r RollbackRule) DetectionWindow() int { return 2 * r.Window }

// Evidence is why a Detector alarmed: what the rolled_back edge records.
type Evidence struct {
	Window       int     `json:"window"`        // scores in the window that alarmed
	Baseline     int     `json:"baseline"`      // scores in the baseline
	BaselineMean float64 `json:"baseline_mean"` // m, mean of the baseline scores
	RecentMean   float64 `json:"recent_mean"`   // r, mean of the window's scores
	Sigma        float64 `json:"sigma"`         // the baseline's standard deviation (floored at MinSigma)
	K            float64 `json:"k"`             // the rule's K
	Threshold    float64 `json:"threshold"`     // m - K sigma sqrt(1/Window + 1/Baseline); RecentMean was below it
	Observations int     `json:"observations"`  // scores of the version seen, the alarming one included
}

// DetectorState is a Detector's whole state, to persist and restore it
// (RestoreDetector): restoring and going on gives exactly the results of
// never stopping.
type DetectorState struct {
	N            int       `json:"n"`               // scores seen since the start or the last Reset
	BaselineMean float64   `json:"baseline_mean"`   // running mean of the baseline scores (Welford)
	BaselineM2   float64   `json:"baseline_m2"`     // running sum of squared deviations of the baseline scores (Welford)
	WindowSum    float64   `json:"window_sum"`      // sum of the current window's scores
	Fired        *Evidence `json:"fired,omitempty"` // the alarm's evidence once it alarmed (latched); nil before
}

// Detector applies a RollbackRule to one version's scores, fed one at a
// time in the order observed. Not safe for concurrent use.
type Detector struct {
	rule RollbackRule
	st   DetectorState
}

// NewDetector returns a detector with no scores. It panics if r is
// invalid (see RollbackRule.Validate).
func NewDetector(r RollbackRule) *Detector {
	if err := r.Validate(); err != nil {
		panic("online: " + err.Error())
	}
	return &Detector{rule: r}
}

// RestoreDetector returns a detector in state st (from State). It panics
// if r is invalid.
func RestoreDetector(r RollbackRule, st DetectorState) *Detector {
	d := NewDetector(r)
	d.st = st
	if st.Fired != nil {
		e := *st.Fired
		d.st.Fired = &e
	}
	return d
}

// State returns a copy of the detector's state.
func (d *Detector) State() DetectorState {
	st := d.st
	if st.Fired != nil {
		e := *st.Fired
		st.Fired = &e
	}
	return st
}

// Rule returns the detector's rule.
func (d *Detector) Rule() RollbackRule { return d.rule }

// Fired returns the alarm's evidence and true once the detector alarmed.
func (d *Detector) Fired() (Evidence, bool) {
	if d.st.Fired == nil {
		return Evidence{}, false
	}
	return *d.st.Fired, true
}

// Reset forgets every score: the next Baseline scores form a new
// baseline (after a version is promoted again by hand).
func (d *Detector) Reset() { d.st = DetectorState{} }

// Sigma returns the baseline's standard deviation floored at MinSigma,
// and false while the baseline is incomplete.
func (d *Detector) Sigma() (float64, bool) {
	b := d.rule.Baseline
	if d.st.N < b {
		return 0, false
	}
	return math.Max(math.Sqrt(d.st.BaselineM2/float64(b-1)), d.rule.MinSigma), true
}

// Add feeds the version's next score. It returns the evidence and true
// when this score completes a window that alarms (see RollbackRule);
// else a zero Evidence and false, and always so once the detector has
// alarmed (it latches until Reset). A NaN score panics.
func (d *Detector) Add(score float64) (Evidence, bool) {
	if math.IsNaN(score) {
		panic("online: Detector.Add(NaN)")
	}
	if d.st.Fired != nil {
		return Evidence{}, false
	}
	st := &d.st
	st.N++
	b := d.rule.Baseline
	if st.N <= b {
		delta := score - st.BaselineMean
		st.BaselineMean += delta / float64(st.N)
		st.BaselineM2 += delta * (score - st.BaselineMean)
		return Evidence{}, false
	}
	st.WindowSum += score
	if (st.N-b)%d.rule.Window != 0 {
		return Evidence{}, false
	}
	w := d.rule.Window
	recent := st.WindowSum / float64(w)
	st.WindowSum = 0
	sigma, _ := d.Sigma()
	thr := st.BaselineMean - d.rule.K*sigma*math.Sqrt(1/float64(w)+1/float64(b))
	if recent >= thr {
		return Evidence{}, false
	}
	e := Evidence{Window: w, Baseline: b, BaselineMean: st.BaselineMean, RecentMean: recent, Sigma: sigma,
		K: d.rule.K, Threshold: thr, Observations: st.N}
	st.Fired = &e
	return e, true
}
