package stats

import (
	"fmt"
	"math"
	"slices"
)

// AutoExactMaxProduct is the Auto rule of MannWhitneyU: the exact
// distribution is used when n1·n2 <= AutoExactMaxProduct (e.g. 50 vs 50,
// 10 vs 250), the normal approximation otherwise. Below it the exact DP
// costs at most a few milliseconds; above it (say 300 vs 300, the evolution
// loop's size) the normal approximation is accurate to about 1e-3 and costs
// only the sort.
const AutoExactMaxProduct = 2500

// MWUOptions configures MannWhitneyU. The zero value is a two-sided test,
// Auto method, continuity correction on, DoubleTail two-sided exact rule.
type MWUOptions struct {
	// Alternative hypothesis; Greater means x (candidate) stochastically
	// greater than y (incumbent).
	Alternative Alternative
	// Method: Auto, Exact or Asymptotic.
	Method Method
	// NoContinuity switches off the ±0.5 continuity correction of the
	// normal approximation (R's correct = FALSE, scipy's
	// use_continuity = False). Ignored by the exact method.
	NoContinuity bool
	// TwoSidedRule selects the exact two-sided rule: DoubleTail (R, scipy;
	// default) or AbsDeviation (coin). Ignored for one-sided alternatives
	// and by the asymptotic method.
	TwoSidedRule TwoSidedRule
}

// MWUResult is the outcome of MannWhitneyU.
type MWUResult struct {
	// N1, N2 are the sizes of x and y (>= 1).
	N1, N2 int
	// U is the U statistic of x: #(x_i > y_j) + 0.5·#(x_i == y_j), in
	// [0, N1·N2], a multiple of 0.5. It equals R's W for wilcox.test(x, y)
	// and scipy's mannwhitneyu(x, y).statistic. U/(N1·N2) is A12.
	U float64
	// Z is the standardized statistic of the normal approximation,
	// (U − N1·N2/2 − cc)/σ with the tie-corrected σ and the continuity
	// correction cc of the Alternative; NaN when Method is Exact. Z = 0
	// when σ = 0 (all observations tied).
	Z float64
	// P is the p-value for Alternative, in [0, 1].
	P float64
	// Method actually used: Exact or Asymptotic (never Auto).
	Method Method
	// Alternative tested.
	Alternative Alternative
	// Ties reports whether the pooled sample has tied values (within or
	// across samples).
	Ties bool
	// Warnings lists statistical caveats, each wrapping a Warn* sentinel.
	Warnings []error
}

// MannWhitneyU performs the Wilcoxon-Mann-Whitney rank-sum test of x
// (candidate) against y (baseline). Neither slice is modified; the order of
// elements does not matter. ±Inf are valid observations (they rank
// last/first); NaN is an error.
//
// The statistic is U = #(x_i > y_j) + 0.5·#(x_i == y_j) (Mann and Whitney
// 1947; equivalently Wilcoxon's rank sum of x minus n1(n1+1)/2 with
// midranks). Under H0 (x and y from the same distribution) every assignment
// of the pooled observations to the samples is equally likely.
//
// Methods:
//   - Exact: p from the permutation distribution of U given the observed tie
//     pattern (midranks), computed exactly by dynamic programming over the tie
//     groups (a counting form of the shift algorithm of Streitberg and
//     Röhmel 1986; the state is (#x so far, 2U so far); equals
//     coin::wilcox_test(distribution = "exact") one-sided). Without ties it is
//     the classic exact distribution of R's pwilcox and scipy's
//     method="exact". Greater: P(U >= U1); Less: P(U <= U1); TwoSided:
//     min(1, 2·min(P(U <= U1), P(U >= U1))) (R's and scipy's doubling),
//     or with TwoSidedRule = AbsDeviation coin's P(|U − μ| >= |U1 − μ|). The two
//     rules agree without ties; with an asymmetric tie pattern the null
//     distribution is not symmetric and they differ. With ties a
//     WarnTiesExact warning is added. Note that with ties R falls back to the
//     normal approximation and scipy's "exact" uses the no-ties table (not a
//     valid p-value); neither is reproduced. If the table would exceed
//     MaxExactCells the normal approximation is used with WarnExactTooLarge.
//   - Asymptotic: z = (U1 − n1n2/2 − cc)/σ with
//     σ² = n1n2/12·((N+1) − Σ(t³−t)/(N(N−1))), N = n1+n2, t the sizes of tie
//     groups (Lehmann 1975), cc = +0.5 (Greater), −0.5 (Less),
//     0.5·sign(U1 − n1n2/2) (TwoSided), 0 with NoContinuity; as R's
//     wilcox.test(exact = FALSE, correct = TRUE/FALSE) and scipy's
//     mannwhitneyu(method="asymptotic", use_continuity=True/False). Tails use
//     0.5·erfc(±z/√2); TwoSided is 2·min(lower, upper) capped at 1.
//   - Auto: Exact when n1·n2 <= AutoExactMaxProduct (2500), Asymptotic
//     otherwise, ties or not. (R's default is exact only for n1, n2 < 50
//     without ties; scipy's only for a sample <= 8 without ties.)
//
// Errors: ErrSampleSize if x or y is empty; ErrNaN if either contains NaN;
// ErrOption for an out-of-range option.
func MannWhitneyU(x, y []float64, opt MWUOptions) (MWUResult, error) {
	if err := checkMWU(x, y, opt); err != nil {
		return MWUResult{}, err
	}
	xs, ys := sortedCopies(x, y)
	return mannWhitneyU(xs, ys, opt), nil
}

