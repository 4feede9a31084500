package gate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"evolve/stats"
)

// Errors returned by Compare. Each returned error wraps one of these and
// names the variant and version (or the config field) at fault.
var (
	// ErrConfig: a Config field is out of range or names an unknown test
	// or correction.
	ErrConfig = errors.New("gate: invalid config")
	// ErrSample: a Sample is malformed (Seeds or Repeats not as long as
	// Scores, a NaN or infinite score) or appears twice (two baseline
	// samples of one variant, two candidate samples of one version and
	// variant).
	ErrSample = errors.New("gate: malformed sample")
	// ErrNoBaseline: a candidate's variant has no baseline sample.
	ErrNoBaseline = errors.New("gate: no baseline for variant")
	// ErrTooFew: a sample is empty, or the test could never reject at
	// Alpha with these sample sizes (its smallest possible p-value is >=
	// Alpha), so the gate could never fail; or the A12 margin test has
	// fewer than 2 observations on a side.
	ErrTooFew = errors.New("gate: too few observations")
	// ErrUnpaired: Test is "signed-rank" (or "auto" with shared seeds) but
	// the samples cannot be paired by (seed, repeat): seeds unknown, a
	// (seed, repeat) twice in a sample, no shared seed, or more unmatched
	// observations than Config.MaxUnmatched.
	ErrUnpaired = errors.New("gate: samples cannot be paired by seed")
)

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

// NoLimit as Config.MaxUnmatched accepts any number of unmatched
// observations.
const NoLimit = -1

// BootstrapSeed seeds the bootstrap-t test's resamples (the p-value is a
// function of the samples and this seed); BootstrapReps is its number of
// resamples.
const (
	BootstrapSeed = 20261125
	BootstrapReps = 9999
)

// PermutationSeed seeds the random permutations of the A12-margin test
// (TestA12), together with a hash of the two samples (permutationRand):
// the p-value is a function of the samples, this seed and
// Config.PermutationReps. Hashing the samples in makes the draws differ
// between data sets, so the Monte Carlo error of the permutation p-value
// averages out across checks instead of repeating (with untied scores the
// permuted statistics depend on the ranks only: one fixed seed would give
// every check of the same n the same 9,999 draws).
const PermutationSeed = 20070723

// permutationRand returns the random source of the A12-margin test on
// x (candidate) and y (baseline): a PCG seeded with PermutationSeed and
// the FNV-1a hash of the sizes and float64 bits of x then y.
func permutationRand(x, y []float64) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	for _, s := range [][]float64{x, y} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		for _, v := range s {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return rand.New(rand.NewPCG(PermutationSeed, h.Sum64()))
}

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

// HLConfLevel is the confidence level of Check's Hodges-Lehmann interval
// [HLLow, HLHigh] (two-sided).
const HLConfLevel = 0.95

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

// Config configures Compare. The zero value means DefaultConfig().
type Config struct {
	// Alpha is the family-wise significance level, in (0, 1); 0 means
	// 0.05.
	Alpha float64
	// Test is TestAuto ("auto", the default; also ""), TestMWU ("mwu") or
	// TestSignedRank ("signed-rank").
	Test string
	// Margin is the non-inferiority margin D in score units, finite and
	// >= 0: with D > 0 a regression is "worse by more than D" (see
	// Compare). 0 means no margin: "worse at all".
	Margin float64
	// MarginA12 is the non-inferiority margin m in A12 units, in
	// [0, 0.5): with m > 0 a regression is "A12 = P(candidate > baseline)
	// + P(tie)/2 < 0.5 − m" (see Compare). At most one of Margin and
	// MarginA12 may be > 0.
	MarginA12 float64
	// Correction is CorrectionHolm ("holm", the default; also ""),
	// CorrectionHochberg, CorrectionBonferroni (each across every check
	// of the call), CorrectionNonePerVariant (Holm within each variant)
	// or CorrectionNone.
	Correction string
	// Hypothesis is HypothesisRegression ("regression", the default;
	// also "") or HypothesisNonInferiority ("non-inferiority", which
	// needs Margin or MarginA12 > 0).
	Hypothesis string
	// MarginOn is MarginOnShift ("shift", the default; also "") or
	// MarginOnMean ("mean"; not with MarginA12).
	MarginOn string
	// MaxUnmatched is the largest number of unmatched candidate
	// observations (a (seed, repeat) the baseline did not play) a paired
	// check accepts; pairing is on the observations both sides played.
	// 0 (the default) refuses any; NoLimit (−1) accepts any number.
	MaxUnmatched int
	// PermutationReps is the number of random permutations of the
	// A12-margin test (TestA12), >= 0; 0 means
	// stats.DefaultPermutationReps (9,999). Samples with at most this many
	// splits are enumerated (an exact p-value).
	PermutationReps int
}

