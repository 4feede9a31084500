package experiment

import (
	"context"
	"fmt"
	"slices"

	"evolve/failure"
	"evolve/guard"
	"evolve/mutate"
	"evolve/prompt"
)

// withLLMRule adds the model's rule (agent.propose_rules; see
// mutate.ProposeLLMRule) to muts, the generation's first n proposals,
// where k is mutation.candidates (n is k times one more than the stalled
// generations): it takes the place after the library's rule additions
// (mutate.OpAddRule), or the last of the first k places when those fill
// them all, so that it is one of the k candidates of an incumbent's
// first generation (a stalled generation, which skips those, does not
// try it again). A rule the model did not give, or that was dropped
// (cut, too long, known, rejected by the guard), leaves muts as they
// are; rejected text is never written anywhere. The error is the
// model's (a replay-only cache that lacks the reply included).
func (r *run) withLLMRule(ctx context.Context, g int, a failure.Analysis, inc *prompt.Prompt, muts []mutate.Mutation, k, n int) ([]mutate.Mutation, error) {
	res, err := mutate.ProposeLLMRule(ctx, r.llm, a, inc, r.info.Rules, guard.Default())
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", g, err)
	}
	if res.Mutation == nil {
		return muts, nil
	}
	at := 0
	for at < len(muts) && muts[at].Operator == mutate.OpAddRule {
		at++
	}
	at = min(at, k-1)
	muts = slices.Insert(slices.Clone(muts), at, *res.Mutation)
	if len(muts) > n {
		muts = muts[:n]
	}
	return muts, nil
}
