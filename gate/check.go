package gate

import "evolve/stats"

// HLConfLevel is the confidence level of Check's Hodges-Lehmann interval
// [HLLow, HLHigh] (two-sided).
const HLConfLevel = 0.95

// Check is the result of comparing one candidate sample with a baseline
// by one test, evolve's one comparison type: the gate's verdict on one
// candidate version in one variant (Compare, CompareFailures; read by
// evolve eval, the gate line of evolve compare and the viewer), a run's
// acceptance check of a candidate (accept.Candidate) and the run
// report's final version against the base (report.Data.Compare).
// Hypothesis says which question the check answers.
type Check struct {
	// Version and Variant name the candidate sample.
	Version, Variant string
	// Hypothesis is the Config's, HypothesisRegression or
	// HypothesisNonInferiority, for the gate's checks (Compare,
	// CompareFailures); HypothesisSuperiority for a run's acceptance
	// checks (package accept); HypothesisTwoSided for the run report's
	// final-against-base comparisons.
	Hypothesis string
	// MarginOn is the Config's margin scale: MarginOnShift or
	// MarginOnMean.
	MarginOn string
	// N is the number of candidate observations the test used;
	// NBaseline the number of baseline observations it used (all of the
	// baseline for an unpaired test, the N paired ones for a paired
	// test).
	N, NBaseline int
	// NPaired is the number of candidate observations whose (seed,
	// repeat) is in the baseline (0 when seeds are unknown), whatever test
	// ran. Paired tests use exactly these.
	NPaired int
	// NUnmatched is the number of the candidate's observations whose
	// (seed, repeat) is not in the baseline (0 when seeds are unknown): a
	// paired test drops them. (The baseline may hold more seeds than the
	// candidate; those are not counted.)
	NUnmatched int
	// Paired reports that the test ran on the NPaired pairs.
	Paired bool
	// Mean is the candidate's mean score; BaselineMean the mean of the
	// NBaseline baseline observations used; MeanDiff = Mean −
	// BaselineMean (score units; negative means the candidate scores
	// less).
	Mean, BaselineMean, MeanDiff float64
	// Test is the test that ran, a registered stats.TestName:
	// stats.TestMWU, TestSignedRank, TestBrunnerMunzelPermutation (the
	// Brunner-Munzel statistic with a permutation p-value), TestWelchT,
	// TestPairedT, TestBootstrapT, or TestFailureIncrease for a
	// failure-share check.
	Test stats.TestName
	// Method is how P was computed, "exact" or "asymptotic"
	// (stats.Method.String), when the caller records it; "" when not
	// (Compare leaves it "": its checks' JSON has no method key).
	Method string
	// Statistic is the test's statistic (stats.TestSpec.Statistic names
	// it): for stats.TestMWU the U statistic of the candidate's scores
	// plus Margin against the baseline's (R's W of wilcox.test(x, y, mu =
	// -Margin)), in [0, N·NBaseline]; for stats.TestSignedRank V = T+ of
	// the differences (x − y) + Margin (R's V of wilcox.test(x, y, paired
	// = TRUE, mu = -Margin)), in [0, N(N+1)/2]; for
	// stats.TestBrunnerMunzelPermutation the logit-scale Brunner-Munzel
	// statistic (logit A12 − logit(0.5 − MarginA12))·A12(1 − A12)/SE (its
	// p-value from the permutation distribution); for the mean tests t =
	// (MeanDiff + Margin)/SE. ±Inf when a variance is 0.
	Statistic float64
	// P is the p-value of the check's test, in [0, 1]: one-sided, of H1
	// "worse by more than the margin" (regression), of H1 "worse by less
	// than the margin" (non-inferiority) or of H1 "better"
	// (superiority); two-sided for HypothesisTwoSided. PAdj is P adjusted
	// across the family by Correction, in [P, 1].
	P, PAdj float64
	// A12 is the Vargha-Delaney effect size of the candidate against the
	// baseline observations used, P(candidate > baseline) + P(tie)/2, in
	// [0, 1]; 0.5 is no effect, below 0.5 favours the baseline.
	A12 float64
	// HLShift is the Hodges-Lehmann estimate, candidate minus baseline
	// (score units), with its two-sided HLConfLevel confidence interval
	// [HLLow, HLHigh] (NaN when it cannot be computed, with a warning).
	// Paired: the one-sample estimate (pseudo-median) of the differences
	// x_i − y_i and its interval, R's wilcox.test(x, y, paired = TRUE,
	// conf.int = TRUE) (stats.HodgesLehmannOneSample), the quantity the
	// signed-rank test is about. Unpaired: the median of the pairwise
	// differences and its interval, wilcox.test(x, y, conf.int = TRUE)
	// (stats.HodgesLehmann).
	HLShift, HLLow, HLHigh float64
	// Margin and MarginA12 are the Config's margins (0 when not used).
	Margin, MarginA12 float64
	// Alpha is the family-wise level and Correction the adjustment the
	// verdict used; Family describes the family, e.g. "8 checks (4
	// variants × 2 versions), Holm".
	Alpha      float64
	Correction string
	Family     string
	// Failed reports that the check failed: with HypothesisRegression
	// PAdj < Alpha (evidence of a loss beyond the margin); with
	// HypothesisNonInferiority PAdj >= Alpha (non-inferiority not shown);
	// with HypothesisSuperiority superiority not shown (see
	// accept.Decide); never with HypothesisTwoSided.
	Failed bool
	// Regression reports Failed under HypothesisRegression (false under
	// HypothesisNonInferiority, where a failure is "not shown
	// non-inferior", not "shown worse").
	Regression bool
	// Power is the approximate probability, at this n and Alpha
	// (unadjusted), that the check comes out the other way from a
	// reassuring one: with HypothesisRegression the power to fail a
	// candidate truly worse by PowerLoss; with HypothesisNonInferiority the
	// power to pass a candidate truly equal to the baseline (PowerLoss 0).
	// Computed by Noether's (1987) formula for the rank tests and the
	// normal approximation for the others, from the baseline's spread
	// (see PowerOf). NaN when it cannot be computed.
	Power float64
	// PowerLoss is the true loss (score units; A12 units with MarginA12)
	// Power refers to: twice the margin under HypothesisRegression with
	// a margin (a loss exceeding the tolerated margin by the margin
	// again), half the baseline's standard deviation without one (a
	// "medium" effect, Cohen 1988); 0 under HypothesisNonInferiority.
	PowerLoss float64
	// FailureMethod is the stats method of a stats.TestFailureIncrease
	// check (stats.MethodBarnardScore, MethodMcNemarExact or
	// MethodPairedScore); "" for the score checks.
	FailureMethod string
	// Message is one line with the verdict and the numbers, for JUnit and
	// logs.
	Message string
	// Warnings lists statistical caveats: a fallback from the paired
	// test, unmatched seeds, zero or all-tied differences, a small sample
	// for a normal or t approximation, an HL interval that could not be
	// computed (the stats package's warnings that ties were
	// present are left out: ties are handled by midranks). nil when there
	// are none.
	Warnings []string
	// Notes are more lines the caller adds to the check's report (the
	// JUnit system-out), e.g. how much of each sample measured the
	// version; nil for none. Compare sets none.
	Notes []string `json:",omitempty"`
}

// Name returns "VERSION [VARIANT]", or VERSION alone when Variant is "":
// the JUnit test case name and the label of logs. A stats.TestFailureIncrease
// check's name ends in " (failure share)".
func (c Check) Name() string {
	n := c.Version
	if c.Variant != "" {
		n += " [" + c.Variant + "]"
	}
	if c.Test == stats.TestFailureIncrease {
		n += " (failure share)"
	}
	return n
}
