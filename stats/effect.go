package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// A12 returns the Vargha-Delaney A measure (Vargha and Delaney 2000), the
// common-language effect size P(X > Y) + 0.5·P(X = Y) estimated as
// U/(n1·n2), U the Mann-Whitney statistic of x (see MannWhitneyU). In [0, 1];
// 0.5 means no effect, above 0.5 favours x (the candidate). O(N log N).
//
// Errors: ErrSampleSize if x or y is empty; ErrNaN if either contains NaN.
func A12(x, y []float64) (float64, error) {
	if len(x) == 0 || len(y) == 0 {
		return math.NaN(), fmt.Errorf("%w: A12 with len(x) = %d, len(y) = %d", ErrSampleSize, len(x), len(y))
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), fmt.Errorf("%w: A12", ErrNaN)
	}
	p := pooledRanks(x, y, false)
	return float64(p.u2) / 2 / (float64(len(x)) * float64(len(y))), nil
}

// A12Sorted is A12 of xs and ys already sorted ascending: the same value,
// bit for bit, in O(N) without a copy. It panics if xs or ys is not
// sorted ascending; errors as A12.
func A12Sorted(xs, ys []float64) (float64, error) {
	if len(xs) == 0 || len(ys) == 0 {
		return math.NaN(), fmt.Errorf("%w: A12 with len(x) = %d, len(y) = %d", ErrSampleSize, len(xs), len(ys))
	}
	if hasNaN(xs) || hasNaN(ys) {
		return math.NaN(), fmt.Errorf("%w: A12", ErrNaN)
	}
	mustBeSorted("A12Sorted", xs, ys)
	p := mergeRanks(xs, ys, false)
	return float64(p.u2) / 2 / (float64(len(xs)) * float64(len(ys))), nil
}

// RankBiserial returns the rank-biserial correlation r = 2·A12 − 1 (Cureton
// 1956; Kerby 2014), equal to Cliff's delta: P(X > Y) − P(X < Y). In
// [−1, 1]; positive favours x (the candidate).
//
// Errors: as A12.
func RankBiserial(x, y []float64) (float64, error) {
	a, err := A12(x, y)
	if err != nil {
		return math.NaN(), err
	}
	return 2*a - 1, nil
}

// AutoExactShiftMax is the Auto rule of HodgesLehmann, R's: the exact
// interval is used when both samples have fewer than AutoExactShiftMax (50)
// observations and there are no ties.
const AutoExactShiftMax = 50

// ShiftOptions configures HodgesLehmann. The zero value is a two-sided 95%
// interval, Auto method, continuity correction on.
type ShiftOptions struct {
	// ConfLevel of the interval, in (0, 1); 0 means 0.95.
	ConfLevel float64
	// Alternative: TwoSided gives [lo, hi]; Greater gives [lo, +Inf); Less
	// gives (−Inf, hi].
	Alternative Alternative
	// Method: Auto (R's rule, see AutoExactShiftMax), Exact (falls back to
	// Asymptotic with ties, as R) or Asymptotic.
	Method Method
	// NoContinuity switches off the continuity correction of the
	// asymptotic interval (R's correct = FALSE).
	NoContinuity bool
}

// ShiftResult is the outcome of HodgesLehmann. Units are those of x and y;
// a positive shift means x (the candidate) is larger.
type ShiftResult struct {
	// N1, N2 are the sizes of x and y.
	N1, N2 int
	// Estimate is the Hodges-Lehmann shift: the median of the N1·N2
	// pairwise differences x_i − y_j (the mean of the two middle ones when
	// N1·N2 is even). It is R's estimate in the exact case.
	Estimate float64
	// RootEstimate is R's estimate in the asymptotic case: a zero in d of
	// the standardized rank-sum statistic W(d) of (x − d, y) without
	// continuity correction, as found by R's uniroot(tol = 1e-4). W is a
	// step function of d, and with ties or few observations it is exactly
	// 0 on a whole interval of d (between two adjacent pairwise
	// differences); uniroot stops at whichever point of that interval its
	// iterates reach, not at its middle. So RootEstimate is some point of
	// the interval where W(d) = 0 (R's printed estimate, reproduced
	// exactly), while Estimate is the median of the pairwise differences,
	// the Hodges-Lehmann estimator proper; they can differ by up to the
	// interval's width (in a check of 320 cases, by more than 1e-3 in 87
	// and by up to 2.27 score points), not by the root tolerance. NaN when
	// Method is Exact.
	RootEstimate float64
	// CILow, CIHigh bound the confidence interval of the shift
	// (±Inf for a one-sided Alternative; NaN if WarnNoCI).
	CILow, CIHigh float64
	// ConfLevel is the confidence level of the interval: the requested one,
	// or the achieved one with a WarnConfLevel warning (exact case).
	ConfLevel float64
	// Method actually used for the interval: Exact or Asymptotic.
	Method Method
	// Alternative used.
	Alternative Alternative
	// Ties reports whether the pooled sample (x, y) has tied values.
	Ties bool
	// Warnings lists statistical caveats, each wrapping a Warn* sentinel.
	Warnings []error
}

