package stats

import (
	"math/rand/v2"
	"slices"
)

// pairDiffs selects order statistics of the n1·n2 pairwise differences
// x_i − y_j without materialising them: O(n1 + n2) memory and expected
// O((n1 + n2)·log(n1·n2)) time per selection, after an O(n log n) sort.
//
// Algorithm: the differences form an implicit matrix D[i][j] = xs[i] −
// yd[j], xs = x ascending and yd = y descending. Floating-point
// subtraction is monotone (rounding is), so every row and every column of
// D is nondecreasing although its elements are computed, not stored, and
// each element is bit for bit the float64 x_i − y_j of the naive method.
// Selection keeps, for every row, the columns [lo[i], hi[i]) whose values
// lie strictly between two bounds known to enclose the answer, picks a
// uniformly random remaining element as pivot, counts the elements below
// and not above it with two staircase walks of O(n1 + n2), and narrows
// the bounds; once few elements remain (at most max(n1 + n2, 1024)) they
// are gathered and sorted. This is the randomized selection of Monahan
// (1984), "Algorithm 616: fast computation of the Hodges-Lehmann location
// estimator", ACM TOMS 10(3):265-270, on the sorted X − Y matrix of
// Johnson and Mizoguchi (1978), "Selecting the Kth element in X + Y and
// X1 + X2 + ... + Xm", SIAM J. Comput. 7(2):147-153. Ties are handled by
// counting both strictly-less and less-or-equal: a pivot whose tie block
// covers the wanted rank is the answer.
//
// The random pivots come from a PCG source with a fixed seed; the selected
// value does not depend on them (only the running time does).
type pairDiffs struct {
	xs, yd []float64 // x ascending, y descending
	lo, hi []int     // active columns of each row
	lt, le []int     // per-row counts of the last pivot
	rng    *rand.Rand
}

// pairDiffsSeed seeds the pivot source of pairDiffs.
const pairDiffsSeed = 1984 // the year of Monahan's algorithm

// newPairDiffs sorts copies of x and y (not modified).
func newPairDiffs(x, y []float64) *pairDiffs {
	xs, ys := sortedCopies(x, y)
	return newPairDiffsSorted(xs, ys)
}

// newPairDiffsSorted selects from the differences of xs and ys, sorted
// ascending; xs is kept (not modified), ys copied.
func newPairDiffsSorted(xs, ys []float64) *pairDiffs {
	m := &pairDiffs{xs: xs, yd: slices.Clone(ys)}
	slices.Reverse(m.yd)
	n1 := len(xs)
	buf := make([]int, 4*n1)
	m.lo, m.hi, m.lt, m.le = buf[:n1], buf[n1:2*n1], buf[2*n1:3*n1], buf[3*n1:]
	m.rng = rand.New(rand.NewPCG(pairDiffsSeed, 0))
	return m
}

// count fills c[i] with the number of columns j of row i, lo[i] <= j <
// hi[i] known to hold the boundary, such that D[i][j] < v (strict) or <= v;
// it returns the total. The boundary is nonincreasing in i, so one walk
// of the columns serves every row: O(n1 + n2).
func (m *pairDiffs) count(c []int, v float64, strict bool) int {
	total := 0
	j := len(m.yd)
	for i, xi := range m.xs {
		j = min(j, m.hi[i])
		lo := m.lo[i]
		if strict {
			for j > lo && xi-m.yd[j-1] >= v {
				j--
			}
		} else {
			for j > lo && xi-m.yd[j-1] > v {
				j--
			}
		}
		j = max(j, lo)
		c[i] = j
		total += j
	}
	return total
}

// reset makes every element active.
func (m *pairDiffs) reset() {
	for i := range m.lo {
		m.lo[i], m.hi[i] = 0, len(m.yd)
	}
}

// sel returns the k-th smallest difference, k in [0, n1·n2) (0-based),
// identical to sorting all differences and taking element k.
func (m *pairDiffs) sel(k int) float64 {
	n1, n2 := len(m.xs), len(m.yd)
	m.reset()
	below := 0 // elements left of lo: all <= the lower bound < answer
	active := n1 * n2
	small := max(n1+n2, 1024)
	for active > small {
		r := m.rng.IntN(active)
		var v float64
		for i := range m.xs {
			w := m.hi[i] - m.lo[i]
			if r < w {
				v = m.xs[i] - m.yd[m.lo[i]+r]
				break
			}
			r -= w
		}
		nlt := m.count(m.lt, v, true)
		if k < nlt {
			copy(m.hi, m.lt)
		} else {
			nle := m.count(m.le, v, false)
			if k < nle {
				return v
			}
			copy(m.lo, m.le)
			below = nle
		}
		active = 0
		for i := range m.lo {
			active += m.hi[i] - m.lo[i]
		}
	}
	rest := make([]float64, 0, active)
	for i, xi := range m.xs {
		for _, yj := range m.yd[m.lo[i]:m.hi[i]] {
			rest = append(rest, xi-yj)
		}
	}
	slices.Sort(rest)
	return rest[k-below]
}

// pair returns the k-th and (k+1)-th smallest differences (0-based), k+1 <
// n1·n2.
func (m *pairDiffs) pair(k int) (float64, float64) {
	a := m.sel(k)
	m.reset()
	if m.count(m.le, a, false) > k+1 {
		return a, a
	}
	// The next value is the smallest difference above a: the first column
	// past the count in some row.
	b, found := 0.0, false
	for i, xi := range m.xs {
		if j := m.le[i]; j < len(m.yd) {
			if d := xi - m.yd[j]; !found || d < b {
				b, found = d, true
			}
		}
	}
	return a, b
}

// median returns the median of the differences: the middle one, or the
// mean of the two middle ones when n1·n2 is even (as median of the sorted
// differences).
func (m *pairDiffs) median() float64 {
	n := len(m.xs) * len(m.yd)
	if n%2 == 1 {
		return m.sel(n / 2)
	}
	a, b := m.pair(n/2 - 1)
	return (a + b) / 2
}
