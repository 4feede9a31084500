package experiment

import (
	"context"
	"fmt"

	"evolve/accept"
	"evolve/envs"
)

// playSequential plays generation g's candidates under the
// group-sequential gate (acceptance.sequential; accept.Sequential):
// look by look, the candidates still going play the next val seeds as
// one pool, and each stops when its statistic against the incumbent's
// first n_k val scores crosses the efficacy boundary or, at an interim
// look, falls below the futility bound; under simultaneous stopping
// (acceptance.sequential.stopping) every candidate stops at the first
// look where one can be accepted (accept.Design.Settled). The accepted candidate, if it
// stopped early, then plays the rest of the val seeds, as the next
// incumbent needs all of them (its Candidate keeps the n it was
// decided on). The outcomes are in val seed order, a candidate's
// holding the seeds it played; the decision is
// accept.DecideSequential's. Every step depends only on the seeds'
// scores, so the result is the same for any worker count and executor.
func (r *run) playSequential(ctx context.Context, g int, cands []draft, incVal []float64, gate accept.Rule) ([][]envs.Outcome, accept.Decision, error) {
	seq, err := r.cfg.sequential()
	if err != nil {
		return nil, accept.Decision{}, err
	}
	val := r.seeds.Val
	design, err := seq.Design(gate.Alpha, len(cands), len(val))
	if err != nil {
		return nil, accept.Decision{}, fmt.Errorf("generation %d: acceptance.sequential: %w", g, err)
	}
	outs := make([][]envs.Outcome, len(cands))
	candVal, stops, looks, err := design.Run(incVal, len(cands), gate, func(going []int, from, to int) ([][]float64, error) {
		sub := make([]draft, len(going))
		for j, i := range going {
			sub[j] = cands[i]
		}
		played, err := r.playPool(ctx, g, PhaseVal, sub, val[from:to])
		if err != nil {
			return nil, err
		}
		scores := make([][]float64, len(going))
		for j, i := range going {
			outs[i] = append(outs[i], played[j]...)
			scores[j] = accept.Scores(played[j])
		}
		return scores, nil
	})
	if err != nil {
		return nil, accept.Decision{}, fmt.Errorf("generation %d: %w", g, err)
	}
	dec, err := accept.DecideSequential(incVal, candVal, stops, looks, gate)
	if err != nil {
		return nil, accept.Decision{}, fmt.Errorf("generation %d: %w", g, err)
	}
	if a := dec.Accepted; a >= 0 && len(outs[a]) < len(val) {
		rest, err := r.playPool(ctx, g, PhaseVal, cands[a:a+1], val[len(outs[a]):])
		if err != nil {
			return nil, accept.Decision{}, err
		}
		outs[a] = append(outs[a], rest[0]...)
	}
	return outs, dec, nil
}

// lookOf is the look a candidate stopped at, nil (null in
// candidates.parquet) without interim looks.
func lookOf(c accept.Candidate) *int32 {
	if c.Look == 0 {
		return nil
	}
	v := int32(c.Look)
	return &v
}
