package stats

import (
	"math"
	"slices"
)

// MaxExactCells bounds the size of an exact null distribution table: an exact
// computation that would need more float64 cells than this (128 MiB) falls
// back to the normal approximation with a WarnExactTooLarge warning. For the
// rank-sum test the table has about s·m²·n/2 cells, m the smaller and n the
// larger sample size and s = 2 with ties (half-integer U) or 1 without; for
// the signed-rank test about s·n(n+1)/2.
const MaxExactCells = 1 << 24

// lnRescale is the log of the mass bound above which the DP tables are
// rescaled to stay far from float64 overflow (e^709).
const lnRescale = 600

// binomWeights returns w[k] proportional to C(t, k), k = 0..t. For t <= 60
// the weights are the binomial coefficients themselves (so w[0] = 1);
// beyond, they are divided by C(t, t/2) so that the largest is 1.
func binomWeights(w []float64, t int) []float64 {
	w = slices.Grow(w[:0], t+1)[:t+1]
	if t <= 60 {
		c := 1.0
		for k := 0; k <= t; k++ {
			w[k] = c
			c = c * float64(t-k) / float64(k+1)
		}
		return w
	}
	lgt, _ := math.Lgamma(float64(t + 1))
	lmax := lnChoose(lgt, t, t/2)
	for k := 0; k <= t; k++ {
		w[k] = math.Exp(lnChoose(lgt, t, k) - lmax)
	}
	return w
}

// lnChoose returns log C(t, k) given lgt = log t!.
func lnChoose(lgt float64, t, k int) float64 {
	a, _ := math.Lgamma(float64(k + 1))
	b, _ := math.Lgamma(float64(t - k + 1))
	return lgt - a - b
}

// rankSumCells returns the number of cells rankSumDist needs for a tracked
// sample of size m against n others with U scale s.
func rankSumCells(m, n, s int) float64 {
	fm, fn := float64(m), float64(n)
	return (fm + 1) + float64(s)*fn*fm*(fm+1)/2
}

// rankSumDist returns the exact permutation null distribution of s·U, where U
// is the Mann-Whitney statistic of a tracked sample of size m against a
// sample of size n, given the tie pattern: groups lists the sizes of the
// groups of tied observations of the pooled sample in increasing order of
// value (sum(groups) = m+n). Element u of the result is proportional to
// P(s·U = u), u = 0..s·m·n; s must be 2 if any group has size > 1 (U is then
// a multiple of 1/2), else 1 or 2.
//
// Algorithm: dynamic programming over the tie groups in increasing order
// (the counting form of the "shift algorithm" of Streitberg and Röhmel,
// 1986, as in coin::wilcox_test). The state is (i, s·U) after the groups
// seen so far, i the number of tracked observations among them; a group of
// size t taking k tracked observations has C(t, k) arrangements and adds
// k·(#others below) + k(t−k)/2 to U (midranks). With pos observations seen,
// U <= i·(pos−i), which bounds the table per state. The table is updated in
// place (i descending) and rescaled when its mass nears float64 overflow;
// only ratios of sums are ever used.
func rankSumDist(groups []int, m, n, s int) []float64 {
	off := make([]int, m+2)
	for i := 0; i <= m; i++ {
		off[i+1] = off[i] + s*i*n + 1
	}
	buf := make([]float64, off[m+1])
	buf[0] = 1
	pos := 0
	lnMass := 0.0
	var w []float64
	for _, t := range groups {
		w = binomWeights(w, t)
		sumW := 0.0
		for _, v := range w {
			sumW += v
		}
		if lnMass+math.Log(sumW) > lnRescale {
			rescale(buf)
			lnMass = math.Log(float64(len(buf)))
		}
		lnMass += math.Log(sumW)
		iLo, iHi := max(0, pos-n), min(m, pos)
		for i := iHi; i >= iLo; i-- {
			yb := pos - i // others below this group
			umax := s * i * yb
			src := buf[off[i] : off[i]+umax+1]
			for k := 1; k <= t && i+k <= m; k++ {
				if yb+t-k > n {
					continue
				}
				inc := s*k*yb + s*k*(t-k)/2
				dst := buf[off[i+k]+inc : off[i+k]+inc+umax+1]
				axpy(dst, src, w[k])
			}
			switch {
			case yb+t > n: // all t cannot be others: state i dies
				clear(src)
			case w[0] != 1:
				for j := range src {
					src[j] *= w[0]
				}
			}
		}
		pos += t
	}
	return buf[off[m]:off[m+1]]
}

// signedRankCells returns the number of cells signedRankDist needs.
func signedRankCells(ws, ts []int) float64 {
	c := 1.0
	for g := range ws {
		c += float64(ws[g]) * float64(ts[g])
	}
	return c
}

