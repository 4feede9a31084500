package experiment

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"evolve/agent"
	"evolve/envs"
	"evolve/mutate"
	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
)

// ErrFallbackRate is wrapped by the error that stops a run whose phase
// took the fallback action too often (agent.max_fallback_rate).
var ErrFallbackRate = errors.New("too many fallback turns")

// ErrErrorRate is wrapped by the error that stops a run (or an eval)
// whose phase recorded too many episodes as errors (max_error_rate).
var ErrErrorRate = errors.New("too many error episodes")

// errorShare returns the episodes of outs recorded as errors (cause
// envs.CauseError) and their share of outs, in [0, 1] (0 for no
// outcome).
func errorShare(outs []envs.Outcome) (errs int, share float64) {
	for i := range outs {
		if outs[i].Cause == envs.CauseError {
			errs++
		}
	}
	if len(outs) == 0 {
		return 0, 0
	}
	return errs, float64(errs) / float64(len(outs))
}

// checkErrorRate returns an error wrapping ErrErrorRate when more than
// maxRate of outs (a phase's outcomes, named by what, e.g. "generation
// 2, val split, version v1.0.3") were recorded as errors: "WHAT: too many
// error episodes: E of N (P%) ended in an error, over max_error_rate M;
// the first: FIRST". first is the first error's message ("" if not
// known). It returns nil at or under the rate, and always for maxRate 1.
func checkErrorRate(what string, outs []envs.Outcome, maxRate float64, first string) error {
	errs, share := errorShare(outs)
	if maxRate >= 1 || share <= maxRate {
		return nil
	}
	msg := fmt.Sprintf("%s: %v: %d of %d episodes (%.1f%%) ended in an error, over max_error_rate %g; their mean score would measure the failure, not the version",
		what, ErrErrorRate, errs, len(outs), 100*share, maxRate)
	if first != "" {
		msg += "; the first: " + first
	}
	return &rateError{msg: msg}
}

// rateError is checkErrorRate's error: its message, wrapping ErrErrorRate.
type rateError struct{ msg string }

func (e *rateError) Error() string { return e.msg }
func (e *rateError) Unwrap() error { return ErrErrorRate }

// checkErrors is checkErrorRate of a run's phase, with the first error
// the phase logged and the resume command.
func (r *run) checkErrors(gen int, split, version string, outs []envs.Outcome) error {
	r.errMu.Lock()
	first := r.firstErr[phaseKey(gen, split, version)]
	r.errMu.Unlock()
	err := checkErrorRate(fmt.Sprintf("generation %d, %s split, version %s", gen, split, version), outs, r.cfg.MaxErrorRate, first)
	if err != nil {
		return fmt.Errorf("%w. Every error is in %s; fix its cause, then resume with: evolve run --resume %s",
			err, filepath.Join(r.dir, rundir.EpisodeErrorsFile), r.dir)
	}
	return nil
}

// checkPhase runs the checks of a played phase: the fallback rate of a
// language-model agent, then the share of error episodes.
func (r *run) checkPhase(gen int, split, version string, outs []envs.Outcome) error {
	if err := r.checkFallbacks(gen, split, version, outs); err != nil {
		return err
	}
	return r.checkErrors(gen, split, version, outs)
}

// phaseKey names a phase of a run in firstErr.
func phaseKey(gen int, split, version string) string {
	return fmt.Sprintf("%d/%s/%s", gen, split, version)
}

// ReasonOverBudget is the reason recorded (in candidates.parquet's
// mutation text) for a candidate that was not played because its system
// text cannot fit agent.max_prompt_tokens.
const ReasonOverBudget = "over the token budget"

// metricSum sums the metric name over outs; ok is false when the
// environment declares no such metric.
func (r *run) metricSum(outs []envs.Outcome, name string) (sum float64, ok bool) {
	at := -1
	for i, m := range r.info.Metrics {
		if m.Name == name {
			at = i
		}
	}
	if at < 0 {
		return 0, false
	}
	for i := range outs {
		if at < len(outs[i].Metrics) && !outs[i].Metrics[at].Null {
			sum += outs[i].Metrics[at].Num
		}
	}
	return sum, true
}

