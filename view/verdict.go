package view

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"evolve/eval"
	"evolve/gate"
	"evolve/internal/format"
	"evolve/rundir"
)

// EvalVerdictJSON is an eval's verdict as the eval itself reached it:
// read from its checkpoint.json (the gate it was started with and the
// verdict stored when it finished), never recomputed with other
// settings.
type EvalVerdictJSON struct {
	// Verdict is rundir.VerdictRegression, VerdictNotNonInferior,
	// VerdictImprovement or VerdictPass; "" when there is none (Note says
	// why).
	Verdict string `json:"verdict"`
	// Headline is the sentence evolve eval prints under its checks
	// (eval.Headline).
	Headline string `json:"headline"`
	// Baseline describes the baseline as the eval does ("v1.0.0 of DIR",
	// or "v1.0.0 (SOURCE), the first version of this eval");
	// BaselineVersion is its version; BaselineURLID the URL id of the
	// baseline eval's directory when it is under the served roots (""
	// otherwise, or when the baseline is this eval's first version:
	// BaselineSelf).
	Baseline        string `json:"baseline"`
	BaselineVersion string `json:"baseline_version"`
	BaselineURLID   string `json:"baseline_url_id,omitempty"`
	BaselineSelf    bool   `json:"baseline_self"`
	// Gate is the regression test's settings the eval used.
	Gate GateJSON `json:"gate"`
	// FailOnRegression: a failed check made evolve eval exit 3.
	FailOnRegression bool `json:"fail_on_regression"`
	// MaxFailureIncrease is the failure-share checks' margin (a share in
	// [0, 1)), null without them.
	MaxFailureIncrease *float64 `json:"max_failure_increase"`
	// Comparisons are one per candidate version and variant, in the
	// eval's order.
	Comparisons []ComparisonJSON `json:"comparisons"`
	// FailureChecks are the failure-share checks, in the order of
	// Comparisons ([] without).
	FailureChecks []gate.Check `json:"failure_checks"`
	// Note says why there is no verdict ("" when there is one).
	Note string `json:"note,omitempty"`
}

// GateJSON is a regression gate's settings (gate.Config, defaults
// filled) and where they come from.
type GateJSON struct {
	// Source says whose settings they are, e.g. "the gate of eval X" or
	// "the gate's defaults (neither side is an eval)".
	Source     string  `json:"source"`
	Hypothesis string  `json:"hypothesis"` // "regression" or "non-inferiority"
	Test       string  `json:"test"`       // "auto", "mwu", "signed-rank", ...
	Alpha      float64 `json:"alpha"`      // family-wise level, in (0, 1)
	Margin     float64 `json:"margin"`     // score units, >= 0
	MarginOn   string  `json:"margin_on"`  // "shift" or "mean": the scale of Margin
	MarginA12  float64 `json:"margin_a12"` // on the A12 scale, in [0, 0.5)
	Correction string  `json:"correction"` // "holm", "hochberg", "bonferroni", "none-per-variant", "none"
}

func gateJSON(c gate.Config, source string) GateJSON {
	d := gate.DefaultConfig()
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	if c.Alpha == 0 {
		c.Alpha = d.Alpha
	}
	return GateJSON{Source: source, Hypothesis: or(c.Hypothesis, d.Hypothesis), Test: or(string(c.Test), string(d.Test)), Alpha: c.Alpha,
		Margin: c.Margin, MarginOn: or(c.MarginOn, d.MarginOn), MarginA12: c.MarginA12, Correction: or(c.Correction, d.Correction)}
}