// MannWhitneyUSorted is MannWhitneyU on xs and ys already sorted
// ascending: the same result, bit for bit, without the O(N log N) sort
// (O(N) time, no copy of the samples). A caller that computes several
// rank statistics of the same two samples (the test under several
// alternatives, A12Sorted, HodgesLehmannSorted) sorts them once and
// passes the sorted slices to each. Neither slice is modified.
//
// It panics if xs or ys is not sorted ascending (a broken contract, as
// gonum's stat.Quantile); errors as MannWhitneyU.
func MannWhitneyUSorted(xs, ys []float64, opt MWUOptions) (MWUResult, error) {
	if err := checkMWU(xs, ys, opt); err != nil {
		return MWUResult{}, err
	}
	mustBeSorted("MannWhitneyUSorted", xs, ys)
	return mannWhitneyU(xs, ys, opt), nil
}

// checkMWU returns MannWhitneyU's error for x, y and opt, or nil.
func checkMWU(x, y []float64, opt MWUOptions) error {
	if err := checkAlternative(opt.Alternative); err != nil {
		return err
	}
	if err := checkMethod(opt.Method); err != nil {
		return err
	}
	if err := checkTwoSidedRule(opt.TwoSidedRule); err != nil {
		return err
	}
	if n1, n2 := len(x), len(y); n1 == 0 || n2 == 0 {
		return fmt.Errorf("%w: MannWhitneyU with len(x) = %d, len(y) = %d", ErrSampleSize, n1, n2)
	}
	if hasNaN(x) {
		return fmt.Errorf("%w: x (candidate) of MannWhitneyU", ErrNaN)
	}
	if hasNaN(y) {
		return fmt.Errorf("%w: y (baseline) of MannWhitneyU", ErrNaN)
	}
	return nil
}

