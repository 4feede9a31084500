package stats

import (
	"fmt"
	"math"
)

// Methods of FailureIncreaseResult.Method.
const (
	// MethodBarnardScore is the exact unconditional test of two
	// independent binomials with the Farrington-Manning score statistic,
	// maximised over the nuisance parameter (Chan 1998; at margin 0 it
	// is Barnard's test with the pooled score statistic,
	// scipy.stats.barnard_exact(pooled = True)).
	MethodBarnardScore = "exact-unconditional-score"
	// MethodMcNemarExact is the exact conditional McNemar test: the
	// exact binomial test of the discordant pairs against 1/2
	// (scipy.stats.binomtest(n10, n10 + n01, 0.5, "greater")).
	MethodMcNemarExact = "mcnemar-exact"
	// MethodPairedScore is the exact unconditional test of paired
	// proportions with Tango's (1998) score statistic, maximised over the
	// nuisance parameter (Hsueh, Liu & Chen 2001).
	MethodPairedScore = "paired-exact-unconditional-score"
)

// FailureIncreaseResult is the outcome of FailureIncrease and
// FailureIncreasePaired: a one-sided test of H0: π_c − π_b <= Margin
// against H1: π_c − π_b > Margin, where π_c and π_b are the candidate's
// and the baseline's probabilities of a failed episode.
type FailureIncreaseResult struct {
	// Method is MethodBarnardScore, MethodMcNemarExact or
	// MethodPairedScore.
	Method string
	// Margin is the tolerated increase P in [0, 1) (a share: 0.05 is 5
	// percentage points).
	Margin float64
	// N is the number of candidate episodes (pairs when paired),
	// NBaseline the number of baseline episodes (= N when paired).
	N, NBaseline int
	// Failed and FailedBaseline are the numbers of failed episodes.
	Failed, FailedBaseline int
	// Share and ShareBaseline are Failed/N and FailedBaseline/NBaseline;
	// Diff = Share − ShareBaseline, in [−1, 1].
	Share, ShareBaseline, Diff float64
	// Statistic: the score statistic Z (MethodBarnardScore,
	// MethodPairedScore; 0 where its variance is 0), or n10, the pairs in
	// which only the candidate failed (MethodMcNemarExact).
	Statistic float64
	// Nuisance is the nuisance value at which the p-value's supremum was
	// found: the baseline's failure probability π_b (MethodBarnardScore)
	// or the probability of a "baseline failed, candidate did not" pair
	// (MethodPairedScore); NaN for MethodMcNemarExact.
	Nuisance float64
	// P is the one-sided p-value, in [0, 1].
	P float64
}

