package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// SummaryConfLevel is the confidence level of Summary's CI of the mean.
const SummaryConfLevel = 0.95

// Summary describes one sample. Units are those of the sample.
type Summary struct {
	// N is the number of observations.
	N int
	// Mean is the arithmetic mean; NaN if N = 0.
	Mean float64
	// Std is the sample standard deviation (denominator N − 1); NaN if
	// N < 2.
	Std float64
	// Median is the middle order statistic (mean of the two middle ones for
	// even N, as numpy.median); NaN if N = 0.
	Median float64
	// IQM is the interquartile mean, scipy.stats.trim_mean(x, 0.25) (see
	// IQM); NaN if N = 0.
	IQM float64
	// Min, Max are the extremes; NaN if N = 0.
	Min, Max float64
	// CILow, CIHigh bound the 95% Student-t confidence interval of the mean,
	// Mean ∓ t(0.975, N−1)·Std/√N; NaN if N < 2.
	CILow, CIHigh float64
}

// Summarize returns the Summary of x (not modified). NaNs propagate into
// Mean, Std and the CI (and make order statistics meaningless): filter them
// first. The t quantile is gonum's distuv.StudentsT.
func Summarize(x []float64) Summary {
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	return summarize(x, sorted)
}

// SummarizeSorted is Summarize(x) given also sorted, x sorted ascending
// (the same values): the same Summary, bit for bit, without the copy and
// the sort (the mean and standard deviation are still summed in x's
// order). It panics if len(sorted) != len(x) or sorted is not sorted
// ascending.
func SummarizeSorted(x, sorted []float64) Summary {
	if len(sorted) != len(x) {
		panic(fmt.Sprintf("stats: SummarizeSorted: %d sorted values for %d", len(sorted), len(x)))
	}
	mustBeSorted("SummarizeSorted", sorted)
	return summarize(x, sorted)
}

// summarize is Summarize with x's sorted copy.
func summarize(x, sorted []float64) Summary {
	nan := math.NaN()
	s := Summary{N: len(x), Mean: nan, Std: nan, Median: nan, IQM: nan, Min: nan, Max: nan, CILow: nan, CIHigh: nan}
	if len(x) == 0 {
		return s
	}
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.Median = median(sorted)
	s.IQM = trimMeanSorted(sorted, 0.25)
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	n := float64(len(x))
	s.Mean = sum / n
	if len(x) < 2 {
		return s
	}
	ss := 0.0
	for _, v := range x {
		d := v - s.Mean
		ss += d * d
	}
	s.Std = math.Sqrt(ss / (n - 1))
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-SummaryConfLevel)/2)
	half := tq * s.Std / math.Sqrt(n)
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// Median returns the median of x (not modified): the middle order
// statistic, or the mean of the two middle ones for even len(x) (numpy,
// R). NaN for an empty x.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return median(s)
}

// median of a sorted non-empty slice.
func median(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// TrimMean returns the trimmed mean of x (not modified) cutting
// int(proportion·len(x)) observations from each end, exactly as
// scipy.stats.trim_mean(x, proportion). proportion must be in [0, 0.5);
// NaN for an empty x or when nothing is left.
func TrimMean(x []float64, proportion float64) float64 {
	if len(x) == 0 || !(proportion >= 0 && proportion < 0.5) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return trimMeanSorted(s, proportion)
}

func trimMeanSorted(s []float64, proportion float64) float64 {
	cut := int(proportion * float64(len(s)))
	kept := s[cut : len(s)-cut]
	if len(kept) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, v := range kept {
		sum += v
	}
	return sum / float64(len(kept))
}

// IQM returns the interquartile mean of x: TrimMean(x, 0.25), i.e. the mean
// of the observations left after cutting int(0.25·n) from each end, as
// rliable (scipy.stats.trim_mean(x, 0.25)). For n = 10 it drops 2 + 2 and
// averages the middle 6. NaN for an empty x.
func IQM(x []float64) float64 { return TrimMean(x, 0.25) }
