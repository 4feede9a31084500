package stats

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// TTestResult is the outcome of WelchT, PairedT and BootstrapT: a test of
// H0: mean(x) − mean(y) = Mu on the difference of means (units of the
// scores; positive means x, the candidate, is larger).
type TTestResult struct {
	// N1, N2 are the sample sizes (N2 = N1 for PairedT: the pairs).
	N1, N2 int
	// Diff is mean(x) − mean(y) (the mean of the differences for PairedT).
	Diff float64
	// Mu is the hypothesised difference.
	Mu float64
	// SE is the standard error of Diff; >= 0.
	SE float64
	// T is (Diff − Mu)/SE; ±Inf when SE = 0 and Diff != Mu.
	T float64
	// DF is the degrees of freedom of T's reference t distribution
	// (Welch-Satterthwaite for WelchT, N − 1 for PairedT); NaN for
	// BootstrapT, whose reference is the bootstrap distribution.
	DF float64
	// P is the p-value for Alternative, in [0, 1].
	P float64
	// Alternative: Greater means H1: Diff > Mu.
	Alternative Alternative
	// Reps is the number of bootstrap resamples (BootstrapT only).
	Reps int
	// Warnings lists caveats, each wrapping a Warn* sentinel.
	Warnings []error
}

// WelchT is Welch's unequal-variances t test of H0: mean(x) − mean(y) = mu
// (Welch 1947, Biometrika 34:28-35), R's t.test(x, y, mu = mu, alternative,
// var.equal = FALSE) and scipy.stats.ttest_ind(x − mu, y, equal_var =
// False): T = (x̄ − ȳ − mu)/sqrt(s1²/n1 + s2²/n2) with Satterthwaite's df.
// It holds for large samples of any finite-variance scores (central limit
// theorem); with strongly skewed scores and n below about 30 per side its
// one-sided size can be off by a few points: use BootstrapT.
//
// Errors: ErrSampleSize with fewer than 2 observations per sample; ErrNaN;
// ErrNonFinite for ±Inf or a non-finite mu; ErrOption for a bad
// Alternative.
func WelchT(x, y []float64, mu float64, alt Alternative) (TTestResult, error) {
	if err := checkT(x, y, mu, alt, "WelchT"); err != nil {
		return TTestResult{}, err
	}
	n1, n2 := float64(len(x)), float64(len(y))
	m1, v1 := MeanVar(x)
	m2, v2 := MeanVar(y)
	r := TTestResult{N1: len(x), N2: len(y), Diff: m1 - m2, Mu: mu, Alternative: alt}
	a, b := v1/n1, v2/n2
	r.SE = math.Sqrt(a + b)
	r.DF = (a + b) * (a + b) / (a*a/(n1-1) + b*b/(n2-1))
	tTail(&r)
	return r, nil
}

// PairedT is the paired t test of H0: mean(x − y) = mu, R's t.test(x, y,
// paired = TRUE, mu = mu, alternative) and scipy.stats.ttest_rel: the
// one-sample t test of the differences d_i = x_i − y_i, T = (d̄ − mu)/(s_d/
// sqrt(n)) with n − 1 df (Student 1908). It assumes the differences'
// mean is approximately normal (large n, or differences not strongly
// skewed).
//
// Errors: ErrLength when len(x) != len(y); ErrSampleSize with fewer than 2
// pairs; ErrNaN; ErrNonFinite; ErrOption for a bad Alternative.
func PairedT(x, y []float64, mu float64, alt Alternative) (TTestResult, error) {
	if len(x) != len(y) {
		return TTestResult{}, fmt.Errorf("%w: PairedT len(x) = %d, len(y) = %d", ErrLength, len(x), len(y))
	}
	if err := checkT(x, y, mu, alt, "PairedT"); err != nil {
		return TTestResult{}, err
	}
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - y[i]
	}
	m, v := MeanVar(d)
	n := float64(len(d))
	r := TTestResult{N1: len(x), N2: len(y), Diff: m, Mu: mu, Alternative: alt}
	r.SE = math.Sqrt(v / n)
	r.DF = n - 1
	tTail(&r)
	return r, nil
}

