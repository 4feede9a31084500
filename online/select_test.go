package online

import (
	"math"
	"testing"
)

func TestContextFitAndTotalScore(t *testing.T) {
	cw := map[string]float64{"user_frustrated": 0.9, "task_coding": 0.8, "energy_high": -0.3}
	tests := []struct {
		name      string
		v         Variant
		s         Signals
		fit, want float64
	}{
		// dot = 0.9*1 + 0.8*1 - 0.3*0 = 1.7; sum |w| = 2.0.
		{"design example", Variant{Weight: 0.5, ContextWeights: cw}, Signals{"user_frustrated": 1, "task_coding": 1}, 0.85, 0.5*0.5 + 0.5*0.85},
		// dot = 0.9*0.5 - 0.3*1 = 0.15; /2.0 = 0.075.
		{"negative weight", Variant{Weight: 0.6, ContextWeights: cw}, Signals{"user_frustrated": 0.5, "energy_high": 1}, 0.075, 0.3 + 0.0375},
		{"missing signals count 0", Variant{Weight: 0.7, ContextWeights: cw}, nil, 0, 0.35},
		{"no context weights: the weight alone", Variant{Weight: 0.7}, Signals{"task_coding": 1}, 0, 0.7},
		{"all-zero context weights", Variant{Weight: 0.4, ContextWeights: map[string]float64{"task_coding": 0}}, Signals{"task_coding": 1}, 0, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContextFit(tt.v.ContextWeights, tt.s); math.Abs(got-tt.fit) > 1e-12 {
				t.Errorf("ContextFit = %v, want %v", got, tt.fit)
			}
			if got := TotalScore(tt.v, tt.s); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("TotalScore = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSelectShares checks epsilon-greedy's selection frequencies over
// 10,000 seeded requests against its expected shares: the best variant
// 1 - eps + eps/n, each other eps/n. Each count must lie within the
// binomial 99.9% interval p n +- 3.29 sqrt(n p (1-p)) (normal
// approximation), and the exploration count within the same interval of
// eps. The exact counts of this seed are asserted too.
func TestSelectShares(t *testing.T) {
	vs := []Variant{
		{ID: "a@v1.0.0", Weight: 0.5},
		{ID: "b@v1.0.0", Weight: 0.8, ContextWeights: map[string]float64{"task_coding": 1}},
		{ID: "c@v1.0.0", Weight: 0.9},
		{ID: "d@v1.0.0", Weight: 0.2, ContextWeights: map[string]float64{"task_coding": -1}},
	}
	s := Signals{"task_coding": 1} // scores 0.5, 0.9, 0.9, -0.4: b wins the tie with c by index
	const n = 10000
	tests := []struct {
		eps      float64
		counts   [4]int // of seed 42
		explored int
	}{
		{0.2, [4]int{515, 8478, 497, 510}, 2031},
		{0.5, [4]int{1328, 6194, 1231, 1247}, 5009},
		{0, [4]int{0, n, 0, 0}, 0},
		{1, [4]int{2536, 2457, 2470, 2537}, n},
	}
	for _, tt := range tests {
		eg := EpsilonGreedy{Epsilon: tt.eps, Seed: 42}
		var counts [4]int
		explored := 0
		for req := range uint64(n) {
			c := eg.Select(vs, s, req)
			counts[c.Index]++
			if c.Explored {
				explored++
			}
			if req == 0 && (len(c.Scores) != 4 || math.Abs(c.Scores[1]-0.9) > 1e-12 || math.Abs(c.Scores[3]+0.4) > 1e-12) {
				t.Fatalf("scores %v, want [0.5 0.9 0.9 -0.4]", c.Scores)
			}
		}
		within := func(count int, p float64) bool {
			half := 3.29 * math.Sqrt(n*p*(1-p))
			return math.Abs(float64(count)-n*p) <= half+1e-9
		}
		for i, c := range counts {
			p := tt.eps / 4
			if i == 1 {
				p += 1 - tt.eps
			}
			if !within(c, p) {
				t.Errorf("eps %v: variant %d chosen %d times, expected share %.3f (%.0f)", tt.eps, i, c, p, n*p)
			}
		}
		if !within(explored, tt.eps) {
			t.Errorf("eps %v: %d explorations, expected %.0f", tt.eps, explored, n*tt.eps)
		}
		t.Logf("eps %v: counts %v (expected best %.0f, others %.0f), explored %d", tt.eps, counts, n*(1-tt.eps+tt.eps/4), n*tt.eps/4, explored)
		if counts != tt.counts || explored != tt.explored {
			t.Errorf("eps %v: counts %v explored %d; seed 42 gave %v, %d", tt.eps, counts, explored, tt.counts, tt.explored)
		}
	}
}

// TestSelectReproducible: a request number replays its choice, and other
// seeds give other streams.
func TestSelectReproducible(t *testing.T) {
	vs := []Variant{{Weight: 0.5}, {Weight: 0.5}, {Weight: 0.5}}
	a, b := EpsilonGreedy{Epsilon: 0.5, Seed: 7}, EpsilonGreedy{Epsilon: 0.5, Seed: 8}
	diff := 0
	for req := range uint64(1000) {
		c1, c2 := a.Select(vs, nil, req), a.Select(vs, nil, req)
		if c1.Index != c2.Index || c1.Explored != c2.Explored {
			t.Fatalf("request %d: %+v then %+v", req, c1, c2)
		}
		if b.Select(vs, nil, req).Index != c1.Index {
			diff++
		}
	}
	if diff < 200 {
		t.Errorf("seeds 7 and 8 chose differently in %d of 1000 requests, want many", diff)
	}
}

func TestEpsilonValidate(t *testing.T) {
	for _, eps := range []float64{-0.1, 1.1, math.NaN()} {
		if (EpsilonGreedy{Epsilon: eps}).Validate() == nil {
			t.Errorf("epsilon %v accepted", eps)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Select with no variants did not panic")
		}
	}()
	EpsilonGreedy{}.Select(nil, nil, 0)
}

// BenchmarkSelect: one selection among 4 variants with context weights.
func BenchmarkSelect(b *testing.B) {
	vs := []Variant{
		{Weight: 0.5}, {Weight: 0.8, ContextWeights: map[string]float64{"task_coding": 1}},
		{Weight: 0.9}, {Weight: 0.2, ContextWeights: map[string]float64{"task_coding": -1, "user_frustrated": 0.5}},
	}
	s := Signals{"task_coding": 1, "user_frustrated": 0.3}
	eg := EpsilonGreedy{Epsilon: DefaultEpsilon, Seed: 1}
	for i := 0; b.Loop(); i++ {
		eg.Select(vs, s, uint64(i))
	}
}
