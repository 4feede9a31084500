package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// errorTexts renders warnings for comparison (fmt.Errorf values are
// distinct pointers even when equal).
func errorTexts(ws []error) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Error()
	}
	return strings.Join(s, "; ")
}

// TestSortedVariants checks that MannWhitneyUSorted, A12Sorted,
// HodgesLehmannSorted and SummarizeSorted on sorted copies give the
// results of MannWhitneyU, A12, HodgesLehmann and Summarize on the
// samples in their drawn order, bit for bit, for every kind of sample
// (ties, scores, continuous, rounding differences, all tied), sizes from
// 1 to past the Auto-exact limits, and every alternative, method and
// continuity setting.
func TestSortedVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 8))
	for _, g := range sampleGens {
		for _, n := range [][2]int{{1, 1}, {3, 7}, {12, 9}, {40, 45}, {70, 90}} {
			x, y := g.draw(rng, n[0]), g.draw(rng, n[1])
			xs, ys := slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y))
			t.Run(fmt.Sprintf("%s/%dx%d", g.name, n[0], n[1]), func(t *testing.T) {
				for _, alt := range []Alternative{TwoSided, Greater, Less} {
					for _, m := range []Method{Auto, Exact, Asymptotic} {
						for _, noCont := range []bool{false, true} {
							opt := MWUOptions{Alternative: alt, Method: m, NoContinuity: noCont}
							want, err1 := MannWhitneyU(x, y, opt)
							got, err2 := MannWhitneyUSorted(xs, ys, opt)
							if err1 != nil || err2 != nil {
								t.Fatalf("%+v: errors %v, %v", opt, err1, err2)
							}
							if !sameMWU(got, want) {
								t.Errorf("%+v: MannWhitneyUSorted %+v, MannWhitneyU %+v", opt, got, want)
							}
							sopt := ShiftOptions{Alternative: alt, Method: m, NoContinuity: noCont, ConfLevel: 0.9}
							hw, err1 := HodgesLehmann(x, y, sopt)
							hg, err2 := HodgesLehmannSorted(xs, ys, sopt)
							if err1 != nil || err2 != nil {
								t.Fatalf("%+v: errors %v, %v", sopt, err1, err2)
							}
							if !sameShift(hg, hw) {
								t.Errorf("%+v: HodgesLehmannSorted %+v, HodgesLehmann %+v", sopt, hg, hw)
							}
						}
					}
				}
				aw, err1 := A12(x, y)
				ag, err2 := A12Sorted(xs, ys)
				if err1 != nil || err2 != nil || ag != aw {
					t.Errorf("A12Sorted %v (%v), A12 %v (%v)", ag, err2, aw, err1)
				}
				for _, s := range [][2][]float64{{x, xs}, {y, ys}} {
					sw, sg := Summarize(s[0]), SummarizeSorted(s[0], s[1])
					if fmt.Sprint(sg) != fmt.Sprint(sw) {
						t.Errorf("SummarizeSorted %+v, Summarize %+v", sg, sw)
					}
				}
			})
		}
	}
}

func sameMWU(a, b MWUResult) bool {
	return a.N1 == b.N1 && a.N2 == b.N2 && a.U == b.U && sameFloat(a.Z, b.Z) && a.P == b.P &&
		a.Method == b.Method && a.Alternative == b.Alternative && a.Ties == b.Ties &&
		errorTexts(a.Warnings) == errorTexts(b.Warnings)
}

func sameShift(a, b ShiftResult) bool {
	return a.N1 == b.N1 && a.N2 == b.N2 && sameFloat(a.Estimate, b.Estimate) && sameFloat(a.RootEstimate, b.RootEstimate) &&
		sameFloat(a.CILow, b.CILow) && sameFloat(a.CIHigh, b.CIHigh) && a.ConfLevel == b.ConfLevel &&
		a.Method == b.Method && a.Alternative == b.Alternative && a.Ties == b.Ties &&
		errorTexts(a.Warnings) == errorTexts(b.Warnings)
}

