package accept

import (
	"fmt"
	"math"

	"evolve/stats"
)

// Why a group-sequential gate stopped a candidate (Candidate.Stop).
const (
	// StopEfficacy: the statistic reached the look's efficacy boundary.
	StopEfficacy = "efficacy"
	// StopFutility: at an interim look the statistic fell below the
	// futility bound.
	StopFutility = "futility"
	// StopFinal: the last look came without a crossing.
	StopFinal = "final"
	// StopDropped: under simultaneous stopping (Sequential.Simultaneous),
	// another candidate of the generation was accepted at this look, so
	// this one stopped there without crossing a boundary.
	StopDropped = "dropped"
)

// Sequential is a group-sequential acceptance gate (Jennison & Turnbull
// 2000, ch. 7): each candidate is tested at Looks looks on the first
// n_k = ⌈k·N/K⌉ of the N val seeds, and stops at the first look where its
// standardised statistic reaches the Lan-DeMets efficacy boundary
// (stats.SequentialBounds with Spending) or, before the last look, falls
// below Futility. The zero value (Looks 0 or 1) is the fixed-sample gate.
type Sequential struct {
	// Looks is K, in [1, 20]; <= 1 means no interim look.
	Looks int
	// Spending is the α-spending function over the looks.
	Spending stats.Spending
	// Futility, if not nil, is the z below which a candidate stops at an
	// interim look (non-binding: the boundaries ignore it).
	Futility *float64
	// Simultaneous is the simultaneous stopping rule of multi-arm
	// multi-stage designs (Urach & Posch 2016; Magirr, Jaki & Whitehead
	// 2012): the generation stops at the first look where a candidate
	// can be accepted (Design.Settled), the candidates still going
	// stopping there too (StopDropped). false is separate stopping: every
	// candidate goes on until its own boundary. Either way each
	// candidate's test keeps its level (stopping others early only
	// removes chances to reject), but simultaneous stopping may accept a
	// candidate that crossed first over a better one that would have
	// crossed later.
	Simultaneous bool
}

// Design is a Sequential gate laid out for one generation: the looks'
// sample sizes and information fractions, and the efficacy boundaries at
// the per-candidate level.
type Design struct {
	// N holds n_k, the val episodes per candidate at look k (1-based k at
	// index k−1), increasing, the last the val split's size.
	N []int
	// T holds the information fractions n_k/N.
	T []float64
	// Bounds holds the efficacy boundaries b_k on the z scale.
	Bounds []float64
	// Alpha is the one-sided level per candidate the bounds spend:
	// the generation's α over its m candidates (Bonferroni).
	Alpha float64
	// Futility is Sequential.Futility.
	Futility *float64
	// Simultaneous is Sequential.Simultaneous.
	Simultaneous bool
}

// LookSizes returns n_k = ⌈k·n/looks⌉ for k = 1..looks with the empty
// looks (n_k = n_{k−1}, when looks > n) dropped.
func LookSizes(n, looks int) []int {
	var out []int
	for k := 1; k <= looks; k++ {
		nk := (k*n + looks - 1) / looks
		if nk > 0 && (len(out) == 0 || nk > out[len(out)-1]) {
			out = append(out, nk)
		}
	}
	return out
}

// Design lays the gate out for a generation of m candidates (>= 1) on n
// val seeds (>= 1) at generation level alpha. The error is
// stats.SequentialBounds's (wrapping stats.ErrDesign).
func (s Sequential) Design(alpha float64, m, n int) (Design, error) {
	if m < 1 || n < 1 {
		return Design{}, fmt.Errorf("%w: %d candidates on %d val seeds", stats.ErrDesign, m, n)
	}
	d := Design{N: LookSizes(n, max(s.Looks, 1)), Alpha: alpha / float64(m), Futility: s.Futility, Simultaneous: s.Simultaneous}
	d.T = make([]float64, len(d.N))
	for k, nk := range d.N {
		d.T[k] = float64(nk) / float64(n)
	}
	var err error
	d.Bounds, err = stats.SequentialBounds(d.Alpha, d.T, s.Spending)
	return d, err
}

// Check returns why a candidate whose statistic is z stops at look k
// (0-based), or "" when it goes on to the next look.
func (d Design) Check(k int, z float64) string {
	switch {
	case z >= d.Bounds[k]:
		return StopEfficacy
	case k == len(d.N)-1:
		return StopFinal
	case d.Futility != nil && z < *d.Futility:
		return StopFutility
	}
	return ""
}

// Settled reports whether, under simultaneous stopping, the generation
// stops at look k (0-based): some candidate i stopped there
// (looks[i] == k+1) for efficacy with a val mean above the incumbent's on
// the same seeds, that is a candidate DecideSequential accepts from. inc
// is the incumbent's val scores (at least n_k), cands[i] the scores
// candidate i played so far, stops[i] and looks[i] as DecideSequential
// takes them. It is false without Simultaneous.
func (d Design) Settled(k int, inc []float64, cands [][]float64, stops []string, looks []int) bool {
	if !d.Simultaneous {
		return false
	}
	for i, c := range cands {
		if stops[i] == StopEfficacy && looks[i] == k+1 && len(c) <= len(inc) &&
			stats.MeanOf(c) > stats.MeanOf(inc[:len(c)]) {
			return true
		}
	}
	return false
}