// HodgesLehmann estimates the location shift between x (candidate) and y
// (baseline) by the Hodges-Lehmann estimator (Hodges and Lehmann 1963): the
// median of all pairwise differences x_i − y_j; and computes the confidence
// interval by inverting the Wilcoxon rank-sum test, exactly as R 4.2.2's
// wilcox.test(x, y, conf.int = TRUE, conf.level, alternative, correct):
//
//   - Exact (no ties): with the sorted differences D(1..n1n2) and
//     qu = qwilcox(α/2, n1, n2) (α for one-sided; 1 if 0), the interval is
//     [D(qu), D(n1n2 − qu + 1)] (Bauer 1972). If the achieved
//     α' = 2·pwilcox(qu − 1) exceeds 1.5α, ConfLevel = 1 − α' with
//     WarnConfLevel, as R.
//   - Asymptotic: each limit is the root in d of
//     W(d) = (U(x − d, y) − n1n2/2 − cc)/σ(d) = z_(1−α/2) resp. z_(α/2),
//     with the tie-corrected σ(d) of the shifted samples, searched on
//     [min x − max y, max x − min y] by R's uniroot (Brent's zeroin as in
//     R_zeroin2, tol = 1e-4; the endpoint is returned when the root is
//     outside). Because W is a step function and the search stops at a
//     tolerance, the limits are R's to full precision only when the same
//     floating-point path is taken, which this port reproduces; they are
//     within 1e-4 (the root tolerance) of the exact step location.
//
// Auto uses Exact when n1 < 50, n2 < 50 and there are no ties, else
// Asymptotic (R's default). Exact with ties falls back to Asymptotic with
// WarnTiesCI; Exact too large for MaxExactCells falls back with
// WarnExactTooLarge.
//
// Cost: O((n1 + n2)·log(n1·n2)) expected time and O(n1 + n2) memory. The
// estimate and the exact interval's order statistics D(k) are selected
// from the implicit sorted matrix of differences without materialising
// its n1·n2 elements (Johnson and Mizoguchi 1978; Monahan 1984, ACM TOMS
// 10(3); see pairDiffs), and equal bit for bit the elements of the sorted
// differences. Each evaluation of W(d) in the asymptotic search costs
// O(k1 + k2), k1 and k2 the numbers of distinct values of x and y (at
// most n1 and n2; few for integer scores); Brent's search takes a few
// dozen.
//
// Errors: ErrSampleSize if x or y is empty; ErrNaN for NaN; ErrNonFinite
// for ±Inf; ErrOption for ConfLevel outside (0, 1) or a bad option.
func HodgesLehmann(x, y []float64, opt ShiftOptions) (ShiftResult, error) {
	conf, err := checkShift(x, y, opt)
	if err != nil {
		return ShiftResult{}, err
	}
	xs, ys := sortedCopies(x, y)
	return hodgesLehmann(xs, ys, conf, opt), nil
}

// HodgesLehmannSorted is HodgesLehmann on xs and ys already sorted
// ascending: the same result, bit for bit, without the sort and its
// copies (see MannWhitneyUSorted). Neither slice is modified. It panics
// if xs or ys is not sorted ascending; errors as HodgesLehmann.
func HodgesLehmannSorted(xs, ys []float64, opt ShiftOptions) (ShiftResult, error) {
	conf, err := checkShift(xs, ys, opt)
	if err != nil {
		return ShiftResult{}, err
	}
	mustBeSorted("HodgesLehmannSorted", xs, ys)
	return hodgesLehmann(xs, ys, conf, opt), nil
}

