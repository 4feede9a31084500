package gate

import (
	"fmt"
	"math"
)

// Sample is one version's scores on one environment variant, with the seeds
// (and repeats) they came from, in the same order: Scores[i] was played on
// seed Seeds[i], repeat Repeats[i].
type Sample struct {
	// Version names the prompt version (e.g. "v1.0.5"); for the baseline
	// it is informational.
	Version string
	// Variant names the environment variant; "" is a valid name (an
	// eval without variants). Candidates are matched with the baseline of
	// the same Variant.
	Variant string
	// Seeds has len(Scores) elements, or is nil when the seeds are not
	// known (the sample then cannot be paired).
	Seeds []uint64
	// Repeats has len(Scores) elements, or is nil meaning every repeat
	// is 0.
	Repeats []int
	// Scores are the episode scores, finite, at least one.
	Scores []float64
}

// Compare tests each candidate against the baseline sample of its Variant
// and returns one Check per candidate, in the order of candidates. Each
// variant must have at most one baseline sample; baseline samples of
// variants without candidates are ignored.
//
// Family: every check of the call ((variant × version) pairs) forms one
// family, whose p-values are adjusted together by cfg.Correction (Holm by
// default), so the probability that any check of an eval fails wrongly is
// at most Alpha; CorrectionNonePerVariant makes each variant its own
// family (the old gate) and CorrectionNone leaves p unadjusted.
//
// Pairing is on the (seed, repeat)s both samples played. Test "auto" runs
// a paired test when the seeds are known, no (seed, repeat) repeats within
// a sample and at least one is shared, and the independent-samples test
// otherwise (with a warning saying why). A paired test with more than
// cfg.MaxUnmatched unmatched observations is refused (ErrUnpaired); the
// unmatched are reported in Check.NUnmatched and a warning.
//
// Hypotheses (x the candidate's scores, y the baseline's, D = Margin,
// m = MarginA12). With HypothesisRegression (default) H0 is "not worse
// by more than the margin" and the check fails when H0 is rejected; with
// HypothesisNonInferiority H0 is "worse by at least the margin" and the
// check passes only when H0 is rejected. The tests:
//
//   - MarginOn shift, m = 0: the location shift Δ of x relative to y
//     (paired: the centre of the differences). Regression: H0: Δ >= −D vs
//     H1: Δ < −D; non-inferiority: H0: Δ <= −D vs H1: Δ > −D. Under the
//     shift model the test of Δ = −D ranks x + D against y (Hollander,
//     Wolfe and Chicken, Nonparametric Statistical Methods, 3rd ed. 2014,
//     §4.1 rank-sum, §3.1 signed-rank): R's wilcox.test(x, y, mu = -D,
//     alternative = "less" resp. "greater"), with paired = TRUE on the
//     differences (x − y) + D computed in R's order. Exact or normal
//     approximation by stats' Auto rules. A shift ignores rare large
//     losses; MarginOn mean does not.
//   - MarginOn shift, m > 0: the relative effect A12 = P(X > Y) +
//     P(X = Y)/2 against θ0 = 0.5 − m by the studentized permutation
//     test with the Brunner-Munzel statistic on the logit scale (Pauly,
//     Asendorf and Konietschke 2016, Biometrical Journal 58:1319; the
//     Brunner-Munzel statistic: Brunner and Munzel 2000; for
//     non-inferiority: Munzel and Hauschke 2003;
//     stats.BrunnerMunzelPermutation with cfg.PermutationReps random
//     permutations seeded by PermutationSeed and the samples, or every
//     split of small samples). It does not assume equal distributions
//     under H0 and its size is within the simulation's interval of Alpha
//     from 10 observations a side (docs/statistics.md).
//     Regression: H1: A12 < θ0; non-inferiority: H1: A12 > θ0. It is a
//     test of independent samples; paired samples are treated as two
//     samples (with a warning).
//   - MarginOn mean: the difference of means μx − μy against −D by
//     Welch's t (unpaired), the paired t (paired), or with Test
//     "bootstrap-t" the bootstrap-t test (Efron and Tibshirani 1993
//     §16.4; seeded by BootstrapSeed, BootstrapReps resamples) for skewed
//     scores. Regression: H1: μx − μy < −D; non-inferiority: H1: > −D.
//
// A12, the Hodges-Lehmann estimate with its CI (paired: of the
// differences), Power and PowerLoss are reported whatever test ran.
//
// Errors (each names the variant and version): ErrConfig for a bad cfg;
// ErrSample for a malformed or duplicated sample; ErrNoBaseline when a
// candidate's variant has no baseline; ErrTooFew for an empty sample, for
// sample sizes at which a rank test's smallest possible p-value is >=
// Alpha (e.g. 3 pairs: 2⁻³ = 0.125), or fewer than 2 observations on a
// side for the Brunner-Munzel and t tests; ErrUnpaired when a paired test
// is required or chosen and the samples cannot be paired, or have more
// than MaxUnmatched unmatched observations.
func Compare(baseline []Sample, candidates []Sample, cfg Config) ([]Check, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	baseOf := make(map[string]int, len(baseline))
	for i, b := range baseline {
		if err := validate(b, "baseline"); err != nil {
			return nil, err
		}
		if j, dup := baseOf[b.Variant]; dup {
			return nil, fmt.Errorf("%w: variant %q has two baseline samples (versions %q and %q)", ErrSample, b.Variant, baseline[j].Version, b.Version)
		}
		baseOf[b.Variant] = i
	}
	type vv struct{ version, variant string }
	seen := make(map[vv]bool, len(candidates))
	for _, c := range candidates {
		if err := validate(c, "candidate"); err != nil {
			return nil, err
		}
		if seen[vv{c.Version, c.Variant}] {
			return nil, fmt.Errorf("%w: variant %q, version %q: two candidate samples", ErrSample, c.Variant, c.Version)
		}
		seen[vv{c.Version, c.Variant}] = true
		if _, ok := baseOf[c.Variant]; !ok {
			return nil, fmt.Errorf("%w %q (version %q)", ErrNoBaseline, c.Variant, c.Version)
		}
	}

	checks := make([]Check, len(candidates))
	for i, c := range candidates {
		ch, err := check(baseline[baseOf[c.Variant]], c, cfg)
		if err != nil {
			return nil, err
		}
		checks[i] = ch
	}
	err = adjustFamily(checks, cfg.Correction, nil, func(c *Check, adj float64) {
		if cfg.Hypothesis == HypothesisNonInferiority {
			c.Failed = !(adj < cfg.Alpha)
		} else {
			c.Failed = adj < cfg.Alpha
			c.Regression = c.Failed
		}
		c.Message = message(*c)
	})
	if err != nil {
		return nil, fmt.Errorf("gate: adjusting p-values: %w", err)
	}
	return checks, nil
}