// Run plays the looks of one generation of m candidates (>= 1) against
// the incumbent's val scores inc (at least the last n_k of them). At look
// k it calls play with the indices of the candidates still going, in
// increasing order, and the val seeds [from, to) = [n_{k−1}, n_k) to play;
// play returns each going candidate's scores on those seeds, in seed
// order. Each going candidate is then checked (Check, on Rule.Z of its
// scores so far against inc's first n_k) and, under simultaneous
// stopping, the candidates still going stop with StopDropped when the
// look is Settled. It returns each candidate's scores on the seeds it
// played and why and at which look (1-based) it stopped, the arguments of
// DecideSequential. The errors are play's, or Rule.Z's naming the
// candidate's index.
func (d Design) Run(inc []float64, m int, g Rule, play func(going []int, from, to int) ([][]float64, error)) (scores [][]float64, stops []string, looks []int, err error) {
	scores, stops, looks = make([][]float64, m), make([]string, m), make([]int, m)
	from := 0
	for k, nk := range d.N {
		var going []int
		for i := range m {
			if stops[i] == "" {
				going = append(going, i)
			}
		}
		if len(going) == 0 {
			break
		}
		played, err := play(going, from, nk)
		if err != nil {
			return nil, nil, nil, err
		}
		for j, i := range going {
			scores[i] = append(scores[i], played[j]...)
			z, err := g.Z(scores[i], inc[:nk])
			if err != nil {
				return nil, nil, nil, fmt.Errorf("candidate %d: %w", i, err)
			}
			if stop := d.Check(k, z); stop != "" {
				stops[i], looks[i] = stop, k+1
			}
		}
		if d.Settled(k, inc, scores, stops, looks) {
			for _, i := range going {
				if stops[i] == "" {
					stops[i], looks[i] = StopDropped, k+1
				}
			}
		}
		from = nk
	}
	return scores, stops, looks, nil
}

// Z is the standardised statistic of the gate's test of cand against
// inc (the incumbent's scores on the same seeds, in the same order): the
// normal approximation's z without continuity correction, with the tie
// correction of its variance, of the one-sided Mann-Whitney U test
// (stats.MannWhitneyU) or of the Wilcoxon signed-rank test of the paired
// differences (stats.WilcoxonSignedRank). 0 when every score ties. The
// error is stats', or names a test without a z of this form.
func (g Rule) Z(cand, inc []float64) (float64, error) {
	switch g.test() {
	case stats.TestMWU:
	case stats.TestSignedRank:
		if len(cand) != len(inc) {
			return 0, fmt.Errorf("%d candidate scores, %d incumbent: a signed-rank test needs pairs", len(cand), len(inc))
		}
		r, err := stats.WilcoxonSignedRank(cand, inc, stats.SignedRankOptions{Alternative: stats.Greater, Method: stats.Asymptotic, NoContinuity: true})
		return zeroNaN(r.Z), err
	default:
		return 0, fmt.Errorf("the group-sequential gate has no standardised statistic for test %q", g.test())
	}
	r, err := stats.MannWhitneyU(cand, inc, stats.MWUOptions{Alternative: stats.Greater, Method: stats.Asymptotic, NoContinuity: true})
	return zeroNaN(r.Z), err
}

func zeroNaN(z float64) float64 {
	if math.IsNaN(z) {
		return 0
	}
	return z
}

// DecideSequential is Decide for a group-sequential gate: candidates[i]
// holds the val scores candidate i played before it stopped (its first
// n_i seeds) and stops[i] why it stopped (StopEfficacy, StopFutility,
// StopFinal), looks[i] the look (1-based). Each candidate is summarised
// and tested as Decide does against the incumbent's first n_i scores
// (the same seeds); its PAdj is P·m capped at 1 (Bonferroni, the
// correction the design's boundaries use). A candidate is Significant
// when it stopped for efficacy and its mean exceeds the incumbent's on
// the same seeds; the accepted one is the significant candidate with the
// best val mean (the earliest on a tie). Errors are Decide's.
func DecideSequential(incumbent []float64, candidates [][]float64, stops []string, looks []int, g Rule) (Decision, error) {
	if len(stops) != len(candidates) || len(looks) != len(candidates) {
		return Decision{}, fmt.Errorf("%d candidates, %d stops, %d looks", len(candidates), len(stops), len(looks))
	}
	if len(incumbent) == 0 {
		return Decision{}, fmt.Errorf("incumbent: %w", stats.ErrSampleSize)
	}
	d := Decision{Accepted: -1, Incumbent: stats.Summarize(incumbent), Candidates: make([]Candidate, len(candidates))}
	for i, c := range candidates {
		if len(c) > len(incumbent) {
			return Decision{}, fmt.Errorf("candidate %d: %d val scores, more than the incumbent's %d", i, len(c), len(incumbent))
		}
		inc := incumbent[:len(c)]
		one, err := Decide(inc, [][]float64{c}, Rule{Test: g.Test, Alpha: g.Alpha, Correction: stats.None})
		if err != nil {
			return Decision{}, fmt.Errorf("candidate %d: %w", i, err)
		}
		cmp := one.Candidates[0]
		cmp.Check.PAdj = math.Min(1, cmp.Check.P*float64(len(candidates)))
		cmp.Look, cmp.Stop = looks[i], stops[i]
		cmp.Check.Failed = !(stops[i] == StopEfficacy && cmp.Summary.Mean > one.Incumbent.Mean)
		cmp.Check.Correction = stats.Bonferroni.String()
		d.Candidates[i] = cmp
		if cmp.Significant() && (d.Accepted < 0 || cmp.Summary.Mean > d.Candidates[d.Accepted].Summary.Mean) {
			d.Accepted = i
		}
	}
	return d, nil
}
