package gate

import (
	"fmt"
	"math"
	"strings"

	"evolve/stats"
)

// FailureSample is one version's episodes on one environment variant as
// failed or not, with the seeds (and repeats) they came from: Failed[i]
// was played on seed Seeds[i], repeat Repeats[i]. An episode is failed
// when its cause is any declared failure cause (not "none"); "error"
// episodes count as failed.
type FailureSample struct {
	// Version and Variant name the sample as in Sample.
	Version, Variant string
	// Seeds has len(Failed) elements, or is nil when the seeds are not
	// known (the sample then cannot be paired).
	Seeds []uint64
	// Repeats has len(Failed) elements, or is nil meaning every repeat is
	// 0.
	Repeats []int
	// Failed holds one flag per episode, at least one.
	Failed []bool
}

// FailureConfig configures CompareFailures.
type FailureConfig struct {
	// Alpha is the family-wise level of the failure checks, in (0, 1); 0
	// means 0.05.
	Alpha float64
	// MaxIncrease is the tolerated increase P of the share of failed
	// episodes, in [0, 1) (0.05 = 5 percentage points; 0 = any increase).
	MaxIncrease float64
	// Correction adjusts the failure checks' p-values across their own
	// family, as Config.Correction ("" = holm).
	Correction string
	// MaxUnmatched is as Config.MaxUnmatched: a sample with more
	// unmatched candidate observations is tested unpaired (with a
	// warning).
	MaxUnmatched int
}

// CompareFailures tests, for each candidate, whether its share of failed
// episodes exceeds its variant's baseline's by more than cfg.MaxIncrease:
// H0: π_candidate − π_baseline <= P against H1: π_candidate −
// π_baseline > P. The check fails (Failed and Regression) when the
// adjusted p-value is below Alpha: evidence of an increase beyond P.
// Passing is not evidence that the share did not increase. It catches
// rare catastrophic losses that a test of a shift ignores.
//
// Tests: paired by (seed, repeat) when the seeds are known, unique within
// each sample and at least one is shared, with at most MaxUnmatched
// unmatched candidate observations: stats.FailureIncreasePaired on the
// pairs (exact McNemar at P = 0; the exact unconditional test of Hsueh,
// Liu & Chen 2001 with Tango's score at P > 0). Otherwise
// stats.FailureIncrease (the exact unconditional test of Chan 1998 with
// the Farrington-Manning score; Barnard's test at P = 0), with a
// warning saying why.
//
// Family: the failure checks of one call form their own family, adjusted
// by Correction (Holm by default) at Alpha and stated in Check.Family;
// it is separate from the family of Compare's score checks, so a gate
// running both fails wrongly with probability at most 2·Alpha.
//
// Check fields: Test is stats.TestFailureIncrease; Mean and BaselineMean are
// the failure shares (in [0, 1]), MeanDiff their difference; Margin is P;
// Statistic is the score statistic Z (or n10, the pairs where only the
// candidate failed, for the exact McNemar test); A12, the HL fields and
// Power are NaN.
//
// Errors: ErrConfig for a bad cfg; ErrTooFew for an empty sample;
// ErrSample for a malformed or duplicated sample; ErrNoBaseline when a
// candidate's variant has no baseline.
func CompareFailures(baseline, candidates []FailureSample, cfg FailureConfig) ([]Check, error) {
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.05
	}
	if err := stats.CheckAlpha(cfg.Alpha); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if !(cfg.MaxIncrease >= 0 && cfg.MaxIncrease < 1) {
		return nil, fmt.Errorf("%w: max failure increase must be a share in [0, 1): %v", ErrConfig, cfg.MaxIncrease)
	}
	if err := (Config{Alpha: cfg.Alpha, Correction: cfg.Correction, MaxUnmatched: cfg.MaxUnmatched}).Validate(); err != nil {
		return nil, err
	}
	if cfg.Correction == "" {
		cfg.Correction = CorrectionHolm
	}
	toSample := func(f FailureSample) Sample {
		s := Sample{Version: f.Version, Variant: f.Variant, Seeds: f.Seeds, Repeats: f.Repeats, Scores: make([]float64, len(f.Failed))}
		for i, x := range f.Failed {
			if x {
				s.Scores[i] = 1
			}
		}
		return s
	}
	baseOf := map[string]int{}
	for i, b := range baseline {
		if err := validate(toSample(b), "baseline"); err != nil {
			return nil, err
		}
		if j, dup := baseOf[b.Variant]; dup {
			return nil, fmt.Errorf("%w: variant %q has two baseline samples (versions %q and %q)", ErrSample, b.Variant, baseline[j].Version, b.Version)
		}
		baseOf[b.Variant] = i
	}
	checks := make([]Check, len(candidates))
	for i, c := range candidates {
		cs := toSample(c)
		if err := validate(cs, "candidate"); err != nil {
			return nil, err
		}
		j, ok := baseOf[c.Variant]
		if !ok {
			return nil, fmt.Errorf("%w %q (version %q)", ErrNoBaseline, c.Variant, c.Version)
		}
		ch, err := failureCheck(toSample(baseline[j]), cs, cfg)
		if err != nil {
			return nil, err
		}
		checks[i] = ch
	}
	name := func(desc string) string { return "failure checks: " + desc + ", separate from the score checks" }
	err := adjustFamily(checks, cfg.Correction, name, func(c *Check, adj float64) {
		c.Failed = adj < cfg.Alpha
		c.Regression = c.Failed
		c.Message = failureMessage(*c)
	})
	if err != nil {
		return nil, fmt.Errorf("gate: adjusting failure p-values: %w", err)
	}
	return checks, nil
}

