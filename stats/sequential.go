package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file holds the group-sequential machinery of the evolution loop's
// acceptance gate: α spent across a run's generations (BaselAlpha) and
// α spent across the interim looks of one candidate's test (Lan-DeMets
// spending functions and their boundaries).

// BaselAlpha is the significance level of generation g (1-based, g >= 1)
// of a run of family-wise level alpha: α_g = α·6/(π²g²). The weights
// 6/(π²g²) sum to 1 over g = 1, 2, … (Euler's solution of the Basel
// problem, Σ 1/g² = π²/6), so by the union bound (a weighted Bonferroni
// over generations) the chance that a run of any number of generations
// accepts a non-improving candidate in some generation is at most α,
// when each generation's test holds its level α_g. This is α spending
// over an open-ended sequence of tests (Lan & DeMets 1983 spend over a
// fixed horizon; Foster & Stine 2008, "α-investing", and Ramdas et al.
// 2017, "online control of the false discovery rate with decaying
// memory", discuss such sequences). g = 1: 0.6079·α; g = 2: 0.1520·α;
// g = 10: 0.0061·α. It returns NaN for g < 1.
func BaselAlpha(alpha float64, g int) float64 {
	if g < 1 {
		return math.NaN()
	}
	return alpha * 6 / (math.Pi * math.Pi * float64(g) * float64(g))
}

// Spending names a Lan-DeMets α-spending function (Lan & DeMets 1983,
// "Discrete sequential boundaries for clinical trials", Biometrika 70),
// the α*(t) spent by information fraction t ∈ [0, 1], with α*(0) = 0 and
// α*(1) = α (one-sided).
type Spending int

const (
	// OBrienFleming is the O'Brien-Fleming type (O'Brien & Fleming 1979):
	// α*(t) = 2 − 2Φ(z_{1−α/2}/√t), gsDesign's sfLDOF. It spends almost
	// nothing early: stopping at a first look needs overwhelming evidence,
	// and the final look's boundary is close to the fixed-sample one.
	OBrienFleming Spending = iota
	// Pocock is the Pocock type (Pocock 1977): α*(t) = α·ln(1 + (e−1)t),
	// gsDesign's sfLDPocock. Nearly equal boundaries at every look: more
	// early stops, a higher final boundary.
	Pocock
)

// String is the config name: "obrien-fleming" or "pocock".
func (s Spending) String() string {
	if s == Pocock {
		return "pocock"
	}
	return "obrien-fleming"
}

// ParseSpending parses a config name, "obrien-fleming" or "pocock". The
// error names the bad value and the allowed ones.
func ParseSpending(name string) (Spending, error) {
	switch name {
	case "obrien-fleming":
		return OBrienFleming, nil
	case "pocock":
		return Pocock, nil
	}
	return 0, fmt.Errorf("unknown spending function %q (allowed: obrien-fleming, pocock)", name)
}

// Spent returns α*(t), the cumulative one-sided α spent by information
// fraction t (clamped to [0, 1]) under total level alpha.
func (s Spending) Spent(alpha, t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t >= 1:
		return alpha
	}
	if s == Pocock {
		return alpha * math.Log(1+(math.E-1)*t)
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	return 2 * distuv.UnitNormal.Survival(z/math.Sqrt(t))
}

// ErrDesign is returned (wrapped) for a group-sequential design that
// cannot be computed: no looks, information fractions not increasing in
// (0, 1] or not ending at 1, or α outside (0, 0.5].
var ErrDesign = errors.New("invalid group-sequential design")

// SequentialBounds returns the one-sided efficacy boundaries b_1..b_K of
// a group-sequential test of level alpha with looks at information
// fractions t (increasing, in (0, 1], the last 1), under the spending
// function s: the standardised statistic Z_k at look k rejects H0 when
// Z_k >= b_k, and
//
//	P_H0(Z_1 < b_1, …, Z_{k−1} < b_{k−1}, Z_k >= b_k) = α*(t_k) − α*(t_{k−1}),
//
// with (Z_1, …, Z_K) multivariate normal, Corr(Z_i, Z_j) = √(t_i/t_j) for
// i <= j (the canonical joint distribution of Jennison & Turnbull 2000,
// §3.1, which a rank statistic on cumulative data has asymptotically).
// The boundaries are non-binding for futility: a futility stop only
// lowers the rejection rate. A look whose increment of α is 0 gets +Inf.
//
// The crossing probabilities are computed by numerical integration of
// the score process's sub-density (Armitage, McPherson & Rowe 1969;
// Jennison & Turnbull 2000, ch. 19) on a grid of Simpson's rule, and each
// b_k by bisection to 1e-9; the boundaries agree with scipy's
// multivariate normal CDF (Genz's algorithm) to 1e-4, see
// testdata/sequential/ and stats/testdata/sequential/bounds.py.
func SequentialBounds(alpha float64, t []float64, s Spending) ([]float64, error) {
	if err := checkDesign(alpha, t); err != nil {
		return nil, err
	}
	b := make([]float64, len(t))
	var g *subDensity
	prev := 0.0
	for k := range t {
		inc := s.Spent(alpha, t[k]) - prev
		prev += inc
		if inc <= 1e-15 {
			b[k] = math.Inf(1)
		} else {
			cross := func(z float64) float64 { return g.crossing(t[k], z) }
			b[k] = solveDecreasing(cross, inc)
		}
		g = g.next(t[k], b[k])
	}
	return b, nil
}

