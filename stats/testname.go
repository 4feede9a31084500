package stats

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// TestName names a test of a candidate sample against a baseline: the
// value of a run's acceptance.test, of the gate's --test and
// Config.Test, of evolve compare's --test, and of the "test" field of
// every check, Parquet row and JSON output. The registered names are the
// Test* constants; Tests lists them with what runs each.
type TestName string

// The registered tests. Their order is Tests' order, the order in which
// errors list the valid names.
const (
	// TestMWU is the Mann-Whitney U (Wilcoxon rank-sum) test of
	// independent samples (MannWhitneyU).
	TestMWU TestName = "mwu"
	// TestSignedRank is the Wilcoxon signed-rank test of the differences
	// of paired observations (WilcoxonSignedRank, Wilcox zero handling).
	TestSignedRank TestName = "signed-rank"
	// TestBootstrapT is the bootstrap-t test of the difference of means,
	// paired (on the differences) or not (BootstrapT).
	TestBootstrapT TestName = "bootstrap-t"
	// TestWelchT is Welch's t test of the difference of means of
	// independent samples (WelchT).
	TestWelchT TestName = "welch-t"
	// TestPairedT is the t test of the mean of paired differences
	// (PairedT).
	TestPairedT TestName = "paired-t"
	// TestBrunnerMunzelPermutation is the studentized permutation test of
	// the relative effect A12 on the logit scale (Pauly, Asendorf and
	// Konietschke 2016; BrunnerMunzelPermutation).
	TestBrunnerMunzelPermutation TestName = "brunner-munzel-permutation"
	// TestFailureIncrease is the test of an increase of the share of
	// failed episodes (BarnardScore, McNemarExact or PairedScore); it runs
	// on failure flags, not on scores, so it has no Run.
	TestFailureIncrease TestName = "failure-increase"
)

// Design is the shape of the observations a test runs on.
type Design int

const (
	// DesignIndependent: two independent samples of any sizes.
	DesignIndependent Design = iota
	// DesignPaired: pairs (x[i], y[i]); the test runs on the differences.
	DesignPaired
	// DesignEither: paired when the observations pair, else independent
	// (TestInput.Paired says which).
	DesignEither
)

// String returns "independent", "paired" or "either".
func (d Design) String() string {
	switch d {
	case DesignPaired:
		return "paired"
	case DesignEither:
		return "either"
	}
	return "independent"
}

// Scale is what a test's null value and a margin are measured in.
type Scale string

const (
	// ScaleShift: a location shift in score units (the rank tests).
	ScaleShift Scale = "shift"
	// ScaleMean: a difference of means in score units (the t tests).
	ScaleMean Scale = "mean"
	// ScaleA12: the relative effect A12 = P(X > Y) + P(X = Y)/2.
	ScaleA12 Scale = "a12"
	// ScaleShare: a difference of shares of failed episodes.
	ScaleShare Scale = "share"
)

// Use is a bit set of the places a test name may be given.
type Use uint8

const (
	// UseAcceptance: a run's acceptance.test (the one-sided test of a
	// candidate greater than the incumbent, on the val seeds).
	UseAcceptance Use = 1 << iota
	// UseGate: the regression gate's Config.Test (evolve eval --test and
	// the gate line of evolve compare), beside "auto".
	UseGate
	// UseCompare: evolve compare --test (the benchstat-like table).
	UseCompare
)

// TestInput is what a registered test's Run takes.
type TestInput struct {
	// X and Y are the candidate's and the baseline's observations; for a
	// paired run the pairs (X[i], Y[i]), len(X) == len(Y).
	X, Y []float64
	// XSorted and YSorted are X and Y sorted ascending, or nil: a rank
	// test of independent samples given them skips its sort (the same
	// result, bit for bit).
	XSorted, YSorted []float64
	// Paired selects the paired form of a DesignEither test.
	Paired bool
	// Null is the value under H0 of the quantity the test is about, on
	// its own scale: for the location and mean tests a shift, H0: X − Null
	// is distributed as Y (R's mu); for TestBrunnerMunzelPermutation an
	// A12 value in (0, 1).
	Null float64
	// Alternative is the alternative hypothesis about X against Y.
	Alternative Alternative
	// Reps is the number of resamples (TestBootstrapT: >= 1) or
	// permutations (TestBrunnerMunzelPermutation: 0 means
	// DefaultPermutationReps) of a resampling test.
	Reps int
	// Rand is the seeded random source of a resampling test (nil: the
	// test must not need it).
	Rand *rand.Rand
}

// TestOutcome is a registered test's result.
type TestOutcome struct {
	// Statistic is the test's statistic (TestSpec.Statistic names it).
	Statistic float64
	// P is the p-value of TestInput.Alternative, in [0, 1].
	P float64
	// Warnings are the test's caveats (the result's Warnings).
	Warnings []error
}