// failureCheck runs the test of one candidate (scores 1 = failed).
func failureCheck(base, cand Sample, cfg FailureConfig) (Check, error) {
	c := Check{Version: cand.Version, Variant: cand.Variant, Hypothesis: HypothesisRegression, Test: stats.TestFailureIncrease,
		Margin: cfg.MaxIncrease, Alpha: cfg.Alpha, Correction: cfg.Correction,
		A12: math.NaN(), HLShift: math.NaN(), HLLow: math.NaN(), HLHigh: math.NaN(), Power: math.NaN()}
	pr := pairing(base, cand)
	c.NPaired, c.NUnmatched = len(pr.cand), pr.unmatched
	var r stats.FailureIncreaseResult
	var err error
	why := pr.why
	if why == "" && cfg.MaxUnmatched != NoLimit && pr.unmatched > cfg.MaxUnmatched {
		why = fmt.Sprintf("%d unmatched candidate observations exceed --max-unmatched %d", pr.unmatched, cfg.MaxUnmatched)
	}
	if why == "" {
		var f, fb, n10, n01 int
		for k := range pr.cand {
			cf, bf := cand.Scores[pr.cand[k]] == 1, base.Scores[pr.base[k]] == 1
			if cf {
				f++
			}
			if bf {
				fb++
			}
			if cf && !bf {
				n10++
			}
			if bf && !cf {
				n01++
			}
		}
		r, err = stats.FailureIncreasePaired(f, fb, n10, n01, len(pr.cand), cfg.MaxIncrease)
		c.Paired = true
		if pr.unmatched > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%d unmatched candidate observations left out of the pairs", pr.unmatched))
		}
	} else {
		count := func(x []float64) (k int) {
			for _, v := range x {
				if v == 1 {
					k++
				}
			}
			return k
		}
		r, err = stats.FailureIncrease(count(cand.Scores), len(cand.Scores), count(base.Scores), len(base.Scores), cfg.MaxIncrease)
		c.Warnings = append(c.Warnings, "failure shares tested unpaired: "+why)
	}
	if err != nil {
		return c, fmt.Errorf("%w: variant %q, version %q: %v", ErrSample, cand.Variant, cand.Version, err)
	}
	c.N, c.NBaseline = r.N, r.NBaseline
	c.Mean, c.BaselineMean, c.MeanDiff = r.Share, r.ShareBaseline, r.Diff
	c.Statistic, c.P = r.Statistic, r.P
	c.FailureMethod = r.Method
	return c, nil
}

// failureMessage formats Check.Message of a failure check.
func failureMessage(c Check) string {
	var b strings.Builder
	b.WriteString(c.Name())
	if c.Failed {
		b.WriteString(": FAILURE INCREASE: ")
	} else {
		b.WriteString(": ok: ")
	}
	fmt.Fprintf(&b, "failed share %s vs baseline %s (diff %s); H1: %s; %s %s = %s, p = %s",
		num(c.Mean), num(c.BaselineMean), num(c.MeanDiff), H1(c), c.FailureMethod, statName(c.Test), num(c.Statistic), pfmt(c.P))
	if c.Correction != CorrectionNone {
		fmt.Fprintf(&b, ", %s-adjusted p = %s", c.Correction, pfmt(c.PAdj))
	}
	rel := ">="
	if c.PAdj < c.Alpha {
		rel = "<"
	}
	fmt.Fprintf(&b, " %s alpha %v; n = %d vs %d", rel, c.Alpha, c.N, c.NBaseline)
	if c.Paired {
		b.WriteString(" paired by seed")
	}
	b.WriteString(" (passing is not evidence that failures did not increase)")
	return b.String()
}