// validate checks one sample's shape and values; role is "baseline" or
// "candidate".
func validate(s Sample, role string) error {
	where := fmt.Sprintf("%s variant %q, version %q", role, s.Variant, s.Version)
	if len(s.Scores) == 0 {
		return fmt.Errorf("%w: %s: no scores", ErrTooFew, where)
	}
	if s.Seeds != nil && len(s.Seeds) != len(s.Scores) {
		return fmt.Errorf("%w: %s: %d seeds for %d scores", ErrSample, where, len(s.Seeds), len(s.Scores))
	}
	if s.Repeats != nil && len(s.Repeats) != len(s.Scores) {
		return fmt.Errorf("%w: %s: %d repeats for %d scores", ErrSample, where, len(s.Repeats), len(s.Scores))
	}
	for i, v := range s.Scores {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			at := fmt.Sprintf("score %d", i)
			if s.Seeds != nil {
				at += fmt.Sprintf(" (seed %d, repeat %d)", s.Seeds[i], repeatAt(s, i))
			}
			return fmt.Errorf("%w: %s: %s is %v, want a finite number", ErrSample, where, at, v)
		}
	}
	return nil
}

func repeatAt(s Sample, i int) int {
	if s.Repeats == nil {
		return 0
	}
	return s.Repeats[i]
}
