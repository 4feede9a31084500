package stats

import (
	"errors"
	"math"
)

// Errors returned by this package. Returned errors wrap one of these
// sentinels (test with errors.Is) and add the offending input.
var (
	// ErrSampleSize: a sample is empty (or has no usable observations).
	ErrSampleSize = errors.New("stats: sample is empty")
	// ErrNaN: an input (or a paired difference) is NaN.
	ErrNaN = errors.New("stats: NaN in input")
	// ErrLength: paired samples have different lengths.
	ErrLength = errors.New("stats: paired samples differ in length")
	// ErrShape: a scores matrix is ragged, or two matrices have different
	// numbers of tasks.
	ErrShape = errors.New("stats: scores matrix has an inconsistent shape")
	// ErrProbability: a p-value is outside [0, 1].
	ErrProbability = errors.New("stats: probability outside [0, 1]")
	// ErrOption: an option value is out of range or a name is unknown.
	ErrOption = errors.New("stats: invalid option")
	// ErrNonFinite: an input is ±Inf where a finite value is required
	// (differences of observations, as in HodgesLehmann).
	ErrNonFinite = errors.New("stats: non-finite value in input")
)

// Warnings: statistical caveats reported in a result's Warnings field. Each
// warning is, or wraps, one of these sentinels.
var (
	// WarnTiesExact: the sample has ties, so the exact p-value is taken from
	// the permutation distribution conditional on the observed tie pattern
	// (midranks), not from the classic no-ties table.
	WarnTiesExact = errors.New("ties: exact conditional distribution used")
	// WarnTiesAsymptotic: the sample has ties; the normal approximation uses
	// the tie-corrected variance.
	WarnTiesAsymptotic = errors.New("ties: tie-corrected normal approximation used")
	// WarnExactTooLarge: Exact was requested but the exact distribution
	// would need more than MaxExactCells cells; the normal approximation
	// was used instead.
	WarnExactTooLarge = errors.New("exact distribution too large: normal approximation used")
	// WarnAllTied: every observation (or every difference) is tied, so the
	// statistic has a single possible value and p = 1.
	WarnAllTied = errors.New("all observations tied: p = 1")
	// WarnZeros: zero paired differences were present (the warning says how
	// many and how they were handled).
	WarnZeros = errors.New("zero differences")
	// WarnSmallSample: the normal approximation was used with fewer than 10
	// observations and may be inaccurate.
	WarnSmallSample = errors.New("normal approximation with fewer than 10 observations")
	// WarnConfLevel: the requested confidence level is not achievable with
	// the exact distribution; the reported ConfLevel is the achieved one.
	WarnConfLevel = errors.New("requested confidence level not achievable")
	// WarnTiesCI: the exact confidence interval needs untied data; the
	// asymptotic interval was computed instead (as R does).
	WarnTiesCI = errors.New("ties: asymptotic confidence interval used")
	// WarnFewForInterval: a bootstrap interval from fewer than 10
	// observations; no interval reaches its confidence level reliably
	// there (docs/statistics.md has the coverage table).
	WarnFewForInterval = errors.New("fewer than 10 observations: the interval does not reach its confidence level reliably")
	// WarnNoCI: the confidence interval cannot be computed (all shifted
	// observations tied); CILow and CIHigh are NaN.
	WarnNoCI = errors.New("confidence interval not computable: all observations tied")
)

// hasNaN reports whether any element of x is NaN.
func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}