// FailureIncrease tests whether the candidate's share of failed episodes
// exceeds the baseline's by more than margin, for two independent
// samples: failed of n candidate episodes, failedBase of nBase baseline
// episodes. H0: π_c − π_b <= margin; the p-value is small on evidence of
// an increase beyond margin.
//
// Method (MethodBarnardScore): the exact unconditional test of Chan
// (1998, Statistics in Medicine 17:1403-1413) with the score statistic of
// Farrington & Manning (1990, Statistics in Medicine 9:1447-1454),
// Z = (p̂_c − p̂_b − margin)/sqrt(π̃_c(1−π̃_c)/n + π̃_b(1−π̃_b)/nBase),
// π̃ the maximum-likelihood estimates restricted to π_c − π_b = margin
// (their closed form); p = sup over π_b in [0, 1 − margin] of P(Z >=
// z_obs | π_c = π_b + margin, π_b). At margin 0 this is Barnard's exact
// test with the pooled score statistic, scipy.stats.barnard_exact(table,
// "greater", pooled = True). The supremum is found on a grid of 101
// points refined by golden-section search around each local maximum.
// Cost: O(n·nBase) per evaluation of the tail.
//
// Errors (wrapping ErrOption): n or nBase < 1, a count outside [0, n],
// margin outside [0, 1).
func FailureIncrease(failed, n, failedBase, nBase int, margin float64) (FailureIncreaseResult, error) {
	if n < 1 || nBase < 1 || failed < 0 || failed > n || failedBase < 0 || failedBase > nBase {
		return FailureIncreaseResult{}, fmt.Errorf("%w: FailureIncrease: counts %d of %d and %d of %d (want 0 <= failed <= n, n >= 1)",
			ErrOption, failed, n, failedBase, nBase)
	}
	if !(margin >= 0 && margin < 1) {
		return FailureIncreaseResult{}, fmt.Errorf("%w: FailureIncrease: margin must be in [0, 1): %v", ErrOption, margin)
	}
	r := FailureIncreaseResult{Method: MethodBarnardScore, Margin: margin, N: n, NBaseline: nBase, Failed: failed, FailedBaseline: failedBase}
	r.Share, r.ShareBaseline = float64(failed)/float64(n), float64(failedBase)/float64(nBase)
	r.Diff = r.Share - r.ShareBaseline
	// z[x1][x0] for every table.
	z := make([][]float64, n+1)
	for x1 := range z {
		z[x1] = make([]float64, nBase+1)
		for x0 := range z[x1] {
			z[x1][x0] = fmScore(x1, n, x0, nBase, margin)
		}
	}
	r.Statistic = z[failed][failedBase]
	// Rejection region as intervals of x0 per x1 (the tail Z >= z_obs).
	obs := r.Statistic
	tol := 1e-10 * math.Max(1, math.Abs(obs))
	type span struct{ x1, lo, hi int }
	var region []span
	for x1 := range z {
		for x0 := 0; x0 <= nBase; {
			if z[x1][x0] < obs-tol {
				x0++
				continue
			}
			lo := x0
			for x0 <= nBase && z[x1][x0] >= obs-tol {
				x0++
			}
			region = append(region, span{x1, lo, x0 - 1})
		}
	}
	pmf1 := make([]float64, n+1)
	cdf0 := make([]float64, nBase+2)
	tail := func(pb float64) float64 {
		binomPMF(pmf1, n, math.Min(pb+margin, 1))
		binomCDF(cdf0, nBase, pb)
		s := 0.0
		for _, sp := range region {
			s += pmf1[sp.x1] * (cdf0[sp.hi+1] - cdf0[sp.lo])
		}
		return s
	}
	r.P, r.Nuisance = supremum(tail, 0, 1-margin)
	r.P = math.Min(1, math.Max(0, r.P))
	return r, nil
}

