package online_test

import (
	"fmt"

	"evolve/online"
)

// A coding request: the variant whose context weights favour coding
// outscores the plain one of the same weight, and epsilon-greedy
// exploits it unless the request's draw explores.
func ExampleEpsilonGreedy_Select() {
	vs := []online.Variant{
		{ID: "agent@v1.0.1", Weight: 0.5},
		{ID: "agent@v1.0.3", Weight: 0.5, ContextWeights: map[string]float64{"task_coding": 0.8, "energy_high": -0.2}},
	}
	s := online.Signals{"task_coding": 1}
	eg := online.EpsilonGreedy{Epsilon: online.DefaultEpsilon, Seed: 1}
	c := eg.Select(vs, s, 7)
	fmt.Printf("scores %.2f %.2f; chose %s (explored %v)\n", c.Scores[0], c.Scores[1], vs[c.Index].ID, c.Explored)
	// Output: scores 0.50 0.65; chose agent@v1.0.3 (explored false)
}

// The design's EMA from 0.5 under perfect observations.
func ExampleEMA() {
	perfect := online.Observation{Sentiment: 1, Success: online.SuccessFull}
	w := online.InitialWeight
	for n := 1; n <= 22; n++ {
		w = online.EMA(w, perfect.Score(), online.DefaultAlpha)
		if n == 15 || n == 16 || n == 22 {
			fmt.Printf("after %d: %.4f\n", n, w)
		}
	}
	// Output:
	// after 15: 0.8971
	// after 16: 0.9073
	// after 22: 0.9508
}
