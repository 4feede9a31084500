// Package stats computes the statistics evolve uses to decide whether a
// candidate beats the incumbent: rank tests, effect sizes, multiple-comparison
// adjustment, and the rliable-style aggregates with stratified bootstrap
// confidence intervals.
//
// # Conventions
//
// Two-sample functions take x = candidate scores and y = baseline (incumbent)
// scores, in the same order as R's wilcox.test(x, y) and scipy's
// mannwhitneyu(x, y). "Greater" always means "x stochastically greater than
// y", i.e. the candidate is better when higher scores are better.
//
// Matrices of scores use rliable's shape: scores[run][task], rows are runs
// (seeds), columns are tasks; every row has the same length.
//
// # Contents
//
//   - [MannWhitneyU]: Wilcoxon-Mann-Whitney rank-sum test, exact (permutation
//     distribution given the ties, by dynamic programming) or asymptotic
//     (normal approximation with tie and continuity correction).
//   - [WilcoxonSignedRank]: paired signed-rank test with the wilcox, pratt
//     and zsplit zero methods.
//   - [BrunnerMunzel], [BrunnerMunzelLogit], [BrunnerMunzelPermutation]:
//     tests of the relative effect A12 against any θ0 (a margin) without
//     assuming equal distributions: the Brunner-Munzel t test, its logit
//     form with normal quantiles, and the studentized permutation test on
//     the logit scale (Pauly, Asendorf and Konietschke 2016) the gate uses.
//   - [BootstrapBCa], [BootstrapBCaIQM]: BCa bootstrap intervals (Efron
//     1987) of the mean, the IQM or any statistic.
//   - [Adjust]: p-value adjustment for multiple comparisons as R's p.adjust.
//   - [TestName], [Tests], [LookupTest], [ParseTestName]: the one set of
//     test names and their registry: what runs each test ([TestSpec.Run]
//     on a [TestInput]), on which design and scale, and where its name
//     may be given.
//   - [A12], [RankBiserial], [HodgesLehmann]: effect sizes, the last with a
//     confidence interval as R's wilcox.test(conf.int = TRUE), selected
//     from the implicit n1·n2 pairwise differences in O(n1 + n2) memory.
//   - [Summarize], [IQM], [TrimMean], [Median], [MeanOf], [MeanVar]:
//     one-sample summaries.
//   - [CheckAlpha]: the range check of a significance level, (0, 1).
//   - [MannWhitneyUSorted], [A12Sorted], [HodgesLehmannSorted],
//     [SummarizeSorted]: the same results, bit for bit, on samples the
//     caller has sorted once, for several statistics of the same samples
//     (evolve compare of 10^6 scores sorts each sample once, not once per
//     statistic).
//   - [AggregateIQM], [AggregateMean], [AggregateMedian], [OptimalityGap],
//     [ProbabilityOfImprovement], [RunScoreProfile], [AverageScoreProfile],
//     [BootstrapCI], [BootstrapIQM]: the rliable toolbox (Agarwal et al., "Deep
//     Reinforcement Learning at the Edge of the Statistical Precipice",
//     NeurIPS 2021).
//
// # Errors and warnings
//
// Bad data is reported as an error wrapping one of the sentinels
// ([ErrSampleSize], [ErrNaN], [ErrLength], [ErrShape], [ErrProbability],
// [ErrOption], [ErrNonFinite]); test with errors.Is. Statistical caveats
// that do not stop the computation (ties, a fallback to the normal
// approximation, an unachievable confidence level) are returned in the
// result's Warnings field, each wrapping one of the Warn* sentinels. A broken programming contract (a nil
// random source, a ragged matrix passed to an aggregate, an unsorted
// sample passed to a *Sorted function) panics with a "stats: " prefix.
//
// # Randomness
//
// Nothing in this package uses a global random source: [BootstrapCI] and
// [BootstrapIQM] take a *math/rand/v2.Rand, so a seed reproduces the
// interval exactly. [HodgesLehmann]'s selection draws its pivots from a
// fixed-seed source; its results do not depend on them.
//
// # References
//
// The expected values in the tests come from scipy 1.10.1, R 4.2.2
// (wilcox.test, p.adjust, t.test, power.t.test), R boot 1.3-28.1
// (boot.ci), R coin 1.4-2 and an exact dynamic-programming reference; see
// testdata/README.md.
package stats
