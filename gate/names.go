package gate

import "evolve/stats"

// TestAuto is the Config.Test (not a test) that picks
// stats.TestSignedRank when every (seed, repeat) of the candidate is in
// the baseline, else stats.TestMWU. The tests themselves are the
// registered stats.TestName values (stats.Tests); Config.Test may name
// those registered with stats.UseGate.
const TestAuto stats.TestName = "auto"

// Names of hypotheses: the values of Config.Hypothesis and
// Check.Hypothesis.
const (
	// HypothesisRegression (the default) tests H0: the candidate is not
	// worse by more than the margin, against H1: it is. The check fails
	// on evidence of a loss beyond the margin; passing is NOT evidence
	// that the candidate is non-inferior (with few seeds a real loss
	// passes; Check.Power says how often).
	HypothesisRegression = "regression"
	// HypothesisNonInferiority tests H0: the candidate is worse by at
	// least the margin, against H1: it is worse by less (or better). The
	// check passes only when H0 is rejected at Alpha: passing is evidence
	// of non-inferiority (Wellek 2010, ch. 1-2; EMA/CHMP 2000 "Points to
	// consider on switching between superiority and non-inferiority").
	// Needs a margin > 0.
	HypothesisNonInferiority = "non-inferiority"
	// HypothesisSuperiority is the hypothesis of a run's acceptance
	// checks (package accept), never of a Config: H0: the candidate is
	// not better than the incumbent, against H1: it is (one-sided,
	// candidate greater, no margin). The check passes only when H0 is
	// rejected at Alpha and the candidate's mean is the higher.
	HypothesisSuperiority = "superiority"
	// HypothesisTwoSided is the hypothesis of a descriptive two-sided
	// comparison, never of a Config (the run report's final version
	// against the base on the test split): H1: the two differ. Such a
	// check neither fails nor passes.
	HypothesisTwoSided = "two-sided"
)

// Names of margin scales: the values of Config.MarginOn.
const (
	// MarginOnShift (the default): Margin is a location shift, tested
	// with the rank tests (robust, but blind to rare large losses).
	MarginOnShift = "shift"
	// MarginOnMean: Margin is a difference of means, tested with Welch's
	// t, the paired t or the bootstrap-t test.
	MarginOnMean = "mean"
)

// Names of corrections: the values of Config.Correction.
// The family is every (variant × version) check of one Compare call,
// unless the correction says otherwise.
const (
	// CorrectionHolm is Holm's (1979) step-down adjustment across the
	// family (stats.Adjust with stats.Holm, R's p.adjust(p, "holm")),
	// controlling the family-wise error rate at Alpha under any
	// dependence.
	CorrectionHolm = "holm"
	// CorrectionHochberg is Hochberg's (1988) step-up adjustment across
	// the family (R's p.adjust(p, "hochberg")): more powerful than Holm,
	// valid when the tests are independent or positively dependent
	// (Sarkar 1998), as checks of variants on shared seeds typically are.
	CorrectionHochberg = "hochberg"
	// CorrectionBonferroni multiplies each p-value by the family size.
	CorrectionBonferroni = "bonferroni"
	// CorrectionNonePerVariant adjusts by Holm within each variant only
	// (the family is the versions of one variant): the error rate of the
	// whole eval grows with the number of variants (4 variants, nothing
	// changed: 20% at α = 0.05). Kept for comparisons with old gates.
	CorrectionNonePerVariant = "none-per-variant"
	// CorrectionNone leaves the p-values unadjusted: each check is at
	// level Alpha on its own.
	CorrectionNone = "none"
)
