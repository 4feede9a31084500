package gate_test

import (
	"fmt"

	"evolve/gate"
)

// A pull request's version is compared with main's on the same seeds: a
// paired, one-sided signed-rank test per version, Holm across versions.
// v1.0.1 has 7 nonzero differences (one seed tied), v1.0.2 is worse on
// all 8 seeds: p = 2⁻⁸, doubled by Holm for the family of two.
func ExampleCompare() {
	seeds := []uint64{11, 12, 13, 14, 15, 16, 17, 18}
	main := gate.Sample{Version: "main", Seeds: seeds, Scores: []float64{520, 310, 700, 450, 610, 380, 560, 490}}
	same := gate.Sample{Version: "v1.0.1", Seeds: seeds, Scores: []float64{525, 300, 705, 455, 600, 385, 560, 500}}
	worse := gate.Sample{Version: "v1.0.2", Seeds: seeds, Scores: []float64{440, 250, 610, 380, 530, 330, 470, 420}}
	checks, err := gate.Compare([]gate.Sample{main}, []gate.Sample{same, worse}, gate.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range checks {
		fmt.Printf("%s: %s V = %g, p = %.4f, p (Holm) = %.4f, regression %v\n", c.Name(), c.Test, c.Statistic, c.P, c.PAdj, c.Regression)
	}
	// With a margin of 100 points the worse version is within tolerance.
	checks, _ = gate.Compare([]gate.Sample{main}, []gate.Sample{worse}, gate.Config{Margin: 100})
	fmt.Printf("margin 100: p = %.4f, regression %v\n", checks[0].P, checks[0].Regression)
	// Output:
	// v1.0.1: signed-rank V = 16, p = 0.6172, p (Holm) = 0.6172, regression false
	// v1.0.2: signed-rank V = 0, p = 0.0039, p (Holm) = 0.0078, regression true
	// margin 100: p = 1.0000, regression false
}
