package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// PseudoMedianResult is the outcome of HodgesLehmannOneSample: the
// one-sample Hodges-Lehmann estimate of the centre of symmetry of d (for
// paired scores, d_i = x_i − y_i, the candidate's advantage on seed i) and
// its confidence interval. Units are those of d.
type PseudoMedianResult struct {
	// N is len(d); NZero the number of zero differences, which R (and
	// this port) drop before ranking, estimating and computing the
	// interval.
	N, NZero int
	// Estimate is R's "(pseudo)median": with the Exact method the median
	// of the NUsed(NUsed+1)/2 Walsh averages (d_i + d_j)/2, i <= j, of the
	// nonzero differences; with Asymptotic the root in m of the signed-rank
	// statistic of d − m without continuity correction (R's
	// uniroot(tol = 1e-4)). Unlike the two-sample case this is what R
	// prints in both branches. NaN when no difference is nonzero.
	Estimate float64
	// WalshMedian is the median of the Walsh averages of the nonzero
	// differences when Method is Exact (equal to Estimate); NaN with the
	// Asymptotic method, where its O(n²) cost is not paid.
	WalshMedian float64
	// CILow, CIHigh bound the interval (±Inf for a one-sided Alternative;
	// NaN with WarnNoCI).
	CILow, CIHigh float64
	// ConfLevel is the requested level or the achieved one (with
	// WarnConfLevel).
	ConfLevel float64
	// Method used for the interval: Exact or Asymptotic.
	Method Method
	// Alternative of the interval.
	Alternative Alternative
	// Warnings lists caveats, each wrapping a Warn* sentinel.
	Warnings []error
}

// HodgesLehmannOneSample estimates the centre of symmetry (pseudo-median)
// of the paired differences d and its confidence interval by inverting the
// Wilcoxon signed-rank test, as R 4.2.2's wilcox.test(x, y, paired = TRUE,
// conf.int = TRUE, conf.level, alternative, correct) does for d = x − y
// (Hodges and Lehmann 1963; Bauer 1972, JASA 67; Hollander, Wolfe and
// Chicken 2014, §3.2-3.3). This is the estimate the signed-rank test is
// about; the two-sample HodgesLehmann of x and y is not.
//
// Zero differences are dropped first (R). With n nonzero differences:
//
//   - Exact (n < 50, no zeros, no ties among |d|, as R): with the sorted
//     Walsh averages A(1..n(n+1)/2) and qu = qsignrank(α/2, n) (α for
//     one-sided; 1 if 0), the interval is [A(qu), A(n(n+1)/2 − qu + 1)];
//     the estimate is their median. If the achieved α' =
//     2·psignrank(qu − 1, n) exceeds 1.5α, ConfLevel = 1 − α' with α'
//     rounded to 2 significant digits (R's signif) and WarnConfLevel.
//   - Asymptotic: each limit is the root in m of V(m) = (T+(d − m) −
//     n_m(n_m+1)/4 − cc)/σ_m = z_q over [min d, max d] by Brent's method
//     (R's uniroot, tol = 1e-4), where d − m drops its zeros and σ_m is
//     tie-corrected; α is doubled while the bounds cannot reach z_q, as R.
//     The estimate is the root of V without continuity correction.
//
// Method Auto is R's rule above; Exact with ties or zeros falls back to
// Asymptotic with WarnTiesCI. Cost: Exact O(n² log n) for the Walsh
// averages (n < 50); Asymptotic O(n log n) per evaluation of V, a few
// dozen evaluations (1,000 pairs: about 10 ms).
//
// Errors: ErrSampleSize if d is empty; ErrNaN for NaN; ErrNonFinite for
// ±Inf; ErrOption for a bad option or ConfLevel outside (0, 1).
func HodgesLehmannOneSample(d []float64, opt ShiftOptions) (PseudoMedianResult, error) {
	if err := checkAlternative(opt.Alternative); err != nil {
		return PseudoMedianResult{}, err
	}
	if err := checkMethod(opt.Method); err != nil {
		return PseudoMedianResult{}, err
	}
	conf := opt.ConfLevel
	if conf == 0 {
		conf = 0.95
	}
	if !(conf > 0 && conf < 1) {
		return PseudoMedianResult{}, fmt.Errorf("%w: confidence level %v not in (0, 1)", ErrOption, opt.ConfLevel)
	}
	if len(d) == 0 {
		return PseudoMedianResult{}, fmt.Errorf("%w: HodgesLehmannOneSample of no differences", ErrSampleSize)
	}
	res := PseudoMedianResult{N: len(d), Alternative: opt.Alternative, ConfLevel: conf,
		Estimate: math.NaN(), WalshMedian: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	x := make([]float64, 0, len(d))
	for _, v := range d {
		switch {
		case math.IsNaN(v):
			return PseudoMedianResult{}, fmt.Errorf("%w: HodgesLehmannOneSample", ErrNaN)
		case math.IsInf(v, 0):
			return PseudoMedianResult{}, fmt.Errorf("%w: HodgesLehmannOneSample needs finite differences, got %v", ErrNonFinite, v)
		case v == 0:
			res.NZero++
		default:
			x = append(x, v)
		}
	}
	n := len(x)
	if n == 0 {
		res.Method = Asymptotic
		res.Warnings = append(res.Warnings, WarnNoCI)
		return res, nil
	}
	abs := make([]float64, n)
	for i, v := range x {
		abs[i] = math.Abs(v)
	}
	slices.Sort(abs)
	ties := false
	for i := 1; i < n; i++ {
		if abs[i] == abs[i-1] {
			ties = true
			break
		}
	}
	method := opt.Method
	if method == Auto {
		method = Asymptotic
		if n < AutoExactShiftMax && !ties && res.NZero == 0 {
			method = Exact
		}
	}
	if method == Exact && (ties || res.NZero > 0) {
		res.Warnings = append(res.Warnings, WarnTiesCI)
		method = Asymptotic
	}
	if method == Exact && n > 1000 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w (n = %d)", WarnExactTooLarge, n))
		method = Asymptotic
	}
	res.Method = method
	alpha := 1 - conf
	if method == Exact {
		walsh := walshAverages(x)
		res.WalshMedian = median(walsh)
		exactPseudoMedianCI(&res, walsh, n, alpha)
		res.Estimate = res.WalshMedian
		return res, nil
	}
	asymptoticPseudoMedianCI(&res, x, alpha, !opt.NoContinuity)
	return res, nil
}

