package gate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"evolve/stats"
)

// sample builds a Sample on seeds 0..len(scores)-1, repeat 0.
func sample(version, variant string, scores []float64) Sample {
	s := Sample{Version: version, Variant: variant, Scores: scores, Seeds: make([]uint64, len(scores))}
	for i := range scores {
		s.Seeds[i] = uint64(i)
	}
	return s
}

// game returns n integer "episode scores" with seed difficulty: score i is
// a per-seed level plus noise, so paired versions correlate.
func game(n int, shift float64, noise uint64) []float64 {
	r := rand.New(rand.NewPCG(7, 11))
	rn := rand.New(rand.NewPCG(noise, 3))
	x := make([]float64, n)
	for i := range x {
		level := float64(r.IntN(1000))
		x[i] = math.Round(level + shift + 40*rn.NormFloat64())
	}
	return x
}

func plus(x []float64, d float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v + d
	}
	return y
}

// exactRankSumLess is P(U <= u) under H0 for untied data, by enumerating
// the C(n1+n2, n1) rank sets of x: the reference for R's
// wilcox.test(x, y, alternative = "less") with exact = TRUE. U counts
// pairs x_i > y_j.
func exactRankSumLess(n1, n2 int, u float64) float64 {
	n := n1 + n2
	total, hit := 0, 0
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != n1 {
			continue
		}
		// positions 0..n-1 in increasing order; x at set bits.
		cu, yBelow := 0, 0
		for k := range n {
			if mask&(1<<k) != 0 {
				cu += yBelow
			} else {
				yBelow++
			}
		}
		total++
		if float64(cu) <= u {
			hit++
		}
	}
	return float64(hit) / float64(total)
}

// exactSignedRankLess is P(T+ <= t) under H0 for n untied nonzero
// differences, by enumerating the 2^n sign vectors: the reference for R's
// wilcox.test(x, y, paired = TRUE, alternative = "less"), exact.
func exactSignedRankLess(n int, t float64) float64 {
	hit := 0
	for mask := 0; mask < 1<<n; mask++ {
		s := 0
		for k := range n {
			if mask&(1<<k) != 0 {
				s += k + 1
			}
		}
		if float64(s) <= t {
			hit++
		}
	}
	return float64(hit) / float64(int(1)<<n)
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// uStat is #(x_i > y_j) + #(x_i == y_j)/2, by brute force.
func uStat(x, y []float64) float64 {
	u := 0.0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
		}
	}
	return u
}

// tPlus is the signed-rank T+ of untied, nonzero d, by brute force.
func tPlus(d []float64) float64 {
	t := 0.0
	for _, a := range d {
		if a <= 0 {
			continue
		}
		rank := 0
		for _, b := range d {
			if math.Abs(b) <= math.Abs(a) {
				rank++
			}
		}
		t += float64(rank)
	}
	return t
}

