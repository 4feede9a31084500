package scores

import (
	"errors"
	"fmt"
	"slices"

	"evolve/gate"
	"evolve/internal/format"
	"evolve/stats"
)

// The verdicts of a Comparison, from its one-sided p-values at Alpha.
const (
	Improvement  = "improvement"               // candidate greater: PGreater < Alpha
	Regression   = "regression"                // candidate less: PLess < Alpha (and not an improvement)
	NoDifference = "no significant difference" // neither
)

// Options are the settings of Compare.
type Options struct {
	Test         stats.TestName    // a test registered with stats.UseCompare: stats.TestMWU or stats.TestSignedRank (scores paired by seed, see Pair)
	Alternative  stats.Alternative // the alternative of the reported P
	Method       stats.Method      // exact, asymptotic or auto (see stats.MannWhitneyU)
	NoContinuity bool              // no continuity correction in the normal approximation
	Alpha        float64           // the verdict's significance level, in (0, 1)
}

// Summary describes one sample of a comparison: its source, size, mean,
// median and the 95% CI of its mean (stats.Summarize); CILow and CIHigh
// are nil when the CI is not finite (fewer than two scores).
type Summary struct {
	Source string   `json:"source"`
	N      int      `json:"n"`
	Mean   float64  `json:"mean"`
	Median float64  `json:"median"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
}

// Summarize returns s's Summary.
func Summarize(s *Sample) Summary {
	return summary(s, stats.Summarize(s.Scores))
}

// summary is s's Summary from its stats.Summary sum.
func summary(s *Sample, sum stats.Summary) Summary {
	return Summary{Source: s.Source, N: sum.N, Mean: sum.Mean, Median: sum.Median, CILow: format.Finite(sum.CILow), CIHigh: format.Finite(sum.CIHigh)}
}

// Comparison is a candidate's sample against a baseline's (Compare); its
// JSON form is what evolve compare --json prints. Every statistic is of
// the candidate against the baseline.
type Comparison struct {
	Test        stats.TestName `json:"test"`        // Options.Test
	Alternative string         `json:"alternative"` // the alternative of P
	Method      string         `json:"method"`      // the method P used: exact or asymptotic
	Alpha       float64        `json:"alpha"`       // the verdict's level
	N1          int            `json:"n1"`          // the baseline's size
	N2          int            `json:"n2"`          // the candidate's size
	// U is the candidate's Mann-Whitney U (R's W of wilcox.test(candidate,
	// baseline)), in [0, N1·N2], whatever the test.
	U float64 `json:"u"`
	// V is the signed-rank statistic of candidate − baseline and NPairs
	// the pairs with a nonzero difference; nil for the U test.
	V      *float64 `json:"v"`
	NPairs *int     `json:"n_pairs"`
	P      float64  `json:"p"` // the p-value of Alternative
	// A12 is the Vargha-Delaney effect size U/(N1·N2) = P(candidate >
	// baseline) + ties/2, in [0, 1]; RankBiserial is 2·A12 − 1.
	A12          float64 `json:"a12"`
	RankBiserial float64 `json:"rank_biserial"`
	// HLShift is the Hodges-Lehmann estimate of candidate − baseline with
	// its 95% CI (for signed-rank the one-sample estimate of the paired
	// differences, R's wilcox.test(..., paired = TRUE, conf.int = TRUE));
	// nil when there are too few observations.
	HLShift  *float64 `json:"hl_shift"`
	HLCILow  *float64 `json:"hl_ci_low"`
	HLCIHigh *float64 `json:"hl_ci_high"`
	// PGreater and PLess are the one-sided p-values (candidate greater,
	// candidate less) the Verdict is taken from.
	PGreater  float64 `json:"p_greater"`
	PLess     float64 `json:"p_less"`
	Verdict   string  `json:"verdict"` // Improvement, Regression or NoDifference
	Baseline  Summary `json:"baseline"`
	Candidate Summary `json:"candidate"`
	// Check is the gate's check of the two samples (GateCheck); nil when
	// not computed (too few scores for the gate).
	Check *gate.Check `json:"check"`
	// FailureCheck is the failure-share check (FailureCheck), if asked.
	FailureCheck *gate.Check `json:"failure_check,omitempty"`
}

// ErrTest is returned (wrapped, naming the test) by Compare for a test it
// does not run: it runs the rank tests stats.TestMWU and
// stats.TestSignedRank, with their exact and asymptotic methods.
var ErrTest = errors.New("evolve compare does not run this test")

// Compare compares cand with base as benchstat compares benchmarks: the
// test of o.Test three times (o.Alternative for P, and both one-sided
// alternatives for the verdict), U and its effect sizes A12 and the
// rank-biserial correlation, and the Hodges-Lehmann shift with its CI.
// The signed-rank test pairs the scores by seed (Pair); Check and
// FailureCheck are left nil. Errors: ErrTest for a test Compare does not
// run, the tests' (stats.ErrSampleSize for an empty sample, ...), and
// Pair's for samples that do not pair.
//
// Each sample is sorted once: the U tests, A12, the unpaired
// Hodges-Lehmann shift and the summaries' medians share the sorted
// copies (stats.MannWhitneyUSorted, HodgesLehmannSorted,
// SummarizeSorted), and the signed-rank test pairs once.
func Compare(base, cand *Sample, o Options) (*Comparison, error) {
	if o.Test != stats.TestMWU && o.Test != stats.TestSignedRank {
		return nil, fmt.Errorf("%w: %q (it runs %s)", ErrTest, o.Test, stats.OrList([]stats.TestName{stats.TestMWU, stats.TestSignedRank}))
	}
	x, y := cand.Scores, base.Scores
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	c := &Comparison{Test: o.Test, Alternative: o.Alternative.String(), Alpha: o.Alpha,
		N1: len(y), N2: len(x), Baseline: summary(base, stats.SummarizeSorted(y, ys)), Candidate: summary(cand, stats.SummarizeSorted(x, xs))}
	mwu := func(alt stats.Alternative) (stats.MWUResult, error) {
		return stats.MannWhitneyUSorted(xs, ys, stats.MWUOptions{Alternative: alt, Method: o.Method, NoContinuity: o.NoContinuity})
	}
	u, err := mwu(o.Alternative)
	if err != nil {
		return nil, err
	}
	c.U = u.U
	c.A12 = u.U / float64(len(x)*len(y))
	c.RankBiserial = 2*c.A12 - 1
	var px, py, d []float64 // paired scores and candidate − baseline (signed-rank only)
	if o.Test == stats.TestSignedRank {
		if px, py, err = Pair(cand, base); err != nil {
			return nil, err
		}
		d = make([]float64, len(px))
		for i := range d {
			d[i] = px[i] - py[i]
		}
	}
	p := func(alt stats.Alternative) (float64, string, error) {
		if o.Test == stats.TestSignedRank {
			r, err := stats.WilcoxonSignedRank(px, py, stats.SignedRankOptions{Alternative: alt, Method: o.Method, NoContinuity: o.NoContinuity})
			if err != nil {
				return 0, "", err
			}
			if alt == o.Alternative {
				c.V, c.NPairs = &r.TPlus, &r.N
			}
			return r.P, r.Method.String(), nil
		}
		if alt == o.Alternative {
			return u.P, u.Method.String(), nil
		}
		r, err := mwu(alt)
		return r.P, r.Method.String(), err
	}
	if c.P, c.Method, err = p(o.Alternative); err != nil {
		return nil, err
	}
	if c.PGreater, _, err = p(stats.Greater); err != nil {
		return nil, err
	}
	if c.PLess, _, err = p(stats.Less); err != nil {
		return nil, err
	}
	if o.Test == stats.TestSignedRank {
		// The paired check reports the one-sample HL of the differences,
		// R's wilcox.test(x, y, paired = TRUE, conf.int = TRUE).
		if hl, err := stats.HodgesLehmannOneSample(d, stats.ShiftOptions{Method: o.Method, NoContinuity: o.NoContinuity}); err == nil {
			c.HLShift, c.HLCILow, c.HLCIHigh = format.Finite(hl.Estimate), format.Finite(hl.CILow), format.Finite(hl.CIHigh)
		}
	} else if hl, err := stats.HodgesLehmannSorted(xs, ys, stats.ShiftOptions{Method: o.Method, NoContinuity: o.NoContinuity}); err == nil {
		c.HLShift, c.HLCILow, c.HLCIHigh = format.Finite(hl.Estimate), format.Finite(hl.CILow), format.Finite(hl.CIHigh)
	}
	c.Verdict = verdict(c.PGreater, c.PLess, o.Alpha)
	return c, nil
}

// verdict is Improvement if pGreater < alpha, else Regression if pLess <
// alpha, else NoDifference.
func verdict(pGreater, pLess, alpha float64) string {
	switch {
	case pGreater < alpha:
		return Improvement
	case pLess < alpha:
		return Regression
	}
	return NoDifference
}

// GateCheck runs the regression gate's check (gate.Compare) on one
// candidate against one baseline, as evolve compare does: test
// (stats.TestMWU or stats.TestSignedRank) is the gate's rank test, and with cfg.MarginOn
// mean the paired test is the paired t test (gate.TestAuto). Samples
// without seeds are paired by line for the signed-rank test when they
// have the same size, as Pair does. Errors: gate.Compare's, among them
// gate.ErrTooFew when the samples are too small for the gate to ever
// fail.
func GateCheck(base, cand *Sample, test stats.TestName, cfg gate.Config) (*gate.Check, error) {
	cfg.Test = test
	if cfg.MarginOn == gate.MarginOnMean && test == stats.TestSignedRank {
		cfg.Test = gate.TestAuto // the paired t test
	}
	b := gate.Sample{Version: "baseline", Seeds: base.Seeds, Scores: base.Scores}
	c := gate.Sample{Version: "candidate", Seeds: cand.Seeds, Scores: cand.Scores}
	if test == stats.TestSignedRank && b.Seeds == nil && c.Seeds == nil && len(b.Scores) == len(c.Scores) {
		// Files without seeds pair by line, as Pair does.
		b.Seeds = make([]uint64, len(b.Scores))
		for i := range b.Seeds {
			b.Seeds[i] = uint64(i)
		}
		c.Seeds = b.Seeds
	}
	checks, err := gate.Compare([]gate.Sample{b}, []gate.Sample{c}, cfg)
	if err != nil {
		return nil, err
	}
	return &checks[0], nil
}

// ErrNoCauses: a sample has no failure causes (Sample.Failed is nil), so
// a failure-share check cannot use it.
var ErrNoCauses = errors.New("no failure causes")

// FailureCheck runs the failure-share check (gate.CompareFailures) of a
// maximum increase maxIncrease (a share in [0, 1)) of failed episodes
// from base to cand, paired by seed when both have seeds, at cfg.Alpha
// and with cfg.MaxUnmatched. Errors: ErrNoCauses, naming the sample and
// the sources that have causes; gate.CompareFailures'.
func FailureCheck(base, cand *Sample, cfg gate.Config, maxIncrease float64) (*gate.Check, error) {
	for _, s := range []*Sample{base, cand} {
		if s.Failed == nil {
			return nil, fmt.Errorf("%s has %w (give RUN_DIR:VERSION, or a CSV file with a \"cause\" column: none or a failure cause per episode)", s.Source, ErrNoCauses)
		}
	}
	b := gate.FailureSample{Version: "baseline", Seeds: base.Seeds, Failed: base.Failed}
	c := gate.FailureSample{Version: "candidate", Seeds: cand.Seeds, Failed: cand.Failed}
	checks, err := gate.CompareFailures([]gate.FailureSample{b}, []gate.FailureSample{c},
		gate.FailureConfig{Alpha: cfg.Alpha, MaxIncrease: maxIncrease, MaxUnmatched: cfg.MaxUnmatched})
	if err != nil {
		return nil, err
	}
	return &checks[0], nil
}
