package eval

import (
	"errors"
	"fmt"
	"strings"

	"evolve/envs"
	"evolve/experiment"
	"evolve/internal/format"
	"evolve/results"
)

// Health is how much of one phase (a version on a variant) measured the
// version rather than a failure: its episodes recorded as errors and,
// for a language-model agent, the turns that took the fallback action and
// the replies that named no usable action. The counts come from the
// episodes' cause and the agent's metrics (fallbacks, model_calls,
// corrections, unusable_replies); an environment that does not declare a
// metric counts 0 for it.
type Health struct {
	Variant string `json:"variant"` // "" for the configured environment alone
	Version string `json:"version"` // the version's label
	// Episodes and Errors count the phase's episodes and those recorded
	// as errors (cause "error", on_episode_panic: record).
	Episodes int `json:"episodes"`
	Errors   int `json:"errors"`
	// Calls are the model's replies (model_calls), Turns the turns (calls
	// less corrections), Fallbacks the turns that took the fallback
	// action, Unusable the replies that named no usable action; all 0
	// for the scripted agent.
	Calls     float64 `json:"model_calls"`
	Turns     float64 `json:"turns"`
	Fallbacks float64 `json:"fallbacks"`
	Unusable  float64 `json:"unusable_replies"`
}

// ErrorShare is Errors / Episodes, in [0, 1] (0 without episodes).
func (h Health) ErrorShare() float64 { return share(float64(h.Errors), float64(h.Episodes)) }

// FallbackShare is Fallbacks / Turns, in [0, 1] (0 without turns).
func (h Health) FallbackShare() float64 { return share(h.Fallbacks, h.Turns) }

// UnusableShare is Unusable / Calls, in [0, 1] (0 without calls).
func (h Health) UnusableShare() float64 { return share(h.Unusable, h.Calls) }

func share(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// String is the phase's health in one line: "VERSION [VARIANT]: errors
// E of N episodes (P%); fallback turns F of T (P%); unusable replies U of
// C (P%)", without the model's parts when no turn was played.
func (h Health) String() string {
	name := h.Version
	if h.Variant != "" {
		name += " [" + h.Variant + "]"
	}
	s := fmt.Sprintf("%s: errors %d of %d episodes (%s)", name, h.Errors, h.Episodes, pct(h.ErrorShare()))
	if h.Calls > 0 {
		s += fmt.Sprintf("; fallback turns %.0f of %.0f (%s); unusable replies %.0f of %.0f (%s)",
			h.Fallbacks, h.Turns, pct(h.FallbackShare()), h.Unusable, h.Calls, pct(h.UnusableShare()))
	}
	return s
}

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return format.Plain.Percent(x, 1) }

// health counts the health of the phase (variant, label) in rows, whose
// metric columns are metrics.
func health(rows []results.EpisodeRow, metrics []envs.Metric, variant, label string) Health {
	h := Health{Variant: variant, Version: label}
	at := map[string]int{}
	for i, m := range metrics {
		at[m.Name] = i
	}
	sum := func(r *results.EpisodeRow, name string) float64 {
		i, ok := at[name]
		if !ok || i >= len(r.Metrics) || r.Metrics[i].Null {
			return 0
		}
		return r.Metrics[i].Num
	}
	for i := range rows {
		r := &rows[i]
		if r.Variant != variant || r.Version != label {
			continue
		}
		h.Episodes++
		if r.Cause == envs.CauseError {
			h.Errors++
		}
		h.Calls += sum(r, "model_calls")
		h.Turns += sum(r, "model_calls") - sum(r, "corrections")
		h.Fallbacks += sum(r, "fallbacks")
		h.Unusable += sum(r, "unusable_replies")
	}
	return h
}

// ErrMeasurement is wrapped by the error of an eval whose phase did not
// measure its version: too many fallback turns
// (experiment.ErrFallbackRate, agent.max_fallback_rate) or error
// episodes (experiment.ErrErrorRate, max_error_rate). The eval exits 1:
// a failed measurement, not a regression.
var ErrMeasurement = errors.New("the eval did not measure its versions")