// FailureIncreasePaired tests whether the candidate's share of failed
// episodes exceeds the baseline's by more than margin, for n pairs of
// episodes played on the same (seed, repeat): n10 pairs in which only the
// candidate failed, n01 in which only the baseline failed (the concordant
// pairs count only through n). H0: π_10 − π_01 <= margin.
//
// Methods: at margin 0, MethodMcNemarExact: the exact conditional
// (McNemar) test, P(Bin(n10 + n01, 1/2) >= n10), 1 without discordant
// pairs (scipy.stats.binomtest(n10, n10 + n01, 0.5, alternative =
// "greater")). At margin > 0 the conditional distribution depends on the
// nuisance π_01, so MethodPairedScore: the exact unconditional test of
// Hsueh, Liu & Chen (2001, Biometrics 57:478-483) with the score
// statistic of Tango (1998, Statistics in Medicine 17:891-908), Z = (n10
// − n01 − n·margin)/sqrt(n(2π̃_01 + margin(1 − margin))), π̃_01 the
// restricted maximum-likelihood estimate under π_10 = π_01 + margin; p =
// sup over π_01 in [0, (1 − margin)/2] of P(Z >= z_obs) under the
// trinomial (n; π_01 + margin, π_01, rest), found as in FailureIncrease.
// Cost: O(n²) per evaluation of the tail.
//
// failed and failedBase are the candidate's and the baseline's numbers of
// failed episodes among the pairs (for Share and Diff); they must be
// consistent with n10 and n01 (failed − failedBase = n10 − n01).
//
// Errors (wrapping ErrOption): n < 1, counts out of range or
// inconsistent, margin outside [0, 1).
func FailureIncreasePaired(failed, failedBase, n10, n01, n int, margin float64) (FailureIncreaseResult, error) {
	if n < 1 || n10 < 0 || n01 < 0 || n10+n01 > n || failed < n10 || failedBase < n01 || failed > n || failedBase > n ||
		failed-failedBase != n10-n01 {
		return FailureIncreaseResult{}, fmt.Errorf("%w: FailureIncreasePaired: counts failed %d, baseline failed %d, n10 %d, n01 %d of %d pairs are inconsistent",
			ErrOption, failed, failedBase, n10, n01, n)
	}
	if !(margin >= 0 && margin < 1) {
		return FailureIncreaseResult{}, fmt.Errorf("%w: FailureIncreasePaired: margin must be in [0, 1): %v", ErrOption, margin)
	}
	r := FailureIncreaseResult{Margin: margin, N: n, NBaseline: n, Failed: failed, FailedBaseline: failedBase, Nuisance: math.NaN()}
	r.Share, r.ShareBaseline = float64(failed)/float64(n), float64(failedBase)/float64(n)
	r.Diff = r.Share - r.ShareBaseline
	if margin == 0 {
		r.Method = MethodMcNemarExact
		r.Statistic = float64(n10)
		m := n10 + n01
		r.P = 1
		if m > 0 {
			pmf := make([]float64, m+1)
			binomPMF(pmf, m, 0.5)
			s := 0.0
			for k := m; k >= n10; k-- { // small terms first
				s += pmf[k]
			}
			r.P = math.Min(1, s)
		}
		return r, nil
	}
	r.Method = MethodPairedScore
	r.Statistic = tangoScore(n10, n01, n, margin)
	obs := r.Statistic
	tol := 1e-10 * math.Max(1, math.Abs(obs))
	type span struct{ b, lo, hi int }
	var region []span
	for b := 0; b <= n; b++ {
		for c := 0; c <= n-b; {
			if tangoScore(b, c, n, margin) < obs-tol {
				c++
				continue
			}
			lo := c
			for c <= n-b && tangoScore(b, c, n, margin) >= obs-tol {
				c++
			}
			region = append(region, span{b, lo, c - 1})
		}
	}
	lf := make([]float64, n+1) // log k!
	for k := 1; k <= n; k++ {
		lf[k] = lf[k-1] + math.Log(float64(k))
	}
	// window returns the counts of Binomial(m, p) within 15 standard
	// deviations + 10 of its mean: outside it every probability is below
	// about 1e-40, so the tail is exact to far below 1e-9.
	window := func(m int, p float64) (int, int) {
		mu, sd := float64(m)*p, math.Sqrt(float64(m)*p*(1-p))
		return max(0, int(math.Floor(mu-15*sd-10))), min(m, int(math.Ceil(mu+15*sd+10)))
	}
	tail := func(p01 float64) float64 {
		p10 := math.Min(p01+margin, 1)
		p00 := math.Max(0, 1-p10-p01)
		l10, l01, l00 := math.Log(p10), math.Log(p01), math.Log(p00)
		term := func(k int, l float64) float64 { // k·log p, 0 when k = 0
			if k == 0 {
				return 0
			}
			return float64(k) * l
		}
		q := 0.0 // P(baseline-only failure | not a candidate-only failure)
		if p10 < 1 {
			q = math.Min(1, p01/(1-p10))
		}
		bLo, bHi := window(n, p10)
		s := 0.0
		for _, sp := range region {
			b := sp.b
			if b < bLo || b > bHi {
				continue
			}
			cLo, cHi := window(n-b, q)
			for c := max(sp.lo, cLo); c <= min(sp.hi, cHi); c++ {
				s += math.Exp(lf[n] - lf[b] - lf[c] - lf[n-b-c] + term(b, l10) + term(c, l01) + term(n-b-c, l00))
			}
		}
		return s
	}
	r.P, r.Nuisance = supremum(tail, 0, (1-margin)/2)
	r.P = math.Min(1, math.Max(0, r.P))
	return r, nil
}

// fmScore is the Farrington-Manning score statistic of x1/n1 − x0/n0
// against margin d, 0 where its variance is 0 (only at d = 0 with x1/n1
// = x0/n0, as scipy.stats.barnard_exact sets it).
func fmScore(x1, n1, x0, n0 int, d float64) float64 {
	p1, p0 := float64(x1)/float64(n1), float64(x0)/float64(n0)
	var v float64
	if d == 0 {
		if p1 == p0 {
			return 0
		}
		p := float64(x1+x0) / float64(n1+n0)
		v = p * (1 - p) * (1/float64(n1) + 1/float64(n0))
	} else {
		r1, r0 := fmRestricted(p1, float64(n1), p0, float64(n0), d)
		v = r1*(1-r1)/float64(n1) + r0*(1-r0)/float64(n0)
	}
	if !(v > 0) {
		return 0
	}
	return (p1 - p0 - d) / math.Sqrt(v)
}