// BootstrapT tests H0: mean(x) − mean(y) = mu by the bootstrap-t (studentized
// bootstrap) test of Efron and Tibshirani (An Introduction to the
// Bootstrap, 1993, §16.4, Algorithm 16.2): the observed Welch statistic
// T = (x̄ − ȳ − mu)/SE is referred to the distribution of T* = (x̄* − ȳ* −
// (x̄ − ȳ))/SE* over reps resamples drawn with replacement from x and y
// separately (for paired data pass the differences as x and nil y: the
// one-sample version resamples d). The p-value is (1 + #{T* >= T})/(reps +
// 1) for Greater (the "+1" of Davison and Hinkley 1997, eq. 4.11, so it
// is never 0), the mirror for Less, and twice the smaller for TwoSided.
// It corrects the skewness the t approximation ignores (second-order
// accurate) and suits skewed scores, e.g. rare large losses; it needs
// about 30 observations per side to hold its size.
//
// Resamples are drawn x first then y, index by index, from rng: the same
// seed gives the same p. Resamples with SE* = 0 count as T* = 0.
//
// Errors: as WelchT (y may be nil: one-sample), and ErrOption for reps < 1.
// Panics if rng is nil.
func BootstrapT(x, y []float64, mu float64, alt Alternative, reps int, rng *rand.Rand) (TTestResult, error) {
	if reps < 1 {
		return TTestResult{}, fmt.Errorf("%w: BootstrapT reps %d < 1", ErrOption, reps)
	}
	oneSample := y == nil
	yy := y
	if oneSample {
		yy = []float64{0, 0}
	}
	if err := checkT(x, yy, mu, alt, "BootstrapT"); err != nil {
		return TTestResult{}, err
	}
	stat := func(a, b []float64) (diff, se float64) {
		m1, v1 := MeanVar(a)
		if oneSample {
			return m1, math.Sqrt(v1 / float64(len(a)))
		}
		m2, v2 := MeanVar(b)
		return m1 - m2, math.Sqrt(v1/float64(len(a)) + v2/float64(len(b)))
	}
	diff, se := stat(x, y)
	r := TTestResult{N1: len(x), N2: len(y), Diff: diff, Mu: mu, SE: se, DF: math.NaN(), Alternative: alt, Reps: reps}
	if se == 0 {
		r.Warnings = append(r.Warnings, fmt.Errorf("%w: zero variance", WarnAllTied))
	}
	r.T = (diff - mu) / se
	if se == 0 && diff == mu {
		r.T = 0
	}
	xs := make([]float64, len(x))
	ys := make([]float64, len(y))
	ge, le := 0, 0
	for range reps {
		for i := range xs {
			xs[i] = x[rng.IntN(len(x))]
		}
		for i := range ys {
			ys[i] = y[rng.IntN(len(y))]
		}
		d, s := stat(xs, ys)
		t := 0.0
		if s > 0 {
			t = (d - diff) / s
		}
		if t >= r.T {
			ge++
		}
		if t <= r.T {
			le++
		}
	}
	up := float64(1+ge) / float64(reps+1)
	lo := float64(1+le) / float64(reps+1)
	r.P = pick(alt, up, lo)
	if len(x) < 30 || (!oneSample && len(y) < 30) {
		r.Warnings = append(r.Warnings, fmt.Errorf("%w: bootstrap-t with fewer than 30 observations per side (%d, %d)", WarnSmallSample, len(x), len(y)))
	}
	return r, nil
}

func checkT(x, y []float64, mu float64, alt Alternative, fn string) error {
	if err := checkAlternative(alt); err != nil {
		return err
	}
	if len(x) < 2 || len(y) < 2 {
		return fmt.Errorf("%w: %s needs >= 2 observations per sample, got %d and %d", ErrSampleSize, fn, len(x), len(y))
	}
	if hasNaN(x) || hasNaN(y) || math.IsNaN(mu) {
		return fmt.Errorf("%w: %s", ErrNaN, fn)
	}
	for _, s := range [][]float64{x, y, {mu}} {
		for _, v := range s {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s needs finite values, got %v", ErrNonFinite, fn, v)
			}
		}
	}
	return nil
}

// MeanVar returns the mean and the sample variance (denominator n − 1)
// of x, by the two-pass algorithm. x needs at least two values: with one
// the variance is NaN, with none the mean is.
func MeanVar(x []float64) (m, v float64) {
	for _, a := range x {
		m += a
	}
	m /= float64(len(x))
	for _, a := range x {
		v += (a - m) * (a - m)
	}
	return m, v / float64(len(x)-1)
}

// tTail fills T and P of a t test from Diff, Mu, SE and DF.
func tTail(r *TTestResult) {
	dev := r.Diff - r.Mu
	if r.SE == 0 {
		r.Warnings = append(r.Warnings, fmt.Errorf("%w: zero variance", WarnAllTied))
		up, lo := 1.0, 1.0
		switch {
		case dev > 0:
			r.T, lo = math.Inf(1), 0
		case dev < 0:
			r.T, up = math.Inf(-1), 0
		}
		r.P = pick(r.Alternative, up, lo)
		return
	}
	r.T = dev / r.SE
	td := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.P = pick(r.Alternative, td.Survival(r.T), td.CDF(r.T))
}
