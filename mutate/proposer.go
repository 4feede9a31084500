package mutate

import (
	"context"
	"fmt"
	"slices"

	"evolve/failure"
	"evolve/guard"
	"evolve/params"
	"evolve/prompt"
)

// Request is what a Proposer reads to propose one generation's
// candidates.
type Request struct {
	// Analysis is the failure analysis of the incumbent's train episodes.
	Analysis failure.Analysis
	// Incumbent is the version the candidates are derived from
	// (resolved: inheritance applied).
	Incumbent *prompt.Prompt
	// Schema is the environment's declared policy parameters.
	Schema params.Schema
	// K is mutation.candidates, the most candidates a generation plays,
	// in [1, 64].
	K int
	// Stall is the number of generations in a row that accepted no
	// candidate (>= 0): a stalled incumbent gets the next K proposals in
	// the proposer's order, those after the K*Stall it already tried.
	Stall int
	// Parent is the policy the incumbent's last accepted mutation
	// changed (the parameters of its mutation record's PrevVersion); nil
	// for a base version.
	Parent params.Set
	// TrainScores are the incumbent's train scores (the episodes
	// Analysis counts), and ParentTrainScores Parent's on the same train
	// seeds, nil when unknown: an undo of the last accepted change needs
	// the incumbent to score lower there (NewEvidence).
	TrainScores, ParentTrainScores []float64
}

// Proposer proposes a generation's candidate mutations of an incumbent
// from the failure analysis of its train episodes. A proposer is
// deterministic for a given request (a language model's reply included:
// its sampling is its own configuration, and a response cache replays
// it), so that a resumed run proposes what an uninterrupted one did.
type Proposer interface {
	// Propose returns at most req.K mutations, in the proposer's order
	// (the order candidates get their versions and are played in); an
	// empty list means nothing is left to try. The error names the
	// proposer that failed.
	Propose(ctx context.Context, req Request) ([]Mutation, error)
}

// Composed is the run's proposer: the structured proposer (Propose over
// Config, Remedies and Fill, without any mutation that undoes the
// incumbent's last accepted change, Undoes, unless NewEvidence holds),
// the text proposer (ProposeText over Library) when the agent reads
// text, and the language-model rule proposer (ProposeLLMRule) when Model
// is set. Its order, for n = K·(Stall+1) proposals:
//  1. the text mutations first (they change what the model reads), then
//     the structured ones, cut to n;
//  2. the model's rule, if it gave one that passed, at the place after
//     the library's rule additions (OpAddRule), or the last of the first
//     K places when those fill them all, so that it is one of the K
//     candidates of an incumbent's first generation; cut to n again;
//  3. the first K·Stall dropped (a stalled incumbent tried them).
type Composed struct {
	// Config is the structured proposer's table; its Candidates field is
	// ignored (Request.K counts).
	Config Config
	// Remedies and Fill are the remedy table and fill list the
	// structured proposer uses (a config's or the environment's).
	Remedies map[string][]string
	Fill     []string
	// Library is the rule library of the text proposers keyed by failure
	// cause (envs.Info.Rules); nil turns text proposals off (an agent
	// that reads only parameters).
	Library map[string][]string
	// Model, if not nil, is asked for one rule line per generation
	// (agent.propose_rules; needs Library's agent to read text).
	Model Completer
	// Policy screens every text written into a candidate (guard.Default
	// when zero).
	Policy *guard.Policy
	// OnDropped, if not nil, is told of the model's rule when the
	// proposer dropped it (LLMRule.Dropped), so that the caller can
	// record why.
	OnDropped func(LLMRule)
}

// Propose implements Proposer. Its errors: "proposing mutations: ..." (a
// remedy that does not fit the schema), "proposing text mutations: ..."
// (the incumbent's bad section declarations), and the model's error
// (ProposeLLMRule), each as the proposer step returned it.
func (c *Composed) Propose(ctx context.Context, req Request) ([]Mutation, error) {
	policy := guard.Default()
	if c.Policy != nil {
		policy = *c.Policy
	}
	n := req.K * (req.Stall + 1)
	cfg := c.Config
	cfg.Candidates = n
	// Never simply undo the incumbent's last accepted change: a mutation
	// that sets a parameter back to its value before that change is
	// dropped unless the train seeds, which the acceptance did not see,
	// speak against the change (NewEvidence).
	evidence := NewEvidence(req.TrainScores, req.ParentTrainScores)
	keep := func(m Mutation) bool {
		return evidence || !Undoes(m, req.Incumbent.PolicyParameters, req.Parent)
	}
	muts, err := propose(req.Analysis, req.Incumbent.PolicyParameters, req.Schema, cfg, c.Remedies, c.Fill, keep)
	if err != nil {
		return nil, fmt.Errorf("proposing mutations: %w", err)
	}
	if len(c.Library) > 0 {
		text, err := ProposeText(req.Analysis, req.Incumbent, c.Library, n, policy)
		if err != nil {
			return nil, fmt.Errorf("proposing text mutations: %w", err)
		}
		muts = append(text, muts...)
		if len(muts) > n {
			muts = muts[:n]
		}
	}
	if c.Model != nil {
		res, err := ProposeLLMRule(ctx, c.Model, req.Analysis, req.Incumbent, c.Library, policy)
		if err != nil {
			return nil, err
		}
		if res.Dropped != nil && c.OnDropped != nil {
			c.OnDropped(res)
		}
		muts = insertLLMRule(muts, res.Mutation, req.K, n)
	}
	if skip := req.K * req.Stall; skip < len(muts) {
		return muts[skip:], nil
	}
	return nil, nil
}

// insertLLMRule puts the model's rule m (nil: none) into muts at the
// place after the library's rule additions, at most the K-th, and cuts
// the list to n.
func insertLLMRule(muts []Mutation, m *Mutation, k, n int) []Mutation {
	if m == nil {
		return muts
	}
	at := 0
	for at < len(muts) && muts[at].Operator == OpAddRule {
		at++
	}
	at = min(at, k-1)
	muts = slices.Insert(slices.Clone(muts), at, *m)
	if len(muts) > n {
		muts = muts[:n]
	}
	return muts
}

var _ Proposer = (*Composed)(nil)
