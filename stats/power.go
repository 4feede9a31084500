package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// NoetherPowerRankSum is the approximate power of the one-sided
// Mann-Whitney U (rank-sum) test at level alpha with n1 and n2
// observations when P(X > Y) + P(X = Y)/2 = a12 (Noether 1987, "Sample
// size determination for some common nonparametric tests", JASA
// 82:645-647): U is approximately normal with mean n1·n2·a12 and the null
// variance n1·n2·(N+1)/12, so
//
//	power = Φ(sqrt(12·n1·n2/(N+1))·|a12 − ½| − z_(1−α)).
//
// The direction is that of the effect (a one-sided test in its
// direction). It uses the null variance for the alternative, so it is
// accurate for moderate effects (|a12 − ½| <= 0.2). Returns a value in
// [0, 1]; NaN for n1 or n2 < 1 or alpha outside (0, 1).
func NoetherPowerRankSum(n1, n2 int, a12, alpha float64) float64 {
	if n1 < 1 || n2 < 1 || CheckAlpha(alpha) != nil {
		return math.NaN()
	}
	f1, f2 := float64(n1), float64(n2)
	z := math.Sqrt(12*f1*f2/(f1+f2+1))*math.Abs(a12-0.5) - zUpper(alpha)
	return distuv.UnitNormal.CDF(z)
}

// NoetherNRankSum is Noether's (1987) sample size for the one-sided
// rank-sum test: the number of observations per group (equal groups,
// rounded up) for power at level alpha when P(X > Y) + ½P(X = Y) = a12:
// N = (z_(1−α) + z_power)²/(3·(a12 − ½)²) in total, N/2 per group.
// Returns 0 when a12 = ½ (no n suffices) or an argument is out of range.
func NoetherNRankSum(a12, alpha, power float64) int {
	if a12 == 0.5 || CheckAlpha(alpha) != nil || !(power > 0 && power < 1) {
		return 0
	}
	z := zUpper(alpha) + zUpper(1-power)
	total := z * z / (3 * (a12 - 0.5) * (a12 - 0.5))
	return int(math.Ceil(total / 2))
}

// NoetherPowerSignedRank is the approximate power of the one-sided
// Wilcoxon signed-rank test at level alpha with n pairs when p2 = P(D_i +
// D_j > 0) + ½P(D_i + D_j = 0) for two independent differences (Noether
// 1987): T+ has approximately mean n(n+1)/2·p2 and the null variance
// n(n+1)(2n+1)/24, so
//
//	power = Φ(n(n+1)/2·|p2 − ½| / sqrt(n(n+1)(2n+1)/24) − z_(1−α)).
//
// Returns a value in [0, 1]; NaN for n < 1 or alpha outside (0, 1).
func NoetherPowerSignedRank(n int, p2, alpha float64) float64 {
	if n < 1 || CheckAlpha(alpha) != nil {
		return math.NaN()
	}
	f := float64(n)
	z := f*(f+1)/2*math.Abs(p2-0.5)/math.Sqrt(f*(f+1)*(2*f+1)/24) - zUpper(alpha)
	return distuv.UnitNormal.CDF(z)
}

// NoetherNSignedRank is Noether's (1987) number of pairs for the one-sided
// signed-rank test: n = (z_(1−α) + z_power)²/(3·(p2 − ½)²), rounded up.
// Returns 0 when p2 = ½ or an argument is out of range.
func NoetherNSignedRank(p2, alpha, power float64) int {
	if p2 == 0.5 || CheckAlpha(alpha) != nil || !(power > 0 && power < 1) {
		return 0
	}
	z := zUpper(alpha) + zUpper(1-power)
	return int(math.Ceil(z * z / (3 * (p2 - 0.5) * (p2 - 0.5))))
}

// NormalPower is the power Φ(|effect|/se − z_(1−α)) of a one-sided z (or
// large-sample t) test of an effect with standard error se: the power of
// the mean tests (Welch, paired t) and of the Brunner-Munzel test.
// NaN for se <= 0 or alpha outside (0, 1).
func NormalPower(effect, se, alpha float64) float64 {
	if !(se > 0) || CheckAlpha(alpha) != nil {
		return math.NaN()
	}
	return distuv.UnitNormal.CDF(math.Abs(effect)/se - zUpper(alpha))
}

// WalshShare returns P(D_i + D_j > 0) + ½P(D_i + D_j = 0) estimated from
// the differences d over the pairs i < j: the effect of Noether's formula
// for the signed-rank test (½ means no effect). O(n log n) after a sort
// (binary search). NaN for fewer than 2 differences.
func WalshShare(d []float64) float64 {
	n := len(d)
	if n < 2 {
		return math.NaN()
	}
	s := slices.Clone(d)
	slices.Sort(s)
	// For each i, the j > i with s_j > −s_i resp. s_j == −s_i, by binary
	// search in the sorted tail.
	gt, eq := 0, 0
	for i := 0; i < n-1; i++ {
		tail := s[i+1:]
		lo, _ := slices.BinarySearch(tail, -s[i]) // first >= −s_i
		hi := lo
		for hi < len(tail) && tail[hi] == -s[i] {
			hi++
		}
		gt += len(tail) - hi
		eq += hi - lo
	}
	pairs := float64(n * (n - 1) / 2)
	return (float64(gt) + float64(eq)/2) / pairs
}

