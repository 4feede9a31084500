package accept

import (
	"fmt"
	"math"

	"evolve/envs"
	"evolve/gate"
	"evolve/stats"
)

// Rule is the statistical acceptance rule of a generation.
type Rule struct {
	// Test is the acceptance test, a test registered with
	// stats.UseAcceptance (stats.TestMWU, stats.TestSignedRank); ""
	// means stats.TestMWU.
	Test stats.TestName
	// Alpha is the family-wise significance level, in (0, 1).
	Alpha float64
	// Correction adjusts the candidates' p-values for multiple comparison
	// (Holm by default in experiment configs).
	Correction stats.Correction
}

// test returns g's test, stats.TestMWU for "".
func (g Rule) test() stats.TestName {
	if g.Test == "" {
		return stats.TestMWU
	}
	return g.Test
}

// Candidate is one candidate's part of a Decision: its acceptance check
// against the incumbent with what the run's tables add to it.
//
// Check's fields: Hypothesis is gate.HypothesisSuperiority; Test the
// gate's test; Statistic its statistic (U, or V = T+ of the differences
// candidate − incumbent for the signed-rank test); P its one-sided
// p-value (candidate greater), in [0, 1]; PAdj P adjusted across the
// generation's candidates, in [0, 1]; A12 the Vargha-Delaney effect size
// U/(n1·n2), in [0, 1] (the probability that a random candidate episode
// outscores a random incumbent episode, ties counting half; 0.5 is no
// effect); N and NBaseline the candidate's and the incumbent's val
// scores, NPaired the pairs of a paired test; Mean, BaselineMean and
// MeanDiff the val means; Alpha and Correction the gate's; Failed that
// the candidate is not significant (see Significant). Power, HLShift,
// HLLow and HLHigh are NaN (not computed by a run); Message is "".
type Candidate struct {
	// Check is the candidate's acceptance check against the incumbent.
	Check gate.Check
	// Summary of the candidate's val scores.
	Summary stats.Summary
	// U is the candidate's Mann-Whitney U statistic against the
	// incumbent, in [0, n1·n2], whatever the gate's test (the U column of
	// candidates.parquet; A12 is U/(n1·n2)).
	U float64
	// Look is the look a group-sequential gate stopped the candidate at
	// (1-based), 0 for the fixed-sample gate.
	Look int
	// Stop is why a group-sequential gate stopped the candidate
	// (StopEfficacy, StopFutility, StopFinal), "" for the fixed-sample
	// gate.
	Stop string
}

// Significant reports that the candidate may be accepted: PAdj < Alpha
// and a val mean above the incumbent's (for a group-sequential gate: an
// efficacy stop and a mean above the incumbent's on the same seeds;
// DecideSequential). It is !Failed.
func (c Candidate) Significant() bool { return !c.Check.Failed }

// SignedRankV returns the signed-rank statistic V = T+ when the check's
// test is stats.TestSignedRank, else nil (null in candidates.parquet).
func (c Candidate) SignedRankV() *float64 {
	if c.Check.Test != stats.TestSignedRank {
		return nil
	}
	v := c.Check.Statistic
	return &v
}

// Decision is the outcome of a generation's statistical gate.
type Decision struct {
	// Incumbent summarises the incumbent's val scores.
	Incumbent stats.Summary
	// Candidates holds one Candidate per candidate, in input order.
	Candidates []Candidate
	// Accepted is the index of the accepted candidate, or -1 to keep the
	// incumbent.
	Accepted int
}

// Decide compares each candidate's val scores with the incumbent's by the
// gate's one-sided test (candidate greater), run through its
// registration (stats.LookupTest): the Mann-Whitney U test
// (stats.MannWhitneyU, Auto method) or, for stats.TestSignedRank, the
// Wilcoxon signed-rank test of candidate[i][j] − incumbent[j] (the two
// are paired by position, i.e. by seed, and must have equal lengths),
// adjusts the p-values across candidates with g.Correction, and accepts,
// among the candidates significant at g.Alpha whose val mean exceeds the
// incumbent's, the one with the best val mean (the earliest on a tie).
// This is step 6 of the reference design, with a multiple-comparison
// correction added because k candidates are tested against one
// incumbent. The U statistic and A12 are computed whatever the test. It
// returns an error if a sample is empty or holds NaN, Alpha is outside
// (0, 1), the test is not registered, or, for a paired test, a
// candidate's length differs from the incumbent's.
func Decide(incumbent []float64, candidates [][]float64, g Rule) (Decision, error) {
	if err := stats.CheckAlpha(g.Alpha); err != nil {
		return Decision{}, err
	}
	spec, ok := stats.LookupTest(g.test())
	if !ok || spec.Run == nil {
		return Decision{}, fmt.Errorf("acceptance test %q does not run on scores", g.test())
	}
	d := Decision{Accepted: -1, Candidates: make([]Candidate, len(candidates))}
	if len(incumbent) == 0 {
		return Decision{}, fmt.Errorf("incumbent: %w", stats.ErrSampleSize)
	}
	d.Incumbent = stats.Summarize(incumbent)
	ps := make([]float64, len(candidates))
	for i, c := range candidates {
		cmp := &d.Candidates[i]
		cmp.Summary = stats.Summarize(c)
		u, err := stats.MannWhitneyU(c, incumbent, stats.MWUOptions{Alternative: stats.Greater})
		if err != nil {
			return Decision{}, fmt.Errorf("candidate %d: %w", i, err)
		}
		cmp.Check = gate.Check{
			Hypothesis: gate.HypothesisSuperiority, Test: spec.Name,
			N: len(c), NBaseline: len(incumbent),
			Mean: cmp.Summary.Mean, BaselineMean: d.Incumbent.Mean, MeanDiff: cmp.Summary.Mean - d.Incumbent.Mean,
			Statistic: u.U, P: u.P, A12: u.U / float64(u.N1*u.N2),
			HLShift: math.NaN(), HLLow: math.NaN(), HLHigh: math.NaN(), Power: math.NaN(),
			Alpha: g.Alpha, Correction: g.Correction.String(),
		}
		cmp.U = u.U
		if spec.Name != stats.TestMWU {
			paired := spec.Design != stats.DesignIndependent && len(c) == len(incumbent)
			if spec.Design == stats.DesignPaired && len(c) != len(incumbent) {
				return Decision{}, fmt.Errorf("candidate %d: %d val scores, incumbent %d: a %s test needs pairs", i, len(c), len(incumbent), spec.Name)
			}
			r, err := spec.Run(stats.TestInput{X: c, Y: incumbent, Paired: paired, Alternative: stats.Greater})
			if err != nil {
				return Decision{}, fmt.Errorf("candidate %d: %w", i, err)
			}
			cmp.Check.Statistic, cmp.Check.P, cmp.Check.Paired = r.Statistic, r.P, paired
			if paired {
				cmp.Check.NPaired = len(c)
			}
		}
		ps[i] = cmp.Check.P
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
		cmp.Check.PAdj = adj[i]
		cmp.Check.Failed = !(cmp.Check.PAdj < g.Alpha && cmp.Summary.Mean > d.Incumbent.Mean)
		if cmp.Significant() && (d.Accepted < 0 || cmp.Summary.Mean > d.Candidates[d.Accepted].Summary.Mean) {
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