// walshAverages returns the n(n+1)/2 averages (x_i + x_j)/2, i <= j,
// sorted, computed as R does: the sum, sorted, then halved.
func walshAverages(x []float64) []float64 {
	n := len(x)
	w := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			w = append(w, x[i]+x[j])
		}
	}
	slices.Sort(w)
	for i := range w {
		w[i] /= 2
	}
	return w
}

// exactPseudoMedianCI fills the exact interval (R's exact branch).
func exactPseudoMedianCI(res *PseudoMedianResult, walsh []float64, n int, alpha float64) {
	ws := make([]int, n)
	ts := make([]int, n)
	for i := range ws {
		ws[i], ts[i] = i+1, 1
	}
	m := n * (n + 1) / 2
	d := newCountDist(signedRankDist(ws, ts), m)
	ps, qs := d.cdf, d.quantile // R's psignrank (P(V <= q)) and qsignrank
	var achieved float64
	switch res.Alternative {
	case TwoSided:
		qu := max(qs(alpha/2), 1)
		ql := m - qu
		achieved = 2 * ps(qu-1)
		res.CILow, res.CIHigh = walsh[qu-1], walsh[ql]
	case Greater:
		qu := max(qs(alpha), 1)
		achieved = ps(qu - 1)
		res.CILow, res.CIHigh = walsh[qu-1], math.Inf(1)
	case Less:
		qu := max(qs(alpha), 1)
		ql := m - qu
		achieved = ps(qu - 1)
		res.CILow, res.CIHigh = math.Inf(-1), walsh[ql]
	}
	if achieved-alpha > alpha/2 {
		a, _ := strconv.ParseFloat(strconv.FormatFloat(achieved, 'g', 2, 64), 64) // R's signif(achieved, 2)
		res.ConfLevel = 1 - a
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: achieved %.4g", WarnConfLevel, res.ConfLevel))
	}
}

