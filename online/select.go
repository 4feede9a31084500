package online

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Defaults of the graph prompt design.
const (
	// DefaultEpsilon is the exploration probability of epsilon-greedy.
	DefaultEpsilon = 0.2
	// InitialWeight is the edge weight of a version with no observation.
	InitialWeight = 0.5
	// DefaultAlpha is the EMA's smoothing factor: weight <- 0.9 weight +
	// 0.1 score.
	DefaultAlpha = 0.1
)

// Variant is one candidate of a selection: a prompt version with its edge
// weight and optional context weights.
type Variant struct {
	ID             string             // e.g. "dungeon-agent@v1.2.0"
	Weight         float64            // EMA edge weight in [0, 1], InitialWeight before any observation
	ContextWeights map[string]float64 // signal name -> weight (any sign); nil or empty: none
}

// ContextFit is dot(cw, s) / sum |cw|, the design's context fit: in
// [-1, 1] when the signals are in [0, 1]. A signal named in cw but absent
// from s counts 0; signals not in cw are ignored. It is 0 when cw is
// empty or all its weights are 0.
func ContextFit(cw map[string]float64, s Signals) float64 {
	var dot, norm float64
	for name, w := range cw {
		dot += w * s[name]
		norm += math.Abs(w)
	}
	if norm == 0 {
		return 0
	}
	return dot / norm
}

// TotalScore is the design's score of v under signals s: 0.5 v.Weight +
// 0.5 ContextFit(v.ContextWeights, s), or v.Weight alone when v has no
// context weights.
func TotalScore(v Variant, s Signals) float64 {
	if len(v.ContextWeights) == 0 {
		return v.Weight
	}
	return 0.5*v.Weight + 0.5*ContextFit(v.ContextWeights, s)
}

// Choice is the outcome of one selection.
type Choice struct {
	Index    int       // the chosen variant's index in the slice given to Select
	Explored bool      // true if chosen uniformly at random (exploration), false if the best score (exploitation)
	Scores   []float64 // TotalScore of every variant, same order and length as the variants
}

// EpsilonGreedy selects a variant per request (Sutton and Barto,
// Reinforcement Learning, 2nd ed., 2018, sec. 2.2-2.3): with probability
// Epsilon a variant drawn uniformly (explore; it may be the best one),
// else the variant of the highest TotalScore, ties to the lowest index
// (exploit). So with n variants the best is chosen with probability
// 1 - Epsilon + Epsilon/n and each other with Epsilon/n.
//
// A selection is a pure function of (Seed, request, variants, signals):
// its random numbers come from a PCG generator (math/rand/v2) seeded with
// (Seed, request mixed by SplitMix64), so replaying a request number
// replays its choice.
type EpsilonGreedy struct {
	Epsilon float64 // exploration probability in [0, 1]; DefaultEpsilon is the design's
	Seed    uint64  // the selection stream's seed
}

// Validate returns an error unless Epsilon is a number in [0, 1].
func (e EpsilonGreedy) Validate() error {
	if !(e.Epsilon >= 0 && e.Epsilon <= 1) {
		return fmt.Errorf("epsilon must be in [0, 1]: %v", e.Epsilon)
	}
	return nil
}

// Select chooses among vs for request number request under signals s.
// It panics if vs is empty or Epsilon is invalid (see Validate): both
// are the caller's contract.
func (e EpsilonGreedy) Select(vs []Variant, s Signals, request uint64) Choice {
	if len(vs) == 0 {
		panic("online: Select with no variants")
	}
	if err := e.Validate(); err != nil {
		panic("online: " + err.Error())
	}
	c := Choice{Scores: make([]float64, len(vs))}
	for i, v := range vs {
		c.Scores[i] = TotalScore(v, s)
		if c.Scores[i] > c.Scores[c.Index] {
			c.Index = i
		}
	}
	r := rand.New(rand.NewPCG(e.Seed, splitmix64(request)))
	if r.Float64() < e.Epsilon {
		c.Index, c.Explored = r.IntN(len(vs)), true
	}
	return c
}

// splitmix64 is the finaliser of SplitMix64 (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014): it
// spreads consecutive request numbers over the PCG's second seed word.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
