package stats

import (
	"fmt"
	"math"
	"slices"
)

// AutoExactMaxSignedRank is the Auto rule of WilcoxonSignedRank: the exact
// distribution is used when at most this many differences are nonzero (as
// scipy's n <= 50 and close to R's n < 50), the normal approximation
// otherwise. The exact DP costs O(n³) and about 0.1 ms at n = 50.
const AutoExactMaxSignedRank = 50

// SignedRankOptions configures WilcoxonSignedRank. The zero value is a
// two-sided test, Auto method, Wilcox zero handling, continuity correction
// on, DoubleTail two-sided exact rule.
type SignedRankOptions struct {
	// Alternative hypothesis; Greater means the differences x − y tend to
	// be positive (x, the candidate, is better).
	Alternative Alternative
	// Method: Auto, Exact or Asymptotic.
	Method Method
	// ZeroMethod: Wilcox (default), Pratt or ZSplit, as scipy.
	ZeroMethod ZeroMethod
	// NoContinuity switches off the ±0.5 continuity correction of the
	// normal approximation. R's default is on (correct = TRUE); scipy's
	// default is off (correction = False). Ignored by the exact method.
	NoContinuity bool
	// TwoSidedRule selects the exact two-sided rule (DoubleTail: R, scipy;
	// AbsDeviation: coin). Ignored for one-sided and asymptotic tests.
	TwoSidedRule TwoSidedRule
}

// SignedRankResult is the outcome of WilcoxonSignedRank.
type SignedRankResult struct {
	// N is the number of pairs.
	N int
	// NZero is the number of zero differences x_i − y_i == 0.
	NZero int
	// NUsed is the number of differences ranked: N − NZero for Wilcox, N
	// for Pratt and ZSplit.
	NUsed int
	// TPlus is the signed-rank statistic T+: the sum of the ranks of |d|
	// (midranks for ties, ranks 1..NUsed) over the positive differences, plus
	// half the zero ranks' sum for ZSplit. For Wilcox it is R's V and
	// scipy's one-sided statistic. In [0, NUsed(NUsed+1)/2].
	TPlus float64
	// Z is the standardized statistic (T+ − E T+ − cc)/σ of the normal
	// approximation; NaN when Method is Exact; 0 when σ = 0.
	Z float64
	// P is the p-value for Alternative, in [0, 1].
	P float64
	// Method actually used: Exact or Asymptotic (never Auto).
	Method Method
	// Alternative tested.
	Alternative Alternative
	// ZeroMethod used.
	ZeroMethod ZeroMethod
	// Ties reports whether nonzero |d| values are tied.
	Ties bool
	// Warnings lists statistical caveats, each wrapping a Warn* sentinel.
	Warnings []error
}