// DefaultConfig returns the defaults the zero Config stands for: Alpha
// 0.05, Test "auto", no margin, Correction "holm" across every check,
// Hypothesis "regression", MarginOn "shift", MaxUnmatched 0.
func DefaultConfig() Config {
	return Config{Alpha: 0.05, Test: TestAuto, Correction: CorrectionHolm, Hypothesis: HypothesisRegression, MarginOn: MarginOnShift}
}

// Validate returns the error Compare would return for cfg (wrapping
// ErrConfig), so that a command can refuse a bad config before it plays
// anything.
func (cfg Config) Validate() error {
	_, err := cfg.normalize()
	return err
}

// normalize fills defaults and validates cfg.
func (cfg Config) normalize() (Config, error) {
	def := DefaultConfig()
	if cfg.Alpha == 0 {
		cfg.Alpha = def.Alpha
	}
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return cfg, fmt.Errorf("%w: alpha must be in (0, 1): %v", ErrConfig, cfg.Alpha)
	}
	switch cfg.Test {
	case "":
		cfg.Test = def.Test
	case TestAuto, TestMWU, TestSignedRank, TestBootstrapT:
	default:
		return cfg, fmt.Errorf("%w: unknown test %q (want %s, %s, %s or %s)", ErrConfig, cfg.Test, TestAuto, TestMWU, TestSignedRank, TestBootstrapT)
	}
	switch cfg.Correction {
	case "":
		cfg.Correction = def.Correction
	case CorrectionHolm, CorrectionHochberg, CorrectionBonferroni, CorrectionNonePerVariant, CorrectionNone:
	default:
		return cfg, fmt.Errorf("%w: unknown correction %q (want %s, %s, %s, %s or %s)", ErrConfig, cfg.Correction,
			CorrectionHolm, CorrectionHochberg, CorrectionBonferroni, CorrectionNonePerVariant, CorrectionNone)
	}
	switch cfg.Hypothesis {
	case "":
		cfg.Hypothesis = def.Hypothesis
	case HypothesisRegression, HypothesisNonInferiority:
	default:
		return cfg, fmt.Errorf("%w: unknown hypothesis %q (want %s or %s)", ErrConfig, cfg.Hypothesis, HypothesisRegression, HypothesisNonInferiority)
	}
	switch cfg.MarginOn {
	case "":
		cfg.MarginOn = def.MarginOn
	case MarginOnShift, MarginOnMean:
	default:
		return cfg, fmt.Errorf("%w: unknown margin scale %q (want %s or %s)", ErrConfig, cfg.MarginOn, MarginOnShift, MarginOnMean)
	}
	if cfg.PermutationReps < 0 {
		return cfg, fmt.Errorf("%w: permutation reps must be >= 0 (0: %d): %d", ErrConfig, stats.DefaultPermutationReps, cfg.PermutationReps)
	}
	if cfg.MaxUnmatched < NoLimit {
		return cfg, fmt.Errorf("%w: max unmatched must be >= 0, or %d for no limit: %d", ErrConfig, NoLimit, cfg.MaxUnmatched)
	}
	if cfg.Test == TestBootstrapT && cfg.MarginOn != MarginOnMean {
		return cfg, fmt.Errorf("%w: test %q is a test of means; it needs margin scale %q", ErrConfig, TestBootstrapT, MarginOnMean)
	}
	if cfg.MarginOn == MarginOnMean && cfg.MarginA12 > 0 {
		return cfg, fmt.Errorf("%w: an A12 margin is not a margin on the mean; use margin scale %q", ErrConfig, MarginOnShift)
	}
	if cfg.Hypothesis == HypothesisNonInferiority && !(cfg.Margin > 0 || cfg.MarginA12 > 0) {
		return cfg, fmt.Errorf("%w: hypothesis %q needs a margin > 0 (without one it is a superiority test)", ErrConfig, HypothesisNonInferiority)
	}
	if !(cfg.Margin >= 0) || math.IsInf(cfg.Margin, 0) {
		return cfg, fmt.Errorf("%w: margin must be finite and >= 0: %v", ErrConfig, cfg.Margin)
	}
	if !(cfg.MarginA12 >= 0 && cfg.MarginA12 < 0.5) {
		return cfg, fmt.Errorf("%w: A12 margin must be in [0, 0.5): %v", ErrConfig, cfg.MarginA12)
	}
	if cfg.Margin > 0 && cfg.MarginA12 > 0 {
		return cfg, fmt.Errorf("%w: margin %v and A12 margin %v both set; use one", ErrConfig, cfg.Margin, cfg.MarginA12)
	}
	return cfg, nil
}

