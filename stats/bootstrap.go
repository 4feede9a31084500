package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultBootstrapReps is the number of bootstrap resamples when
// BootstrapConfig.Reps is 0. (rliable's get_interval_estimates defaults to
// 50000; 2000 gives percentile limits within about one atom of the ideal
// bootstrap on typical run counts at a fraction of the cost.)
const DefaultBootstrapReps = 2000

// BootstrapConfig configures BootstrapCI.
type BootstrapConfig struct {
	// Reps is the number of bootstrap resamples, >= 1; 0 means
	// DefaultBootstrapReps.
	Reps int
	// ConfLevel of the percentile interval, in (0, 1); 0 means 0.95.
	ConfLevel float64
	// Rand is the random source; required (nil panics). Seed it (e.g.
	// rand.New(rand.NewPCG(seed, 0))) and record the seed: the same seed,
	// scores and stat give the same interval.
	Rand *rand.Rand
}

// Interval is a bootstrap confidence interval of a statistic.
type Interval struct {
	// Point is the statistic on the original scores.
	Point float64
	// Low, High are the percentile limits: the (1−ConfLevel)/2 and
	// (1+ConfLevel)/2 quantiles of the bootstrap distribution (numpy's
	// default linear interpolation).
	Low, High float64
	// ConfLevel of the interval.
	ConfLevel float64
	// Reps is the number of resamples used.
	Reps int
}

// BootstrapCI returns the stratified-bootstrap percentile confidence
// interval of stat(scores), as rliable's StratifiedBootstrap with
// task_bootstrap = False (Efron and Tibshirani 1993; Agarwal et al. 2021):
// scores is runs × tasks; each resample draws, independently for every
// task, len(scores) runs with replacement from that task's column (the
// tasks are the strata), and the limits are percentiles of stat over Reps
// resamples. Draws are made rep by rep, task by task, run by run from
// cfg.Rand, so a seed reproduces the interval exactly; no global random
// source is used.
//
// stat receives a runs × tasks matrix (for example AggregateIQM,
// AggregateMean, AggregateMedian, or a closure over OptimalityGap); the
// matrix is reused between calls, so stat must not retain or modify it.
// Cost: Reps·(runs·tasks + cost of stat).
//
// Errors: ErrSampleSize (no runs or tasks), ErrShape (ragged), ErrNaN (NaN
// in scores, or stat returned NaN), ErrOption (Reps < 0, ConfLevel outside
// (0, 1)). Panics if stat or cfg.Rand is nil.
func BootstrapCI(scores [][]float64, stat func([][]float64) float64, cfg BootstrapConfig) (Interval, error) {
	if stat == nil {
		panic("stats: BootstrapCI: nil stat")
	}
	reps, conf, err := cfg.resolve("BootstrapCI")
	if err != nil {
		return Interval{}, err
	}
	runs, tasks, err := checkScores("scores", scores)
	if err != nil {
		return Interval{}, err
	}
	out := Interval{ConfLevel: conf, Reps: reps, Point: stat(scores)}

	flat := make([]float64, runs*tasks)
	res := make([][]float64, runs)
	for i := range res {
		res[i] = flat[i*tasks : (i+1)*tasks : (i+1)*tasks]
	}
	vals := make([]float64, reps)
	for r := range vals {
		for j := range tasks {
			for i := range runs {
				res[i][j] = scores[cfg.Rand.IntN(runs)][j]
			}
		}
		v := stat(res)
		if math.IsNaN(v) {
			return Interval{}, fmt.Errorf("%w: stat returned NaN on bootstrap resample %d", ErrNaN, r)
		}
		vals[r] = v
	}
	out.Low, out.High = percentiles(vals, conf)
	return out, nil
}

