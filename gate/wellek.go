package gate

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// a12Result is the outcome of a12NonInferiority.
type a12Result struct {
	// A12 is U/(n1·n2), in [0, 1].
	A12 float64
	// SE is the estimated standard error of A12, >= 0.
	SE float64
	// Z is (A12 − theta0)/SE; ±Inf when SE = 0 and A12 != theta0.
	Z float64
	// P is the lower-tail p-value Φ(Z), in [0, 1].
	P float64
	// Warnings are caveats of the normal approximation.
	Warnings []string
}

// a12NonInferiority tests H0: A12 >= theta0 against H1: A12 < theta0 for
// x (candidate) and y (baseline), A12 = P(X > Y) + P(X = Y)/2, by the
// asymptotic normal test of Wellek (2010, §6.2): z = (Â − theta0)/SE,
// p = Φ(z).
//
// Â = U/(n1·n2) and SE² = S10/n1 + S01/n2, where the placement values
// V10_i = (#{y < x_i} + #{y = x_i}/2)/n2 and V01_j = (#{x > y_j} +
// #{x = y_j}/2)/n1 have sample variances S10 and S01 (denominators n1 − 1
// and n2 − 1): the consistent estimator of Sen (1967) in the form of
// DeLong, DeLong and Clarke-Pearson (1988). O((n1 + n2) log(n1 + n2)).
//
// When SE = 0 (complete separation, or every observation tied) the test is
// degenerate: p = 0 if Â < theta0, else 1, with a warning. x and y must
// hold at least 2 finite values each.
func a12NonInferiority(x, y []float64, theta0 float64) a12Result {
	n1, n2 := float64(len(x)), float64(len(y))
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	// count returns #{s < v} and #{s == v} in sorted s.
	count := func(s []float64, v float64) (below, equal int) {
		lo := sort.SearchFloat64s(s, v)
		hi := lo
		for hi < len(s) && s[hi] == v {
			hi++
		}
		return lo, hi - lo
	}
	v10 := make([]float64, len(x))
	sum := 0.0
	for i, v := range x {
		b, e := count(ys, v)
		v10[i] = (float64(b) + float64(e)/2) / n2
		sum += v10[i]
	}
	a := sum / n1
	v01 := make([]float64, len(y))
	for j, v := range y {
		b, e := count(xs, v)
		above := len(xs) - b - e
		v01[j] = (float64(above) + float64(e)/2) / n1
	}
	ss := func(v []float64) float64 {
		s := 0.0
		for _, p := range v {
			d := p - a
			s += d * d
		}
		return s / float64(len(v)-1)
	}
	se := math.Sqrt(ss(v10)/n1 + ss(v01)/n2)
	r := a12Result{A12: a, SE: se}
	if min(len(x), len(y)) < 10 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("normal approximation of the A12 test with fewer than 10 observations in a sample (%d, %d)", len(x), len(y)))
	}
	if se == 0 {
		r.Warnings = append(r.Warnings, "A12 variance estimate is 0 (complete separation or all observations tied): p is 0 or 1")
		switch {
		case a < theta0:
			r.Z, r.P = math.Inf(-1), 0
		case a > theta0:
			r.Z, r.P = math.Inf(1), 1
		default:
			r.Z, r.P = 0, 1
		}
		return r
	}
	r.Z = (a - theta0) / se
	r.P = min(1, max(0, 0.5*math.Erfc(-r.Z/math.Sqrt2)))
	return r
}
