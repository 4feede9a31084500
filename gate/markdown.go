package gate

import (
	"fmt"
	"os"
	"strings"

	"evolve/stats"
)

// DefaultTitle is the heading Markdown uses for an empty title.
const DefaultTitle = "evolve eval: regression gate"

// StepSummaryEnv is the environment variable GitHub Actions sets to the
// file a step appends its Markdown summary to.
const StepSummaryEnv = "GITHUB_STEP_SUMMARY"

// Markdown returns checks as a GitHub-flavoured Markdown pull-request
// comment: a "## title" heading (DefaultTitle when title is empty), a
// one-line verdict ("✅ No regression in N checks", "❌ K of N checks
// regressed", or under HypothesisNonInferiority "✅ Non-inferiority shown"
// / "❌ K of N checks not shown non-inferior"), the rule (hypothesis, H1,
// alpha, family and correction, what passing means), and a table with a
// row per check in order: version, variant, n (candidate vs baseline, or
// pairs and unmatched), the means, their difference, the Hodges-Lehmann
// estimate with its 95% CI, the test, p (adjusted p), A12, the power
// (Check.Power) and the verdict. Warnings follow as a list. Scores
// are printed with about 4 significant digits, p-values with 2. Pipes and
// line breaks in names are escaped, so each check is one table row. The
// rule line takes Alpha and Correction from the first check (Compare
// gives every check the same).
func Markdown(checks []Check, title string) string {
	if title == "" {
		title = DefaultTitle
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", cell(title))
	if len(checks) == 0 {
		b.WriteString("No checks: nothing was compared with the baseline.\n")
		return b.String()
	}
	failed := 0
	for _, c := range checks {
		if c.Failed {
			failed++
		}
	}
	plural := "s"
	if len(checks) == 1 {
		plural = ""
	}
	ni := checks[0].Hypothesis == HypothesisNonInferiority
	switch {
	case ni && failed == 0:
		fmt.Fprintf(&b, "✅ **Non-inferiority shown** in %d check%s.\n\n", len(checks), plural)
	case ni:
		fmt.Fprintf(&b, "❌ **%d of %d check%s not shown non-inferior.**\n\n", failed, len(checks), plural)
	case failed == 0:
		fmt.Fprintf(&b, "✅ **No regression** in %d check%s (not evidence of non-inferiority; see the power column).\n\n", len(checks), plural)
	default:
		fmt.Fprintf(&b, "❌ **%d of %d check%s regressed.**\n\n", failed, len(checks), plural)
	}
	b.WriteString(rule(checks))
	b.WriteString("\n\n")
	b.WriteString("| version | variant | n | mean | baseline mean | diff | HL shift [95% CI] | test | p (adj.) | A12 | power | verdict |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |\n")
	for _, c := range checks {
		verdict := "✅ ok"
		switch {
		case c.Failed && ni:
			verdict = "❌ not shown non-inferior"
		case c.Failed:
			verdict = "❌ regression"
		case ni:
			verdict = "✅ non-inferior"
		}
		variant := c.Variant
		if variant == "" {
			variant = "-"
		}
		n := fmt.Sprintf("%d vs %d", c.N, c.NBaseline)
		if c.Paired {
			n = fmt.Sprintf("%d pairs", c.N)
			if c.NUnmatched > 0 {
				n += fmt.Sprintf(" (%d unmatched)", c.NUnmatched)
			}
		}
		if c.Test == stats.TestFailureIncrease { // the shares of failed episodes; no HL, A12 or power
			if c.Failed {
				verdict = "❌ failure increase"
			}
			fmt.Fprintf(&b, "| %s (failure share) | %s | %s | %s | %s | %s | - | %s (%s, H1: %s) | %s (%s) | - | - | %s |\n",
				cell(c.Version), cell(variant), n, num(c.Mean), num(c.BaselineMean), num(c.MeanDiff),
				c.Test, c.FailureMethod, H1(c), pfmt(c.P), pfmt(c.PAdj), verdict)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s [%s, %s] | %s | %s (%s) | %.3f | %s | %s |\n",
			cell(c.Version), cell(variant), n, num(c.Mean), num(c.BaselineMean), num(c.MeanDiff),
			num(c.HLShift), num(c.HLLow), num(c.HLHigh), c.Test, pfmt(c.P), pfmt(c.PAdj), c.A12, powerFmt(c.Power), verdict)
	}
	var notes []string
	for _, c := range checks {
		for _, w := range c.Warnings {
			notes = append(notes, fmt.Sprintf("- %s: %s\n", cell(c.Name()), cell(w)))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range notes {
			b.WriteString(n)
		}
	}
	return b.String()
}

// rule describes the hypothesis, test and family of the first check.
func rule(checks []Check) string {
	c := checks[0]
	corr := "p (adj.) is adjusted over the family: " + c.Family
	if c.Correction == CorrectionNone {
		corr = "p is not adjusted for multiple comparisons (" + c.Family + ")"
	}
	var head string
	if c.Hypothesis == HypothesisNonInferiority {
		head = fmt.Sprintf("**Hypothesis: non-inferiority.** H0: the version is worse than the baseline by at least the margin; "+
			"it passes only when a one-sided test rejects H0 (H1: %s) at α = %v. Passing is evidence of non-inferiority. "+
			"Power: the chance to pass a version truly equal to the baseline.", H1(c), c.Alpha)
	} else {
		head = fmt.Sprintf("**Hypothesis: regression.** A version fails when a one-sided test supports H1: %s, at α = %v. "+
			"Passing is **not** evidence of non-inferiority: power is the chance to fail a version truly worse by the loss in "+
			"the message (twice the margin, or half the baseline's SD without one).", H1(c), c.Alpha)
	}
	return head + " " + corr + ". A12 is P(version > baseline) + ties/2; diff and shift are version − baseline; " +
		"for paired checks the HL shift is the Hodges-Lehmann estimate of the paired differences (what the signed-rank test is about) with its 95% CI."
}

// AppendStepSummary appends markdown (with a final newline added if it
// lacks one) to the file named by $GITHUB_STEP_SUMMARY, creating it if
// needed, as GitHub Actions expects of a job summary. When the variable
// is unset or empty it does nothing and returns nil.
//
// Errors: opening or writing the file, wrapped with its name.
func AppendStepSummary(markdown string) error {
	path := os.Getenv(StepSummaryEnv)
	if path == "" {
		return nil
	}
	if !strings.HasSuffix(markdown, "\n") {
		markdown += "\n"
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("gate: appending the step summary to $%s: %w", StepSummaryEnv, err)
	}
	if _, err := f.WriteString(markdown); err != nil {
		f.Close()
		return fmt.Errorf("gate: appending the step summary to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gate: appending the step summary to %s: %w", path, err)
	}
	return nil
}