// fmRestricted returns the maximum-likelihood estimates (π̃1, π̃0) of two
// binomial proportions restricted to π1 − π0 = d, by the closed-form
// root of the likelihood's cubic (Farrington & Manning 1990, eq. 4;
// Miettinen & Nurminen 1985), with θ = n0/n1.
func fmRestricted(p1, n1, p0, n0, d float64) (float64, float64) {
	th := n0 / n1
	a := 1 + th
	b := -(1 + th + p1 + th*p0 + d*(th+2))
	c := d*d + d*(2*p1+th+1) + p1 + th*p0
	e := -p1 * d * (1 + d)
	v := b*b*b/(27*a*a*a) - b*c/(6*a*a) + e/(2*a)
	u2 := b*b/(9*a*a) - c/(3*a)
	u := math.Sqrt(math.Max(u2, 0))
	if v < 0 {
		u = -u
	}
	cosArg := 1.0
	if u != 0 {
		cosArg = math.Max(-1, math.Min(1, v/(u*u*u)))
	}
	w := (math.Pi + math.Acos(cosArg)) / 3
	r1 := 2*u*math.Cos(w) - b/(3*a)
	r1 = math.Max(d, math.Min(1, r1))
	return r1, r1 - d
}

// tangoScore is Tango's (1998) score statistic of n10 − n01 in n pairs
// against π10 − π01 = d > 0.
func tangoScore(n10, n01, n int, d float64) float64 {
	b, c, nn := float64(n10), float64(n01), float64(n)
	A := 2 * nn
	B := -b - c + (2*nn-b+c)*d
	C := -c * d * (1 - d)
	q := (-B + math.Sqrt(math.Max(B*B-4*A*C, 0))) / (2 * A)
	v := nn * (2*q + d*(1-d))
	if !(v > 0) {
		return 0
	}
	return (b - c - nn*d) / math.Sqrt(v)
}

// binomPMF fills pmf[0..n] with the Binomial(n, p) probabilities.
func binomPMF(pmf []float64, n int, p float64) {
	switch {
	case p <= 0:
		clear(pmf[:n+1])
		pmf[0] = 1
		return
	case p >= 1:
		clear(pmf[:n+1])
		pmf[n] = 1
		return
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	ln, _ := math.Lgamma(float64(n) + 1)
	for k := 0; k <= n; k++ {
		lk, _ := math.Lgamma(float64(k) + 1)
		lr, _ := math.Lgamma(float64(n-k) + 1)
		pmf[k] = math.Exp(ln - lk - lr + float64(k)*lp + float64(n-k)*lq)
	}
}

// binomCDF fills cdf[0..n+1] with cdf[k] = P(Binomial(n, p) < k).
func binomCDF(cdf []float64, n int, p float64) {
	pmf := cdf[1 : n+2]
	binomPMF(pmf, n, p)
	cdf[0] = 0
	for k := 1; k <= n+1; k++ {
		cdf[k] = cdf[k-1] + cdf[k]
	}
}

// supremum returns max f on [lo, hi] and its argument: a grid of 101
// points, each grid local maximum refined by golden-section search on its
// two neighbouring cells to 1e-12.
func supremum(f func(float64) float64, lo, hi float64) (float64, float64) {
	const k = 100
	xs := make([]float64, k+1)
	ys := make([]float64, k+1)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/k
		ys[i] = f(xs[i])
	}
	best, arg := ys[0], xs[0]
	for i := range xs {
		if ys[i] > best {
			best, arg = ys[i], xs[i]
		}
	}
	g := (math.Sqrt(5) - 1) / 2
	for i := range xs {
		if (i > 0 && ys[i] < ys[i-1]) || (i < k && ys[i] < ys[i+1]) {
			continue
		}
		a, b := xs[max(i-1, 0)], xs[min(i+1, k)]
		c, d := b-g*(b-a), a+g*(b-a)
		fc, fd := f(c), f(d)
		for b-a > 1e-12 {
			if fc > fd {
				b, d, fd = d, c, fc
				c = b - g*(b-a)
				fc = f(c)
			} else {
				a, c, fc = c, d, fd
				d = a + g*(b-a)
				fd = f(d)
			}
		}
		for _, p := range [][2]float64{{c, fc}, {d, fd}} {
			if p[1] > best {
				best, arg = p[1], p[0]
			}
		}
	}
	return best, arg
}