// mannWhitneyU is MannWhitneyU on checked samples xs and ys sorted
// ascending.
func mannWhitneyU(xs, ys []float64, opt MWUOptions) MWUResult {
	n1, n2 := len(xs), len(ys)
	res := MWUResult{N1: n1, N2: n2, Alternative: opt.Alternative, Z: math.NaN()}

	method := opt.Method
	if method == Auto {
		if n1*n2 <= AutoExactMaxProduct {
			method = Exact
		} else {
			method = Asymptotic
		}
	}

	pooled := mergeRanks(xs, ys, method == Exact)
	res.U = float64(pooled.u2) / 2
	res.Ties = pooled.ties

	if method == Exact {
		s := 1
		if pooled.ties {
			s = 2
		}
		m, n := min(n1, n2), max(n1, n2)
		if rankSumCells(m, n, s) > MaxExactCells {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w (n1 = %d, n2 = %d)", WarnExactTooLarge, n1, n2))
			method = Asymptotic
		} else {
			dist := rankSumDist(pooled.groups, m, n, s)
			if n1 > n2 {
				// dist is of U_y = n1n2 − U_x: reverse it.
				slices.Reverse(dist)
			}
			obs := pooled.u2 * s / 2 // s·U
			t := exactTails(dist, obs, s*n1*n2)
			res.P = exactP(t, opt.Alternative, opt.TwoSidedRule)
			res.Method = Exact
			if pooled.ties {
				res.Warnings = append(res.Warnings, WarnTiesExact)
			}
			return res
		}
	}

	res.Method = Asymptotic
	fn1, fn2 := float64(n1), float64(n2)
	nn := fn1 + fn2
	sigma := math.Sqrt(fn1 * fn2 / 12 * ((nn + 1) - pooled.tieTerm/(nn*(nn-1))))
	dev := res.U - fn1*fn2/2
	if sigma == 0 || math.IsNaN(sigma) {
		// Every observation tied: U = n1n2/2 with certainty.
		res.Z, res.P = 0, 1
		res.Warnings = append(res.Warnings, WarnAllTied)
		return res
	}
	res.Z = (dev - continuity(dev, opt.Alternative, opt.NoContinuity)) / sigma
	res.P = normalP(res.Z, opt.Alternative)
	if pooled.ties {
		res.Warnings = append(res.Warnings, WarnTiesAsymptotic)
	}
	return res
}

// pooled describes the pooled sample of x and y.
type pooled struct {
	u2      int     // 2·U of x (an integer)
	tieTerm float64 // Σ (t³ − t) over tie groups
	ties    bool    // some group has t > 1
	groups  []int   // tie group sizes in increasing order of value (if requested)
}

// pooledRanks sorts copies of x and y and walks the merged order
// (mergeRanks). O(N log N).
func pooledRanks(x, y []float64, wantGroups bool) pooled {
	xs, ys := sortedCopies(x, y)
	return mergeRanks(xs, ys, wantGroups)
}

// sortedCopies returns copies of x and y sorted ascending, in one
// allocation.
func sortedCopies(x, y []float64) (xs, ys []float64) {
	buf := make([]float64, len(x)+len(y))
	xs, ys = buf[:len(x)], buf[len(x):]
	copy(xs, x)
	copy(ys, y)
	slices.Sort(xs)
	slices.Sort(ys)
	return xs, ys
}

// mustBeSorted panics, naming the function fn, unless every slice of s
// is sorted ascending: the contract of the *Sorted functions.
func mustBeSorted(fn string, s ...[]float64) {
	for _, x := range s {
		if !slices.IsSorted(x) {
			panic("stats: " + fn + ": sample not sorted ascending")
		}
	}
}

// mergeRanks walks the merged order of xs and ys, sorted ascending,
// computing 2U of xs, the tie term and (if wantGroups) the tie-group
// sizes. O(N).
func mergeRanks(xs, ys []float64, wantGroups bool) pooled {
	var p pooled
	if wantGroups {
		p.groups = make([]int, 0, len(xs)+len(ys))
	}
	i, j := 0, 0
	yBelow := 0
	for i < len(xs) || j < len(ys) {
		var v float64
		switch {
		case i == len(xs):
			v = ys[j]
		case j == len(ys):
			v = xs[i]
		default:
			v = min(xs[i], ys[j])
		}
		cx, cy := 0, 0
		for i < len(xs) && xs[i] == v {
			i++
			cx++
		}
		for j < len(ys) && ys[j] == v {
			j++
			cy++
		}
		t := cx + cy
		p.u2 += cx * (2*yBelow + cy)
		yBelow += cy
		if t > 1 {
			p.ties = true
			ft := float64(t)
			p.tieTerm += ft*ft*ft - ft
		}
		if wantGroups {
			p.groups = append(p.groups, t)
		}
	}
	return p
}
