package stats

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestSequentialBoundsScipy checks SequentialBounds against boundaries
// computed with scipy's multivariate normal CDF (Genz's algorithm) by
// testdata/sequential/bounds.py: O'Brien-Fleming and Pocock types, α
// 0.025, 0.05 and 0.0304, 2 to 5 looks, equal and unequal spacing.
func TestSequentialBoundsScipy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "sequential", "bounds.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Spending string
			Alpha    float64
			T        []float64
			Bounds   []float64
		}
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 24 {
		t.Fatalf("%d reference cases, want 24", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		s, err := ParseSpending(c.Spending)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SequentialBounds(c.Alpha, c.T, s)
		if err != nil {
			t.Fatalf("%s α=%v t=%v: %v", c.Spending, c.Alpha, c.T, err)
		}
		for k := range b {
			if math.Abs(b[k]-c.Bounds[k]) > 1e-4 { // Genz's error at 5 looks is about 2e-6 in probability
				t.Errorf("%s α=%v t=%v: b_%d = %.7f, scipy %.7f", c.Spending, c.Alpha, c.T, k+1, b[k], c.Bounds[k])
			}
		}
		cp, err := CrossingProbabilities(b, c.T, 0)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for k, p := range cp {
			sum += p
			if want := s.Spent(c.Alpha, c.T[k]); math.Abs(sum-want) > 1e-8 {
				t.Errorf("%s α=%v t=%v: spent %.10f by look %d, want %.10f", c.Spending, c.Alpha, c.T, sum, k+1, want)
			}
		}
	}
}

// TestSequentialPower: with one look the design is the fixed-sample
// z-test (b = z_{1−α}, power Φ(θ − z_{1−α})), and three O'Brien-Fleming
// looks lose little power against it (about 1 point at 90%; Jennison &
// Turnbull 2000, table 2.3: the inflation factor of 3 OBF looks is 1.02).
func TestSequentialPower(t *testing.T) {
	b, err := SequentialBounds(0.025, []float64{1}, OBrienFleming)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b[0]-1.959963985) > 1e-7 {
		t.Errorf("one look: b = %v, want z_0.975 = 1.959964", b[0])
	}
	theta := 1.959963985 + 1.281551566 // fixed-sample power 0.9
	cp, _ := CrossingProbabilities(b, []float64{1}, theta)
	if math.Abs(cp[0]-0.9) > 1e-7 {
		t.Errorf("one look: power %v, want 0.9", cp[0])
	}
	t3 := []float64{1.0 / 3, 2.0 / 3, 1}
	b3, _ := SequentialBounds(0.025, t3, OBrienFleming)
	cp3, _ := CrossingProbabilities(b3, t3, theta)
	power := cp3[0] + cp3[1] + cp3[2]
	if power > 0.9 || power < 0.885 {
		t.Errorf("three OBF looks: power %v, want in [0.885, 0.9]", power)
	}
}

func TestSequentialDesignErrors(t *testing.T) {
	for _, tc := range []struct {
		alpha float64
		t     []float64
	}{
		{0.05, nil},
		{0, []float64{1}},
		{0.6, []float64{1}},
		{0.05, []float64{0.5, 0.5, 1}},
		{0.05, []float64{0.5, 0.9}},
		{0.05, []float64{0, 1}},
	} {
		if _, err := SequentialBounds(tc.alpha, tc.t, Pocock); !errors.Is(err, ErrDesign) {
			t.Errorf("SequentialBounds(%v, %v): %v, want ErrDesign", tc.alpha, tc.t, err)
		}
	}
	if _, err := ParseSpending("haybittle"); err == nil {
		t.Error("ParseSpending(haybittle): no error")
	}
}

// TestBaselAlpha: the generations' levels sum to α (to 1e-4 after 10^4
// generations: the tail is about 6α/(π²·10^4)).
func TestBaselAlpha(t *testing.T) {
	sum := 0.0
	for g := 1; g <= 10000; g++ {
		sum += BaselAlpha(0.05, g)
	}
	if sum > 0.05 || 0.05-sum > 0.05*1e-4 {
		t.Errorf("Σ α_g = %v, want just under 0.05", sum)
	}
	if got := BaselAlpha(0.05, 1); math.Abs(got-0.0303963551) > 1e-9 {
		t.Errorf("α_1 = %v, want 0.0303963551", got)
	}
	if !math.IsNaN(BaselAlpha(0.05, 0)) {
		t.Error("α_0 is not NaN")
	}
}