// checkFallbacks logs a warning on Options.Logger when the phase's
// replies needed corrections, were unusable or fell back (with the
// counts and the fallback rate), and returns an error wrapping
// ErrFallbackRate when the
// language-model agent took the fallback action on more than
// agent.max_fallback_rate of the phase's turns (model calls less
// corrections), naming the version, the rate, and the three most common
// replies that named no action so far. It returns nil for the scripted
// agent and for environments without the agent's metrics.
func (r *run) checkFallbacks(gen int, split, version string, outs []envs.Outcome) error {
	if r.llm == nil || r.cfg.Agent.MaxFallbackRate >= 1 {
		return nil
	}
	fb, ok1 := r.metricSum(outs, "fallbacks")
	calls, ok2 := r.metricSum(outs, "model_calls")
	corr, _ := r.metricSum(outs, "corrections")
	turns := calls - corr
	if !ok1 || !ok2 || turns <= 0 {
		return nil
	}
	rate := fb / turns
	if unusable, _ := r.metricSum(outs, "unusable_replies"); r.opt.Logger != nil && (fb > 0 || corr > 0 || unusable > 0) {
		// The progress log's line of the phase's replies that named no action.
		r.opt.Logger.Warn("model replies named no action", "generation", gen, "split", split, "version", version,
			"fallback_turns", fb, "fallback_rate", fmt.Sprintf("%.2f%%", 100*rate), "corrections", corr, "unusable_replies", unusable)
	}
	if rate <= r.cfg.Agent.MaxFallbackRate {
		return nil
	}
	var top []string
	for _, t := range r.tally.Top(3) {
		top = append(top, fmt.Sprintf("%q (%d×)", t.Reply, t.Count))
	}
	if len(top) == 0 {
		top = []string{"none recorded"}
	}
	return fmt.Errorf("generation %d, %s split, version %s: %w: %.0f of %.0f turns (%.1f%%) took the fallback action, over agent.max_fallback_rate %g; the run would measure the fallback, not the model. Most common replies that named no action: %s. Check the model's replies (reply format, reasoning_tags, max_tokens), then resume with: evolve run --resume %s",
		gen, split, version, ErrFallbackRate, fb, turns, 100*rate, r.cfg.Agent.MaxFallbackRate, strings.Join(top, ", "), r.dir)
}

// fitBudget splits muts into the candidates whose system text fits
// agent.max_prompt_tokens (agent.FitsBudget), returned in order to be
// played, and rows of candidates.parquet for the others: never played
// (N 0, statistics NaN), not accepted, their mutation text ending with
// "not played: over the token budget (S tokens of system text,
// max_prompt_tokens M)". It does nothing for the scripted agent or
// without a budget.
func (r *run) fitBudget(g int, inc *prompt.Prompt, muts []mutate.Mutation) ([]mutate.Mutation, []results.CandidateRow, error) {
	max := r.cfg.Agent.MaxPromptTokens
	if r.llm == nil || max <= 0 || !r.info.ReadsText {
		return muts, nil, nil
	}
	var keep []mutate.Mutation
	var over []results.CandidateRow
	for _, m := range muts {
		draft := derive(inc, inc.Version, m, prompt.MutationRecord{Version: inc.Version, PrevVersion: inc.Version, Operator: m.Operator, Description: m.Description}, r.now())
		text, err := r.systemText(draft)
		if err != nil {
			return nil, nil, fmt.Errorf("generation %d: rendering candidate %q: %w", g, m.Operator, err)
		}
		tok, ok, err := agent.FitsBudget(text, max)
		if err != nil {
			return nil, nil, fmt.Errorf("generation %d: candidate %q: %w", g, m.Operator, err)
		}
		if ok {
			keep = append(keep, m)
			continue
		}
		nan := math.NaN()
		over = append(over, results.CandidateRow{
			Run: r.id, Generation: int32(g), Parent: inc.Version.String(), Operator: m.Operator,
			Mutation: fmt.Sprintf("%s\nnot played: %s (%d tokens of system text, max_prompt_tokens %d)", m.Description, ReasonOverBudget, tok, max),
			Mean:     nan, Std: nan, Median: nan, IQM: nan, CILow: nan, CIHigh: nan, Test: string(r.cfg.Acceptance.Test),
			U: nan, P: nan, PAdj: nan, A12: nan,
		})
	}
	return keep, over, nil
}
