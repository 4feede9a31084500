package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedDiffs materialises and sorts the n1·n2 differences x_i − y_j: the
// naive method, kept as the oracle of pairDiffs.
func sortedDiffs(x, y []float64) []float64 {
	d := make([]float64, 0, len(x)*len(y))
	for _, xi := range x {
		for _, yj := range y {
			d = append(d, xi-yj)
		}
	}
	slices.Sort(d)
	return d
}

// hodgesLehmannNaive is HodgesLehmann as it was before the selection
// algorithm (O(n1·n2) memory): the oracle of the property tests. x and y
// must be valid (non-empty, finite) and opt resolved (ConfLevel set).
func hodgesLehmannNaive(x, y []float64, opt ShiftOptions) ShiftResult {
	n1, n2 := len(x), len(y)
	res := ShiftResult{N1: n1, N2: n2, Alternative: opt.Alternative, ConfLevel: opt.ConfLevel, RootEstimate: math.NaN()}
	diffs := sortedDiffs(x, y)
	res.Estimate = median(diffs)
	res.Ties = pooledRanks(x, y, false).ties
	method := opt.Method
	if method == Auto {
		method = Asymptotic
		if n1 < AutoExactShiftMax && n2 < AutoExactShiftMax && !res.Ties {
			method = Exact
		}
	}
	if method == Exact && res.Ties {
		res.Warnings = append(res.Warnings, WarnTiesCI)
		method = Asymptotic
	}
	if method == Exact && rankSumCells(min(n1, n2), max(n1, n2), 1) > MaxExactCells {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w (n1 = %d, n2 = %d)", WarnExactTooLarge, n1, n2))
		method = Asymptotic
	}
	res.Method = method
	alpha := 1 - opt.ConfLevel
	if method == Exact {
		exactShiftCI(&res, func(k int) float64 { return diffs[k] }, alpha)
		return res
	}
	asymptoticShiftCI(&res, slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y)), alpha, !opt.NoContinuity)
	return res
}

// sameFloat is bit-for-bit equality, except that it treats −0 and +0 as
// equal (their order among tied differences is the sort's choice) and any
// two NaNs as equal.
func sameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// sampleGen draws one sample of size n of a given kind.
type sampleGen struct {
	name string
	draw func(rng *rand.Rand, n int) []float64
}

var sampleGens = []sampleGen{
	{"ties", func(rng *rand.Rand, n int) []float64 { // few distinct integers, many ties
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(7) - 3)
		}
		return x
	}},
	{"scores", func(rng *rand.Rand, n int) []float64 { return integerScores(rng, n, 40+20*rng.Float64()) }},
	{"continuous", func(rng *rand.Rand, n int) []float64 { // no ties, negative and positive
		x := make([]float64, n)
		for i := range x {
			x[i] = 100 * rng.NormFloat64()
		}
		return x
	}},
	{"rounding", func(rng *rand.Rand, n int) []float64 { // differences that round: 1e16 + small
		x := make([]float64, n)
		for i := range x {
			x[i] = 1e16 + float64(rng.IntN(9))*0.7
			if rng.IntN(2) == 0 {
				x[i] = -x[i] / 3
			}
		}
		return x
	}},
	{"all-tied", func(rng *rand.Rand, n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = -2.5
		}
		return x
	}},
}

