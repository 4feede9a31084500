package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"evolve/mutate"
	"evolve/results"
	"evolve/rundir"
	"evolve/seeds"
)

// proposerFor returns the run's proposer for generation g by
// mutation.proposer: the failure-driven mutate.Composed (the default),
// mutate.Random or mutate.CMAES.
func (r *run) proposerFor(g int) mutate.Proposer {
	switch mutate.ProposerName(r.cfg.Mutation.Proposer) {
	case mutate.ProposerRandom:
		return &mutate.Random{Seed: r.proposerSeed(), Generation: g}
	case mutate.ProposerCMAES:
		return &mutate.CMAES{Seed: r.proposerSeed(), Start: r.base.PolicyParameters, History: r.cmaesHistory(g)}
	}
	p := r.proposer()
	p.OnDropped = func(res mutate.LLMRule) { r.logLLMRule(g, res) }
	return p
}

// proposerSeed is the seed of a baseline proposer's randomness: the first
// eight bytes (big-endian) of the SHA-256 of "evolve proposer", the
// proposer's name and the SHA-256 of the train and val seed files. It is
// fixed by the run's seed sets, so a replicate on other seed sets gets
// another stream and a resumed run the same one.
func (r *run) proposerSeed() uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "evolve proposer\x00%s\x00%s\x00%s", mutate.ProposerName(r.cfg.Mutation.Proposer),
		r.seeds.Hashes[seeds.Train], r.seeds.Hashes[seeds.Val])
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// cmaesHistory returns the val means of the candidates of each generation
// before g, in version order (the order they were proposed in), from the
// run's candidate rows: those of this session and, after a resume, those
// read back from candidates.parquet.
func (r *run) cmaesHistory(g int) [][]float64 {
	byGen := make([][]results.CandidateRow, g)
	for _, c := range r.candidates {
		if int(c.Generation) < g {
			byGen[c.Generation] = append(byGen[c.Generation], c)
		}
	}
	out := make([][]float64, g)
	for h, rows := range byGen {
		slices.SortStableFunc(rows, func(a, b results.CandidateRow) int { return results.CompareVersions(a.Version, b.Version) })
		out[h] = make([]float64, len(rows))
		for i, c := range rows {
			out[h][i] = c.Mean
		}
	}
	return out
}

// episodeCounts counts the run's recorded episodes per split (over all
// sessions: a resumed run reads its episodes back).
func (r *run) episodeCounts() rundir.EpisodeCounts {
	var c rundir.EpisodeCounts
	for i := range r.episodes {
		switch r.episodes[i].Split {
		case PhaseTrain:
			c.Train++
		case PhaseVal:
			c.Val++
		case PhaseTest:
			c.Test++
		}
	}
	c.Budgeted, c.Budget = c.Train+c.Val, r.cfg.Budget.Episodes
	return c
}

// generationCost bounds the train and val episodes of one generation:
// the incumbent on the train seeds and mutation.candidates candidates on
// the val seeds.
func (r *run) generationCost() int {
	return len(r.seeds.Train) + r.cfg.Mutation.Candidates*len(r.seeds.Val)
}

// checkBudget refuses a budget.episodes that cannot pay for the base
// version's val phase and one generation.
func (r *run) checkBudget() error {
	b := r.cfg.Budget.Episodes
	if need := len(r.seeds.Val) + r.generationCost(); b > 0 && b < need {
		return fmt.Errorf("budget.episodes: %d is less than the %d train and val episodes the base version's val phase (%d) and one generation (%d train + %d candidates x %d val) need",
			b, need, len(r.seeds.Val), len(r.seeds.Train), r.cfg.Mutation.Candidates, len(r.seeds.Val))
	}
	return nil
}

// budgetSpent reports whether the next generation could exceed
// budget.episodes, given the episodes played so far.
func (r *run) budgetSpent() bool {
	b := r.cfg.Budget.Episodes
	return b > 0 && r.episodeCounts().Budgeted+r.generationCost() > b
}

// annotate fills in the rows of generation g what the proposer and the
// budget add: each candidate row's proposer, and the generation row's
// cumulative train and val episodes (those of the base version's val
// phase included).
func (r *run) annotate(g int) {
	name := mutate.ProposerName(r.cfg.Mutation.Proposer)
	for i := range r.candidates {
		if int(r.candidates[i].Generation) == g {
			r.candidates[i].Proposer = name
		}
	}
	used := int64(r.episodeCounts().Budgeted)
	for i := range r.generations {
		if int(r.generations[i].Generation) == g {
			r.generations[i].EpisodesUsed = used
		}
	}
}