// resolve checks cfg for fn and returns its number of resamples and
// confidence level, defaults applied.
func (cfg BootstrapConfig) resolve(fn string) (reps int, conf float64, err error) {
	if cfg.Rand == nil {
		panic("stats: " + fn + ": nil BootstrapConfig.Rand (pass a seeded *rand.Rand)")
	}
	reps = cfg.Reps
	if reps == 0 {
		reps = DefaultBootstrapReps
	}
	if reps < 0 {
		return 0, 0, fmt.Errorf("%w: bootstrap reps %d < 1", ErrOption, cfg.Reps)
	}
	conf = cfg.ConfLevel
	if conf == 0 {
		conf = 0.95
	}
	if !(conf > 0 && conf < 1) {
		return 0, 0, fmt.Errorf("%w: confidence level %v not in (0, 1)", ErrOption, cfg.ConfLevel)
	}
	return reps, conf, nil
}

// percentiles sorts vals and returns its (1−conf)/2 and (1+conf)/2
// quantiles.
func percentiles(vals []float64, conf float64) (lo, hi float64) {
	slices.Sort(vals)
	return quantileLinear(vals, (1-conf)/2), quantileLinear(vals, (1+conf)/2)
}

// BootstrapIQM returns the bootstrap percentile confidence interval of the
// IQM of one sample x (runs of a single task): the same Interval, bit for
// bit, as BootstrapCI(scores, AggregateIQM, cfg) with scores the column
// x[i] (len(x) runs × 1 task) and the same cfg.Rand state, at O(Reps·n)
// cost instead of O(Reps·n·log n).
//
// Algorithm: x is sorted once; each resample draws len(x) indices from
// cfg.Rand in BootstrapCI's order and only counts how often each sorted
// position was drawn. The sorted resample is the sorted x with those
// multiplicities (tied values are equal, so their order does not
// matter), so the trimmed sum walks the counts and adds the same values
// in the same order as sorting the resample would.
//
// Errors: ErrSampleSize (empty x), ErrNaN (NaN in x), ErrOption (Reps < 0,
// ConfLevel outside (0, 1)). Panics if cfg.Rand is nil.
func BootstrapIQM(x []float64, cfg BootstrapConfig) (Interval, error) {
	reps, conf, err := cfg.resolve("BootstrapIQM")
	if err != nil {
		return Interval{}, err
	}
	point, vals, err := iqmReplicates(x, reps, cfg)
	if err != nil {
		return Interval{}, err
	}
	out := Interval{ConfLevel: conf, Reps: reps, Point: point}
	out.Low, out.High = percentiles(vals, conf)
	return out, nil
}

// iqmReplicates returns the IQM of x and reps bootstrap replicates of it,
// drawn as BootstrapIQM documents (the counting algorithm).
func iqmReplicates(x []float64, reps int, cfg BootstrapConfig) (float64, []float64, error) {
	n := len(x)
	if n == 0 {
		return 0, nil, fmt.Errorf("%w: scores has 0 runs and no tasks", ErrSampleSize)
	}
	if hasNaN(x) {
		return 0, nil, fmt.Errorf("%w: scores", ErrNaN)
	}
	// rank[i] is the position of x[i] in sorted: a stable argsort.
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if x[a] < x[b] {
			return -1
		}
		if x[a] > x[b] {
			return 1
		}
		return 0
	})
	rank := make([]int, n)
	for pos, i := range order {
		rank[i] = pos
	}
	cut := int(0.25 * float64(n))
	kept := n - 2*cut
	counts := make([]int, n)
	vals := make([]float64, reps)
	for r := range vals {
		clear(counts)
		for range n {
			counts[rank[cfg.Rand.IntN(n)]]++
		}
		// Sum sorted-resample positions cut .. n−cut−1.
		sum, pos := 0.0, 0
		for k, c := range counts {
			if c == 0 {
				continue
			}
			lo, hi := max(pos, cut), min(pos+c, n-cut)
			for range hi - lo {
				sum += sorted[k]
			}
			pos += c
			if pos >= n-cut {
				break
			}
		}
		vals[r] = sum / float64(kept)
	}
	return trimMeanSorted(sorted, 0.25), vals, nil
}

// quantileLinear returns the q-quantile of sorted s with linear
// interpolation between order statistics (numpy.percentile's default,
// R's type 7).
func quantileLinear(s []float64, q float64) float64 {
	h := float64(len(s)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}