// Check is the verdict on one candidate version in one variant.
type Check struct {
	// Version and Variant name the candidate sample.
	Version, Variant string
	// Hypothesis is the Config's: HypothesisRegression or
	// HypothesisNonInferiority.
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
	// Test is the test that ran: TestMWU, TestSignedRank, TestA12 (the
	// Brunner-Munzel statistic with a permutation p-value), TestWelch,
	// TestPairedT or TestBootstrapT.
	Test string
	// Statistic is the test's statistic: for TestMWU the U statistic of
	// the candidate's scores plus Margin against the baseline's (R's W of
	// wilcox.test(x, y, mu = -Margin)), in [0, N·NBaseline]; for
	// TestSignedRank V = T+ of the differences (x − y) + Margin (R's V of
	// wilcox.test(x, y, paired = TRUE, mu = -Margin)), in [0, N(N+1)/2];
	// for TestA12 the logit-scale Brunner-Munzel statistic (logit A12 −
	// logit(0.5 − MarginA12))·A12(1 − A12)/SE (its p-value from the
	// permutation distribution); for
	// the mean tests t = (MeanDiff + Margin)/SE. ±Inf when a variance is 0.
	Statistic float64
	// P is the one-sided p-value of the check's test, in [0, 1]: of H1
	// "worse by more than the margin" (regression) or of H1 "worse by
	// less than the margin" (non-inferiority). PAdj is P adjusted across
	// the family by Correction, in [P, 1].
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
	// HypothesisNonInferiority PAdj >= Alpha (non-inferiority not shown).
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
	// FailureMethod is the stats method of a TestFailureIncrease check
	// (stats.MethodBarnardScore, MethodMcNemarExact or
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
// the JUnit test case name and the label of logs. A TestFailureIncrease
// check's name ends in " (failure share)".
func (c Check) Name() string {
	n := c.Version
	if c.Variant != "" {
		n += " [" + c.Variant + "]"
	}
	if c.Test == TestFailureIncrease {
		n += " (failure share)"
	}
	return n
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

// adjustFamily adjusts the P of checks as one family under correction
// (Config.Correction: across every check, or with
// CorrectionNonePerVariant Holm within each variant), sets each check's
// PAdj and Family (familyDesc, passed through name when not nil), then
// calls decide with the check and its adjusted p-value. The error is
// stats.Adjust's.
func adjustFamily(checks []Check, correction string, name func(desc string) string, decide func(c *Check, adj float64)) error {
	byVariant := map[string][]int{}
	var order []string // variants in first-appearance order
	versions := map[string]bool{}
	for i, c := range checks {
		if _, ok := byVariant[c.Variant]; !ok {
			order = append(order, c.Variant)
		}
		byVariant[c.Variant] = append(byVariant[c.Variant], i)
		versions[c.Version] = true
	}
	var groups [][]int
	corr := stats.Holm
	switch correction {
	case CorrectionNonePerVariant:
		for _, v := range order {
			groups = append(groups, byVariant[v])
		}
	default:
		all := make([]int, len(checks))
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
		switch correction {
		case CorrectionHochberg:
			corr = stats.Hochberg
		case CorrectionBonferroni:
			corr = stats.Bonferroni
		case CorrectionNone:
			corr = stats.None
		}
	}
	desc := familyDesc(correction, len(checks), len(order), len(versions))
	if name != nil {
		desc = name(desc)
	}
	for _, idx := range groups {
		p := make([]float64, len(idx))
		for k, i := range idx {
			p[k] = checks[i].P
		}
		adj, err := stats.Adjust(p, corr)
		if err != nil {
			return err
		}
		for k, i := range idx {
			c := &checks[i]
			c.PAdj, c.Family = adj[k], desc
			decide(c, adj[k])
		}
	}
	return nil
}

// familyDesc describes the family of a Compare call for Check.Family.
func familyDesc(corr string, checks, variants, versions int) string {
	plural := func(n int, s string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, s)
		}
		return fmt.Sprintf("%d %ss", n, s)
	}
	shape := fmt.Sprintf("%s (%s × %s)", plural(checks, "check"), plural(variants, "variant"), plural(versions, "version"))
	switch corr {
	case CorrectionHolm:
		return shape + ", Holm"
	case CorrectionHochberg:
		return shape + ", Hochberg"
	case CorrectionBonferroni:
		return shape + ", Bonferroni"
	case CorrectionNonePerVariant:
		return shape + ", Holm within each variant only (no correction across variants)"
	}
	return shape + ", no correction"
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

type obsKey struct {
	seed   uint64
	repeat int
}

// pairs is the result of pairing.
type pairs struct {
	// cand[k], base[k] index the k-th pair (in the candidate's order).
	cand, base []int
	// unmatched counts the candidate's observations not in the baseline.
	unmatched int
	// why is "" when the samples can be paired (some (seed, repeat)
	// shared, none repeated within a sample), else the reason they
	// cannot.
	why string
	// example names one unmatched (seed, repeat), for messages.
	example string
}

// pairing matches the candidate's observations with the baseline's by
// (seed, repeat).
func pairing(base, cand Sample) pairs {
	var pr pairs
	if base.Seeds == nil || cand.Seeds == nil {
		pr.why = "seeds not recorded"
		return pr
	}
	at := make(map[obsKey]int, len(base.Scores))
	for i := range base.Scores {
		k := obsKey{base.Seeds[i], repeatAt(base, i)}
		if _, dup := at[k]; dup && pr.why == "" {
			pr.why = fmt.Sprintf("seed %d, repeat %d occurs twice in the baseline", k.seed, k.repeat)
		}
		at[k] = i
	}
	mine := make(map[obsKey]bool, len(cand.Scores))
	for i := range cand.Scores {
		k := obsKey{cand.Seeds[i], repeatAt(cand, i)}
		if mine[k] && pr.why == "" {
			pr.why = fmt.Sprintf("seed %d, repeat %d occurs twice in the candidate", k.seed, k.repeat)
		}
		mine[k] = true
		j, ok := at[k]
		if !ok {
			pr.unmatched++
			if pr.example == "" {
				pr.example = fmt.Sprintf("seed %d, repeat %d of the candidate is not in the baseline", k.seed, k.repeat)
			}
			continue
		}
		pr.cand = append(pr.cand, i)
		pr.base = append(pr.base, j)
	}
	if pr.why == "" && len(pr.cand) == 0 {
		pr.why = "no (seed, repeat) is in both samples"
	}
	return pr
}

// check computes one candidate's Check without the family adjustment.
func check(base, cand Sample, cfg Config) (Check, error) {
	where := fmt.Sprintf("variant %q, version %q", cand.Variant, cand.Version)
	c := Check{
		Version: cand.Version, Variant: cand.Variant,
		Hypothesis: cfg.Hypothesis, MarginOn: cfg.MarginOn,
		Margin: cfg.Margin, MarginA12: cfg.MarginA12,
		Alpha: cfg.Alpha, Correction: cfg.Correction,
	}
	pr := pairing(base, cand)
	c.NPaired = len(pr.cand)
	if base.Seeds != nil && cand.Seeds != nil {
		c.NUnmatched = pr.unmatched
	}
	pairable := pr.why == ""
	wantPaired := cfg.Test == TestSignedRank || (cfg.Test == TestAuto && pairable) ||
		(cfg.Test == TestBootstrapT && pairable)
	if cfg.Test == TestSignedRank && !pairable {
		return c, fmt.Errorf("%w: %s: %s", ErrUnpaired, where, pr.why)
	}
	if cfg.MarginA12 > 0 {
		wantPaired = false
	}
	if wantPaired && cfg.MaxUnmatched != NoLimit && pr.unmatched > cfg.MaxUnmatched {
		return c, fmt.Errorf("%w: %s: %d unmatched observations (e.g. %s), more than the %d allowed (--max-unmatched)",
			ErrUnpaired, where, pr.unmatched, pr.example, cfg.MaxUnmatched)
	}
	x, y := cand.Scores, base.Scores
	if cfg.MarginA12 > 0 && pairable && cfg.Test != TestMWU {
		// Brunner-Munzel on the seeds both played, as two samples.
		x, y = make([]float64, len(pr.cand)), make([]float64, len(pr.cand))
		for k := range pr.cand {
			x[k], y[k] = cand.Scores[pr.cand[k]], base.Scores[pr.base[k]]
		}
	}
	if wantPaired {
		x, y = make([]float64, len(pr.cand)), make([]float64, len(pr.cand))
		for k := range pr.cand {
			x[k], y[k] = cand.Scores[pr.cand[k]], base.Scores[pr.base[k]]
		}
		c.Paired = true
		if pr.unmatched > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%d unmatched observations (e.g. %s): paired on the %d both sides played", pr.unmatched, pr.example, len(x)))
		}
	} else if cfg.Test == TestAuto && cfg.MarginA12 == 0 {
		c.Warnings = append(c.Warnings, "not paired ("+pr.why+"): test of independent samples")
	}
	if cfg.MarginA12 > 0 && pairable && cfg.Test != TestMWU {
		c.Warnings = append(c.Warnings, "paired samples: the Brunner-Munzel A12 test treats them as independent samples")
	}
	ni := cfg.Hypothesis == HypothesisNonInferiority
	alt := stats.Less
	if ni {
		alt = stats.Greater
	}
	switch {
	case cfg.MarginA12 > 0:
		c.Test = TestA12
	case cfg.MarginOn == MarginOnMean && cfg.Test == TestBootstrapT:
		c.Test = TestBootstrapT
	case cfg.MarginOn == MarginOnMean && c.Paired:
		c.Test = TestPairedT
	case cfg.MarginOn == MarginOnMean:
		c.Test = TestWelch
	case c.Paired:
		c.Test = TestSignedRank
	default:
		c.Test = TestMWU
	}
	c.N, c.NBaseline = len(x), len(y)
	if err := enough(c.Test, len(x), len(y), cfg.Alpha); err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrTooFew, where, err)
	}
	c.Mean, c.BaselineMean = mean(x), mean(y)
	c.MeanDiff = c.Mean - c.BaselineMean
	D := cfg.Margin
	var d []float64 // paired differences (x − y), R's order
	if c.Paired {
		d = make([]float64, len(x))
		for i := range d {
			d[i] = x[i] - y[i]
		}
	}
	var warns []error
	fail := func(err error) (Check, error) { return c, fmt.Errorf("gate: %s: %w", where, err) }
	switch c.Test {
	case TestMWU:
		xs := make([]float64, len(x))
		for i, v := range x {
			xs[i] = v - (-D) // R: rank(c(x - mu, y)), mu = -D
		}
		r, err := stats.MannWhitneyU(xs, y, stats.MWUOptions{Alternative: alt})
		if err != nil {
			return fail(err)
		}
		c.Statistic, c.P, warns = r.U, r.P, r.Warnings
	case TestSignedRank:
		ds := make([]float64, len(d))
		for i, v := range d {
			ds[i] = v - (-D) // R: x <- x - y; x <- x - mu, mu = -D
		}
		r, err := stats.WilcoxonSignedRank(ds, make([]float64, len(ds)), stats.SignedRankOptions{Alternative: alt})
		if err != nil {
			return fail(err)
		}
		c.Statistic, c.P, warns = r.TPlus, r.P, r.Warnings
	case TestA12:
		r, err := stats.BrunnerMunzelPermutation(x, y, 0.5-cfg.MarginA12, alt,
			stats.PermutationConfig{Reps: cfg.PermutationReps, Rand: permutationRand(x, y)})
		if err != nil {
			return fail(err)
		}
		c.Statistic, c.P, warns = r.T, r.P, r.Warnings
	case TestWelch, TestPairedT, TestBootstrapT:
		var r stats.TTestResult
		var err error
		switch {
		case c.Test == TestWelch:
			r, err = stats.WelchT(x, y, -D, alt)
		case c.Test == TestPairedT:
			r, err = stats.PairedT(x, y, -D, alt)
		case c.Paired:
			r, err = stats.BootstrapT(d, nil, -D, alt, BootstrapReps, rand.New(rand.NewPCG(BootstrapSeed, 0)))
		default:
			r, err = stats.BootstrapT(x, y, -D, alt, BootstrapReps, rand.New(rand.NewPCG(BootstrapSeed, 0)))
		}
		if err != nil {
			return fail(err)
		}
		c.Statistic, c.P, warns = r.T, r.P, r.Warnings
	}
	for _, w := range warns {
		// Ties are routine with integer scores and handled exactly by
		// stats (midranks, tie-corrected variance): not worth a note.
		if errors.Is(w, stats.WarnTiesExact) || errors.Is(w, stats.WarnTiesAsymptotic) {
			continue
		}
		c.Warnings = append(c.Warnings, w.Error())
	}
	a12, err := stats.A12(x, y)
	if err != nil {
		return fail(err)
	}
	c.A12 = a12
	if c.Paired {
		hl, err := stats.HodgesLehmannOneSample(d, stats.ShiftOptions{ConfLevel: HLConfLevel})
		if err != nil {
			return fail(err)
		}
		c.HLShift, c.HLLow, c.HLHigh = hl.Estimate, hl.CILow, hl.CIHigh
		if slices.ContainsFunc(hl.Warnings, func(w error) bool { return errors.Is(w, stats.WarnNoCI) }) {
			c.Warnings = append(c.Warnings, "Hodges-Lehmann estimate: "+stats.WarnNoCI.Error())
			c.HLShift = median(d)
		}
	} else {
		hl, err := stats.HodgesLehmann(x, y, stats.ShiftOptions{ConfLevel: HLConfLevel})
		if err != nil {
			return fail(err)
		}
		c.HLShift, c.HLLow, c.HLHigh = hl.Estimate, hl.CILow, hl.CIHigh
		for _, w := range hl.Warnings {
			if errors.Is(w, stats.WarnNoCI) {
				c.Warnings = append(c.Warnings, "Hodges-Lehmann shift: "+w.Error())
			}
		}
	}
	c.Power, c.PowerLoss = checkPower(c, x, y, d, cfg)
	return c, nil
}