// signedRankDist returns the exact permutation null distribution of the
// scaled positive-rank sum given the tie pattern: group g holds ts[g]
// differences of equal |d| with scaled (integer) midrank ws[g]; under the
// null hypothesis each sign is + or − with probability 1/2 independently, so
// the number of positives in group g is Binomial(ts[g], 1/2). Element v of
// the result is proportional to P(scaled T+ = v), v = 0..sum(ws·ts).
//
// Algorithm: dynamic programming (convolution) over the tie groups, updated
// in place with v descending, rescaled near float64 overflow.
func signedRankDist(ws, ts []int) []float64 {
	total := 0
	for g := range ws {
		total += ws[g] * ts[g]
	}
	dist := make([]float64, total+1)
	dist[0] = 1
	top := 0
	lnMass := 0.0
	var w []float64
	for g := range ws {
		wg, t := ws[g], ts[g]
		w = binomWeights(w, t)
		sumW := 0.0
		for _, v := range w {
			sumW += v
		}
		if lnMass+math.Log(sumW) > lnRescale {
			rescale(dist[:top+1])
			lnMass = math.Log(float64(top + 1))
		}
		lnMass += math.Log(sumW)
		newTop := top + wg*t
		if t == 1 {
			// dist[v] += dist[v-wg], v descending.
			for v := newTop; v >= wg; v-- {
				dist[v] += dist[v-wg]
			}
		} else {
			for v := newTop; v >= 0; v-- {
				acc := 0.0
				for k := 0; k <= t; k++ {
					j := v - k*wg
					if j < 0 {
						break
					}
					if j <= top {
						acc += w[k] * dist[j]
					}
				}
				dist[v] = acc
			}
		}
		top = newTop
	}
	return dist
}

// axpy adds a·src to dst element-wise; len(dst) >= len(src).
func axpy(dst, src []float64, a float64) {
	dst = dst[:len(src)]
	j := 0
	for ; j+4 <= len(src); j += 4 {
		s, d := src[j:j+4:j+4], dst[j:j+4:j+4]
		d[0] += a * s[0]
		d[1] += a * s[1]
		d[2] += a * s[2]
		d[3] += a * s[3]
	}
	for ; j < len(src); j++ {
		dst[j] += a * src[j]
	}
}

// rescale divides x by its maximum (if positive).
func rescale(x []float64) {
	mx := 0.0
	for _, v := range x {
		mx = max(mx, v)
	}
	if mx <= 0 {
		return
	}
	inv := 1 / mx
	for j := range x {
		x[j] *= inv
	}
}

// tails holds the tail probabilities of an observed statistic under an exact
// null distribution.
type tails struct {
	le, ge, abs float64 // P(S <= s), P(S >= s), P(|S−center| >= |s−center|)
}

// exactTails computes tail probabilities of the scaled observation obs under
// dist (element v proportional to P(S = v)). center2 is twice the scaled
// null mean, so that |v − mean| is compared as |2v − center2| in integers.
// Each tail is a direct sum of positive terms divided by the total (no
// 1 − x cancellation) and is clamped to [0, 1].
func exactTails(dist []float64, obs, center2 int) tails {
	var total, le, ge, abs float64
	dev := absInt(2*obs - center2)
	for v, c := range dist {
		if c == 0 {
			continue
		}
		total += c
		if v <= obs {
			le += c
		}
		if v >= obs {
			ge += c
		}
		if absInt(2*v-center2) >= dev {
			abs += c
		}
	}
	return tails{le: clamp01(le / total), ge: clamp01(ge / total), abs: clamp01(abs / total)}
}

func absInt(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// clamp01 clamps p to [0, 1]; NaN stays NaN.
func clamp01(p float64) float64 {
	if p < 0 {
		return 0
	}
	if p > 1 {
		return 1
	}
	return p
}

// exactP forms the p-value for the alternative from exact tails.
func exactP(t tails, alt Alternative, rule TwoSidedRule) float64 {
	switch alt {
	case Greater:
		return t.ge
	case Less:
		return t.le
	}
	if rule == AbsDeviation {
		return t.abs
	}
	return min(1, 2*min(t.le, t.ge))
}

// normalP returns the p-value of a standard-normal z for the alternative:
// upper tail (Greater), lower tail (Less) or 2·min(lower, upper) (TwoSided),
// with tails from 0.5·erfc(±z/√2), which keeps full relative precision far
// in the tails (unlike 1 − Φ).
func normalP(z float64, alt Alternative) float64 {
	upper := 0.5 * math.Erfc(z/math.Sqrt2)
	lower := 0.5 * math.Erfc(-z/math.Sqrt2)
	switch alt {
	case Greater:
		return clamp01(upper)
	case Less:
		return clamp01(lower)
	}
	return clamp01(2 * min(lower, upper))
}

// continuity returns the continuity correction for a statistic deviation
// dev = S − E S: +0.5 (Greater), −0.5 (Less), 0.5·sign(dev) (TwoSided), or 0
// when off.
func continuity(dev float64, alt Alternative, off bool) float64 {
	if off {
		return 0
	}
	switch alt {
	case Greater:
		return 0.5
	case Less:
		return -0.5
	}
	switch {
	case dev > 0:
		return 0.5
	case dev < 0:
		return -0.5
	}
	return 0
}
