package stats_test

import (
	"fmt"
	"math/rand/v2"

	"evolve/stats"
)

// A candidate is compared with the incumbent on episode scores: is the
// candidate stochastically better (one-sided), and by how much?
func ExampleMannWhitneyU() {
	candidate := []float64{19, 22, 16, 29, 24}
	incumbent := []float64{20, 11, 17, 12}
	r, err := stats.MannWhitneyU(candidate, incumbent, stats.MWUOptions{Alternative: stats.Greater})
	if err != nil {
		panic(err)
	}
	a12, _ := stats.A12(candidate, incumbent)
	fmt.Printf("U = %g, p = %.4f (%v, %v), A12 = %.2f\n", r.U, r.P, r.Method, r.Alternative, a12)
	// Output:
	// U = 17, p = 0.0556 (exact, greater), A12 = 0.85
}

func ExampleAdjust() {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	holm, _ := stats.Adjust(p, stats.Holm)
	fmt.Printf("%.3f\n", holm)
	// Output:
	// [0.030 0.060 0.060 0.020]
}

func ExampleHodgesLehmann() {
	candidate := []float64{0.61, 0.55, 0.70, 0.66, 0.58, 0.64}
	incumbent := []float64{0.52, 0.57, 0.49, 0.60, 0.54, 0.50}
	r, _ := stats.HodgesLehmann(candidate, incumbent, stats.ShiftOptions{})
	fmt.Printf("shift %.3f, 95%% CI [%.3f, %.3f] (%v)\n", r.Estimate, r.CILow, r.CIHigh, r.Method)
	// Output:
	// shift 0.090, 95% CI [0.010, 0.160] (exact)
}

// Scores are runs × tasks; the seed makes the interval reproducible.
func ExampleBootstrapCI() {
	scores := [][]float64{
		{0.10, 0.80, 1.30},
		{0.40, 0.20, 0.90},
		{0.35, 1.10, 2.50},
		{0.05, 0.70, 1.00},
		{0.60, 0.95, 0.15},
	}
	ci, err := stats.BootstrapCI(scores, stats.AggregateIQM, stats.BootstrapConfig{
		Reps: 2000, Rand: rand.New(rand.NewPCG(42, 0)),
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("IQM %.3f, 95%% CI [%.3f, %.3f]\n", ci.Point, ci.Low, ci.High)
	// Output:
	// IQM 0.656, 95% CI [0.406, 0.856]
}