// ComparisonJSON is one candidate's verdict (eval.VersionVerdict).
type ComparisonJSON struct {
	// Check is the regression (or non-inferiority) check, its p, adjusted
	// p and α under the keys of gate.Check's JSON.
	Check gate.Check `json:"check"`
	// PBetter and PBetterAdj are the improvement test's p-values
	// (one-sided "the candidate is better", adjusted across the variant's
	// versions), in [0, 1].
	PBetter     format.Float `json:"p_better"`
	PBetterAdj  format.Float `json:"p_better_adj"`
	Improvement bool         `json:"improvement"`
	// H1 states the check's alternative hypothesis in words (gate.H1),
	// e.g. "shift worse by more than 25".
	H1 string `json:"h1"`
	// Verdict is results.VerdictRegression, VerdictNotNonInferior,
	// VerdictImprovement or VerdictNoDifference.
	Verdict string `json:"verdict"`
	// Compare is the compare page of this candidate against the
	// baseline ("" when the baseline is not served).
	Compare string `json:"compare,omitempty"`
}

// evalState is what view reads of an eval's checkpoint.json.
type evalState struct {
	Gate    *eval.GateSettings `json:"gate"`
	Verdict *eval.Verdict      `json:"verdict"`
}

// readEvalState reads the gate and verdict of the eval in dir; both nil
// when the checkpoint cannot be read (rundir.Entry.Problem says why).
func readEvalState(dir string) evalState {
	var st evalState
	if data, err := os.ReadFile(filepath.Join(dir, rundir.CheckpointFile)); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

// baselineVersion returns the version of a stored verdict's baseline: the
// first word of its description.
func baselineVersion(st evalState) string {
	if st.Verdict == nil {
		return ""
	}
	v, _, _ := strings.Cut(st.Verdict.Baseline, " ")
	return v
}

// findDir returns the entry whose directory is dir (compared as
// absolute, cleaned paths).
func findDir(list []rundir.Entry, dir string) (rundir.Entry, bool) {
	want, err := filepath.Abs(dir)
	if err != nil {
		return rundir.Entry{}, false
	}
	for _, e := range list {
		if d, err := filepath.Abs(e.Dir); err == nil && d == want {
			return e, true
		}
	}
	return rundir.Entry{}, false
}

// evalVerdict builds the verdict section of the eval e (URL id id).
func evalVerdict(e rundir.Entry, id string, list []rundir.Entry) *EvalVerdictJSON {
	st := readEvalState(e.Dir)
	out := &EvalVerdictJSON{Verdict: e.Verdict, Comparisons: []ComparisonJSON{}, FailureChecks: []gate.Check{}}
	if st.Gate != nil {
		out.Gate = gateJSON(st.Gate.Config, "the gate of eval "+e.ID)
		out.FailOnRegression, out.MaxFailureIncrease = st.Gate.FailOnRegression, st.Gate.MaxFailureIncrease
	}
	switch {
	case st.Gate == nil:
		out.Note = "its checkpoint records no gate (an eval written before gates were recorded, or an unreadable checkpoint)"
		return out
	case e.Status != rundir.Finished || st.Verdict == nil:
		out.Note = "the eval has not finished: its verdict is reached when every phase is played"
		return out
	case len(st.Verdict.Comparisons) == 0:
		out.Note = "nothing was compared: the eval played one version and was given no --baseline"
		return out
	}
	v := st.Verdict
	out.Headline, out.Baseline, out.BaselineVersion = eval.Headline(v), v.Baseline, baselineVersion(st)
	baseID := ""
	if st.Gate.Baseline == "" {
		out.BaselineSelf, baseID = true, id
	} else {
		dir := st.Gate.Baseline
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			dir = filepath.Dir(dir) // an episodes.parquet: its eval directory, when it is one
		}
		if be, ok := findDir(list, dir); ok && be.Kind == rundir.KindEval {
			out.BaselineURLID, baseID = ID(be.Key), ID(be.Key)
		}
	}
	for _, c := range v.Comparisons {
		cj := ComparisonJSON{Check: c.Check, PBetter: format.Float(c.PBetter), PBetterAdj: format.Float(c.PBetterAdj), Improvement: c.Improvement, H1: gate.H1(c.Check), Verdict: c.Verdict()}
		if baseID != "" {
			q := url.Values{"a": {baseID}, "av": {out.BaselineVersion}, "b": {id}, "bv": {c.Check.Version}}
			if c.Check.Variant != "" {
				q.Set("variant", c.Check.Variant)
			}
			cj.Compare = "/compare?" + q.Encode()
		}
		out.Comparisons = append(out.Comparisons, cj)
	}
	out.FailureChecks = append(out.FailureChecks, v.FailureChecks...)
	return out
}