// checkShift returns HodgesLehmann's error for x, y and opt, or the
// confidence level to use.
func checkShift(x, y []float64, opt ShiftOptions) (conf float64, err error) {
	if err := checkAlternative(opt.Alternative); err != nil {
		return 0, err
	}
	if err := checkMethod(opt.Method); err != nil {
		return 0, err
	}
	conf = opt.ConfLevel
	if conf == 0 {
		conf = 0.95
	}
	if !(conf > 0 && conf < 1) {
		return 0, fmt.Errorf("%w: confidence level %v not in (0, 1)", ErrOption, opt.ConfLevel)
	}
	if n1, n2 := len(x), len(y); n1 == 0 || n2 == 0 {
		return 0, fmt.Errorf("%w: HodgesLehmann with len(x) = %d, len(y) = %d", ErrSampleSize, n1, n2)
	}
	for _, s := range [][]float64{x, y} {
		for _, v := range s {
			if math.IsNaN(v) {
				return 0, fmt.Errorf("%w: HodgesLehmann", ErrNaN)
			}
			if math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: HodgesLehmann needs finite scores, got %v", ErrNonFinite, v)
			}
		}
	}
	return conf, nil
}

// hodgesLehmann is HodgesLehmann on checked samples xs and ys sorted
// ascending (not modified), at confidence level conf.
func hodgesLehmann(xs, ys []float64, conf float64, opt ShiftOptions) ShiftResult {
	n1, n2 := len(xs), len(ys)
	res := ShiftResult{N1: n1, N2: n2, Alternative: opt.Alternative, ConfLevel: conf, RootEstimate: math.NaN()}
	diffs := newPairDiffsSorted(xs, ys)
	res.Estimate = diffs.median()
	res.Ties = mergeRanks(xs, ys, false).ties

	method := opt.Method
	if method == Auto {
		method = Asymptotic
		if n1 < AutoExactShiftMax && n2 < AutoExactShiftMax && !res.Ties {
			method = Exact
		}
	}
	if method == Exact && res.Ties {
		res.Warnings = append(res.Warnings, WarnTiesCI)
		method = Asymptotic
	}
	if method == Exact && rankSumCells(min(n1, n2), max(n1, n2), 1) > MaxExactCells {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w (n1 = %d, n2 = %d)", WarnExactTooLarge, n1, n2))
		method = Asymptotic
	}
	res.Method = method
	alpha := 1 - conf
	if method == Exact {
		exactShiftCI(&res, diffs.sel, alpha)
		return res
	}
	asymptoticShiftCI(&res, xs, ys, alpha, !opt.NoContinuity)
	return res
}

// exactShiftCI fills the exact interval (R's wilcox.test exact branch);
// diff(k) is the k-th smallest (0-based) of the n1·n2 differences.
func exactShiftCI(res *ShiftResult, diff func(k int) float64, alpha float64) {
	n1, n2 := res.N1, res.N2
	groups := make([]int, n1+n2)
	for i := range groups {
		groups[i] = 1
	}
	mn := n1 * n2
	// The distribution is symmetric: no reversal needed. pw and qw are R's
	// pwilcox (P(U <= q)) and qwilcox.
	d := newCountDist(rankSumDist(groups, min(n1, n2), max(n1, n2), 1), mn)
	pw, qw := d.cdf, d.quantile
	var achieved float64
	switch res.Alternative {
	case TwoSided:
		qu := max(qw(alpha/2), 1)
		ql := mn - qu
		achieved = 2 * pw(qu-1)
		res.CILow, res.CIHigh = diff(qu-1), diff(ql)
	case Greater:
		qu := max(qw(alpha), 1)
		achieved = pw(qu - 1)
		res.CILow, res.CIHigh = diff(qu-1), math.Inf(1)
	case Less:
		qu := max(qw(alpha), 1)
		ql := mn - qu
		achieved = pw(qu - 1)
		res.CILow, res.CIHigh = math.Inf(-1), diff(ql)
	}
	if achieved-alpha > alpha/2 {
		res.ConfLevel = 1 - achieved
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: achieved %.4g", WarnConfLevel, res.ConfLevel))
	}
}