// WilcoxonSignedRank performs the Wilcoxon signed-rank test (Wilcoxon 1945)
// of the paired differences d_i = x_i − y_i (x = candidate, y = baseline,
// paired by index, e.g. by seed). Neither slice is modified.
//
// Zero differences are handled as ZeroMethod says (scipy.stats.wilcoxon's
// zero_method): Wilcox drops them (R, scipy default); Pratt ranks them and
// then drops their ranks; ZSplit ranks them and adds half of their rank sum
// to T+.
//
// Methods:
//   - Exact: p from the permutation (random-sign) distribution of T+ given
//     the tie pattern of the nonzero |d| (midranks), computed exactly by
//     dynamic programming over the tie groups (a group of t tied ranks r
//     contributes k·r with k ~ Binomial(t, 1/2)). Without ties and zeros it
//     equals R's psignrank and scipy's method="exact". With zeros the
//     distribution is conditional on the zeros as well (their ranks are
//     fixed; only nonzero signs are random): R and scipy 1.10 cannot do
//     this and fall back to the normal approximation. With ties scipy's
//     "exact" uses the no-ties table (not reproduced). Greater: P(T+ >= t);
//     Less: P(T+ <= t); TwoSided: DoubleTail min(1, 2·min(...)) or
//     AbsDeviation P(|T+ − E| >= |t − E|).
//   - Asymptotic: z = (T+ − μ − cc)/σ with μ = n(n+1)/4 and
//     σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over tie groups, n = NUsed; for
//     Pratt μ and σ² are reduced by the zeros' share (Cureton 1967), as
//     scipy: μ −= z(z+1)/4, σ² −= z(z+1)(2z+1)/24, z = NZero, with tie
//     groups of the nonzero ranks only; ZSplit counts the zero group as a
//     tie group. cc = +0.5 (Greater), −0.5 (Less), 0.5·sign(T+ − μ)
//     (TwoSided), 0 with NoContinuity. Matches R's wilcox.test(paired =
//     TRUE, exact = FALSE) and scipy.stats.wilcoxon(mode="approx",
//     correction=...).
//   - Auto: Exact when at most AutoExactMaxSignedRank (50) differences are
//     nonzero, Asymptotic otherwise.
//
// If every used difference is zero or the statistic cannot vary, P = 1 with
// WarnAllTied.
//
// Errors: ErrLength if len(x) != len(y); ErrSampleSize if they are empty;
// ErrNaN if an input or a difference (Inf − Inf) is NaN; ErrOption for an
// out-of-range option.
func WilcoxonSignedRank(x, y []float64, opt SignedRankOptions) (SignedRankResult, error) {
	if err := checkSignedRankOptions(opt); err != nil {
		return SignedRankResult{}, err
	}
	if len(x) != len(y) {
		return SignedRankResult{}, fmt.Errorf("%w: len(x) = %d, len(y) = %d", ErrLength, len(x), len(y))
	}
	if len(x) == 0 {
		return SignedRankResult{}, fmt.Errorf("%w: WilcoxonSignedRank with no pairs", ErrSampleSize)
	}
	d, nz, err := signedDiffs(x, y, opt.ZeroMethod)
	if err != nil {
		return SignedRankResult{}, err
	}
	res := SignedRankResult{
		N: len(x), NZero: nz, NUsed: len(d),
		Alternative: opt.Alternative, ZeroMethod: opt.ZeroMethod, Z: math.NaN(),
	}
	if nz > 0 {
		how := "dropped"
		switch opt.ZeroMethod {
		case Pratt:
			how = "ranked, then dropped (pratt)"
		case ZSplit:
			how = "ranked, rank sum split between signs (zsplit)"
		}
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %d of %d %s", WarnZeros, nz, len(x), how))
	}
	g := rankSigned(d)
	res.Ties = g.ties
	// zsplit adds half the zero rank sum: 2·(zero2/2/2) = zero2/2 in doubled
	// units; zero2 = nz(nz+1) is even.
	shift2 := 0
	if opt.ZeroMethod == ZSplit {
		shift2 = g.zero2 / 2
	}
	res.TPlus = float64(g.tPlus2+shift2) / 2

	method := opt.Method
	if method == Auto {
		if g.nonzeroN <= AutoExactMaxSignedRank {
			method = Exact
		} else {
			method = Asymptotic
		}
	}
	if g.nonzeroN == 0 {
		res.Method = method
		if method == Asymptotic {
			res.Z = 0
		}
		res.P = 1
		res.Warnings = append(res.Warnings, WarnAllTied)
		return res, nil
	}
	if method == Exact {
		if p, ok := signedRankExactP(g, opt); ok {
			res.P, res.Method = p, Exact
			if res.Ties {
				res.Warnings = append(res.Warnings, WarnTiesExact)
			}
			return res, nil
		}
		res.Warnings = append(res.Warnings, fmt.Errorf("%w (%d nonzero differences)", WarnExactTooLarge, g.nonzeroN))
	}
	signedRankAsymptotic(&res, g, len(d), nz, opt)
	return res, nil
}

// checkSignedRankOptions returns an error wrapping ErrOption for an
// out-of-range alternative, method, two-sided rule or zero method.
func checkSignedRankOptions(opt SignedRankOptions) error {
	if err := checkAlternative(opt.Alternative); err != nil {
		return err
	}
	if err := checkMethod(opt.Method); err != nil {
		return err
	}
	if err := checkTwoSidedRule(opt.TwoSidedRule); err != nil {
		return err
	}
	if opt.ZeroMethod < Wilcox || opt.ZeroMethod > ZSplit {
		return fmt.Errorf("%w: zero method %d", ErrOption, int(opt.ZeroMethod))
	}
	return nil
}