// CrossingProbabilities returns, for boundaries b at information
// fractions t and a drift θ (the mean of Z_k is θ√t_k; 0 under H0), the
// probability of first crossing b_k at look k, for each k. Their sum is
// the test's size (θ = 0) or power (θ > 0); θ for a fixed-sample power
// of 1−β at level α is z_{1−α} + z_{1−β}.
func CrossingProbabilities(b, t []float64, theta float64) ([]float64, error) {
	if err := checkDesign(0.05, t); err != nil {
		return nil, err
	}
	if len(b) != len(t) {
		return nil, fmt.Errorf("%w: %d boundaries for %d looks", ErrDesign, len(b), len(t))
	}
	out := make([]float64, len(t))
	var g *subDensity
	for k := range t {
		g = g.withDrift(theta)
		out[k] = g.crossing(t[k], b[k])
		g = g.next(t[k], b[k])
	}
	return out, nil
}

func checkDesign(alpha float64, t []float64) error {
	if len(t) == 0 {
		return fmt.Errorf("%w: no looks", ErrDesign)
	}
	if !(alpha > 0 && alpha <= 0.5) {
		return fmt.Errorf("%w: alpha %v is out of range (0, 0.5]", ErrDesign, alpha)
	}
	for k, x := range t {
		if !(x > 0 && x <= 1) || (k > 0 && x <= t[k-1]) {
			return fmt.Errorf("%w: information fractions %v are not increasing in (0, 1]", ErrDesign, t)
		}
	}
	if t[len(t)-1] != 1 {
		return fmt.Errorf("%w: the last information fraction is %v, not 1", ErrDesign, t[len(t)-1])
	}
	return nil
}

// solveDecreasing returns z with f(z) = target for f decreasing from
// about 1 to 0 (a crossing probability), by bisection to 1e-9.
func solveDecreasing(f func(float64) float64, target float64) float64 {
	lo, hi := -10.0, 12.0
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if f(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// subDensity is the sub-density of the score statistic S = Z√t at the
// last look, restricted to the paths that have not crossed: values f on
// the grid s (uniform, odd length, for Simpson's rule) at information t,
// with drift θ (S_t ~ N(θt, t) without boundaries). nil is the start
// (t = 0, S = 0 with probability 1).
type subDensity struct {
	t, theta float64
	s, f     []float64
}

// gridPoints is the grid size of the numerical integration (odd).
const gridPoints = 401

func (g *subDensity) withDrift(theta float64) *subDensity {
	if g == nil {
		return &subDensity{theta: theta}
	}
	g.theta = theta
	return g
}

// crossing returns the probability that the path, not crossed so far,
// has Z >= z at information t (> g.t).
func (g *subDensity) crossing(t, z float64) float64 {
	theta := 0.0
	if g != nil {
		theta = g.theta
	}
	c := z * math.Sqrt(t)
	if g == nil || g.s == nil {
		return distuv.UnitNormal.Survival((c - theta*t) / math.Sqrt(t))
	}
	d := t - g.t
	sd := math.Sqrt(d)
	h := g.s[1] - g.s[0]
	sum := 0.0
	for i, u := range g.s {
		w := simpsonWeight(i, len(g.s))
		sum += w * g.f[i] * distuv.UnitNormal.Survival((c-u-theta*d)/sd)
	}
	return sum * h / 3
}

// next is the sub-density at information t of the paths that did not
// cross boundary z there.
func (g *subDensity) next(t, z float64) *subDensity {
	theta := 0.0
	if g != nil {
		theta = g.theta
	}
	up := z * math.Sqrt(t)
	lo := theta*t - 10*math.Sqrt(t)
	if math.IsInf(up, 1) || up > theta*t+10*math.Sqrt(t) {
		up = theta*t + 10*math.Sqrt(t)
	}
	n := &subDensity{t: t, theta: theta, s: make([]float64, gridPoints), f: make([]float64, gridPoints)}
	if up <= lo {
		for i := range n.s {
			n.s[i] = lo + float64(i)
		}
		return n // nothing continues
	}
	h := (up - lo) / float64(gridPoints-1)
	for i := range n.s {
		n.s[i] = lo + float64(i)*h
	}
	if g == nil || g.s == nil {
		sd := math.Sqrt(t)
		for i, s := range n.s {
			n.f[i] = normPDF((s-theta*t)/sd) / sd
		}
		return n
	}
	d := t - g.t
	sd := math.Sqrt(d)
	gh := g.s[1] - g.s[0]
	for i, s := range n.s {
		sum := 0.0
		for j, u := range g.s {
			sum += simpsonWeight(j, len(g.s)) * g.f[j] * normPDF((s-u-theta*d)/sd)
		}
		n.f[i] = sum * gh / 3 / sd
	}
	return n
}

func simpsonWeight(i, n int) float64 {
	switch {
	case i == 0 || i == n-1:
		return 1
	case i%2 == 1:
		return 4
	}
	return 2
}

func normPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