// TestSortedContract: the *Sorted functions return the errors of their
// unsorted forms for empty samples and NaN, and panic, naming
// themselves, on a sample that is not sorted ascending.
func TestSortedContract(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		x, y   []float64
		target error
	}{
		{"empty x", nil, []float64{1}, ErrSampleSize},
		{"empty y", []float64{1}, nil, ErrSampleSize},
		{"NaN", []float64{nan, 1}, []float64{1}, ErrNaN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := MannWhitneyUSorted(tc.x, tc.y, MWUOptions{}); !errors.Is(err, tc.target) {
				t.Errorf("MannWhitneyUSorted: %v, want %v", err, tc.target)
			}
			if _, err := A12Sorted(tc.x, tc.y); !errors.Is(err, tc.target) {
				t.Errorf("A12Sorted: %v, want %v", err, tc.target)
			}
			if _, err := HodgesLehmannSorted(tc.x, tc.y, ShiftOptions{}); !errors.Is(err, tc.target) {
				t.Errorf("HodgesLehmannSorted: %v, want %v", err, tc.target)
			}
		})
	}
	unsorted, sorted := []float64{2, 1, 3}, []float64{1, 2, 3}
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"MannWhitneyUSorted", func() { MannWhitneyUSorted(sorted, unsorted, MWUOptions{}) }},
		{"A12Sorted", func() { A12Sorted(unsorted, sorted) }},
		{"HodgesLehmannSorted", func() { HodgesLehmannSorted(sorted, unsorted, ShiftOptions{}) }},
		{"SummarizeSorted", func() { SummarizeSorted(unsorted, unsorted) }},
		{"SummarizeSorted", func() { SummarizeSorted(unsorted, sorted[:2]) }},
	} {
		t.Run("panic/"+tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "stats: "+tc.name+":") {
					t.Errorf("recovered %v, want a panic naming stats: %s", r, tc.name)
				}
			}()
			tc.call()
		})
	}
}

// TestMergeRuns checks the run-length merge of the asymptotic shift
// interval's W(d) against mergeRanks on every shifted observation: the
// same 2U and tie term, bit for bit, for shifts at and between pairwise
// differences and for shifts large enough that rounding moves distinct
// values onto one.
func TestMergeRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 9))
	for _, g := range sampleGens {
		x, y := g.draw(rng, 70), g.draw(rng, 50)
		xs, ys := slices.Sorted(slices.Values(x)), slices.Sorted(slices.Values(y))
		xr, yr := runsOf(xs), runsOf(ys)
		ds := []float64{0, math.Copysign(0, -1), 1e17, -3e16, 0.35}
		for range 40 {
			ds = append(ds, x[rng.IntN(len(x))]-y[rng.IntN(len(y))])
		}
		for _, d := range ds {
			shifted := make([]float64, len(xs))
			for i, v := range xs {
				shifted[i] = v - d
			}
			want := mergeRanks(shifted, ys, false)
			sv := make([]float64, len(xr.v))
			for i, v := range xr.v {
				sv[i] = v - d
			}
			u2, tie := mergeRuns(sv, xr.n, yr.v, yr.n)
			if u2 != want.u2 || tie != want.tieTerm {
				t.Errorf("%s, d = %v: mergeRuns 2U %d, tie term %v; mergeRanks %d, %v", g.name, d, u2, tie, want.u2, want.tieTerm)
			}
		}
	}
	// Distinct values that a shift rounds onto one: 1 − 2⁵³ and
	// (1 + 2⁻⁵²) − 2⁵³ both round to −(2⁵³ − 1).
	xs := []float64{1, 1 + 0x1p-52, 2, 2}
	if d := 0x1p53; xs[0]-d != xs[1]-d {
		t.Fatal("no rounding collision: the case below tests nothing")
	}
	ys := []float64{-0x1p53, 3}
	xr, yr := runsOf(xs), runsOf(ys)
	for _, d := range []float64{0x1p53, -0x1p53, 0x1p54} {
		shifted := make([]float64, len(xs))
		sv := make([]float64, len(xr.v))
		for i, v := range xs {
			shifted[i] = v - d
		}
		for i, v := range xr.v {
			sv[i] = v - d
		}
		want := mergeRanks(shifted, ys, false)
		if u2, tie := mergeRuns(sv, xr.n, yr.v, yr.n); u2 != want.u2 || tie != want.tieTerm {
			t.Errorf("d = %v: mergeRuns 2U %d, tie term %v; mergeRanks %d, %v", d, u2, tie, want.u2, want.tieTerm)
		}
	}
}
