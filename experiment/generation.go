package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"evolve/accept"
	"evolve/envs"
	"evolve/failure"
	"evolve/mutate"
	"evolve/play"
	"evolve/prompt"
	"evolve/results"
)

// generation runs generation g from the incumbent inc (whose val scores
// are incVal) and returns its summary and, if a candidate was accepted,
// the new incumbent and its val scores. It changes nothing on disk until
// every episode is played, then writes the candidates. Its steps, each in
// the package named for it:
//
//  1. play train: the incumbent on the train seeds (package play, through
//     the run's executor);
//  2. analyse failures: count the train episodes' failure causes
//     (failure.Analyze);
//  3. propose: k candidates from the analysis (mutate.Proposer, the run's
//     mutate.Composed), each given its version;
//  4. play candidates: every candidate on the val seeds, as one pool
//     (play.PlayAll);
//  5. decide: the gate's test of each candidate against the incumbent
//     (accept.Decide);
//  6. record: the episodes, the candidates as versions with their
//     evidence, and the generation's rows (results).
func (r *run) generation(ctx context.Context, g int, inc *prompt.Prompt, incVal []float64) (Generation, *prompt.Prompt, []float64, error) {
	gen := Generation{Index: g, Incumbent: inc.Version.String(), Accepted: -1}
	trainOuts, err := r.playRaw(ctx, g, PhaseTrain, inc, r.seeds.Train)
	if err != nil {
		return gen, nil, nil, err
	}
	gen.Failures = failure.Analyze(r.info.CauseNames(), trainOuts)
	gen.TrainMean = mean(accept.Scores(trainOuts))
	cands, err := r.propose(ctx, g, gen.Failures, accept.Scores(trainOuts), inc)
	if err != nil {
		return gen, nil, nil, err
	}
	gate := r.gate
	gate.Alpha = r.cfg.alphaOf(g)
	var candOuts [][]envs.Outcome
	var dec accept.Decision
	if r.cfg.Acceptance.Sequential.Looks > 1 && len(cands) > 0 {
		candOuts, dec, err = r.playSequential(ctx, g, cands, incVal, gate)
	} else {
		candOuts, dec, err = r.playAndDecide(ctx, g, cands, incVal, gate)
	}
	if err != nil {
		return gen, nil, nil, err
	}
	gen.Decision, gen.Val, gen.Accepted = dec, dec.Incumbent, dec.Accepted
	next, err := r.recordGeneration(&gen, inc, trainOuts, cands, candOuts)
	if err != nil || next == nil {
		return gen, nil, nil, err
	}
	return gen, next, accept.Scores(candOuts[dec.Accepted]), nil
}

// playAndDecide plays every candidate on every val seed as one pool
// (playCandidates) and decides by the fixed-sample gate
// (accept.Decide).
func (r *run) playAndDecide(ctx context.Context, g int, cands []draft, incVal []float64, gate accept.Rule) ([][]envs.Outcome, accept.Decision, error) {
	candOuts, err := r.playCandidates(ctx, g, cands)
	if err != nil {
		return nil, accept.Decision{}, err
	}
	candVal := make([][]float64, len(cands))
	for i := range candOuts {
		candVal[i] = accept.Scores(candOuts[i])
	}
	dec, err := accept.Decide(incVal, candVal, gate)
	if err != nil {
		return nil, accept.Decision{}, fmt.Errorf("generation %d: %w", g, err)
	}
	return candOuts, dec, nil
}

// draft is a proposed candidate: its mutation, its version, and the
// prompt played on val (its mutation record without evidence yet).
type draft struct {
	mut     mutate.Mutation
	version prompt.Version
	prompt  *prompt.Prompt
}

// proposer is the run's proposer (mutate.Composed): the config's remedy
// table (or the environment's), the environment's rule library when the
// agent reads text, and the language model when agent.propose_rules is
// set.
func (r *run) proposer() *mutate.Composed {
	c := &mutate.Composed{Config: r.cfg.Mutation, Remedies: r.cfg.Mutation.Remedies, Fill: r.cfg.Mutation.Fill}
	if len(c.Remedies) == 0 {
		c.Remedies = r.info.Remedies
	}
	if len(c.Fill) == 0 {
		c.Fill = r.info.Fill
	}
	if r.info.ReadsText {
		c.Library = r.info.Rules
		if r.llm != nil && r.cfg.Agent.ProposeRules {
			c.Model = r.llm
		}
	}
	return c
}