// TestSpec registers one test: its name, what it runs on, what runs it,
// where it may be named and its one-line documentation.
type TestSpec struct {
	// Name is the test's name.
	Name TestName
	// Design is the shape of the observations it runs on.
	Design Design
	// Scale is what its null value and a margin on it are measured in;
	// the gate runs a test named in Config.Test when the test's scale is
	// the margin's (Config.MarginOn).
	Scale Scale
	// Statistic is the symbol of TestOutcome.Statistic in messages,
	// e.g. "U", "V", "t", "Z".
	Statistic string
	// Evidence is the test's long name in a version's mutation evidence
	// (prompt.Evidence.Test), e.g. "mann-whitney-u"; "" for a test that is
	// not an acceptance test.
	Evidence string
	// Uses are the places the name may be given (ParseTestName).
	Uses Use
	// Title is the test's name in a report, e.g. "Mann-Whitney U".
	Title string
	// Doc is one line saying what the test is.
	Doc string
	// Methods is, for an acceptance test (UseAcceptance), the phrase the
	// run report's methods use for the one-sided test of a candidate
	// against the incumbent, with how its p-value is computed; "" for the
	// others.
	Methods string
	// Run runs the test; nil for a test that does not run on scores
	// (TestFailureIncrease).
	Run func(TestInput) (TestOutcome, error)
	// SmallestP returns the smallest one-sided p-value the test can give
	// with n1 candidate and n2 baseline observations (n1 pairs for a
	// paired test), whatever the scores: the p of completely separated
	// samples (ties can only make p larger). nil for a test without such a
	// bound (a test of means, a resampling test). The error is the test's.
	SmallestP func(n1, n2 int) (float64, error)
}

// tests is the registry, in the order of the Test* constants.
var tests = []TestSpec{
	{Name: TestMWU, Design: DesignIndependent, Scale: ScaleShift, Statistic: "U", Evidence: "mann-whitney-u", Uses: UseAcceptance | UseGate | UseCompare,
		Title: "Mann-Whitney U", Doc: "Mann-Whitney U (Wilcoxon rank-sum) test of independent samples", Run: runMWU, SmallestP: smallestPMWU,
		Methods: "a one-sided Mann-Whitney U test of the candidate's val scores against the incumbent's (exact distribution given ties when n1·n2 ≤ 2500, else the normal approximation with tie and continuity correction)"},
	{Name: TestSignedRank, Design: DesignPaired, Scale: ScaleShift, Statistic: "V", Evidence: "wilcoxon-signed-rank", Uses: UseAcceptance | UseGate | UseCompare,
		Title: "Wilcoxon signed-rank (paired by seed)", Doc: "Wilcoxon signed-rank test of the differences paired by seed", Run: runSignedRank, SmallestP: smallestPSignedRank,
		Methods: "a one-sided Wilcoxon signed-rank test of the val score differences candidate − incumbent paired by seed (exact when at most 50 pairs and no ties or zeros, else the normal approximation with tie and continuity correction; zero differences dropped)"},
	{Name: TestBootstrapT, Design: DesignEither, Scale: ScaleMean, Statistic: "t", Uses: UseGate,
		Title: "bootstrap-t", Doc: "bootstrap-t test of the difference of means (for skewed scores)", Run: runBootstrapT},
	{Name: TestWelchT, Design: DesignIndependent, Scale: ScaleMean, Statistic: "t",
		Title: "Welch's t", Doc: "Welch's t test of the difference of means", Run: func(in TestInput) (TestOutcome, error) {
			return tOutcome(WelchT(in.X, in.Y, in.Null, in.Alternative))
		}},
	{Name: TestPairedT, Design: DesignPaired, Scale: ScaleMean, Statistic: "t",
		Title: "paired t", Doc: "paired t test of the mean difference", Run: func(in TestInput) (TestOutcome, error) {
			return tOutcome(PairedT(in.X, in.Y, in.Null, in.Alternative))
		}},
	{Name: TestBrunnerMunzelPermutation, Design: DesignIndependent, Scale: ScaleA12, Statistic: "t",
		Title: "Brunner-Munzel permutation", Doc: "studentized permutation test of A12 on the logit scale", Run: runBrunnerMunzelPermutation},
	{Name: TestFailureIncrease, Design: DesignEither, Scale: ScaleShare, Statistic: "Z",
		Title: "failure-share increase", Doc: "test of an increase of the share of failed episodes"},
}

// Tests returns the registered tests, in registration order (a copy).
func Tests() []TestSpec {
	return append([]TestSpec(nil), tests...)
}

// LookupTest returns the registration of name; ok is false for a name
// that is not registered.
func LookupTest(name TestName) (spec TestSpec, ok bool) {
	for _, t := range tests {
		if t.Name == name {
			return t, true
		}
	}
	return TestSpec{}, false
}

