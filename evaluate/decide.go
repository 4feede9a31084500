package evaluate

import (
	"fmt"

	"evolve/envs"

	"evolve/stats"
)

// Test names the acceptance test of a Gate.
type Test int

const (
	// MWU is the one-sided Mann-Whitney U test of the candidate's val
	// scores against the incumbent's, as independent samples
	// (stats.MannWhitneyU, Auto method). The reference design's test.
	MWU Test = iota
	// SignedRank is the one-sided Wilcoxon signed-rank test of the paired
	// differences candidate − incumbent, paired by val seed
	// (stats.WilcoxonSignedRank, Auto method, Wilcox zero handling). Every
	// version plays the same val seeds, so pairing removes the seed's
	// difficulty from the comparison: the more powerful test when the
	// samples are paired.
	SignedRank
)

// String returns the test's config name: "mwu" or "signed-rank".
func (t Test) String() string {
	if t == SignedRank {
		return "signed-rank"
	}
	return "mwu"
}

// ParseTest parses a config test name, "mwu" or "signed-rank". The error
// names the bad value and the allowed ones.
func ParseTest(s string) (Test, error) {
	switch s {
	case "mwu":
		return MWU, nil
	case "signed-rank":
		return SignedRank, nil
	}
	return 0, fmt.Errorf("unknown acceptance test %q (allowed: mwu, signed-rank)", s)
}

// Gate is the statistical acceptance rule of a generation.
type Gate struct {
	// Test is the acceptance test; the zero value is MWU.
	Test Test
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
	// incumbent; Test.U is the candidate's U statistic. It is computed
	// whatever the gate's test, for the U and A12 columns.
	Test stats.MWUResult
	// SignedRank is the one-sided Wilcoxon signed-rank test of the paired
	// differences candidate − incumbent, set only when the gate's test is
	// SignedRank; SignedRank.TPlus is R's V.
	SignedRank *stats.SignedRankResult
	// P is the unadjusted one-sided p-value of the gate's test (Test.P or
	// SignedRank.P), in [0, 1].
	P float64
	// PAdj is P adjusted across the generation's candidates, in [0, 1].
	PAdj float64
	// A12 is the Vargha-Delaney effect size U/(n1·n2), in [0, 1]: the
	// probability that a random candidate episode outscores a random
	// incumbent episode (ties count half). 0.5 is no effect.
	A12 float64
	// Significant reports PAdj < Alpha and a candidate mean above the
	// incumbent's (for a group-sequential gate: an efficacy stop and a
	// mean above the incumbent's on the same seeds; DecideSequential).
	Significant bool
	// Look is the look a group-sequential gate stopped the candidate at
	// (1-based), 0 for the fixed-sample gate.
	Look int
	// Stop is why a group-sequential gate stopped the candidate
	// (StopEfficacy, StopFutility, StopFinal), "" for the fixed-sample
	// gate.
	Stop string
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
// gate's one-sided test (candidate greater): the Mann-Whitney U test
// (stats.MannWhitneyU, Auto method) or, for SignedRank, the Wilcoxon
// signed-rank test of candidate[i][j] − incumbent[j] (the two are paired
// by position, i.e. by seed, and must have equal lengths), adjusts the p-values across candidates with
// g.Correction, and accepts, among the candidates significant at g.Alpha
// whose val mean exceeds the incumbent's, the one with the best val mean
// (the earliest on a tie). This is step 6 of the reference design, with a
// multiple-comparison correction added because k candidates are tested
// against one incumbent. It returns an error if a sample is empty or holds
// NaN, Alpha is outside (0, 1), or, for SignedRank, a candidate's length
// differs from the incumbent's.
func Decide(incumbent []float64, candidates [][]float64, g Gate) (Decision, error) {
	if err := stats.CheckAlpha(g.Alpha); err != nil {
		return Decision{}, err
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
		cmp.P = cmp.Test.P
		if g.Test == SignedRank {
			if len(c) != len(incumbent) {
				return Decision{}, fmt.Errorf("candidate %d: %d val scores, incumbent %d: a signed-rank test needs pairs", i, len(c), len(incumbent))
			}
			sr, err := stats.WilcoxonSignedRank(c, incumbent, stats.SignedRankOptions{Alternative: stats.Greater})
			if err != nil {
				return Decision{}, fmt.Errorf("candidate %d: %w", i, err)
			}
			cmp.SignedRank, cmp.P = &sr, sr.P
		}
		ps[i] = cmp.P
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
