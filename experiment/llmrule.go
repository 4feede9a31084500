package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"evolve/mutate"
)

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
