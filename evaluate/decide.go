package evaluate

import (
	"fmt"

	"evolve/envs"

	"evolve/stats"
)

// Gate is the statistical acceptance rule of a generation.
type Gate struct {
	// Alpha is the family-wise significance level, in (0, 1).
	Alpha float64
	// Correction adjusts the candidates' p-values for multiple comparison
	// (Holm by default in experiment configs).
	Correction stats.Correction
}

// Comparison is one candidate's val scores compared with the incumbent's.
type Comparison struct {
	// Summary of the candidate's val scores.
	Summary stats.Summary
	// Test is the one-sided Mann-Whitney U test, candidate greater than
	// incumbent; Test.U is the candidate's U statistic.
	Test stats.MWUResult
	// PAdj is Test.P adjusted across the generation's candidates, in [0, 1].
	PAdj float64
	// A12 is the Vargha-Delaney effect size U/(n1·n2), in [0, 1]: the
	// probability that a random candidate episode outscores a random
	// incumbent episode (ties count half). 0.5 is no effect.
	A12 float64
	// Significant reports PAdj < Alpha and a candidate mean above the
	// incumbent's.
	Significant bool
}

// Decision is the outcome of a generation's statistical gate.
type Decision struct {
	// Incumbent summarises the incumbent's val scores.
	Incumbent stats.Summary
	// Candidates holds one Comparison per candidate, in input order.
	Candidates []Comparison
	// Accepted is the index of the accepted candidate, or -1 to keep the
	// incumbent.
	Accepted int
}

// Decide compares each candidate's val scores with the incumbent's by the
// one-sided Mann-Whitney U test (candidate greater; stats.MannWhitneyU,
// Auto method), adjusts the p-values across candidates with
// g.Correction, and accepts, among the candidates significant at g.Alpha
// whose val mean exceeds the incumbent's, the one with the best val mean
// (the earliest on a tie). This is step 6 of the reference design, with a
// multiple-comparison correction added because k candidates are tested
// against one incumbent. It returns an error if a sample is empty or holds
// NaN, or Alpha is outside (0, 1).
func Decide(incumbent []float64, candidates [][]float64, g Gate) (Decision, error) {
	if !(g.Alpha > 0 && g.Alpha < 1) {
		return Decision{}, fmt.Errorf("alpha %v is out of range (0, 1)", g.Alpha)
	}
	d := Decision{Accepted: -1, Candidates: make([]Comparison, len(candidates))}
	if len(incumbent) == 0 {
		return Decision{}, fmt.Errorf("incumbent: %w", stats.ErrSampleSize)
	}
	d.Incumbent = stats.Summarize(incumbent)
	ps := make([]float64, len(candidates))
	for i, c := range candidates {
		cmp := &d.Candidates[i]
		cmp.Summary = stats.Summarize(c)
		var err error
		cmp.Test, err = stats.MannWhitneyU(c, incumbent, stats.MWUOptions{Alternative: stats.Greater})
		if err != nil {
			return Decision{}, fmt.Errorf("candidate %d: %w", i, err)
		}
		cmp.A12 = cmp.Test.U / float64(cmp.Test.N1*cmp.Test.N2)
		ps[i] = cmp.Test.P
	}
	if len(candidates) == 0 {
		return d, nil
	}
	adj, err := stats.Adjust(ps, g.Correction)
	if err != nil {
		return Decision{}, err
	}
	for i := range d.Candidates {
		cmp := &d.Candidates[i]
		cmp.PAdj = adj[i]
		cmp.Significant = cmp.PAdj < g.Alpha && cmp.Summary.Mean > d.Incumbent.Mean
		if cmp.Significant && (d.Accepted < 0 || cmp.Summary.Mean > d.Candidates[d.Accepted].Summary.Mean) {
			d.Accepted = i
		}
	}
	return d, nil
}

// Scores returns the scores of outcomes as float64, in order.
func Scores(outs []envs.Outcome) []float64 {
	s := make([]float64, len(outs))
	for i := range outs {
		s[i] = float64(outs[i].Score)
	}
	return s
}
