package gate

import (
	"fmt"
	"os"
	"strings"
)

// DefaultTitle is the heading Markdown uses for an empty title.
const DefaultTitle = "evolve eval: regression gate"

// StepSummaryEnv is the environment variable GitHub Actions sets to the
// file a step appends its Markdown summary to.
const StepSummaryEnv = "GITHUB_STEP_SUMMARY"

// Markdown returns checks as a GitHub-flavoured Markdown pull-request
// comment: a "## title" heading (DefaultTitle when title is empty), a
// one-line verdict ("✅ No regression in N checks" or "❌ K of N checks
// regressed"), the rule (test, alternative, margin, correction, alpha),
// and a table with a row per check in order: version, variant, n
// (candidate vs baseline), the means, their difference, the
// Hodges-Lehmann shift with its 95% CI, the test, p (adjusted p), A12 and
// the verdict (✅ ok / ❌ regression). Warnings follow as a list. Scores
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
		if c.Regression {
			failed++
		}
	}
	plural := "s"
	if len(checks) == 1 {
		plural = ""
	}
	if failed == 0 {
		fmt.Fprintf(&b, "✅ **No regression** in %d check%s.\n\n", len(checks), plural)
	} else {
		fmt.Fprintf(&b, "❌ **%d of %d check%s regressed.**\n\n", failed, len(checks), plural)
	}
	b.WriteString(rule(checks))
	b.WriteString("\n\n")
	b.WriteString("| version | variant | n | mean | baseline mean | diff | HL shift [95% CI] | test | p (adj.) | A12 | verdict |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |\n")
	for _, c := range checks {
		verdict := "✅ ok"
		if c.Regression {
			verdict = "❌ regression"
		}
		variant := c.Variant
		if variant == "" {
			variant = "-"
		}
		n := fmt.Sprintf("%d vs %d", c.N, c.NBaseline)
		if c.Test == TestSignedRank {
			n = fmt.Sprintf("%d pairs", c.N)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s [%s, %s] | %s | %s (%s) | %.3f | %s |\n",
			cell(c.Version), cell(variant), n, num(c.Mean), num(c.BaselineMean), num(c.MeanDiff),
			num(c.HLShift), num(c.HLLow), num(c.HLHigh), c.Test, pfmt(c.P), pfmt(c.PAdj), c.A12, verdict)
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

// rule describes the test of the first check in one sentence.
func rule(checks []Check) string {
	c := checks[0]
	var h1 string
	switch {
	case c.Margin > 0:
		h1 = fmt.Sprintf("worse than the baseline by more than %s (non-inferiority margin, score units)", num(c.Margin))
	case c.MarginA12 > 0:
		h1 = fmt.Sprintf("A12 below %s (non-inferiority margin %s in A12 units)", num(0.5-c.MarginA12), num(c.MarginA12))
	default:
		h1 = "worse than the baseline"
	}
	corr := "Holm-adjusted across the versions of each variant"
	if c.Correction == CorrectionNone {
		corr = "not adjusted for multiple comparisons"
	}
	return fmt.Sprintf("A version regresses when a one-sided test says it is %s: p %s, regression if p (adj.) < α = %v. "+
		"A12 is P(version > baseline) + ties/2; diff and shift are version − baseline, the HL shift being the Hodges-Lehmann "+
		"shift of the two score distributions with its 95%% CI (unpaired, so wider than what the paired test resolves).", h1, corr, c.Alpha)
}

// cell escapes s for a GitHub-flavoured Markdown table cell: pipes are
// backslash-escaped and line breaks become spaces.
func cell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "\r", " ")
	return s
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
