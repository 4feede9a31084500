package gate

// Names of tests: the values of Config.Test and Check.Test.
const (
	// TestAuto (Config.Test only) picks TestSignedRank when every (seed,
	// repeat) of the candidate is in the baseline, else TestMWU.
	TestAuto = "auto"
	// TestMWU is the one-sided Mann-Whitney U (Wilcoxon rank-sum) test of
	// independent samples (stats.MannWhitneyU).
	TestMWU = "mwu"
	// TestSignedRank is the one-sided Wilcoxon signed-rank test of the
	// differences paired by (seed, repeat) (stats.WilcoxonSignedRank).
	TestSignedRank = "signed-rank"
	// TestA12 (Check.Test only) is the studentized permutation test of
	// the relative effect A12 against the boundary 0.5 − MarginA12, with
	// the Brunner-Munzel statistic on the logit scale (Pauly, Asendorf and
	// Konietschke 2016; stats.BrunnerMunzelPermutation), used when
	// Config.MarginA12 > 0.
	TestA12 = "brunner-munzel-permutation"
	// TestWelch (Check.Test only) is Welch's t test of the difference of
	// means (stats.WelchT), used with MarginOn "mean" on unpaired samples.
	TestWelch = "welch-t"
	// TestPairedT (Check.Test only) is the paired t test of the mean
	// difference (stats.PairedT), used with MarginOn "mean" on paired
	// samples.
	TestPairedT = "paired-t"
	// TestBootstrapT is the bootstrap-t test of the difference of means
	// (stats.BootstrapT; Config.Test with MarginOn "mean", for skewed
	// scores).
	TestBootstrapT = "bootstrap-t"
)

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