// median of x (not modified).
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// powerFmt formats a power as a percentage.
func powerFmt(p float64) string {
	if math.IsNaN(p) {
		return "unknown"
	}
	return fmt.Sprintf("%.0f%%", 100*p)
}

// enough reports (as a non-nil error) why n1 candidate and n2 baseline
// observations are too few for test at level alpha. The smallest p-value
// a rank test can give depends only on the sizes (and its exact/asymptotic
// rule), so it is computed by running the test on completely separated
// data; ties can only make p larger.
func enough(test string, n1, n2 int, alpha float64) error {
	var minP float64
	switch test {
	case TestA12, TestWelch, TestPairedT, TestBootstrapT:
		if n1 < 2 || n2 < 2 {
			return fmt.Errorf("the %s test needs at least 2 observations per sample, got %d candidate and %d baseline", test, n1, n2)
		}
		return nil
	case TestMWU:
		x := make([]float64, n1)
		y := make([]float64, n2)
		for i := range x {
			x[i] = float64(i)
		}
		for j := range y {
			y[j] = float64(n1 + j)
		}
		r, err := stats.MannWhitneyU(x, y, stats.MWUOptions{Alternative: stats.Less})
		if err != nil {
			return err
		}
		minP = r.P
	case TestSignedRank:
		x := make([]float64, n1)
		y := make([]float64, n1)
		for i := range x {
			x[i] = -float64(i + 1)
		}
		r, err := stats.WilcoxonSignedRank(x, y, stats.SignedRankOptions{Alternative: stats.Less})
		if err != nil {
			return err
		}
		minP = r.P
	}
	if minP >= alpha {
		unit := fmt.Sprintf("%d candidate and %d baseline observations", n1, n2)
		if test == TestSignedRank {
			unit = fmt.Sprintf("%d pairs", n1)
		}
		return fmt.Errorf("with %s the smallest possible one-sided p-value of the %s test is %s >= alpha %v: the gate could never fail", unit, test, pfmt(minP), alpha)
	}
	return nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// H1 states the alternative hypothesis of c's test in words.
func H1(c Check) string {
	ni := c.Hypothesis == HypothesisNonInferiority
	switch {
	case c.Test == TestFailureIncrease:
		return "failed share higher by more than " + num(c.Margin)
	case c.MarginA12 > 0:
		if ni {
			return "A12 > " + num(0.5-c.MarginA12)
		}
		return "A12 < " + num(0.5-c.MarginA12)
	case c.Margin > 0:
		what := "shift"
		if c.MarginOn == MarginOnMean {
			what = "mean"
		}
		if ni {
			return fmt.Sprintf("%s worse by less than %s", what, num(c.Margin))
		}
		return fmt.Sprintf("%s worse by more than %s", what, num(c.Margin))
	case c.MarginOn == MarginOnMean:
		return "mean worse"
	}
	return "worse"
}

// message formats Check.Message.
func message(c Check) string {
	var b strings.Builder
	b.WriteString(c.Name())
	switch {
	case c.Failed && c.Hypothesis == HypothesisNonInferiority:
		b.WriteString(": NOT SHOWN NON-INFERIOR: ")
	case c.Failed:
		b.WriteString(": REGRESSION: ")
	case c.Hypothesis == HypothesisNonInferiority:
		b.WriteString(": non-inferior: ")
	default:
		b.WriteString(": ok: ")
	}
	hl := "HL shift"
	if c.Paired {
		hl = "HL paired diff"
	}
	fmt.Fprintf(&b, "mean %s vs baseline %s (diff %s, %s %s [%g%% CI %s, %s])",
		num(c.Mean), num(c.BaselineMean), num(c.MeanDiff), hl, num(c.HLShift), HLConfLevel*100, num(c.HLLow), num(c.HLHigh))
	fmt.Fprintf(&b, "; %s test, H1: %s", c.Hypothesis, H1(c))
	fmt.Fprintf(&b, "; %s %s = %s, p = %s", c.Test, statName(c.Test), num(c.Statistic), pfmt(c.P))
	if c.Correction != CorrectionNone {
		fmt.Fprintf(&b, ", %s-adjusted p = %s", c.Correction, pfmt(c.PAdj))
	}
	rel := ">="
	if c.PAdj < c.Alpha {
		rel = "<"
	}
	fmt.Fprintf(&b, " %s alpha %v; A12 %.3f; n = %d vs %d", rel, c.Alpha, c.A12, c.N, c.NBaseline)
	if c.Paired {
		b.WriteString(" paired by seed")
	}
	if c.NUnmatched > 0 {
		fmt.Fprintf(&b, ", %d unmatched", c.NUnmatched)
	}
	if c.Hypothesis == HypothesisNonInferiority {
		fmt.Fprintf(&b, "; power to show non-inferiority of an equal candidate %s", powerFmt(c.Power))
	} else {
		fmt.Fprintf(&b, "; power to detect a loss of %s: %s (passing is not evidence of non-inferiority)", num(c.PowerLoss), powerFmt(c.Power))
	}
	return b.String()
}

// statName names Check.Statistic for test.
func statName(test string) string {
	switch test {
	case TestSignedRank:
		return "V"
	case TestA12, TestWelch, TestPairedT, TestBootstrapT:
		return "t"
	case TestFailureIncrease:
		return "Z"
	}
	return "U"
}

// FormatScore formats a score-scale number as gate's tables do: about 4
// significant digits, without an exponent between 1e-3 and 1e7 (trailing
// zeros dropped, -0 as 0), and NaN, +Inf and -Inf as Go spells them.
func FormatScore(v float64) string { return num(v) }

// num formats a score-scale number with about 4 significant digits,
// without an exponent between 1e-3 and 1e7.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e7 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	dec := max(0, 3-int(math.Floor(math.Log10(a))))
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// pfmt formats a p-value with 2 significant digits, as the run tables.
func pfmt(p float64) string {
	return strconv.FormatFloat(p, 'g', 2, 64)
}
