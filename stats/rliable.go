package stats

import (
	"fmt"
	"math"
	"slices"
)

// The functions in this file follow rliable (Agarwal, Schwarzer, Castro,
// Courville and Bellemare, "Deep Reinforcement Learning at the Edge of the
// Statistical Precipice", NeurIPS 2021; github.com/google-research/rliable,
// rliable/metrics.py and rliable/library.py). A scores matrix has rliable's
// shape scores[run][task]: one row per run (seed), one column per task,
// every row the same length. Scores are usually normalized (0 = random,
// 1 = target) but any unit works.

// checkScores validates a scores matrix and returns its numbers of runs and
// tasks. Errors: ErrSampleSize (no runs or no tasks), ErrShape (ragged),
// ErrNaN.
func checkScores(name string, s [][]float64) (runs, tasks int, err error) {
	if len(s) == 0 || len(s[0]) == 0 {
		return 0, 0, fmt.Errorf("%w: %s has %d runs and no tasks", ErrSampleSize, name, len(s))
	}
	tasks = len(s[0])
	for i, row := range s {
		if len(row) != tasks {
			return 0, 0, fmt.Errorf("%w: %s row %d has %d tasks, row 0 has %d", ErrShape, name, i, len(row), tasks)
		}
		if hasNaN(row) {
			return 0, 0, fmt.Errorf("%w: %s row %d", ErrNaN, name, i)
		}
	}
	return len(s), tasks, nil
}

// mustRect panics if s is ragged (a broken contract of the aggregates) and
// reports whether it is empty.
func mustRect(fn string, s [][]float64) (empty bool) {
	if len(s) == 0 || len(s[0]) == 0 {
		return true
	}
	for i, row := range s {
		if len(row) != len(s[0]) {
			panic(fmt.Sprintf("stats: %s: ragged scores matrix: row %d has %d tasks, row 0 has %d", fn, i, len(row), len(s[0])))
		}
	}
	return false
}