// shiftStat evaluates R's W(d) for the two-sample asymptotic interval.
// The samples are kept as runs of equal values, so that each evaluation
// costs O(number of distinct values): tied scores (integer game scores)
// have few, and the root search evaluates W(d) dozens of times.
type shiftStat struct {
	xs, ys   runs      // x and y sorted ascending, as runs
	shifted  []float64 // xs.v − d
	fn1, fn2 float64
}

// w returns (U(x − d, y) − n1n2/2 − cc)/σ(d) with R's operation order, and
// σ(d).
func (s *shiftStat) w(d float64, correct bool, alt Alternative) (float64, float64) {
	for i, v := range s.xs.v {
		s.shifted[i] = v - d // sorted: subtraction is monotone
	}
	u2, tieTerm := mergeRuns(s.shifted, s.xs.n, s.ys.v, s.ys.n)
	dz := float64(u2)/2 - s.fn1*s.fn2/2
	nn := s.fn1 + s.fn2
	sigma := math.Sqrt((s.fn1 * s.fn2 / 12) * ((nn + 1) - tieTerm/(nn*(nn-1))))
	cc := continuity(dz, alt, !correct)
	return (dz - cc) / sigma, sigma
}

// runs is a sorted sample as its distinct values v, ascending, and their
// counts n (same length).
type runs struct {
	v []float64
	n []int
}

// runsOf returns the runs of xs, sorted ascending.
func runsOf(xs []float64) runs {
	var r runs
	for i := 0; i < len(xs); {
		j := i + 1
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		r.v = append(r.v, xs[i])
		r.n = append(r.n, j-i)
		i = j
	}
	return r
}

// mergeRuns is mergeRanks' 2U and tie term for two samples given as runs
// (xv, xn) and (yv, yn), values ascending; runs of xv that are equal
// (distinct values moved onto one by rounding) count as one group.
func mergeRuns(xv []float64, xn []int, yv []float64, yn []int) (u2 int, tieTerm float64) {
	i, j, yBelow := 0, 0, 0
	for i < len(xv) || j < len(yv) {
		var v float64
		switch {
		case i == len(xv):
			v = yv[j]
		case j == len(yv):
			v = xv[i]
		default:
			v = min(xv[i], yv[j])
		}
		cx, cy := 0, 0
		for i < len(xv) && xv[i] == v {
			cx += xn[i]
			i++
		}
		for j < len(yv) && yv[j] == v {
			cy += yn[j]
			j++
		}
		t := cx + cy
		u2 += cx * (2*yBelow + cy)
		yBelow += cy
		if t > 1 {
			ft := float64(t)
			tieTerm += ft*ft*ft - ft
		}
	}
	return u2, tieTerm
}

// asymptoticShiftCI fills the asymptotic interval and RootEstimate (R's
// wilcox.test non-exact branch with conf.int = TRUE); xs and ys are x and
// y sorted ascending.
func asymptoticShiftCI(res *ShiftResult, xs, ys []float64, alpha float64, correct bool) {
	s := &shiftStat{xs: runsOf(xs), ys: runsOf(ys), fn1: float64(len(xs)), fn2: float64(len(ys))}
	s.shifted = make([]float64, len(s.xs.v))
	mumin := xs[0] - ys[len(ys)-1]
	mumax := xs[len(xs)-1] - ys[0]
	alt := res.Alternative
	wmin, sgmin := s.w(mumin, correct, alt)
	wmax, sgmax := s.w(mumax, correct, alt)
	if sgmin == 0 || sgmax == 0 {
		res.CILow, res.CIHigh = math.NaN(), math.NaN()
		res.Warnings = append(res.Warnings, WarnNoCI)
		return
	}
	root := func(zq float64) float64 {
		fl := wmin - zq
		if fl <= 0 {
			return mumin
		}
		fu := wmax - zq
		if fu >= 0 {
			return mumax
		}
		return zeroin2(mumin, mumax, fl, fu, func(d float64) float64 {
			v, _ := s.w(d, correct, alt)
			return v - zq
		}, 1e-4, 1000)
	}
	// Upper quantiles as −lower ones: R's qnorm(p, lower.tail = FALSE) is
	// exactly −qnorm(p) (no 1 − p rounding).
	q := distuv.UnitNormal.Quantile
	switch alt {
	case TwoSided:
		res.CILow = root(-q(alpha / 2))
		res.CIHigh = root(q(alpha / 2))
	case Greater:
		res.CILow, res.CIHigh = root(-q(alpha)), math.Inf(1)
	case Less:
		res.CILow, res.CIHigh = math.Inf(-1), root(q(alpha))
	}
	// Estimate: uniroot(W, c(mumin, mumax), tol = 1e-4) without correction.
	f := func(d float64) float64 {
		v, _ := s.w(d, false, alt)
		return v
	}
	fa, fb := f(mumin), f(mumax)
	if fa*fb > 0 {
		// R stops with "f() values at end points not of opposite sign".
		return
	}
	res.RootEstimate = zeroin2(mumin, mumax, fa, fb, f, 1e-4, 1000)
}