// TestPairDiffsSelect checks every order statistic (small samples) or
// random ones (samples large enough for the pivoting loop) of pairDiffs
// against the sorted materialised differences, bit for bit.
func TestPairDiffsSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for _, g := range sampleGens {
		for _, sz := range [][2]int{{1, 1}, {1, 7}, {6, 1}, {5, 8}, {40, 33}, {150, 90}, {1, 3000}, {700, 2}} {
			t.Run(fmt.Sprintf("%s/%dx%d", g.name, sz[0], sz[1]), func(t *testing.T) {
				x, y := g.draw(rng, sz[0]), g.draw(rng, sz[1])
				want := sortedDiffs(x, y)
				m := newPairDiffs(x, y)
				ks := make([]int, 0, 64)
				if len(want) <= 2000 {
					for k := range want {
						ks = append(ks, k)
					}
				} else {
					ks = append(ks, 0, len(want)-1, len(want)/2, len(want)/2-1)
					for range 40 {
						ks = append(ks, rng.IntN(len(want)))
					}
				}
				for _, k := range ks {
					if got := m.sel(k); !sameFloat(got, want[k]) {
						t.Fatalf("sel(%d) = %v, want %v", k, got, want[k])
					}
					if k+1 < len(want) {
						a, b := m.pair(k)
						if !sameFloat(a, want[k]) || !sameFloat(b, want[k+1]) {
							t.Fatalf("pair(%d) = %v, %v, want %v, %v", k, a, b, want[k], want[k+1])
						}
					}
				}
				if got, w := m.median(), median(want); !sameFloat(got, w) {
					t.Errorf("median = %v, want %v", got, w)
				}
			})
		}
	}
}

// TestHodgesLehmannNaive is the property test of the selection algorithm:
// on many random small samples (with ties, negative values, rounding
// differences, all tied, n = 1), HodgesLehmann returns exactly what the
// naive method (hodgesLehmannNaive) returns, for every method and
// alternative.
func TestHodgesLehmannNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for trial := range 300 {
		g := sampleGens[trial%len(sampleGens)]
		n1, n2 := 1+rng.IntN(60), 1+rng.IntN(60)
		if trial%10 == 0 {
			n1 = 1
		}
		x, y := g.draw(rng, n1), g.draw(rng, n2)
		if trial%3 == 0 { // a shift, so that the estimate is not about 0
			for i := range x {
				x[i] += 2
			}
		}
		opt := ShiftOptions{
			ConfLevel:    []float64{0.8, 0.9, 0.95, 0.99}[rng.IntN(4)],
			Alternative:  []Alternative{TwoSided, Greater, Less}[rng.IntN(3)],
			Method:       []Method{Auto, Exact, Asymptotic}[rng.IntN(3)],
			NoContinuity: rng.IntN(2) == 0,
		}
		got, err := HodgesLehmann(x, y, opt)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want := hodgesLehmannNaive(x, y, opt)
		if !sameFloat(got.Estimate, want.Estimate) || !sameFloat(got.RootEstimate, want.RootEstimate) ||
			!sameFloat(got.CILow, want.CILow) || !sameFloat(got.CIHigh, want.CIHigh) ||
			!sameFloat(got.ConfLevel, want.ConfLevel) || got.Method != want.Method || got.Ties != want.Ties ||
			fmt.Sprint(got.Warnings) != fmt.Sprint(want.Warnings) {
			t.Errorf("trial %d (%s, n1 = %d, n2 = %d, %+v):\ngot  %+v\nwant %+v", trial, g.name, n1, n2, opt, got, want)
		}
	}
}

// TestHodgesLehmannEdges: hand-checked values.
func TestHodgesLehmannEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want float64 // the median of the pairwise differences, by hand
	}{
		{"n=1", []float64{3}, []float64{5}, -2},
		{"all tied", []float64{4, 4, 4}, []float64{4, 4}, 0},
		// −10 − (−1, −2, −3) = −9, −8, −7; −7 − (−1, −2, −3) = −6, −5, −4.
		{"negative", []float64{-10, -7}, []float64{-1, -2, -3}, -6.5},
		{"even mean of middle two", []float64{1, 2}, []float64{0}, 1.5},
		{"odd", []float64{1, 2, 10}, []float64{0}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := HodgesLehmann(c.x, c.y, ShiftOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Estimate != c.want {
				t.Errorf("Estimate = %v, want %v", r.Estimate, c.want)
			}
		})
	}
}
