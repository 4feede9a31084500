package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BCaInterval is a bias-corrected and accelerated bootstrap confidence
// interval (see BootstrapBCa).
type BCaInterval struct {
	// Interval holds Point (the statistic on x), the BCa limits Low and
	// High, ConfLevel and Reps.
	Interval
	// Z0 is the bias correction Φ⁻¹(share of replicates below Point, ties
	// counted one half); ±Inf when every replicate is on one side.
	Z0 float64
	// Accel is the acceleration â from the jackknife (Efron and
	// Tibshirani 1993, eq. 14.15); NaN when every jackknife value is equal.
	Accel float64
	// LowLevel, HighLevel are the adjusted percentile levels α1, α2 in
	// [0, 1] whose replicate quantiles are Low and High.
	LowLevel, HighLevel float64
	// Percentile reports that the BCa adjustment was undefined (Z0
	// infinite or Accel NaN: a degenerate bootstrap distribution) and the
	// plain percentile interval was returned instead, with a warning.
	Percentile bool
	// Warnings lists caveats: WarnFewForInterval with fewer than 10
	// observations (no bootstrap interval covers reliably there), and the
	// fallback above.
	Warnings []error
}

// BootstrapBCa returns the BCa (bias-corrected and accelerated) bootstrap
// confidence interval of stat(x) (Efron 1987, "Better bootstrap
// confidence intervals", JASA 82:171-185; Efron and Tibshirani, An
// Introduction to the Bootstrap, 1993, §14.3), computed as
// scipy.stats.bootstrap(method = "BCa") does from the same replicates:
//
//	θ̂*_b  = stat of resample b (cfg.Reps resamples of len(x) drawn with
//	        replacement, index by index, from cfg.Rand)
//	z0    = Φ⁻¹((#{θ̂* < θ̂} + #{θ̂* <= θ̂})/(2B))
//	â     = Σ U_i³ / (6 (Σ U_i²)^{3/2}),  U_i = (n − 1)(θ̄_(·) − θ̂_(i)),
//	        θ̂_(i) the jackknife value without x_i
//	α1,2  = Φ(z0 + (z0 + z_q)/(1 − â(z0 + z_q))),  q = (1 ∓ ConfLevel)/2
//
// and the limits are the α1 and α2 quantiles of the replicates (linear
// interpolation, numpy's default). BCa intervals are second-order
// accurate and transformation-respecting; they correct the
// under-coverage of percentile and t intervals for skewed scores (see the
// coverage table in docs/statistics.md). Below about 10 observations no
// bootstrap interval is reliable: a WarnFewForInterval warning says so.
//
// stat receives a slice it must not retain or modify (it is reused); it
// must not return NaN. Cost: Reps + len(x) calls of stat.
//
// Errors: ErrSampleSize when len(x) < 2; ErrNaN (NaN in x or from stat);
// ErrOption (Reps < 0, ConfLevel outside (0, 1)). Panics if stat or
// cfg.Rand is nil.
func BootstrapBCa(x []float64, stat func([]float64) float64, cfg BootstrapConfig) (BCaInterval, error) {
	reps, conf, err := cfg.resolve("BootstrapBCa")
	if err != nil {
		return BCaInterval{}, err
	}
	n := len(x)
	if n < 2 {
		return BCaInterval{}, fmt.Errorf("%w: BootstrapBCa needs >= 2 observations, got %d", ErrSampleSize, n)
	}
	if hasNaN(x) {
		return BCaInterval{}, fmt.Errorf("%w: BootstrapBCa", ErrNaN)
	}
	buf := make([]float64, n)
	thetaB := make([]float64, reps)
	for b := range thetaB {
		for i := range buf {
			buf[i] = x[cfg.Rand.IntN(n)]
		}
		thetaB[b] = stat(buf)
		if math.IsNaN(thetaB[b]) {
			return BCaInterval{}, fmt.Errorf("%w: BootstrapBCa: stat returned NaN", ErrNaN)
		}
	}
	point := stat(slices.Clone(x))
	if math.IsNaN(point) {
		return BCaInterval{}, fmt.Errorf("%w: BootstrapBCa: stat returned NaN", ErrNaN)
	}
	return bcaFromReplicates(x, stat, thetaB, conf, point), nil
}

