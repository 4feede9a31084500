package gate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// delongBrute computes Â12 and its DeLong standard error from the n1·n2
// kernel values ψ(x_i, y_j) ∈ {0, 1/2, 1} directly (DeLong, DeLong and
// Clarke-Pearson 1988, eq. for V10, V01, S10, S01).
func delongBrute(x, y []float64) (a, se float64) {
	psi := func(p, q float64) float64 {
		switch {
		case p > q:
			return 1
		case p == q:
			return 0.5
		}
		return 0
	}
	v10 := make([]float64, len(x))
	v01 := make([]float64, len(y))
	for i, p := range x {
		for j, q := range y {
			k := psi(p, q)
			v10[i] += k / float64(len(y))
			v01[j] += k / float64(len(x))
			a += k
		}
	}
	a /= float64(len(x) * len(y))
	var s10, s01 float64
	for _, v := range v10 {
		s10 += (v - a) * (v - a)
	}
	for _, v := range v01 {
		s01 += (v - a) * (v - a)
	}
	s10 /= float64(len(x) - 1)
	s01 /= float64(len(y) - 1)
	return a, math.Sqrt(s10/float64(len(x)) + s01/float64(len(y)))
}

// TestA12HandExample: x = (1, 2, 3), y = (2, 4). Placements V10 = (0, 1/4,
// 1/2), V01 = (1/2, 0); Â = 1/4; S10 = 1/16, S01 = 1/8; SE² = 1/48 + 1/16
// = 1/12. Against theta0 = 0.4: z = −0.15·√12 = −0.519615…, p = Φ(z) =
// 0.3016659…
func TestA12HandExample(t *testing.T) {
	r := a12NonInferiority([]float64{1, 2, 3}, []float64{2, 4}, 0.4)
	const tol = 1e-12
	wantZ := -0.15 * math.Sqrt(12)
	if math.Abs(r.A12-0.25) > tol || math.Abs(r.SE-math.Sqrt(1.0/12)) > tol || math.Abs(r.Z-wantZ) > tol {
		t.Errorf("A12 = %v, SE = %v, z = %v; want 0.25, %v, %v", r.A12, r.SE, r.Z, math.Sqrt(1.0/12), wantZ)
	}
	if math.Abs(r.P-0.3016659) > 1e-7 {
		t.Errorf("p = %v, want 0.3016659 (R: pnorm(-0.15*sqrt(12)))", r.P)
	}
	if len(r.Warnings) != 1 {
		t.Errorf("warnings %q, want the small-sample one", r.Warnings)
	}
}

// TestA12BruteForce compares the O(N log N) placements with the O(n1·n2)
// definition on tied and untied data.
func TestA12BruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n1, n2 := 2+rng.IntN(40), 2+rng.IntN(40)
		levels := 3 + rng.IntN(50) // few levels: many ties
		x := make([]float64, n1)
		y := make([]float64, n2)
		for i := range x {
			x[i] = float64(rng.IntN(levels))
		}
		for j := range y {
			y[j] = float64(rng.IntN(levels)) + float64(trial%3-1)
		}
		r := a12NonInferiority(x, y, 0.45)
		a, se := delongBrute(x, y)
		if math.Abs(r.A12-a) > 1e-12 || math.Abs(r.SE-se) > 1e-12 {
			t.Fatalf("trial %d: A12 = %v, SE = %v; brute force %v, %v", trial, r.A12, r.SE, a, se)
		}
		if se > 0 {
			if want := phi((a - 0.45) / se); math.Abs(r.P-want) > 1e-14 {
				t.Fatalf("trial %d: p = %v, want %v", trial, r.P, want)
			}
		}
	}
}

func TestA12Degenerate(t *testing.T) {
	tests := []struct {
		name  string
		x, y  []float64
		wantP float64
	}{
		{"candidate all below", []float64{1, 2}, []float64{5, 6}, 0},
		{"candidate all above", []float64{7, 8}, []float64{5, 6}, 1},
		{"all tied", []float64{3, 3, 3}, []float64{3, 3}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a12NonInferiority(tc.x, tc.y, 0.4)
			if r.SE != 0 || r.P != tc.wantP || len(r.Warnings) != 2 {
				t.Errorf("SE = %v, p = %v, warnings %q; want 0, %v, 2 warnings", r.SE, r.P, r.Warnings, tc.wantP)
			}
		})
	}
}

// TestA12Compare: through Compare, Statistic is z and P its lower tail.
func TestA12Compare(t *testing.T) {
	x, y := game(150, -10, 2), game(150, 0, 1)
	c := one(t, Sample{Version: "main", Scores: y}, Sample{Version: "pr", Scores: x}, Config{MarginA12: 0.08})
	a, se := delongBrute(x, y)
	if c.Test != TestA12 || math.Abs(c.A12-a) > 1e-12 || math.Abs(c.Statistic-(a-0.42)/se) > 1e-9 || math.Abs(c.P-phi((a-0.42)/se)) > 1e-12 {
		t.Errorf("check %+v; want A12 %v, z %v", c, a, (a-0.42)/se)
	}
}
