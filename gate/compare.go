package gate

import (
	"errors"
	"fmt"
	"math"
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
	// ErrUnpaired: Test is "signed-rank" but the candidate's observations
	// cannot all be paired with the baseline's by (seed, repeat).
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
	// TestA12 (Check.Test only) is Wellek's asymptotic non-inferiority
	// test of A12, used when Config.MarginA12 > 0.
	TestA12 = "a12-noninferiority"
)

// Names of corrections: the values of Config.Correction.
const (
	// CorrectionHolm is Holm's (1979) step-down adjustment
	// (stats.Adjust with stats.Holm), controlling the family-wise error
	// rate at Alpha.
	CorrectionHolm = "holm"
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
	// Correction is CorrectionHolm ("holm", the default; also "") or
	// CorrectionNone ("none"), applied across the candidates of one
	// variant (the family).
	Correction string
}

// DefaultConfig returns the defaults the zero Config stands for: Alpha
// 0.05, Test "auto", no margin, Correction "holm".
func DefaultConfig() Config {
	return Config{Alpha: 0.05, Test: TestAuto, Correction: CorrectionHolm}
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
	case TestAuto, TestMWU, TestSignedRank:
	default:
		return cfg, fmt.Errorf("%w: unknown test %q (want %s, %s or %s)", ErrConfig, cfg.Test, TestAuto, TestMWU, TestSignedRank)
	}
	switch cfg.Correction {
	case "":
		cfg.Correction = def.Correction
	case CorrectionHolm, CorrectionNone:
	default:
		return cfg, fmt.Errorf("%w: unknown correction %q (want %s or %s)", ErrConfig, cfg.Correction, CorrectionHolm, CorrectionNone)
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
	// N is the number of candidate observations; NBaseline the number of
	// baseline observations the test used (all of the baseline for an
	// unpaired test, the N paired ones for the signed-rank test).
	N, NBaseline int
	// NPaired is the number of candidate observations whose (seed,
	// repeat) is in the baseline (N when the samples can be paired, 0
	// when seeds are unknown), whatever test ran.
	NPaired int
	// Mean is the candidate's mean score; BaselineMean the mean of the
	// NBaseline baseline observations used; MeanDiff = Mean −
	// BaselineMean (score units; negative means the candidate scores
	// less).
	Mean, BaselineMean, MeanDiff float64
	// Test is the test that ran: TestMWU, TestSignedRank or TestA12.
	Test string
	// Statistic is the test's statistic: for TestMWU the U statistic of
	// the candidate's scores plus Margin against the baseline's (R's W of
	// wilcox.test(x + D, y)), in [0, N·NBaseline]; for TestSignedRank V =
	// T+ of the differences (x + D) − y (R's V), in [0, N(N+1)/2]; for
	// TestA12 the standardized z = (A12 − (0.5 − MarginA12))/SE, ±Inf when
	// the variance estimate is 0.
	Statistic float64
	// P is the one-sided p-value of the regression test, in [0, 1]; PAdj
	// is P adjusted across the candidates of the same Variant by
	// Correction, in [P, 1].
	P, PAdj float64
	// A12 is the Vargha-Delaney effect size of the candidate against the
	// baseline observations used, P(candidate > baseline) + P(tie)/2, in
	// [0, 1]; 0.5 is no effect, below 0.5 favours the baseline.
	A12 float64
	// HLShift is the Hodges-Lehmann estimate of the location shift,
	// candidate minus baseline (score units; the median of the pairwise
	// differences of the observations used, stats.HodgesLehmann), with
	// the two-sided HLConfLevel confidence interval [HLLow, HLHigh] (NaN
	// when it cannot be computed, with a warning).
	HLShift, HLLow, HLHigh float64
	// Margin and MarginA12 are the Config's margins (0 when not used).
	Margin, MarginA12 float64
	// Alpha is the family-wise level and Correction the adjustment
	// ("holm" or "none") the verdict used.
	Alpha      float64
	Correction string
	// Regression reports PAdj < Alpha.
	Regression bool
	// Message is one line with the verdict and the numbers, for JUnit and
	// logs.
	Message string
	// Warnings lists statistical caveats: a fallback from the paired
	// test, zero or all-tied differences, a small sample for a normal
	// approximation, an HL interval that could not be computed (the
	// stats package's warnings that ties were present are left out:
	// ties are handled by midranks). nil when there are none.
	Warnings []string
}