// taskMeans returns the mean over runs of each task (column).
func taskMeans(s [][]float64) []float64 {
	m := make([]float64, len(s[0]))
	for _, row := range s {
		for j, v := range row {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(len(s))
	}
	return m
}

// AggregateIQM returns the interquartile mean of all runs × tasks scores
// pooled: scipy.stats.trim_mean(scores, 0.25, axis=None), as rliable's
// metrics.aggregate_iqm. NaN for an empty matrix; panics if scores is
// ragged. Usable as a BootstrapCI statistic.
func AggregateIQM(scores [][]float64) float64 {
	if mustRect("AggregateIQM", scores) {
		return math.NaN()
	}
	flat := make([]float64, 0, len(scores)*len(scores[0]))
	for _, row := range scores {
		flat = append(flat, row...)
	}
	slices.Sort(flat)
	return trimMeanSorted(flat, 0.25)
}

// AggregateMean returns the mean over tasks of the per-task mean over runs,
// as rliable's metrics.aggregate_mean. NaN for an empty matrix; panics if
// scores is ragged.
func AggregateMean(scores [][]float64) float64 {
	if mustRect("AggregateMean", scores) {
		return math.NaN()
	}
	m := taskMeans(scores)
	sum := 0.0
	for _, v := range m {
		sum += v
	}
	return sum / float64(len(m))
}

// AggregateMedian returns the median over tasks of the per-task mean over
// runs, as rliable's metrics.aggregate_median. NaN for an empty matrix;
// panics if scores is ragged.
func AggregateMedian(scores [][]float64) float64 {
	if mustRect("AggregateMedian", scores) {
		return math.NaN()
	}
	m := taskMeans(scores)
	slices.Sort(m)
	return median(m)
}

// OptimalityGap returns gamma − mean(min(score, gamma)) over all runs ×
// tasks scores: how far the scores fall short of the target gamma (1 for
// normalized scores), lower is better; as rliable's
// metrics.aggregate_optimality_gap. NaN for an empty matrix; panics if
// scores is ragged.
func OptimalityGap(scores [][]float64, gamma float64) float64 {
	if mustRect("OptimalityGap", scores) {
		return math.NaN()
	}
	sum, n := 0.0, 0
	for _, row := range scores {
		for _, v := range row {
			sum += min(v, gamma)
			n++
		}
	}
	return gamma - sum/float64(n)
}

// ProbabilityOfImprovement returns P(X > Y) averaged over tasks, as
// rliable's metrics.probability_of_improvement: for each task the
// Mann-Whitney estimate U/(n_x·n_y) = P(X > Y) + 0.5·P(X = Y) of a random
// run of x beating a random run of y (A12), then the mean over tasks. x and
// y are runs × tasks with the same number of tasks (their numbers of runs
// may differ). In [0, 1]; 0.5 means no improvement.
//
// Errors: ErrSampleSize (no runs or tasks), ErrShape (ragged, or different
// numbers of tasks), ErrNaN.
func ProbabilityOfImprovement(x, y [][]float64) (float64, error) {
	rx, tx, err := checkScores("x", x)
	if err != nil {
		return math.NaN(), err
	}
	ry, ty, err := checkScores("y", y)
	if err != nil {
		return math.NaN(), err
	}
	if tx != ty {
		return math.NaN(), fmt.Errorf("%w: x has %d tasks, y has %d", ErrShape, tx, ty)
	}
	cx, cy := make([]float64, rx), make([]float64, ry)
	sum := 0.0
	for j := range tx {
		for i := range x {
			cx[i] = x[i][j]
		}
		for i := range y {
			cy[i] = y[i][j]
		}
		p := pooledRanks(cx, cy, false)
		sum += float64(p.u2) / 2 / (float64(rx) * float64(ry))
	}
	return sum / float64(tx), nil
}

// RunScoreProfile returns the run-score performance profile at each tau:
// the fraction of all runs × tasks scores strictly greater than tau, as
// rliable's run_score_deviation (np.mean(scores > tau)). The result is
// aligned with taus; each value in [0, 1], non-increasing in tau.
//
// Errors: ErrSampleSize, ErrShape, ErrNaN (scores or taus).
func RunScoreProfile(scores [][]float64, taus []float64) ([]float64, error) {
	runs, tasks, err := checkScores("scores", scores)
	if err != nil {
		return nil, err
	}
	if hasNaN(taus) {
		return nil, fmt.Errorf("%w: taus", ErrNaN)
	}
	out := make([]float64, len(taus))
	for k, tau := range taus {
		c := 0
		for _, row := range scores {
			for _, v := range row {
				if v > tau {
					c++
				}
			}
		}
		out[k] = float64(c) / float64(runs*tasks)
	}
	return out, nil
}

// AverageScoreProfile returns the average-score performance profile at each
// tau: the fraction of tasks whose mean score over runs is strictly greater
// than tau, as rliable's mean_score_deviation. The result is aligned with
// taus; each value in [0, 1], non-increasing in tau.
//
// Errors: ErrSampleSize, ErrShape, ErrNaN (scores or taus).
func AverageScoreProfile(scores [][]float64, taus []float64) ([]float64, error) {
	_, tasks, err := checkScores("scores", scores)
	if err != nil {
		return nil, err
	}
	if hasNaN(taus) {
		return nil, fmt.Errorf("%w: taus", ErrNaN)
	}
	m := taskMeans(scores)
	out := make([]float64, len(taus))
	for k, tau := range taus {
		c := 0
		for _, v := range m {
			if v > tau {
				c++
			}
		}
		out[k] = float64(c) / float64(tasks)
	}
	return out, nil
}

// ProbabilityOfImprovementCI returns ProbabilityOfImprovement(x, y) with
// its stratified bootstrap percentile interval, as rliable's
// get_interval_estimates does for a pair of algorithms
// (library.StratifiedIndependentBootstrap; Agarwal et al., NeurIPS 2021,
// section 5 and appendix A.4): each resample draws x's and y's runs
// independently, each task's column with replacement from that task's
// runs of the same algorithm (the tasks are the strata), and the limits
// are percentiles of the probability of improvement over cfg.Reps
// resamples. Draws are made rep by rep: x task by task and run by run,
// then y the same way, from cfg.Rand, so a seed reproduces the interval.
//
// Errors: those of ProbabilityOfImprovement and ErrOption (Reps < 0,
// ConfLevel outside (0, 1)). Panics if cfg.Rand is nil.
func ProbabilityOfImprovementCI(x, y [][]float64, cfg BootstrapConfig) (Interval, error) {
	reps, conf, err := cfg.resolve("ProbabilityOfImprovementCI")
	if err != nil {
		return Interval{}, err
	}
	point, err := ProbabilityOfImprovement(x, y)
	if err != nil {
		return Interval{}, err
	}
	out := Interval{ConfLevel: conf, Reps: reps, Point: point}
	rx, ry := resampleBuffer(x), resampleBuffer(y)
	vals := make([]float64, reps)
	for r := range vals {
		stratifiedResample(rx, x, cfg.Rand)
		stratifiedResample(ry, y, cfg.Rand)
		vals[r], _ = ProbabilityOfImprovement(rx, ry)
	}
	out.Low, out.High = percentiles(vals, conf)
	return out, nil
}

// resampleBuffer returns a runs × tasks matrix shaped like s.
func resampleBuffer(s [][]float64) [][]float64 {
	runs, tasks := len(s), len(s[0])
	flat := make([]float64, runs*tasks)
	res := make([][]float64, runs)
	for i := range res {
		res[i] = flat[i*tasks : (i+1)*tasks : (i+1)*tasks]
	}
	return res
}

// stratifiedResample fills res with one stratified resample of s: task by
// task, run by run, a run of the same task drawn uniformly from rnd (the
// order BootstrapCI draws in).
func stratifiedResample(res, s [][]float64, rnd interface{ IntN(int) int }) {
	runs := len(s)
	for j := range s[0] {
		for i := range runs {
			res[i][j] = s[rnd.IntN(runs)][j]
		}
	}
}

// RunScoreProfileCI returns the run-score performance profile at each tau
// (RunScoreProfile) with pointwise stratified bootstrap percentile
// intervals, as rliable's create_performance_profile (Agarwal et al.
// 2021, section 4.2: "performance profiles ... with pointwise
// confidence bands"): every resample is one stratified resample of
// scores (as BootstrapCI draws them), and the limits at each tau are
// percentiles of the resampled profile at that tau. The result is
// aligned with taus.
//
// Errors: those of RunScoreProfile and ErrOption. Panics if cfg.Rand is
// nil.
func RunScoreProfileCI(scores [][]float64, taus []float64, cfg BootstrapConfig) ([]Interval, error) {
	reps, conf, err := cfg.resolve("RunScoreProfileCI")
	if err != nil {
		return nil, err
	}
	point, err := RunScoreProfile(scores, taus)
	if err != nil {
		return nil, err
	}
	res := resampleBuffer(scores)
	vals := make([][]float64, len(taus))
	for k := range vals {
		vals[k] = make([]float64, reps)
	}
	for r := range reps {
		stratifiedResample(res, scores, cfg.Rand)
		p, _ := RunScoreProfile(res, taus)
		for k, v := range p {
			vals[k][r] = v
		}
	}
	out := make([]Interval, len(taus))
	for k := range taus {
		out[k] = Interval{Point: point[k], ConfLevel: conf, Reps: reps}
		out[k].Low, out[k].High = percentiles(vals[k], conf)
	}
	return out, nil
}