func phi(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func one(t *testing.T, base, cand Sample, cfg Config) Check {
	t.Helper()
	checks, err := Compare([]Sample{base}, []Sample{cand}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 {
		t.Fatalf("%d checks, want 1", len(checks))
	}
	return checks[0]
}

// TestReferenceP checks P against p-values computed here independently of
// package stats (enumeration of the exact null distribution, or the normal
// approximation's formula), each the p-value of the R call named.
func TestReferenceP(t *testing.T) {
	const tol = 1e-12
	big1 := make([]float64, 60)
	big2 := make([]float64, 60)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big1 {
		big1[i] = float64(i)*2 + r.Float64() // untied: distinct integer parts
		big2[i] = float64(i)*2 + 1 + r.Float64() + 3
	}
	bigPaired := make([]float64, 60)
	for i := range bigPaired {
		// differences −(i+1)·1.01 + small positive ones: untied, nonzero.
		d := -float64(i+1) * 1.01
		if i%5 == 0 {
			d = -d
		}
		bigPaired[i] = big2[i] + d
	}
	tests := []struct {
		name, rcall string
		x, y        []float64
		cfg         Config
		want        func(x, y []float64, d float64) float64
	}{
		{
			name: "mwu exact", rcall: `wilcox.test(c(1, 2, 3), c(4, 5, 6, 7), alternative = "less")  # W = 0, p = 1/35`,
			x: []float64{1, 2, 3}, y: []float64{4, 5, 6, 7}, cfg: Config{Test: stats.TestMWU},
			want: func(x, y []float64, d float64) float64 { return 1.0 / 35 },
		},
		{
			name: "mwu exact margin", rcall: `wilcox.test(c(10, 12, 14, 16, 18) + 2.5, c(13, 15, 17, 19, 21, 23), alternative = "less")`,
			x: []float64{10, 12, 14, 16, 18}, y: []float64{13, 15, 17, 19, 21, 23}, cfg: Config{Test: stats.TestMWU, Margin: 2.5},
			want: func(x, y []float64, d float64) float64 {
				return exactRankSumLess(len(x), len(y), uStat(plus(x, d), y))
			},
		},
		{
			name: "mwu asymptotic margin", rcall: `wilcox.test(x + 1.5, y, alternative = "less")  # n1 = n2 = 60: normal, continuity-corrected`,
			x: big1, y: big2, cfg: Config{Test: stats.TestMWU, Margin: 1.5},
			want: func(x, y []float64, d float64) float64 {
				n1, n2 := float64(len(x)), float64(len(y))
				z := (uStat(plus(x, d), y) - n1*n2/2 + 0.5) / math.Sqrt(n1*n2*(n1+n2+1)/12)
				return phi(z)
			},
		},
		{
			name: "signed-rank exact", rcall: `wilcox.test(c(1, 2, 3, 4, 5, 6), c(2.5, 4, 5.5, 7, 8.5, 10), paired = TRUE, alternative = "less")  # V = 0, p = 1/64`,
			x: []float64{1, 2, 3, 4, 5, 6}, y: []float64{2.5, 4, 5.5, 7, 8.5, 10}, cfg: Config{Test: stats.TestSignedRank},
			want: func(x, y []float64, d float64) float64 { return 1.0 / 64 },
		},
		{
			name: "signed-rank exact margin", rcall: `wilcox.test(x + 0.75, y, paired = TRUE, alternative = "less")  # x, y below`,
			x: []float64{3, 9, 4, 10, 2, 8, 7, 1}, y: []float64{5.1, 8.2, 6.4, 12.8, 3.6, 9.3, 7.7, 1.9}, cfg: Config{Test: stats.TestSignedRank, Margin: 0.75},
			want: func(x, y []float64, d float64) float64 {
				diff := make([]float64, len(x))
				for i := range x {
					diff[i] = x[i] + d - y[i]
				}
				return exactSignedRankLess(len(x), tPlus(diff))
			},
		},
		{
			name: "signed-rank asymptotic margin", rcall: `wilcox.test(x + 0.25, y, paired = TRUE, alternative = "less")  # 60 pairs: normal, continuity-corrected`,
			x: bigPaired, y: big2, cfg: Config{Test: stats.TestSignedRank, Margin: 0.25},
			want: func(x, y []float64, d float64) float64 {
				diff := make([]float64, len(x))
				for i := range x {
					diff[i] = x[i] + d - y[i]
				}
				n := float64(len(x))
				z := (tPlus(diff) - n*(n+1)/4 + 0.5) / math.Sqrt(n*(n+1)*(2*n+1)/24)
				return phi(z)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := one(t, sample("main", "v", tc.y), sample("pr", "v", tc.x), tc.cfg)
			want := tc.want(tc.x, tc.y, tc.cfg.Margin)
			if math.Abs(c.P-want) > tol {
				t.Errorf("P = %.15g, want %.15g (R: %s)", c.P, want, tc.rcall)
			}
			if c.PAdj != c.P {
				t.Errorf("PAdj = %v, want P = %v for a family of one", c.PAdj, c.P)
			}
		})
	}
}

// TestShiftIdentity: the margin test on (x, y) is the plain test on
// (x + D, y) and on (x, y − D), the statistic included, for both tests and
// with ties (integer scores, integer and fractional D).
func TestShiftIdentity(t *testing.T) {
	y := game(200, 0, 1)
	x := game(200, -12, 2)
	for _, test := range []stats.TestName{stats.TestMWU, stats.TestSignedRank} {
		for _, d := range []float64{3, 7.5, 20} {
			margin := one(t, sample("main", "", y), sample("pr", "", x), Config{Test: test, Margin: d})
			shiftedX := one(t, sample("main", "", y), sample("pr", "", plus(x, d)), Config{Test: test})
			shiftedY := one(t, sample("main", "", plus(y, -d)), sample("pr", "", x), Config{Test: test})
			for _, other := range []Check{shiftedX, shiftedY} {
				if margin.P != other.P || margin.Statistic != other.Statistic {
					t.Errorf("%s D = %v: margin test P = %v, stat = %v; shifted data P = %v, stat = %v",
						test, d, margin.P, margin.Statistic, other.P, other.Statistic)
				}
			}
			// And it is stats' test on x + D directly.
			var p float64
			if test == stats.TestMWU {
				r, _ := stats.MannWhitneyU(plus(x, d), y, stats.MWUOptions{Alternative: stats.Less})
				p = r.P
			} else {
				r, _ := stats.WilcoxonSignedRank(plus(x, d), y, stats.SignedRankOptions{Alternative: stats.Less})
				p = r.P
			}
			if margin.P != p {
				t.Errorf("%s D = %v: P = %v, stats on x + D: %v", test, d, margin.P, p)
			}
		}
	}
}

// TestVerdicts: the gate's verdict and its test for a candidate clearly
// worse, the same, better and slightly worse than the baseline, paired
// (signed-rank) and unpaired (Mann-Whitney U), with no margin, a margin
// on the shift and a margin on A12.
func TestVerdicts(t *testing.T) {
	base := game(300, 0, 1)
	tests := []struct {
		name     string
		cand     []float64
		cfg      Config
		wantTest stats.TestName
		want     bool
	}{
		{"clearly worse, paired", game(300, -60, 2), Config{}, stats.TestSignedRank, true},
		{"clearly worse, mwu", game(300, -150, 2), Config{Test: stats.TestMWU}, stats.TestMWU, true},
		{"clearly worse, A12 margin", game(300, -300, 2), Config{MarginA12: 0.1}, stats.TestBrunnerMunzelPermutation, true},
		{"itself, paired", base, Config{}, stats.TestSignedRank, false},
		{"itself, mwu", base, Config{Test: stats.TestMWU}, stats.TestMWU, false},
		{"itself, margin", base, Config{Margin: 5}, stats.TestSignedRank, false},
		{"itself, A12 margin", base, Config{MarginA12: 0.05}, stats.TestBrunnerMunzelPermutation, false},
		{"better", game(300, 50, 2), Config{}, stats.TestSignedRank, false},
		{"slightly worse, no margin", game(300, -15, 2), Config{}, stats.TestSignedRank, true},
		{"slightly worse, margin 30", game(300, -15, 2), Config{Margin: 30}, stats.TestSignedRank, false},
		{"slightly worse, margin 30, mwu", game(300, -15, 2), Config{Margin: 30, Test: stats.TestMWU}, stats.TestMWU, false},
		{"worse than margin 5", game(300, -40, 2), Config{Margin: 5}, stats.TestSignedRank, true},
		{"slightly worse, A12 margin", game(300, -15, 2), Config{MarginA12: 0.1}, stats.TestBrunnerMunzelPermutation, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := one(t, sample("main", "v", base), sample("pr", "v", tc.cand), tc.cfg)
			if c.Test != tc.wantTest {
				t.Errorf("Test = %q, want %q", c.Test, tc.wantTest)
			}
			if c.Regression != tc.want {
				t.Errorf("Regression = %v, want %v: %s", c.Regression, tc.want, c.Message)
			}
			if strings.Contains(c.Message, "REGRESSION") != tc.want {
				t.Errorf("message does not match the verdict: %s", c.Message)
			}
		})
	}
}

// TestFamily: the family is every check of the call (Holm, Hochberg,
// Bonferroni, none), or each variant (none-per-variant); the result keeps
// the candidates' order.
func TestFamily(t *testing.T) {
	base := []Sample{sample("main", "a", game(100, 0, 1)), sample("main", "b", game(100, 0, 9))}
	cands := []Sample{
		sample("v1", "a", game(100, -20, 2)),
		sample("v1", "b", game(100, -5, 3)),
		sample("v2", "a", game(100, -8, 4)),
		sample("v3", "a", game(100, 3, 5)),
	}
	for _, tc := range []struct {
		corr   string
		method stats.Correction
		family string
	}{
		{CorrectionHolm, stats.Holm, "4 checks (2 variants × 3 versions), Holm"},
		{CorrectionHochberg, stats.Hochberg, "4 checks (2 variants × 3 versions), Hochberg"},
		{CorrectionBonferroni, stats.Bonferroni, "4 checks (2 variants × 3 versions), Bonferroni"},
		{CorrectionNone, stats.None, "4 checks (2 variants × 3 versions), no correction"},
		{CorrectionNonePerVariant, stats.Holm, "4 checks (2 variants × 3 versions), Holm within each variant only (no correction across variants)"},
	} {
		checks, err := Compare(base, cands, Config{Correction: tc.corr})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range checks {
			if c.Version != cands[i].Version || c.Variant != cands[i].Variant {
				t.Fatalf("check %d is %s, want the candidates' order", i, c.Name())
			}
			if c.Family != tc.family {
				t.Errorf("%s: family %q, want %q", tc.corr, c.Family, tc.family)
			}
		}
		var want, got []float64
		if tc.corr == CorrectionNonePerVariant {
			want, _ = stats.Adjust([]float64{checks[0].P, checks[2].P, checks[3].P}, stats.Holm)
			want = append(want, checks[1].P) // variant b: a family of one
			got = []float64{checks[0].PAdj, checks[2].PAdj, checks[3].PAdj, checks[1].PAdj}
		} else {
			p := make([]float64, len(checks))
			for i, c := range checks {
				p[i] = c.P
				got = append(got, c.PAdj)
			}
			want, _ = stats.Adjust(p, tc.method)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: PAdj = %v, want %v", tc.corr, got, want)
		}
		for _, c := range checks {
			if c.Regression != (c.PAdj < c.Alpha) || c.Failed != c.Regression || c.Correction != tc.corr {
				t.Errorf("%s: %+v", tc.corr, c)
			}
		}
	}
}

// TestPairing: which test auto picks, and what the paired fields hold.
func TestPairing(t *testing.T) {
	base := sample("main", "", game(80, 0, 1))
	base.Repeats = make([]int, 80)
	// The candidate plays a subset of the baseline's seeds, shuffled.
	sub := Sample{Version: "pr"}
	for _, i := range []int{5, 3, 70, 12, 44, 9, 60, 61, 62, 63, 0, 1} {
		sub.Seeds = append(sub.Seeds, base.Seeds[i])
		sub.Scores = append(sub.Scores, base.Scores[i]-1)
	}
	c := one(t, base, sub, Config{})
	if c.Test != stats.TestSignedRank || c.N != 12 || c.NBaseline != 12 || c.NPaired != 12 {
		t.Errorf("subset: test %s, n %d, n baseline %d, paired %d; want signed-rank on 12 pairs", c.Test, c.N, c.NBaseline, c.NPaired)
	}
	if c.MeanDiff != -1 || c.Statistic != 0 {
		t.Errorf("subset shifted by -1: MeanDiff = %v, V = %v; want -1, 0", c.MeanDiff, c.Statistic)
	}
	if c := one(t, base, sub, Config{Test: stats.TestMWU}); c.Test != stats.TestMWU || c.NBaseline != 80 || c.NPaired != 12 {
		t.Errorf("mwu: test %s, n baseline %d, paired %d; want mwu against all 80", c.Test, c.NBaseline, c.NPaired)
	}

	// A repeat the baseline lacks: refused by default (MaxUnmatched 0);
	// with MaxUnmatched >= 1 paired on the 11 seeds both played, with a
	// warning naming the unmatched one.
	rep := sub
	rep.Repeats = make([]int, len(sub.Scores))
	rep.Repeats[3] = 1
	for _, test := range []stats.TestName{TestAuto, stats.TestSignedRank} {
		_, err := Compare([]Sample{base}, []Sample{rep}, Config{Test: test})
		if !errors.Is(err, ErrUnpaired) || !strings.Contains(err.Error(), "1 unmatched") || !strings.Contains(err.Error(), "seed 12, repeat 1") {
			t.Errorf("%s, one unmatched, default limit: err = %v, want ErrUnpaired naming it", test, err)
		}
	}
	c = one(t, base, rep, Config{MaxUnmatched: 1})
	if c.Test != stats.TestSignedRank || !c.Paired || c.N != 11 || c.NPaired != 11 || c.NUnmatched != 1 ||
		len(c.Warnings) == 0 || !strings.Contains(c.Warnings[0], "seed 12, repeat 1") {
		t.Errorf("one unmatched, limit 1: test %s, n %d, paired %d, unmatched %d, warnings %q", c.Test, c.N, c.NPaired, c.NUnmatched, c.Warnings)
	}
	if c := one(t, base, rep, Config{MaxUnmatched: NoLimit}); c.N != 11 || c.NUnmatched != 1 {
		t.Errorf("no limit: n %d, unmatched %d", c.N, c.NUnmatched)
	}
	// The paired check reports the one-sample HL of the differences (all
	// −1 here, except the unmatched one dropped): exactly −1.
	if c.HLShift != -1 {
		t.Errorf("paired HL = %v, want -1", c.HLShift)
	}

	// Seeds not recorded.
	noSeeds := Sample{Version: "pr", Scores: sub.Scores}
	if c := one(t, base, noSeeds, Config{}); c.Test != stats.TestMWU || c.NPaired != 0 {
		t.Errorf("no seeds: test %s, paired %d", c.Test, c.NPaired)
	}

	// A duplicated baseline key prevents pairing.
	dup := sample("main", "", []float64{1, 2, 3, 4, 5, 6, 7, 8})
	dup.Seeds[7] = 0
	if c := one(t, dup, sample("pr", "", []float64{1, 2, 3, 4, 5, 6, 7}), Config{}); c.Test != stats.TestMWU || !strings.Contains(c.Warnings[0], "twice in the baseline") {
		t.Errorf("duplicate: test %s, warnings %q", c.Test, c.Warnings)
	}

	// The A12 margin on pairs: the paired baseline values, with a note.
	if c := one(t, base, sub, Config{MarginA12: 0.1}); c.Test != stats.TestBrunnerMunzelPermutation || c.NBaseline != 12 || !strings.Contains(strings.Join(c.Warnings, ";"), "independent samples") {
		t.Errorf("A12 paired: test %s, n baseline %d, warnings %q", c.Test, c.NBaseline, c.Warnings)
	}
}

func TestErrors(t *testing.T) {
	good := sample("main", "hard", game(20, 0, 1))
	cand := sample("v2", "hard", game(20, 0, 2))
	nan := sample("v2", "hard", []float64{1, math.NaN(), 3, 4, 5, 6})
	short := sample("v2", "hard", []float64{1, 2, 3, 4, 5, 6})
	short.Seeds = short.Seeds[:5]
	shortRep := sample("v2", "hard", []float64{1, 2, 3, 4, 5, 6})
	shortRep.Repeats = []int{0}
	tests := []struct {
		name       string
		base, cand []Sample
		cfg        Config
		want       error
		mention    []string
	}{
		{"alpha", []Sample{good}, []Sample{cand}, Config{Alpha: 1.5}, ErrConfig, []string{"alpha", "1.5"}},
		{"negative alpha", []Sample{good}, []Sample{cand}, Config{Alpha: -0.1}, ErrConfig, []string{"alpha"}},
		{"test", []Sample{good}, []Sample{cand}, Config{Test: "t-test"}, ErrConfig, []string{`"t-test"`}},
		{"correction", []Sample{good}, []Sample{cand}, Config{Correction: "bh"}, ErrConfig, []string{`"bh"`}},
		{"margin", []Sample{good}, []Sample{cand}, Config{Margin: -1}, ErrConfig, []string{"margin"}},
		{"margin inf", []Sample{good}, []Sample{cand}, Config{Margin: math.Inf(1)}, ErrConfig, []string{"margin"}},
		{"margin a12", []Sample{good}, []Sample{cand}, Config{MarginA12: 0.5}, ErrConfig, []string{"A12 margin"}},
		{"both margins", []Sample{good}, []Sample{cand}, Config{Margin: 1, MarginA12: 0.1}, ErrConfig, []string{"both"}},
		{"permutation reps", []Sample{good}, []Sample{cand}, Config{MarginA12: 0.1, PermutationReps: -1}, ErrConfig, []string{"permutation reps", "-1"}},
		{"nan", []Sample{good}, []Sample{nan}, Config{}, ErrSample, []string{`"hard"`, `"v2"`, "seed 1"}},
		{"seeds", []Sample{good}, []Sample{short}, Config{}, ErrSample, []string{`"v2"`, "5 seeds for 6 scores"}},
		{"repeats", []Sample{good}, []Sample{shortRep}, Config{}, ErrSample, []string{"1 repeats for 6 scores"}},
		{"two baselines", []Sample{good, sample("other", "hard", []float64{1})}, []Sample{cand}, Config{}, ErrSample, []string{`"hard"`, `"main"`, `"other"`}},
		{"two candidates", []Sample{good}, []Sample{cand, cand}, Config{}, ErrSample, []string{`"hard"`, `"v2"`}},
		{"no baseline", []Sample{good}, []Sample{sample("v2", "easy", []float64{1})}, Config{}, ErrNoBaseline, []string{`"easy"`, `"v2"`}},
		{"empty", []Sample{good}, []Sample{sample("v2", "hard", nil)}, Config{}, ErrTooFew, []string{`"v2"`, "no scores"}},
		{"3 pairs", []Sample{good}, []Sample{sample("v2", "hard", []float64{1, 2, 3})}, Config{}, ErrTooFew, []string{`"v2"`, "3 pairs", "0.12"}},
		{"3 vs 3", []Sample{sample("main", "hard", []float64{1, 2, 3})}, []Sample{sample("v2", "hard", []float64{7, 8, 9})}, Config{Test: stats.TestMWU}, ErrTooFew, []string{"3 candidate and 3 baseline", "0.05"}},
		{"A12 n = 1", []Sample{good}, []Sample{sample("v2", "hard", []float64{1})}, Config{MarginA12: 0.1}, ErrTooFew, []string{"at least 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(tc.base, tc.cand, tc.cfg)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
		})
	}
}

// TestMinimalSizes: the smallest samples the gate accepts at alpha 0.05
// can fail: 5 pairs (2⁻⁵ = 0.031) and 3 vs 4 (1/35 = 0.029).
func TestMinimalSizes(t *testing.T) {
	c := one(t, sample("main", "", []float64{10, 20, 30, 40, 50}), sample("pr", "", []float64{9, 18, 27, 36, 45}), Config{})
	if !c.Regression || c.P != 1.0/32 {
		t.Errorf("5 pairs all worse: P = %v, regression %v; want 1/32, true", c.P, c.Regression)
	}
	c = one(t, sample("main", "", []float64{4, 5, 6, 7}), Sample{Version: "pr", Scores: []float64{1, 2, 3}}, Config{})
	if !c.Regression || math.Abs(c.P-1.0/35) > 1e-15 {
		t.Errorf("3 vs 4 separated: P = %v, regression %v; want 1/35, true", c.P, c.Regression)
	}
}

func TestDeterministic(t *testing.T) {
	base := []Sample{sample("main", "a", game(500, 0, 1))}
	cands := []Sample{sample("v1", "a", game(500, -5, 2)), sample("v2", "a", game(500, -50, 3))}
	first, err := Compare(base, cands, Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := JSON(first)
	for range 3 {
		again, _ := Compare(base, cands, Config{})
		b, _ := JSON(again)
		if string(a) != string(b) {
			t.Fatal("Compare is not deterministic")
		}
	}
}

// TestHolmDecides: four versions each worse on all 6 seeds have p = 2⁻⁶ =
// 0.0156 < 0.05, but Holm makes each 4·2⁻⁶ = 0.0625: no regression at
// family-wise 0.05, while uncorrected each is one.
func TestHolmDecides(t *testing.T) {
	base := sample("main", "", []float64{10, 20, 30, 40, 50, 60})
	var cands []Sample
	for _, v := range []string{"v1", "v2", "v3", "v4"} {
		cands = append(cands, sample(v, "", []float64{9, 19, 29, 39, 49, 59}))
	}
	for _, tc := range []struct {
		corr string
		padj float64
		want bool
	}{{CorrectionHolm, 4.0 / 64, false}, {CorrectionNone, 1.0 / 64, true}} {
		checks, err := Compare([]Sample{base}, cands, Config{Correction: tc.corr})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			if c.P != 1.0/64 || c.PAdj != tc.padj || c.Regression != tc.want {
				t.Errorf("%s: %s P = %v, PAdj = %v, regression %v; want 1/64, %v, %v", tc.corr, c.Name(), c.P, c.PAdj, c.Regression, tc.padj, tc.want)
			}
		}
	}
}