// Name returns "VERSION [VARIANT]", or VERSION alone when Variant is "":
// the JUnit test case name and the label of logs.
func (c Check) Name() string {
	if c.Variant == "" {
		return c.Version
	}
	return c.Version + " [" + c.Variant + "]"
}

// Compare tests each candidate against the baseline sample of its Variant
// and returns one Check per candidate, in the order of candidates. Each
// variant must have at most one baseline sample; baseline samples of
// variants without candidates are ignored. The candidates of one variant
// form a family: their p-values are adjusted together by cfg.Correction.
//
// Pairing: the samples are paired when every (seed, repeat) of the
// candidate occurs exactly once in the baseline and no (seed, repeat)
// repeats in either; the baseline may hold more seeds than the candidate.
// Test "auto" runs the signed-rank test on paired samples and the
// Mann-Whitney U test otherwise (with a warning saying why they were not
// paired); "signed-rank" on samples that cannot be paired is an error.
//
// The regression test is one-sided, H1 being "the candidate is worse",
// with x the candidate's scores and y the baseline's:
//
//   - No margin: the Mann-Whitney U test (Mann and Whitney 1947) with
//     alternative "less", as R's wilcox.test(x, y, alternative = "less"),
//     or on paired samples the Wilcoxon signed-rank test (Wilcoxon 1945),
//     as wilcox.test(x, y, paired = TRUE, alternative = "less"); exact or
//     normal approximation by stats' Auto rules (stats.MannWhitneyU,
//     stats.WilcoxonSignedRank, zero differences dropped).
//   - Margin D > 0 (non-inferiority, "worse by more than D"): H0: shift >=
//     −D against H1: shift < −D for the location shift Δ of x relative to
//     y (paired: the centre of the differences). Under the shift model
//     x ~ y + Δ the test of H0: Δ = Δ0 ranks x − Δ0 against y (Hollander,
//     Wolfe and Chicken, Nonparametric Statistical Methods, 3rd ed. 2014,
//     §4.1 for the rank-sum test, §3.1 for the signed-rank test); with
//     Δ0 = −D that is the same one-sided test on x + D: R's
//     wilcox.test(x + D, y, alternative = "less"), equivalently
//     wilcox.test(x, y, mu = -D, alternative = "less"), and with paired =
//     TRUE for pairs. This is the rank-based non-inferiority test of
//     Wellek (Testing Statistical Hypotheses of Equivalence and
//     Noninferiority, 2nd ed. 2010, ch. 6). A candidate worse by less than
//     D is not flagged however many seeds are played.
//   - MarginA12 m > 0: H0: A12 >= 0.5 − m against H1: A12 < 0.5 − m, A12
//     = P(X > Y) + P(X = Y)/2, by the asymptotic normal test of Wellek
//     (2010, §6.2, the Mann-Whitney non-inferiority test): z = (Â12 −
//     (0.5 − m))/SE, p = Φ(z), with Â12 = U/(n1·n2) and SE² = S10/n1 +
//     S01/n2 the consistent variance estimator of the U statistic from
//     the placement values (Sen 1967, Sankhyā A 29; DeLong, DeLong and
//     Clarke-Pearson 1988, Biometrics 44), ties counting 1/2. Wellek's
//     test is for independent samples: on paired samples it is applied
//     to the pairs' values as two samples (with a warning), which ignores
//     the pairing and is conservative when scores correlate positively
//     across seeds.
//
// The p-values of a variant's candidates are adjusted (Holm 1979, as R's
// p.adjust(p, "holm")) and Regression = PAdj < Alpha, which bounds the
// probability of failing any good candidate of the variant by Alpha.
// A12 and the Hodges-Lehmann shift with its CI are reported whatever
// test ran.
//
// Errors (each names the variant and version): ErrConfig for a bad cfg;
// ErrSample for a malformed or duplicated sample; ErrNoBaseline when a
// candidate's variant has no baseline; ErrTooFew for an empty sample, for
// sample sizes at which the test's smallest possible p-value is >= Alpha
// (e.g. 3 pairs: 2⁻³ = 0.125), or fewer than 2 observations on a side for
// the A12 margin test; ErrUnpaired when Test is "signed-rank" and the
// samples cannot be paired.
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
	family := make(map[string][]int) // variant -> indices into checks
	var order []string               // variants in first-appearance order
	for i, c := range candidates {
		ch, err := check(baseline[baseOf[c.Variant]], c, cfg)
		if err != nil {
			return nil, err
		}
		checks[i] = ch
		if _, ok := family[c.Variant]; !ok {
			order = append(order, c.Variant)
		}
		family[c.Variant] = append(family[c.Variant], i)
	}
	corr := stats.None
	if cfg.Correction == CorrectionHolm {
		corr = stats.Holm
	}
	for _, v := range order {
		idx := family[v]
		p := make([]float64, len(idx))
		for k, i := range idx {
			p[k] = checks[i].P
		}
		adj, err := stats.Adjust(p, corr)
		if err != nil {
			return nil, fmt.Errorf("gate: variant %q: adjusting p-values: %w", v, err)
		}
		for k, i := range idx {
			checks[i].PAdj = adj[k]
			checks[i].Regression = adj[k] < cfg.Alpha
			checks[i].Message = message(checks[i])
		}
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

type obsKey struct {
	seed   uint64
	repeat int
}

// pairing returns, for each candidate observation, the index of the
// baseline observation with the same (seed, repeat), or -1; matched counts
// those found; why is "" when the samples can be paired, else the reason
// they cannot.
func pairing(base, cand Sample) (idx []int, matched int, why string) {
	if base.Seeds == nil || cand.Seeds == nil {
		return nil, 0, "seeds not recorded"
	}
	at := make(map[obsKey]int, len(base.Scores))
	for i := range base.Scores {
		k := obsKey{base.Seeds[i], repeatAt(base, i)}
		if _, dup := at[k]; dup && why == "" {
			why = fmt.Sprintf("seed %d, repeat %d occurs twice in the baseline", k.seed, k.repeat)
		}
		at[k] = i
	}
	idx = make([]int, len(cand.Scores))
	mine := make(map[obsKey]bool, len(cand.Scores))
	for i := range cand.Scores {
		k := obsKey{cand.Seeds[i], repeatAt(cand, i)}
		if mine[k] && why == "" {
			why = fmt.Sprintf("seed %d, repeat %d occurs twice in the candidate", k.seed, k.repeat)
		}
		mine[k] = true
		j, ok := at[k]
		if !ok {
			idx[i] = -1
			if why == "" {
				why = fmt.Sprintf("seed %d, repeat %d of the candidate is not in the baseline", k.seed, k.repeat)
			}
			continue
		}
		idx[i] = j
		matched++
	}
	return idx, matched, why
}

// check computes one candidate's Check without the family adjustment.
func check(base, cand Sample, cfg Config) (Check, error) {
	where := fmt.Sprintf("variant %q, version %q", cand.Variant, cand.Version)
	c := Check{
		Version: cand.Version, Variant: cand.Variant,
		Margin: cfg.Margin, MarginA12: cfg.MarginA12,
		Alpha: cfg.Alpha, Correction: cfg.Correction,
	}
	idx, matched, why := pairing(base, cand)
	c.NPaired = matched
	paired := why == ""
	if cfg.Test == TestSignedRank && !paired {
		return c, fmt.Errorf("%w: %s: %s", ErrUnpaired, where, why)
	}
	x := cand.Scores
	y := base.Scores
	if paired && (cfg.Test != TestMWU) {
		y = make([]float64, len(idx))
		for i, j := range idx {
			y[i] = base.Scores[j]
		}
	}
	test := TestMWU
	switch {
	case cfg.MarginA12 > 0:
		test = TestA12
		if paired && cfg.Test != TestMWU {
			c.Warnings = append(c.Warnings, "paired samples: the A12 margin test (Wellek §6.2) treats the pairs' values as independent samples")
		}
	case cfg.Test == TestSignedRank || (cfg.Test == TestAuto && paired):
		test = TestSignedRank
	case cfg.Test == TestAuto:
		c.Warnings = append(c.Warnings, "not paired ("+why+"): Mann-Whitney U test of independent samples")
	}
	c.Test = test
	c.N, c.NBaseline = len(x), len(y)

	if err := enough(test, len(x), len(y), cfg.Alpha); err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrTooFew, where, err)
	}

	c.Mean, c.BaselineMean = mean(x), mean(y)
	c.MeanDiff = c.Mean - c.BaselineMean

	// x + D: the shifted sample of the non-inferiority test.
	xs := x
	if cfg.Margin > 0 {
		xs = make([]float64, len(x))
		for i, v := range x {
			xs[i] = v + cfg.Margin
		}
	}
	var warns []error
	switch test {
	case TestMWU:
		r, err := stats.MannWhitneyU(xs, y, stats.MWUOptions{Alternative: stats.Less})
		if err != nil {
			return c, fmt.Errorf("gate: %s: %w", where, err)
		}
		c.Statistic, c.P, warns = r.U, r.P, r.Warnings
	case TestSignedRank:
		r, err := stats.WilcoxonSignedRank(xs, y, stats.SignedRankOptions{Alternative: stats.Less})
		if err != nil {
			return c, fmt.Errorf("gate: %s: %w", where, err)
		}
		c.Statistic, c.P, warns = r.TPlus, r.P, r.Warnings
	case TestA12:
		r := a12NonInferiority(x, y, 0.5-cfg.MarginA12)
		c.Statistic, c.P = r.Z, r.P
		c.Warnings = append(c.Warnings, r.Warnings...)
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
		return c, fmt.Errorf("gate: %s: %w", where, err)
	}
	c.A12 = a12
	hl, err := stats.HodgesLehmann(x, y, stats.ShiftOptions{ConfLevel: HLConfLevel})
	if err != nil {
		return c, fmt.Errorf("gate: %s: %w", where, err)
	}
	c.HLShift, c.HLLow, c.HLHigh = hl.Estimate, hl.CILow, hl.CIHigh
	for _, w := range hl.Warnings {
		if errors.Is(w, stats.WarnNoCI) {
			c.Warnings = append(c.Warnings, "Hodges-Lehmann shift: "+w.Error())
		}
	}
	return c, nil
}

