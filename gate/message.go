package gate

import (
	"fmt"
	"strings"

	"evolve/internal/format"
	"evolve/stats"
)

// H1 states the alternative hypothesis of c's test in words.
func H1(c Check) string {
	ni := c.Hypothesis == HypothesisNonInferiority
	switch {
	case c.Test == stats.TestFailureIncrease:
		return "failed share higher by more than " + num(c.Margin)
	case c.MarginA12 > 0:
		if ni {
			return "A12 > " + num(0.5-c.MarginA12)
		}
		return "A12 < " + num(0.5-c.MarginA12)
	case c.Margin > 0:
		what := "shift"
		if c.MarginOn == MarginOnMean {
			what = "mean"
		}
		if ni {
			return fmt.Sprintf("%s worse by less than %s", what, num(c.Margin))
		}
		return fmt.Sprintf("%s worse by more than %s", what, num(c.Margin))
	case c.MarginOn == MarginOnMean:
		return "mean worse"
	}
	return "worse"
}

// message formats Check.Message.
func message(c Check) string {
	var b strings.Builder
	b.WriteString(c.Name())
	switch {
	case c.Failed && c.Hypothesis == HypothesisNonInferiority:
		b.WriteString(": NOT SHOWN NON-INFERIOR: ")
	case c.Failed:
		b.WriteString(": REGRESSION: ")
	case c.Hypothesis == HypothesisNonInferiority:
		b.WriteString(": non-inferior: ")
	default:
		b.WriteString(": ok: ")
	}
	hl := "HL shift"
	if c.Paired {
		hl = "HL paired diff"
	}
	fmt.Fprintf(&b, "mean %s vs baseline %s (diff %s, %s %s [%g%% CI %s, %s])",
		num(c.Mean), num(c.BaselineMean), num(c.MeanDiff), hl, num(c.HLShift), HLConfLevel*100, num(c.HLLow), num(c.HLHigh))
	fmt.Fprintf(&b, "; %s test, H1: %s", c.Hypothesis, H1(c))
	fmt.Fprintf(&b, "; %s %s = %s, p = %s", c.Test, statName(c.Test), num(c.Statistic), pfmt(c.P))
	if c.Correction != CorrectionNone {
		fmt.Fprintf(&b, ", %s-adjusted p = %s", c.Correction, pfmt(c.PAdj))
	}
	rel := ">="
	if c.PAdj < c.Alpha {
		rel = "<"
	}
	fmt.Fprintf(&b, " %s alpha %v; A12 %.3f; n = %d vs %d", rel, c.Alpha, c.A12, c.N, c.NBaseline)
	if c.Paired {
		b.WriteString(" paired by seed")
	}
	if c.NUnmatched > 0 {
		fmt.Fprintf(&b, ", %d unmatched", c.NUnmatched)
	}
	if c.Hypothesis == HypothesisNonInferiority {
		fmt.Fprintf(&b, "; power to show non-inferiority of an equal candidate %s", powerFmt(c.Power))
	} else {
		fmt.Fprintf(&b, "; power to detect a loss of %s: %s (passing is not evidence of non-inferiority)", num(c.PowerLoss), powerFmt(c.Power))
	}
	return b.String()
}

// statName names Check.Statistic for test: its registered symbol
// (stats.TestSpec.Statistic), "U" for an unregistered name.
func statName(test stats.TestName) string {
	if spec, ok := stats.LookupTest(test); ok && spec.Statistic != "" {
		return spec.Statistic
	}
	return "U"
}

// powerFmt formats a power as a whole percentage, "unknown" when it
// could not be computed.
func powerFmt(p float64) string { return format.Style{Missing: "unknown"}.Percent(p, 0) }