// TestNames returns the names of the registered tests with a use in
// uses, in registration order.
func TestNames(uses Use) []TestName {
	var out []TestName
	for _, t := range tests {
		if t.Uses&uses != 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

// ParseTestName returns s as a TestName if it is registered with a use
// in uses, or if it is one of extra (names a caller accepts besides the
// tests, e.g. the gate's "auto"). The error names s and lists the valid
// names, extra first, as "a, b or c".
func ParseTestName(s string, uses Use, extra ...TestName) (TestName, error) {
	valid := append(append([]TestName(nil), extra...), TestNames(uses)...)
	for _, n := range valid {
		if string(n) == s {
			return n, nil
		}
	}
	return "", fmt.Errorf("unknown test %q (want %s)", s, OrList(valid))
}

// CommaList joins names as "a, b, c".
func CommaList(names []TestName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// OrList joins names as "a", "a or b", "a, b or c".
func OrList(names []TestName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// runMWU is TestMWU's Run: U of X − Null against Y.
func runMWU(in TestInput) (TestOutcome, error) {
	sorted := in.XSorted != nil && in.YSorted != nil
	x, y := in.X, in.Y
	if sorted {
		x, y = in.XSorted, in.YSorted
	}
	if in.Null != 0 {
		shifted := make([]float64, len(x))
		for i, v := range x {
			// R: rank(c(x - mu, y)); still sorted, as subtracting a
			// constant is monotone.
			shifted[i] = v - in.Null
		}
		x = shifted
	}
	opt := MWUOptions{Alternative: in.Alternative}
	var r MWUResult
	var err error
	if sorted {
		r, err = MannWhitneyUSorted(x, y, opt)
	} else {
		r, err = MannWhitneyU(x, y, opt)
	}
	return TestOutcome{Statistic: r.U, P: r.P, Warnings: r.Warnings}, err
}

// smallestPMWU is TestMWU's SmallestP: the U test of 0..n1−1 against
// n1..n1+n2−1 (built sorted), one-sided.
func smallestPMWU(n1, n2 int) (float64, error) {
	x := make([]float64, n1)
	y := make([]float64, n2)
	for i := range x {
		x[i] = float64(i)
	}
	for j := range y {
		y[j] = float64(n1 + j)
	}
	r, err := MannWhitneyUSorted(x, y, MWUOptions{Alternative: Less})
	return r.P, err
}

// smallestPSignedRank is TestSignedRank's SmallestP: the signed-rank
// test of n1 differences −1, −2, ..., −n1, one-sided (n2 is not used).
func smallestPSignedRank(n1, _ int) (float64, error) {
	x := make([]float64, n1)
	y := make([]float64, n1)
	for i := range x {
		x[i] = -float64(i + 1)
	}
	r, err := WilcoxonSignedRank(x, y, SignedRankOptions{Alternative: Less})
	return r.P, err
}

// runSignedRank is TestSignedRank's Run: V = T+ of the differences
// (X − Y) − Null (R: x <- x - y; x <- x - mu).
func runSignedRank(in TestInput) (TestOutcome, error) {
	if len(in.X) != len(in.Y) {
		return TestOutcome{}, fmt.Errorf("%w: %s with %d and %d observations: a paired test needs pairs", ErrLength, TestSignedRank, len(in.X), len(in.Y))
	}
	d := make([]float64, len(in.X))
	for i := range d {
		d[i] = (in.X[i] - in.Y[i]) - in.Null
	}
	r, err := WilcoxonSignedRank(d, make([]float64, len(d)), SignedRankOptions{Alternative: in.Alternative})
	return TestOutcome{Statistic: r.TPlus, P: r.P, Warnings: r.Warnings}, err
}

// runBootstrapT is TestBootstrapT's Run: on the differences X − Y when
// Paired, else on X and Y.
func runBootstrapT(in TestInput) (TestOutcome, error) {
	if !in.Paired {
		return tOutcome(BootstrapT(in.X, in.Y, in.Null, in.Alternative, in.Reps, in.Rand))
	}
	if len(in.X) != len(in.Y) {
		return TestOutcome{}, fmt.Errorf("%w: paired %s with %d and %d observations", ErrLength, TestBootstrapT, len(in.X), len(in.Y))
	}
	d := make([]float64, len(in.X))
	for i := range d {
		d[i] = in.X[i] - in.Y[i]
	}
	return tOutcome(BootstrapT(d, nil, in.Null, in.Alternative, in.Reps, in.Rand))
}

// runBrunnerMunzelPermutation is TestBrunnerMunzelPermutation's Run:
// H0: A12 = Null.
func runBrunnerMunzelPermutation(in TestInput) (TestOutcome, error) {
	r, err := BrunnerMunzelPermutation(in.X, in.Y, in.Null, in.Alternative, PermutationConfig{Reps: in.Reps, Rand: in.Rand})
	return TestOutcome{Statistic: r.T, P: r.P, Warnings: r.Warnings}, err
}

// tOutcome is a t test's result as a TestOutcome.
func tOutcome(r TTestResult, err error) (TestOutcome, error) {
	return TestOutcome{Statistic: r.T, P: r.P, Warnings: r.Warnings}, err
}