// bcaFromReplicates computes the BCa interval of point = stat(x) from the
// bootstrap replicates thetaB (reordered).
func bcaFromReplicates(x []float64, stat func([]float64) float64, thetaB []float64, conf, point float64) BCaInterval {
	n := len(x)
	jack := make([]float64, n)
	sub := make([]float64, n-1)
	for i := range n {
		copy(sub, x[:i])
		copy(sub[i:], x[i+1:])
		jack[i] = stat(sub)
	}
	return bcaCore(n, jack, thetaB, conf, point)
}

// bcaCore computes the BCa interval from the jackknife values jack (in
// x's order) and the replicates thetaB (reordered).
func bcaCore(n int, jack, thetaB []float64, conf, point float64) BCaInterval {
	res := BCaInterval{Interval: Interval{Point: point, ConfLevel: conf, Reps: len(thetaB)}}
	if n < 10 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %d observations", WarnFewForInterval, n))
	}
	below, atOrBelow := 0, 0
	for _, v := range thetaB {
		if v < point {
			below++
		}
		if v <= point {
			atOrBelow++
		}
	}
	norm := distuv.UnitNormal
	res.Z0 = norm.Quantile(float64(below+atOrBelow) / float64(2*len(thetaB)))

	dot := 0.0
	for _, v := range jack {
		dot += v
	}
	dot /= float64(n)
	num, den := 0.0, 0.0
	fn := float64(n)
	for _, v := range jack {
		u := (fn - 1) * (dot - v)
		num += u * u * u
		den += u * u
	}
	// scipy's form: (Σu³/n³)/(Σu²/n²)^{3/2}/6, equal to Σu³/(6(Σu²)^{3/2}).
	res.Accel = (num / (fn * fn * fn)) / math.Pow(den/(fn*fn), 1.5) / 6

	slices.Sort(thetaB)
	za := norm.Quantile((1 - conf) / 2)
	if math.IsInf(res.Z0, 0) || math.IsNaN(res.Accel) {
		res.Percentile = true
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: degenerate bootstrap distribution: BCa undefined, percentile interval used", WarnAllTied))
		res.LowLevel, res.HighLevel = (1-conf)/2, (1+conf)/2
	} else {
		adj := func(z float64) float64 {
			s := res.Z0 + z
			return norm.CDF(res.Z0 + s/(1-res.Accel*s))
		}
		res.LowLevel, res.HighLevel = adj(za), adj(-za)
	}
	res.Low, res.High = quantileLinear(thetaB, res.LowLevel), quantileLinear(thetaB, res.HighLevel)
	return res
}

// BootstrapBCaIQM is BootstrapBCa(x, IQMOf, cfg), the same interval bit
// for bit from the same cfg.Rand state, at O(Reps·n + n²) cost instead of
// O(Reps·n·log n): the replicates come from BootstrapIQM's counting
// algorithm (the same draws), and the jackknife IQMs from the sorted x.
// Errors as BootstrapBCa.
func BootstrapBCaIQM(x []float64, cfg BootstrapConfig) (BCaInterval, error) {
	reps, conf, err := cfg.resolve("BootstrapBCaIQM")
	if err != nil {
		return BCaInterval{}, err
	}
	if len(x) < 2 {
		return BCaInterval{}, fmt.Errorf("%w: BootstrapBCaIQM needs >= 2 observations, got %d", ErrSampleSize, len(x))
	}
	point, thetaB, err := iqmReplicates(x, reps, cfg)
	if err != nil {
		return BCaInterval{}, err
	}
	// The jackknife IQM without x_i is the IQM of the sorted x without
	// one copy of x_i: summed in the same ascending order as IQMOf sorts
	// the subsample, so bit for bit the same, at O(n) each.
	n := len(x)
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	m := n - 1
	cut := int(0.25 * float64(m))
	bySorted := make([]float64, n)
	for k := range n {
		sum, pos := 0.0, 0
		for j, v := range sorted {
			if j == k {
				continue
			}
			if pos >= cut && pos < m-cut {
				sum += v
			}
			pos++
		}
		bySorted[k] = sum / float64(m-2*cut)
	}
	jack := make([]float64, n)
	for i, v := range x {
		k, _ := slices.BinarySearch(sorted, v) // any copy of v: same subsample
		jack[i] = bySorted[k]
	}
	return bcaCore(n, jack, thetaB, conf, point), nil
}

// IQMOf is the interquartile mean of x as a stat for BootstrapBCa
// (scipy.stats.trim_mean(x, 0.25)); x is sorted in place.
func IQMOf(x []float64) float64 {
	slices.Sort(x)
	return trimMeanSorted(x, 0.25)
}

// MeanOf is the arithmetic mean of x as a stat for BootstrapBCa.
func MeanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