// checkHealth returns an error wrapping ErrMeasurement and
// experiment.ErrFallbackRate or experiment.ErrErrorRate when the phase h
// is past the config's limits, naming the phase, the share, the limit and
// how to go on; nil within them.
func (e *eval) checkHealth(h Health) error {
	name := "version " + h.Version
	if h.Variant != "" {
		name += ", variant " + h.Variant
	}
	if e.llm != nil && e.cfg.Agent.MaxFallbackRate < 1 && h.Turns > 0 && h.FallbackShare() > e.cfg.Agent.MaxFallbackRate {
		return &measurementError{cause: experiment.ErrFallbackRate, msg: fmt.Sprintf(
			"%s: %v: %.0f of %.0f turns (%s) took the fallback action, over agent.max_fallback_rate %g (unusable replies: %.0f of %.0f); the eval would measure the fallback, not the model. Check the model's replies (reply format, reasoning_tags, max_tokens); the eval directory %s keeps the phases finished before",
			name, experiment.ErrFallbackRate, h.Fallbacks, h.Turns, pct(h.FallbackShare()), e.cfg.Agent.MaxFallbackRate, h.Unusable, h.Calls, e.dir)}
	}
	if e.cfg.MaxErrorRate < 1 && h.ErrorShare() > e.cfg.MaxErrorRate {
		return &measurementError{cause: experiment.ErrErrorRate, msg: fmt.Sprintf(
			"%s: %v: %d of %d episodes (%s) ended in an error, over max_error_rate %g; their scores would measure the failure, not the version. Every error is in %s/episode_errors.jsonl",
			name, experiment.ErrErrorRate, h.Errors, h.Episodes, pct(h.ErrorShare()), e.cfg.MaxErrorRate, e.dir)}
	}
	return nil
}

// measurementError is checkHealth's error.
type measurementError struct {
	cause error
	msg   string
}

func (m *measurementError) Error() string   { return m.msg }
func (m *measurementError) Unwrap() []error { return []error{ErrMeasurement, m.cause} }

// showHealth reports whether an eval's outputs show the phases' health:
// for a language-model agent always, else when an episode was recorded as
// an error (a scripted eval without errors keeps its outputs).
func showHealth(agent string, hs []Health) bool {
	if agent != "" {
		return true
	}
	for _, h := range hs {
		if h.Errors > 0 {
			return true
		}
	}
	return false
}

// healthNotes returns the lines a comparison of version label on variant
// with the baseline base shows of their health (the baseline's only when
// it was played in this eval).
func healthNotes(hs []Health, variant, label, base string) []string {
	var out []string
	for _, want := range []string{label, base} {
		for _, h := range hs {
			if h.Variant == variant && h.Version == want {
				out = append(out, "measurement: "+h.String())
			}
		}
	}
	return out
}

// healthMarkdown is report.md's table of the phases' health.
func healthMarkdown(hs []Health) string {
	var b strings.Builder
	b.WriteString("\n## Measurement\n\nEpisodes recorded as errors, and the language model's fallback turns and unusable replies, per version and variant: a share past max_error_rate or agent.max_fallback_rate stops the eval.\n\n")
	b.WriteString("| variant | version | episodes | errors | fallback turns | unusable replies |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, h := range hs {
		fb, un := "-", "-"
		if h.Calls > 0 {
			fb = fmt.Sprintf("%.0f of %.0f (%s)", h.Fallbacks, h.Turns, pct(h.FallbackShare()))
			un = fmt.Sprintf("%.0f of %.0f (%s)", h.Unusable, h.Calls, pct(h.UnusableShare()))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d (%s) | %s | %s |\n", dash(h.Variant), cell(h.Version), h.Episodes, h.Errors, pct(h.ErrorShare()), fb, un)
	}
	return b.String()
}