// signedRankW is R's W(d) of the one-sample asymptotic interval: the
// standardized signed-rank statistic of x − m (zeros dropped) and its σ.
func signedRankW(x []float64, m float64, correct bool, alt Alternative) (float64, float64) {
	type dv struct{ abs, v float64 }
	xd := make([]dv, 0, len(x))
	for _, v := range x {
		if e := v - m; e != 0 {
			xd = append(xd, dv{math.Abs(e), e})
		}
	}
	slices.SortFunc(xd, func(a, b dv) int {
		switch {
		case a.abs < b.abs:
			return -1
		case a.abs > b.abs:
			return 1
		}
		return 0
	})
	nx := float64(len(xd))
	sumPos, tie := 0.0, 0.0
	for i := 0; i < len(xd); {
		j := i
		for j < len(xd) && xd[j].abs == xd[i].abs {
			j++
		}
		r := float64(i+1+j) / 2 // midrank of positions i+1..j
		for k := i; k < j; k++ {
			if xd[k].v > 0 {
				sumPos += r
			}
		}
		t := float64(j - i)
		tie += t*t*t - t
		i = j
	}
	zd := sumPos - nx*(nx+1)/4
	sigma := math.Sqrt(nx*(nx+1)*(2*nx+1)/24 - tie/48)
	cc := continuity(zd, alt, !correct)
	return (zd - cc) / sigma, sigma
}

// asymptoticPseudoMedianCI fills the asymptotic interval and the root
// estimate (R's non-exact branch with conf.int = TRUE); x holds the
// nonzero differences.
func asymptoticPseudoMedianCI(res *PseudoMedianResult, x []float64, alpha float64, correct bool) {
	mumin, mumax := slices.Min(x), slices.Max(x)
	alt := res.Alternative
	w := func(m float64, c bool) float64 {
		v, _ := signedRankW(x, m, c, alt)
		return v
	}
	wmin := w(mumin, correct)
	wmax := w(mumax, correct)
	if math.IsNaN(wmin) || math.IsInf(wmin, 0) || math.IsNaN(wmax) || math.IsInf(wmax, 0) {
		res.CILow, res.CIHigh = math.NaN(), math.NaN()
		if alt == Less {
			res.CILow = math.Inf(-1)
		}
		if alt == Greater {
			res.CIHigh = math.Inf(1)
		}
		res.ConfLevel = 0
		res.Estimate = (mumin + mumax) / 2 // R's "midrange"
		res.Warnings = append(res.Warnings, WarnNoCI)
		return
	}
	root := func(zq float64) float64 {
		return zeroin2(mumin, mumax, wmin-zq, wmax-zq, func(d float64) float64 { return w(d, correct) - zq }, 1e-4, 1000)
	}
	conf := res.ConfLevel
	q := distuv.UnitNormal.Quantile
	notAchieved := func() {
		if alpha >= 1 || 1-conf < alpha*0.75 {
			res.ConfLevel = 1 - min(1, alpha)
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: achieved %.4g", WarnConfLevel, res.ConfLevel))
		}
	}
	med := Median(x)
	switch alt {
	case TwoSided:
		for wmin-(-q(alpha/2)) < 0 || wmax-q(alpha/2) > 0 {
			alpha *= 2
		}
		notAchieved()
		if alpha < 1 {
			res.CILow, res.CIHigh = root(-q(alpha/2)), root(q(alpha/2))
		} else {
			res.CILow, res.CIHigh = med, med
		}
	case Greater:
		for wmin-(-q(alpha)) < 0 {
			alpha *= 2
		}
		notAchieved()
		res.CILow, res.CIHigh = med, math.Inf(1)
		if alpha < 1 {
			res.CILow = root(-q(alpha))
		}
	case Less:
		for wmax-q(alpha/2) > 0 { // R tests alpha/2 here
			alpha *= 2
		}
		notAchieved()
		res.CILow, res.CIHigh = math.Inf(-1), med
		if alpha < 1 {
			res.CIHigh = root(q(alpha))
		}
	}
	fa, fb := w(mumin, false), w(mumax, false)
	if fa*fb > 0 {
		// R stops: "f() values at end points not of opposite sign"; the
		// median of the differences stands in.
		res.Estimate = med
		return
	}
	res.Estimate = zeroin2(mumin, mumax, fa, fb, func(d float64) float64 { return w(d, false) }, 1e-4, 1000)
}
