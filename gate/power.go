package gate

import (
	"math"

	"evolve/stats"
)

// checkPower returns Check.Power and Check.PowerLoss for a check c whose
// test ran on s: x (candidate) and y (baseline), d = x − y when paired.
//
// The alternative studied is a candidate that is the baseline moved by a
// true loss L (regression: L = 2·margin, or half the baseline's standard
// deviation without a margin; non-inferiority: L = 0), and the power is
// the chance the check comes out against the reassuring verdict: fail
// (regression) or pass (non-inferiority). The distance from the test's
// boundary −margin is |L − margin| (shift, mean) or |L − m| (A12). The
// observed spread is used, not the observed effect. The formula is
// chosen by the scale and design of the test's registration
// (stats.TestSpec), so that a registered test gets the power of its kind:
//
//   - rank-sum (a test of the shift on independent samples, the U test):
//     a12 = A12(y − dist, y) of the baseline against itself
//     (counted on y sorted, which stays sorted when moved by dist), then
//     stats.NoetherPowerRankSum;
//   - signed-rank (a test of the shift on pairs): p2 = stats.WalshShare of the centred differences moved
//     by dist, then stats.NoetherPowerSignedRank;
//   - Brunner-Munzel (the A12 scale): dist in A12 units over the null standard error
//     sqrt((N+1)/(12·n1·n2)), stats.NormalPower;
//   - mean tests (and any other): dist over the standard error of the difference of
//     means (Welch) or of the mean difference (paired), stats.NormalPower.
func checkPower(c Check, s sides, cfg Config) (power, loss float64) {
	x, y, d := s.x, s.y, s.d
	ni := cfg.Hypothesis == HypothesisNonInferiority
	n1, n2 := float64(len(x)), float64(len(y))
	if spec, _ := stats.LookupTest(c.Test); spec.Scale == stats.ScaleA12 {
		m := cfg.MarginA12
		if !ni {
			loss = 2 * m
		}
		se := math.Sqrt((n1 + n2 + 1) / (12 * n1 * n2))
		return stats.NormalPower(math.Abs(loss-m), se, cfg.Alpha), loss
	}
	D := cfg.Margin
	if !ni {
		loss = 2 * D
		if D == 0 {
			_, v := meanVarOf(y)
			loss = math.Sqrt(v) / 2
		}
	}
	dist := math.Abs(loss - D)
	spec, _ := stats.LookupTest(c.Test)
	switch {
	case spec.Scale == stats.ScaleShift && !c.Paired: // the U test
		moved := make([]float64, len(s.ys))
		for i, v := range s.ys {
			moved[i] = v - dist
		}
		a, err := stats.A12Sorted(moved, s.ys)
		if err != nil {
			return math.NaN(), loss
		}
		return stats.NoetherPowerRankSum(len(x), len(y), a, cfg.Alpha), loss
	case spec.Scale == stats.ScaleShift: // the signed-rank test
		med := stats.Median(d)
		dc := make([]float64, len(d))
		for i, v := range d {
			dc[i] = v - med - dist
		}
		return stats.NoetherPowerSignedRank(len(d), stats.WalshShare(dc), cfg.Alpha), loss
	default: // mean tests
		if c.Paired {
			_, v := meanVarOf(d)
			return stats.NormalPower(dist, math.Sqrt(v/float64(len(d))), cfg.Alpha), loss
		}
		_, v1 := meanVarOf(x)
		_, v2 := meanVarOf(y)
		return stats.NormalPower(dist, math.Sqrt(v1/n1+v2/n2), cfg.Alpha), loss
	}
}

// meanVarOf returns the mean and sample variance of x (NaN variance for
// fewer than 2 values).
func meanVarOf(x []float64) (m, v float64) {
	if len(x) < 2 {
		return stats.MeanOf(x), math.NaN()
	}
	return stats.MeanVar(x)
}