// propose asks the run's proposer for generation g's candidates of inc
// (after a stalled generation, the next k in the proposer's order) and
// gives each its version: allocated from the versions this run has
// committed (not from the store, which may hold versions of an
// interrupted generation), a major bump for a text edit (rules and
// sections are frozen parts, prompt.BumpFor), a minor one for a reorder,
// else a patch.
func (r *run) propose(ctx context.Context, g int, a failure.Analysis, train []float64, inc *prompt.Prompt) ([]draft, error) {
	p := r.proposerFor(g)
	req := mutate.Request{
		Analysis: a, Incumbent: inc, Schema: r.info.Params, K: r.cfg.Mutation.Candidates, Stall: r.ck.Stall,
		TrainScores: train,
	}
	if err := r.parentOf(inc, &req); err != nil {
		return nil, fmt.Errorf("generation %d: %w", g, err)
	}
	muts, err := p.Propose(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", g, err)
	}
	// A candidate whose system text cannot fit the model's token budget
	// is never played: it is recorded (recordGeneration) and not accepted.
	if muts, r.overBudget, err = r.fitBudget(g, inc, muts); err != nil {
		return nil, err
	}
	existing := make([]prompt.Version, 0, len(r.ck.Versions)+len(muts))
	for _, s := range r.ck.Versions {
		existing = append(existing, prompt.MustParseVersion(s))
	}
	out := make([]draft, len(muts))
	for i, m := range muts {
		bump := prompt.BumpPatch
		switch {
		case m.TextEdit:
			bump = prompt.BumpMajor
		case m.Reorder:
			bump = prompt.BumpMinor
		}
		v := prompt.NextVersion(inc.Version, bump, existing)
		existing = append(existing, v)
		out[i] = draft{mut: m, version: v, prompt: derive(inc, v, m, prompt.MutationRecord{Version: v, PrevVersion: inc.Version,
			Operator: m.Operator, Description: m.Description, Timestamp: r.now()}, r.now())}
	}
	return out, nil
}

// parentOf fills req's Parent and ParentTrainScores for incumbent inc:
// the version its last mutation record was derived from, loaded from the
// run's prompt store, and that version's train scores in this run (from
// the episode rows, so that a resumed run sees what an uninterrupted one
// did; the last generation that played them). A base version (no
// history) leaves both nil, as does a parent this run never played on
// train.
func (r *run) parentOf(inc *prompt.Prompt, req *mutate.Request) error {
	if len(inc.MutationHistory) == 0 {
		return nil
	}
	pv := inc.MutationHistory[len(inc.MutationHistory)-1].PrevVersion
	if !slices.Contains(r.ck.Versions, pv.String()) {
		// A base prompt evolved by an earlier run: its parent is not in
		// this run's store, and this run has no evidence on it.
		return nil
	}
	parent, err := r.store.Load(inc.SlugOrDefault(), pv)
	if err != nil {
		return fmt.Errorf("loading the incumbent's parent %s: %w", pv, err)
	}
	req.Parent = parent.PolicyParameters
	gen := int32(-1)
	for _, e := range r.episodes {
		if e.Split == PhaseTrain && e.Version == pv.String() && e.Variant == "" {
			gen = max(gen, e.Generation)
		}
	}
	for _, e := range r.episodes {
		if e.Split == PhaseTrain && e.Version == pv.String() && e.Variant == "" && e.Generation == gen {
			req.ParentTrainScores = append(req.ParentTrainScores, e.Score)
		}
	}
	return nil
}

// playCandidates plays every candidate on the val seeds as one pool
// (play.PlayAll: one queue over the local workers, one window of
// model requests in flight, or the Slurm job arrays submitted together)
// and returns the outcomes per candidate in seed order. The observer
// sees it as one val phase whose version is the candidates' versions
// joined by commas.
func (r *run) playCandidates(ctx context.Context, g int, cands []draft) ([][]envs.Outcome, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	return r.playPool(ctx, g, PhaseVal, cands, r.seeds.Val)
}