// Decision decides one simulated experiment: it returns whether the test
// under study succeeds (rejects its H0) on candidate scores x and baseline
// scores y (paired by index when the simulation is paired). A sequential
// design is a Decision that looks at growing prefixes of x and y.
type Decision func(x, y []float64) (bool, error)

// PowerEstimate is a simulated power with its Clopper-Pearson interval.
type PowerEstimate struct {
	// N is the number of observations per sample (pairs when paired).
	N int
	// Power is the share of Reps simulated experiments the Decision
	// accepted, in [0, 1].
	Power float64
	// Low, High bound the two-sided 95% Clopper-Pearson (1934) interval of
	// Power.
	Low, High float64
	// Reps is the number of simulated experiments.
	Reps int
}

// SimulatedPower estimates the power of decide at n observations per side
// by resampling a pilot (Collings and Hamilton 1988, "Estimating the power
// of the two-sample Wilcoxon test for location shift", Biometrics
// 44:847-860): each of reps experiments draws n of x and n of y with
// replacement (paired: n indices into the pairs (x_i, y_i)), then calls
// decide. To study an effect other than the pilot's, shift x before
// calling. Draws come from rng, experiment by experiment, x then y, so a
// seed reproduces the estimate; using the same seed for every n gives
// common random numbers, which makes power curves smooth in n.
//
// Errors: ErrSampleSize for an empty pilot or n < 1; ErrLength when paired
// and len(x) != len(y); ErrOption for reps < 1; errors of decide, wrapped.
// Panics if decide or rng is nil.
func SimulatedPower(x, y []float64, paired bool, n, reps int, decide Decision, rng *rand.Rand) (PowerEstimate, error) {
	if len(x) == 0 || len(y) == 0 || n < 1 {
		return PowerEstimate{}, fmt.Errorf("%w: SimulatedPower with pilot sizes %d, %d and n = %d", ErrSampleSize, len(x), len(y), n)
	}
	if paired && len(x) != len(y) {
		return PowerEstimate{}, fmt.Errorf("%w: SimulatedPower paired pilot of %d and %d", ErrLength, len(x), len(y))
	}
	if reps < 1 {
		return PowerEstimate{}, fmt.Errorf("%w: SimulatedPower reps %d < 1", ErrOption, reps)
	}
	xs, ys := make([]float64, n), make([]float64, n)
	hits := 0
	for range reps {
		if paired {
			for i := range xs {
				k := rng.IntN(len(x))
				xs[i], ys[i] = x[k], y[k]
			}
		} else {
			for i := range xs {
				xs[i] = x[rng.IntN(len(x))]
			}
			for i := range ys {
				ys[i] = y[rng.IntN(len(y))]
			}
		}
		ok, err := decide(xs, ys)
		if err != nil {
			return PowerEstimate{}, fmt.Errorf("SimulatedPower at n = %d: %w", n, err)
		}
		if ok {
			hits++
		}
	}
	lo, hi := ClopperPearson(hits, reps, 0.95)
	return PowerEstimate{N: n, Power: float64(hits) / float64(reps), Low: lo, High: hi, Reps: reps}, nil
}

// ClopperPearson returns the two-sided exact binomial confidence interval
// at level conf for k successes in n trials (Clopper and Pearson 1934,
// Biometrika 26:404-413; R's binom.test(k, n)$conf.int): the conf/2
// quantiles of Beta(k, n−k+1) and Beta(k+1, n−k), with 0 and 1 at the
// ends. NaN, NaN for n < 1 or k outside [0, n].
func ClopperPearson(k, n int, conf float64) (lo, hi float64) {
	if n < 1 || k < 0 || k > n {
		return math.NaN(), math.NaN()
	}
	a := (1 - conf) / 2
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
	}
	return lo, hi
}

// NForPower returns the smallest n in [lo, hi] with power(n) >= target,
// by doubling from lo then bisection, assuming power is nondecreasing in
// n (use common random numbers in a simulated power). It returns hi + 1
// when even power(hi) < target. Errors of power are returned.
func NForPower(target float64, lo, hi int, power func(n int) (float64, error)) (int, error) {
	if lo < 1 {
		lo = 1
	}
	ok := func(n int) (bool, error) {
		p, err := power(n)
		return p >= target, err
	}
	if good, err := ok(lo); err != nil || good {
		return lo, err
	}
	bad := lo
	n := lo
	for {
		n = min(2*n, hi)
		good, err := ok(n)
		if err != nil {
			return 0, err
		}
		if good {
			break
		}
		if n == hi {
			return hi + 1, nil
		}
		bad = n
	}
	goodN := n
	for goodN-bad > 1 {
		mid := bad + (goodN-bad)/2
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			goodN = mid
		} else {
			bad = mid
		}
	}
	return goodN, nil
}

// zUpper is z_(1−p), the upper p quantile of the standard normal.
func zUpper(p float64) float64 {
	return -distuv.UnitNormal.Quantile(p)
}