// storedComparison returns the comparison the eval of side b stored for
// b's version against side a's, when a is that eval's baseline: the
// verdict evolve eval printed, which the compare page then repeats.
func storedComparison(st evalState, a, b *Side, aDir, bDir string) (*eval.VersionVerdict, bool) {
	if st.Gate == nil || st.Verdict == nil || a.Version != baselineVersion(st) {
		return nil, false
	}
	if st.Gate.Baseline == "" {
		if aDir != bDir {
			return nil, false
		}
	} else {
		want := st.Gate.Baseline
		if fi, err := os.Stat(want); err == nil && !fi.IsDir() {
			want = filepath.Dir(want)
		}
		x, err1 := filepath.Abs(want)
		y, err2 := filepath.Abs(aDir)
		if err1 != nil || err2 != nil || x != y {
			return nil, false
		}
	}
	for i, c := range st.Verdict.Comparisons {
		if c.Check.Version == b.Version && c.Check.Variant == b.Variant {
			return &st.Verdict.Comparisons[i], true
		}
	}
	return nil, false
}

// worseText states a check's outcome in words that read right, the
// candidate (B) against the baseline (A): "candidate B worse than
// baseline A (H1: shift worse by more than 25): no (p adj. = 1 ≥ α =
// 0.05)".
func worseText(c gate.Check) string {
	ni := c.Hypothesis == gate.HypothesisNonInferiority
	what := "candidate B worse than baseline A"
	if c.Margin > 0 || c.MarginA12 > 0 {
		what += " (H1: " + gate.H1(c) + ")"
	}
	if ni {
		what = "candidate B non-inferior to baseline A (H1: " + gate.H1(c) + ")"
	}
	yes := c.Failed != ni // regression: failed = worse shown; non-inferiority: failed = not shown
	return fmt.Sprintf("%s: %s (%s)", what, yesNo(yes), pText(c.PAdj, c.Alpha, c.Correction != gate.CorrectionNone))
}

// betterText states the improvement test's outcome.
func betterText(pAdj, alpha float64, adjusted, yes bool) string {
	return fmt.Sprintf("candidate B better than baseline A: %s (%s)", yesNo(yes), pText(pAdj, alpha, adjusted))
}

// powerText explains a check's power in one line.
func powerText(c gate.Check) string {
	p := "unknown"
	if !math.IsNaN(c.Power) {
		p = fmt.Sprintf("%.0f%%", 100*c.Power)
	}
	if c.Hypothesis == gate.HypothesisNonInferiority {
		return fmt.Sprintf("Power: a candidate exactly as good as the baseline would be shown non-inferior with probability %s at these sample sizes (n = %d vs %d).", p, c.N, c.NBaseline)
	}
	return fmt.Sprintf("Power: a true loss of %.3g score points would be caught with probability %s at these sample sizes (n = %d vs %d); a \"no\" with low power is not evidence of no loss.",
		c.PowerLoss, p, c.N, c.NBaseline)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// pText is "p adj. = 4.3e-47 < α = 0.05" (or "p = …" when unadjusted).
func pText(p, alpha float64, adjusted bool) string {
	name := "p"
	if adjusted {
		name = "p adj."
	}
	rel := "≥"
	if p < alpha {
		rel = "<"
	}
	return fmt.Sprintf("%s = %.2g %s α = %g", name, p, rel, alpha)
}