// playPool plays each candidate of cands on seedList as one pool of
// work, reporting it to the observer as one phase.
func (r *run) playPool(ctx context.Context, g int, split string, cands []draft, seedList []uint64) ([][]envs.Outcome, error) {
	obs := r.opt.Observer
	start := time.Now()
	if r.llm != nil {
		r.llm.ResetLogged() // each kind of unusable reply's body is logged once per phase
	}
	jobs := make([]play.Job, len(cands))
	names := make([]string, len(cands))
	for i, c := range cands {
		ph, err := r.phase(g, split, c.prompt)
		if err != nil {
			return nil, err
		}
		jobs[i], names[i] = play.Job{Phase: ph, Seeds: seedList}, ph.Prompt.Version
	}
	label := strings.Join(names, ",")
	total := len(cands) * len(seedList)
	if obs != nil {
		obs.PhaseStart(g, split, label, total)
		done := make([]int, len(jobs)) // the hooks are called one at a time
		sum := 0
		for i := range jobs {
			jobs[i].Phase.Progress = func(n, _ int) {
				sum += n - done[i]
				done[i] = n
				obs.EpisodeDone(sum, total)
			}
		}
	}
	outs, err := play.PlayAll(ctx, r.exec, jobs)
	if err != nil {
		var je *play.JobError
		if errors.As(err, &je) {
			return nil, phaseError(g, split, names[je.Job], je.Err)
		}
		return nil, err
	}
	if obs != nil {
		obs.PhaseEnd(g, split, label, total, time.Since(start))
	}
	for i := range outs {
		if err := r.checkPhase(g, split, names[i], outs[i]); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// recordGeneration records generation gen, whose decision is made: the
// incumbent's train episodes and each candidate's val episodes, each
// candidate written as an immutable version with its evidence, the
// candidates' and the generation's rows, and the accepted candidate, if
// any, made HEAD. It returns the accepted candidate, nil for none.
func (r *run) recordGeneration(gen *Generation, inc *prompt.Prompt, trainOuts []envs.Outcome, cands []draft, candOuts [][]envs.Outcome) (*prompt.Prompt, error) {
	g, dec := gen.Index, gen.Decision
	r.record(g, PhaseTrain, gen.Incumbent, trainOuts)
	var next *prompt.Prompt
	correction := r.cfg.Acceptance.Correction
	if len(dec.Candidates) > 0 && dec.Candidates[0].Look > 0 {
		correction = "bonferroni" // DecideSequential's p_adj
	}
	for i, d := range cands {
		m, c := d.mut, dec.Candidates[i]
		rec := prompt.MutationRecord{
			Version:     d.version,
			PrevVersion: inc.Version,
			Operator:    m.Operator,
			Description: m.Description,
			Timestamp:   r.now(),
			Evidence: &prompt.Evidence{
				Test:             r.cfg.testName(),
				Alternative:      "greater",
				PValue:           c.Check.P,
				AdjustedPValue:   c.Check.PAdj,
				Correction:       correction,
				A12:              c.Check.A12,
				NIncumbent:       dec.Incumbent.N,
				NCandidate:       c.Summary.N,
				IncumbentValMean: dec.Incumbent.Mean,
				CandidateValMean: c.Summary.Mean,
				Generation:       g,
				Accepted:         i == dec.Accepted,
			},
		}
		cand := derive(inc, d.version, m, rec, r.now())
		if err := r.writeVersion(cand); err != nil {
			return nil, err
		}
		v := d.version.String()
		r.ck.Versions = append(r.ck.Versions, v)
		r.record(g, PhaseVal, v, candOuts[i])
		gen.Candidates = append(gen.Candidates, Candidate{Version: v, Mutation: m})
		r.candidates = append(r.candidates, results.CandidateRow{
			Run: r.id, Generation: int32(g), Version: v, Parent: gen.Incumbent,
			Operator: m.Operator, Mutation: m.Description, N: int32(c.Summary.N),
			Mean: c.Summary.Mean, Std: c.Summary.Std, Median: c.Summary.Median, IQM: c.Summary.IQM,
			CILow: c.Summary.CILow, CIHigh: c.Summary.CIHigh,
			Test: string(r.cfg.Acceptance.Test), U: c.U, V: c.SignedRankV(), P: c.Check.P, PAdj: c.Check.PAdj, A12: c.Check.A12, Accepted: i == dec.Accepted,
			Look: lookOf(c), Stop: c.Stop,
		})
		if i == dec.Accepted {
			next = cand
		}
	}
	r.candidates = append(r.candidates, r.overBudget...)
	r.overBudget = nil
	row := results.GenerationRow{
		Run: r.id, Generation: int32(g), Incumbent: gen.Incumbent,
		NTrain: int32(len(trainOuts)), NVal: int32(dec.Incumbent.N), TrainMean: gen.TrainMean,
		ValMean: dec.Incumbent.Mean, ValMedian: dec.Incumbent.Median, ValIQM: dec.Incumbent.IQM,
		ValCILow: dec.Incumbent.CILow, ValCIHigh: dec.Incumbent.CIHigh,
		Failures: int32(gen.Failures.Failures), CauseCounts: gen.Failures.CountsOf(r.info.CauseNames()), NCandidates: int32(len(cands)),
		NextIncumbent: gen.Incumbent,
	}
	if next != nil {
		p := dec.Candidates[dec.Accepted].Check.PAdj
		row.Accepted, row.AcceptedP, row.NextIncumbent = next.Version.String(), &p, next.Version.String()
		if err := r.supersede(g, inc, next); err != nil {
			return nil, err
		}
	}
	r.generations = append(r.generations, row)
	return next, nil
}