// enough reports (as a non-nil error) why n1 candidate and n2 baseline
// observations are too few for test at level alpha. The smallest p-value
// a rank test can give depends only on the sizes (and its exact/asymptotic
// rule), so it is computed by running the test on completely separated
// data; ties can only make p larger.
func enough(test string, n1, n2 int, alpha float64) error {
	var minP float64
	switch test {
	case TestA12:
		if n1 < 2 || n2 < 2 {
			return fmt.Errorf("the A12 margin test needs at least 2 observations per sample, got %d candidate and %d baseline", n1, n2)
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

// message formats Check.Message.
func message(c Check) string {
	var b strings.Builder
	b.WriteString(c.Name())
	if c.Regression {
		b.WriteString(": REGRESSION: ")
	} else {
		b.WriteString(": ok: ")
	}
	fmt.Fprintf(&b, "mean %s vs baseline %s (diff %s, HL shift %s [%g%% CI %s, %s])",
		num(c.Mean), num(c.BaselineMean), num(c.MeanDiff), num(c.HLShift), HLConfLevel*100, num(c.HLLow), num(c.HLHigh))
	switch {
	case c.Margin > 0:
		fmt.Fprintf(&b, "; H1: worse by more than %s", num(c.Margin))
	case c.MarginA12 > 0:
		fmt.Fprintf(&b, "; H1: A12 < %s", num(0.5-c.MarginA12))
	default:
		b.WriteString("; H1: worse")
	}
	fmt.Fprintf(&b, "; %s %s = %s, p = %s", c.Test, statName(c.Test), num(c.Statistic), pfmt(c.P))
	if c.Correction != CorrectionNone {
		fmt.Fprintf(&b, ", %s-adjusted p = %s", c.Correction, pfmt(c.PAdj))
	}
	rel := ">="
	if c.Regression {
		rel = "<"
	}
	fmt.Fprintf(&b, " %s alpha %v; A12 %.3f; n = %d vs %d", rel, c.Alpha, c.A12, c.N, c.NBaseline)
	if c.Test == TestSignedRank {
		b.WriteString(" paired by seed")
	}
	return b.String()
}

// statName names Check.Statistic for test.
func statName(test string) string {
	switch test {
	case TestSignedRank:
		return "V"
	case TestA12:
		return "z"
	}
	return "U"
}

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