// zeroin2 finds a root of f in [ax, bx] given fa = f(ax), fb = f(bx) of
// opposite signs: a transcription of R's R_zeroin2 (src/library/stats/src/
// zeroin.c, from NETLIB c/brent.shar; Brent 1973, Forsythe, Malcolm and
// Moler 1977), which R's uniroot calls. Keeping R's operation order makes
// the iterates, and so the returned root, identical to R's.
func zeroin2(ax, bx, fa, fb float64, f func(float64) float64, tol float64, maxit int) float64 {
	const eps = 2.220446049250313e-16 // DBL_EPSILON
	a, b := ax, bx
	c, fc := a, fa
	if fa == 0 {
		return a
	}
	if fb == 0 {
		return b
	}
	for it := maxit + 1; it > 0; it-- {
		prevStep := b - a
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tolAct := float64(2*eps*math.Abs(b)) + tol/2
		newStep := (c - b) / 2
		if math.Abs(newStep) <= tolAct || fb == 0 {
			return b
		}
		if math.Abs(prevStep) >= tolAct && math.Abs(fa) > math.Abs(fb) {
			var p, q float64
			cb := c - b
			if a == c {
				t1 := fb / fa
				p = float64(cb * t1)
				q = 1.0 - t1
			} else {
				qq := fa / fc
				t1 := fb / fc
				t2 := fb / fa
				p = t2 * (float64(float64(cb*qq)*(qq-t1)) - float64((b-a)*(t1-1.0)))
				q = float64(float64((qq-1.0)*(t1-1.0)) * (t2 - 1.0))
			}
			if p > 0 {
				q = -q
			} else {
				p = -p
			}
			if p < float64(float64(0.75*cb)*q)-math.Abs(float64(tolAct*q))/2 && p < math.Abs(float64(prevStep*q)/2) {
				newStep = p / q
			}
		}
		if math.Abs(newStep) < tolAct {
			if newStep > 0 {
				newStep = tolAct
			} else {
				newStep = -tolAct
			}
		}
		a, fa = b, fb
		b += newStep
		fb = f(b)
		if (fb > 0 && fc > 0) || (fb < 0 && fc < 0) {
			c, fc = a, fa
		}
	}
	return b
}

// countDist is an exact null distribution of an integer statistic on
// 0..max, as counts (rankSumDist, signedRankDist), with R's lower-tail
// distribution function and quantile (nmath/wilcox.c pwilcox and qwilcox,
// nmath/signrank.c psignrank and qsignrank).
type countDist struct {
	counts []float64
	total  float64
	max    int
}

func newCountDist(counts []float64, max int) countDist {
	d := countDist{counts: counts, max: max}
	for _, c := range counts {
		d.total += c
	}
	return d
}

// cdf returns P(S <= q).
func (d countDist) cdf(q int) float64 {
	if q < 0 {
		return 0
	}
	s := 0.0
	for _, c := range d.counts[:min(q, d.max)+1] {
		s += c
	}
	return s / d.total
}

// quantile returns R's lower-tail quantile of p, with its 10·DBL_EPSILON
// fuzz.
func (d countDist) quantile(p float64) int {
	const eps = 2.220446049250313e-16
	acc := 0.0
	q := 0
	if p <= 0.5 {
		p -= 10 * eps
		for {
			acc += d.counts[q] / d.total
			if acc >= p {
				return q
			}
			q++
		}
	}
	p = 1 - p + 10*eps
	for {
		acc += d.counts[q] / d.total
		if acc > p {
			return d.max - q
		}
		q++
	}
}
