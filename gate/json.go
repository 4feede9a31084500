package gate

import (
	"evolve/internal/format"
	"evolve/stats"
)

// checkJSON is the JSON form of a Check; non-finite numbers are null.
type checkJSON struct {
	Version      string         `json:"version"`
	Variant      string         `json:"variant"`
	N            int            `json:"n"`
	NBaseline    int            `json:"n_baseline"`
	NPaired      int            `json:"n_paired"`
	NUnmatched   int            `json:"n_unmatched"`
	Paired       bool           `json:"paired"`
	Hypothesis   string         `json:"hypothesis"`
	MarginOn     string         `json:"margin_on"`
	Mean         *float64       `json:"mean"`
	BaselineMean *float64       `json:"baseline_mean"`
	MeanDiff     *float64       `json:"mean_diff"`
	Test         stats.TestName `json:"test"`
	Statistic    *float64       `json:"statistic"`
	P            *float64       `json:"p"`
	PAdj         *float64       `json:"p_adj"`
	A12          *float64       `json:"a12"`
	HLShift      *float64       `json:"hl_shift"`
	HLLow        *float64       `json:"hl_low"`
	HLHigh       *float64       `json:"hl_high"`
	Margin       float64        `json:"margin"`
	MarginA12    float64        `json:"margin_a12"`
	Alpha        float64        `json:"alpha"`
	Correction   string         `json:"correction"`
	Family       string         `json:"family"`
	Failed       bool           `json:"failed"`
	Regression   bool           `json:"regression"`
	Power        *float64       `json:"power"`
	PowerLoss    float64        `json:"power_loss"`
	Message      string         `json:"message"`
	Warnings     []string       `json:"warnings"`
	// Method is set only by callers that record it (never by Compare).
	Method string `json:"method,omitempty"`
	// FailureMethod is set on failure-share checks only.
	FailureMethod string `json:"failure_method,omitempty"`
}

// MarshalJSON encodes c as an object with the snake_case keys version,
// variant, n, n_baseline, n_paired, n_unmatched, paired, hypothesis,
// margin_on, mean, baseline_mean, mean_diff, test, statistic, p, p_adj,
// a12, hl_shift, hl_low, hl_high, margin, margin_a12, alpha, correction,
// family, failed, regression, power, power_loss, message and warnings (an
// array, [] when there are none), method when it is set (never by
// Compare) and failure_method on failure-share checks only
// (stats.TestFailureIncrease), each Check field under the key of its
// name. NaN and ±Inf (an HL interval that could not be computed, the t of
// a degenerate test, an unknown power) are null.
func (c Check) MarshalJSON() ([]byte, error) {
	w := c.Warnings
	if w == nil {
		w = []string{}
	}
	return format.Marshal(checkJSON{
		Version: c.Version, Variant: c.Variant,
		N: c.N, NBaseline: c.NBaseline, NPaired: c.NPaired, NUnmatched: c.NUnmatched, Paired: c.Paired,
		Hypothesis: c.Hypothesis, MarginOn: c.MarginOn,
		Mean: format.Finite(c.Mean), BaselineMean: format.Finite(c.BaselineMean), MeanDiff: format.Finite(c.MeanDiff),
		Test: c.Test, Method: c.Method, Statistic: format.Finite(c.Statistic),
		P: format.Finite(c.P), PAdj: format.Finite(c.PAdj), A12: format.Finite(c.A12),
		HLShift: format.Finite(c.HLShift), HLLow: format.Finite(c.HLLow), HLHigh: format.Finite(c.HLHigh),
		Margin: c.Margin, MarginA12: c.MarginA12, Alpha: c.Alpha, Correction: c.Correction, Family: c.Family,
		Failed: c.Failed, Regression: c.Regression, Power: format.Finite(c.Power), PowerLoss: c.PowerLoss,
		Message: c.Message, Warnings: w, FailureMethod: c.FailureMethod,
	}, "")
}

// JSON returns checks as an indented JSON document ending in a newline:
// {"hypothesis": H, "family": F, "failed": K, "regressions": R, "checks":
// [...]}, H and F those of the first check ("" when there is none), K the
// number of checks with Failed set, R the number with Regression set, and
// each check as Check.MarshalJSON writes it, in order ([] when checks is
// empty). The keys are stable.
func JSON(checks []Check) ([]byte, error) {
	doc := struct {
		Hypothesis  string  `json:"hypothesis"`
		Family      string  `json:"family"`
		Failed      int     `json:"failed"`
		Regressions int     `json:"regressions"`
		Checks      []Check `json:"checks"`
	}{Checks: checks}
	if doc.Checks == nil {
		doc.Checks = []Check{}
	}
	if len(checks) > 0 {
		doc.Hypothesis, doc.Family = checks[0].Hypothesis, checks[0].Family
	}
	for _, c := range checks {
		if c.Failed {
			doc.Failed++
		}
		if c.Regression {
			doc.Regressions++
		}
	}
	return format.Marshal(doc, "  ")
}