// signedDiffs returns the differences x_i − y_i to rank, in pair order
// (the zeros left out for Wilcox), and the number of zero differences.
// Error: ErrNaN naming the first pair whose difference is NaN.
func signedDiffs(x, y []float64, zm ZeroMethod) (d []float64, nz int, err error) {
	d = make([]float64, 0, len(x))
	for i := range x {
		di := x[i] - y[i]
		if math.IsNaN(di) {
			return nil, 0, fmt.Errorf("%w: pair %d: x = %v, y = %v", ErrNaN, i, x[i], y[i])
		}
		if di == 0 {
			nz++
			if zm == Wilcox {
				continue
			}
		}
		d = append(d, di)
	}
	return d, nz, nil
}

// signedRanks is the ranking of |d|: doubled midranks (integers) and the
// tie groups the exact and asymptotic methods need.
type signedRanks struct {
	tPlus2   int   // 2·T+ (before the zsplit constant)
	zero2    int   // sum of doubled ranks of zeros
	ws, ts   []int // nonzero groups: doubled midrank, size
	tieNZ    float64
	tieZero  float64
	nonzeroN int
	ties     bool // a nonzero group has more than one member
}

// rankSigned sorts d by |d| in place and ranks it with midranks.
func rankSigned(d []float64) signedRanks {
	slices.SortFunc(d, func(a, b float64) int {
		a, b = math.Abs(a), math.Abs(b)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	n := len(d)
	var g signedRanks
	for a := 0; a < n; {
		b := a + 1
		for b < n && math.Abs(d[b]) == math.Abs(d[a]) {
			b++
		}
		t := b - a
		r2 := a + 1 + b // doubled midrank of positions a..b-1 (ranks a+1..b)
		ft := float64(t)
		if d[a] == 0 {
			g.zero2 += r2 * t
			g.tieZero += ft*ft*ft - ft
		} else {
			for _, v := range d[a:b] {
				if v > 0 {
					g.tPlus2 += r2
				}
			}
			g.ws = append(g.ws, r2)
			g.ts = append(g.ts, t)
			g.nonzeroN += t
			if t > 1 {
				g.ties = true
				g.tieNZ += ft*ft*ft - ft
			}
		}
		a = b
	}
	return g
}

// signedRankExactP returns the exact p-value of T+ (conditional on the
// tie pattern and the zeros), or ok false when the distribution would
// take more than MaxExactCells cells. It may halve g.ws in place.
func signedRankExactP(g signedRanks, opt SignedRankOptions) (p float64, ok bool) {
	// Scale: doubled ranks, halved if all even.
	ws := g.ws
	allEven := true
	for _, w := range ws {
		if w%2 != 0 {
			allEven = false
			break
		}
	}
	obs := g.tPlus2
	if allEven {
		for i := range ws {
			ws[i] /= 2
		}
		obs /= 2
	}
	if signedRankCells(ws, g.ts) > MaxExactCells {
		return 0, false
	}
	center2 := 0
	for i := range ws {
		center2 += ws[i] * g.ts[i]
	}
	dist := signedRankDist(ws, g.ts)
	tl := exactTails(dist, obs, center2)
	return exactP(tl, opt.Alternative, opt.TwoSidedRule), true
}

// signedRankAsymptotic sets res's Method, Z, P and warnings by the normal
// approximation of T+ over n ranked differences, nz of them zero.
func signedRankAsymptotic(res *SignedRankResult, g signedRanks, n, nz int, opt SignedRankOptions) {
	res.Method = Asymptotic
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	variance := fn * (fn + 1) * (2*fn + 1) / 24
	switch opt.ZeroMethod {
	case Pratt:
		fz := float64(nz)
		mean -= fz * (fz + 1) / 4
		variance -= fz * (fz + 1) * (2*fz + 1) / 24
		variance -= g.tieNZ / 48
	case ZSplit:
		variance -= (g.tieNZ + g.tieZero) / 48
	default:
		variance -= g.tieNZ / 48
	}
	if g.nonzeroN < 10 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w (%d nonzero)", WarnSmallSample, g.nonzeroN))
	}
	if res.Ties {
		res.Warnings = append(res.Warnings, WarnTiesAsymptotic)
	}
	sigma := math.Sqrt(variance)
	dev := res.TPlus - mean
	if !(sigma > 0) {
		res.Z, res.P = 0, 1
		res.Warnings = append(res.Warnings, WarnAllTied)
		return
	}
	res.Z = (dev - continuity(dev, opt.Alternative, opt.NoContinuity)) / sigma
	res.P = normalP(res.Z, opt.Alternative)
}
