package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// (cut, too long, markup, too short, known, rejected by the guard),
// leaves muts as they are and is written with its reason to
// LLMRulesFile (see logLLMRule); it is never part of a prompt. The
// error is the model's (a replay-only cache that lacks the reply
// included).
func (r *run) withLLMRule(ctx context.Context, g int, a failure.Analysis, inc *prompt.Prompt, muts []mutate.Mutation, k, n int) ([]mutate.Mutation, error) {
	res, err := mutate.ProposeLLMRule(ctx, r.llm, a, inc, r.info.Rules, guard.Default())
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", g, err)
	}
	if res.Dropped != nil {
		r.logLLMRule(g, res)
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

// LLMRulesFile is the file of the run directory that lists the rules the
// model proposed and the proposer dropped: one JSON object per line with
// generation, cause, reply (as received), rule (as cleaned) and reason
// (mutate.LLMRule.Dropped's text). A rule the guard rejected is not
// written: reply and rule are then "[withheld: rejected by the guard]"
// and sha256 is the hex SHA-256 of the reply, so that no injection is
// ever stored. A generation that is replayed after a resume appends its
// line again.
const LLMRulesFile = "llm_rules_dropped.jsonl"

// logLLMRule appends a dropped rule to LLMRulesFile; a failed write is
// logged, never fatal (the rule was not used either way).
func (r *run) logLLMRule(g int, res mutate.LLMRule) {
	rec := map[string]any{"generation": g, "cause": res.Cause, "reply": res.Reply, "rule": res.Rule, "reason": res.Dropped.Error()}
	if errors.Is(res.Dropped, mutate.ErrRuleRejected) {
		sum := sha256.Sum256([]byte(res.Reply))
		rec["reply"], rec["rule"], rec["sha256"] = "[withheld: rejected by the guard]", "[withheld: rejected by the guard]", hex.EncodeToString(sum[:])
		rec["reason"] = mutate.ErrRuleRejected.Error() // the guard's report quotes the text
	}
	line, _ := json.Marshal(rec)
	f, err := os.OpenFile(filepath.Join(r.dir, LLMRulesFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(line, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if r.opt.Logger != nil {
		r.opt.Logger.Warn("the model's rule was dropped", "generation", g, "cause", res.Cause, "reason", rec["reason"], "file", LLMRulesFile)
		if err != nil {
			r.opt.Logger.Error("recording a dropped rule", "file", LLMRulesFile, "err", err)
		}
	}
}
