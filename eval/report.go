package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"evolve/gate"
	"evolve/internal/atomicfile"
	"evolve/internal/format"
	"evolve/results"
)

// Output files of an eval directory, written before the eval is marked
// finished.
const (
	ReportFile      = "report.md"
	HTMLFile        = "report.html"
	ComparisonsFile = "comparisons.parquet"
)

// outputFiles are the files writeOutputs writes, relative to the eval
// directory.
var outputFiles = []string{ReportFile, "plots/" + ScoresName + ".png", "plots/" + ScoresName + ".svg",
	"plots/" + ScoresName + ".pdf", HTMLFile, ComparisonsFile, ResultsTeXFile}

// writeOutputs writes res's report.md, plots, report.html,
// comparisons.parquet and results.tex (every file, or with onlyMissing those that do not
// exist). Every write is atomic.
func writeOutputs(res *Result, onlyMissing bool) error {
	if onlyMissing {
		missing := false
		for _, f := range outputFiles {
			if _, err := os.Stat(filepath.Join(res.Dir, filepath.FromSlash(f))); errors.Is(err, fs.ErrNotExist) {
				missing = true
			}
		}
		if !missing {
			return nil
		}
	}
	md := Markdown(res)
	if err := atomicfile.WriteFile(filepath.Join(res.Dir, ReportFile), []byte(md), 0o644); err != nil {
		return err
	}
	svg, err := PlotScores(res.Dir, res, res.Gate.Baseline == "" && len(res.Versions) > 1)
	if err != nil {
		return err
	}
	page, err := HTML("Evaluation "+res.ID, md, svg)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(res.Dir, HTMLFile), page, 0o644); err != nil {
		return err
	}
	if err := results.WriteComparisons(filepath.Join(res.Dir, ComparisonsFile), ComparisonRows(res)); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(res.Dir, ResultsTeXFile), LaTeX(res), 0o644)
}

// ComparisonRows returns the rows of comparisons.parquet: one per
// comparison of res.Verdict (check "score"), in its order, then one per
// failure-share check (check "failure-share"; WriteComparisons sorts each
// after its version's score row).
func ComparisonRows(res *Result) []results.ComparisonRow {
	var rows []results.ComparisonRow
	if res.Verdict == nil {
		return nil
	}
	base := res.Verdict.Baseline
	if i := strings.Index(base, " ("); i > 0 {
		base = base[:i] // "v1.0.0 (embedded), the first version of this eval" -> "v1.0.0"
	}
	for _, c := range res.Verdict.Comparisons {
		k := c.Check
		rows = append(rows, results.ComparisonRow{Eval: res.ID, Variant: k.Variant, Version: k.Version, Baseline: base,
			N: int32(k.N), NBaseline: int32(k.NBaseline), NPaired: int32(k.NPaired),
			Mean: k.Mean, BaselineMean: k.BaselineMean, MeanDiff: k.MeanDiff, Test: string(k.Test), Statistic: k.Statistic,
			PWorse: k.P, PWorseAdj: k.PAdj, PBetter: c.PBetter, PBetterAdj: c.PBetterAdj, A12: k.A12,
			HLShift: k.HLShift, HLLow: k.HLLow, HLHigh: k.HLHigh, Margin: k.Margin, MarginA12: k.MarginA12,
			Alpha: k.Alpha, Correction: k.Correction, Family: k.Family, Check: results.CheckScore, Verdict: c.Verdict()})
	}
	for _, k := range res.Verdict.FailureChecks {
		rows = append(rows, failureRow(res.ID, base, k))
	}
	return rows
}

// failureRow is the comparisons.parquet row of the failure-share check k:
// the shares of failed episodes as the means, the exact test's p-values,
// and NaN for what only a score comparison has (the improvement test,
// A12, the HL shift).
func failureRow(id, base string, k gate.Check) results.ComparisonRow {
	verdict := results.VerdictNoDifference
	if k.Failed {
		verdict = results.VerdictRegression
	}
	nan := math.NaN()
	return results.ComparisonRow{Eval: id, Variant: k.Variant, Version: k.Version, Baseline: base, Check: results.CheckFailureShare,
		N: int32(k.N), NBaseline: int32(k.NBaseline), NPaired: int32(k.NPaired),
		Mean: k.Mean, BaselineMean: k.BaselineMean, MeanDiff: k.MeanDiff, Test: string(k.Test), FailureMethod: k.FailureMethod, Statistic: k.Statistic,
		PWorse: k.P, PWorseAdj: k.PAdj, PBetter: nan, PBetterAdj: nan, A12: nan, HLShift: nan, HLLow: nan, HLHigh: nan,
		Margin: k.Margin, Alpha: k.Alpha, Correction: k.Correction, Family: k.Family, Verdict: verdict}
}

// Markdown returns report.md: the settings, the summary per version and
// variant, the comparisons with the baseline (both one-sided tests and a
// verdict: regression, improvement or no significant difference), the
// figure and the versions. It uses no emoji (report.html must not depend
// on installed fonts) and nothing that differs between an eval and its
// resume.
func Markdown(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Evaluation %s\n\n", res.ID)
	n := 0
	for _, s := range res.Summaries {
		n += int(s.N)
	}
	fmt.Fprintf(&b, "%s on %s; %s.\n\n", plural(len(res.Versions), "version"), plural(max(1, len(res.Variants)), "variant"), plural(n, "episode"))
	b.WriteString("| variant | version | n | mean [95% t CI] | mean 95% BCa CI | median | IQM [95% BCa CI] | std |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	few := 0
	for _, s := range res.Summaries {
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f [%.1f, %.1f] | [%.1f, %.1f] | %.1f | %.1f [%.1f, %.1f] | %.1f |\n", dash(s.Variant), cell(s.Version), s.N, s.Mean, s.CILow, s.CIHigh, s.MeanBCaLow, s.MeanBCaHigh, s.Median, s.IQM, s.IQMCILow, s.IQMCIHigh, s.Std)
		if s.N < 10 {
			few++
		}
	}
	if few > 0 {
		fmt.Fprintf(&b, "\nWarning: %s with fewer than 10 episodes: there no interval reaches its confidence level reliably (with skewed scores a 95%% interval covers 75-90%%; see docs/statistics.md).\n", plural(few, "row"))
	}
	if v := res.Verdict; v != nil && len(v.Health) > 0 {
		b.WriteString(healthMarkdown(v.Health))
	}
	if v := res.Verdict; v != nil && len(v.Comparisons) > 0 {
		b.WriteString("\n## Comparisons with the baseline\n\n")
		b.WriteString("Baseline: " + cell(v.Baseline) + ".\n\n")
		b.WriteString("**" + Headline(v) + "**\n\n")
		b.WriteString(ruleText(v.Comparisons[0].Check) + "\n\n")
		b.WriteString("| version | variant | n | mean | baseline mean | diff | HL shift [95% CI] | test | p worse (adj.) | p better (adj.) | A12 | verdict |\n")
		b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |\n")
		for _, c := range v.Comparisons {
			k := c.Check
			fmt.Fprintf(&b, "| %s | %s | %d vs %d | %s | %s | %s | %s [%s, %s] | %s | %s (%s) | %s (%s) | %.3f | %s |\n",
				cell(k.Version), dash(k.Variant), k.N, k.NBaseline, num(k.Mean), num(k.BaselineMean), num(k.MeanDiff),
				num(k.HLShift), num(k.HLLow), num(k.HLHigh), k.Test, pfmt(k.P), pfmt(k.PAdj), pfmt(c.PBetter), pfmt(c.PBetterAdj), k.A12, c.Verdict())
		}
		var notes []string
		for _, c := range v.Comparisons {
			for _, w := range c.Check.Warnings {
				notes = append(notes, "- "+cell(c.Check.Name())+": "+cell(w)+"\n")
			}
		}
		if len(notes) > 0 {
			b.WriteString("\nNotes:\n\n" + strings.Join(notes, ""))
		}
	}
	b.WriteString("\n![Scores per version](plots/scores.png)\n\n## Versions\n\n")
	for _, v := range res.Versions {
		fmt.Fprintf(&b, "- %s: %s (content_sha256 `%s`)\n", cell(v.Label), cell(v.Source), v.Prompt.ContentSHA256)
	}
	return b.String()
}

// Headline is the verdict in one sentence: how many comparisons failed
// (regressed, or were not shown non-inferior) and how many improved, then
// with failure-share checks (Gate.MaxFailureIncrease) how many of them
// failed.
func Headline(v *Verdict) string {
	h := headline(v)
	if n := len(v.FailureChecks); n > 0 {
		bad := 0
		for _, c := range v.FailureChecks {
			if c.Failed {
				bad++
			}
		}
		if bad > 0 {
			h += fmt.Sprintf(" Failure share increased beyond %v in %d of %s.", v.FailureChecks[0].Margin, bad, plural(n, "comparison"))
		} else {
			h += fmt.Sprintf(" No failure-share increase beyond %v shown in %s.", v.FailureChecks[0].Margin, plural(n, "comparison"))
		}
	}
	return h
}

// headline is Headline of the score checks.
func headline(v *Verdict) string {
	var bad, good int
	for _, c := range v.Comparisons {
		switch c.Verdict() {
		case results.VerdictRegression, results.VerdictNotNonInferior:
			bad++
		case results.VerdictImprovement:
			good++
		}
	}
	switch {
	case bad > 0 && good > 0:
		return fmt.Sprintf("%d of %d regressed; %d improved.", bad, len(v.Comparisons), good)
	case bad > 0:
		return fmt.Sprintf("%d of %s regressed.", bad, plural(len(v.Comparisons), "comparison"))
	case good > 0:
		return fmt.Sprintf("No regression; %d of %s improved.", good, plural(len(v.Comparisons), "comparison"))
	}
	return fmt.Sprintf("No regression and no improvement in %s.", plural(len(v.Comparisons), "comparison"))
}

// StepSummary is the Markdown evolve eval appends to
// $GITHUB_STEP_SUMMARY: gate.Markdown's regression table, then a line
// naming the improvements.
func StepSummary(res *Result) string {
	md := gate.Markdown(res.Verdict.Checks(), "evolve eval "+res.ID)
	var good []string
	for _, c := range res.Verdict.Comparisons {
		if c.Improvement {
			good = append(good, fmt.Sprintf("%s (better: p (adj.) = %s)", cell(c.Check.Name()), pfmt(c.PBetterAdj)))
		}
	}
	if len(good) > 0 {
		md += "\nImproved: " + strings.Join(good, ", ") + ".\n"
	}
	return md
}

// ruleText describes the tests in one paragraph.
func ruleText(c gate.Check) string {
	h1 := "worse than the baseline"
	scale := "a location shift"
	if c.MarginOn == gate.MarginOnMean {
		scale = "the mean"
	}
	switch {
	case c.Margin > 0:
		h1 = fmt.Sprintf("worse than the baseline by more than %s score units (margin on %s)", num(c.Margin), scale)
	case c.MarginA12 > 0:
		h1 = fmt.Sprintf("below A12 = %s (margin %s in A12 units)", num(0.5-c.MarginA12), num(c.MarginA12))
	}
	hyp := fmt.Sprintf("Hypothesis %s: a check fails on evidence that the version is %s; passing is not evidence of non-inferiority.", c.Hypothesis, h1)
	if c.Hypothesis == gate.HypothesisNonInferiority {
		hyp = fmt.Sprintf("Hypothesis non-inferiority: H0 is that the version is %s; a check passes only when H0 is rejected.", h1)
	}
	return fmt.Sprintf("%s Two one-sided tests per version at alpha = %v, p-values adjusted by %s over the family (%s); "+
		"an improvement when a version is better (the same test with the roles swapped, no margin). "+
		"A12 is P(version > baseline) + ties/2; diff and the Hodges-Lehmann shift (with its 95%% CI) are version minus baseline.",
		hyp, c.Alpha, c.Correction, c.Family)
}

// plural returns "1 version", "2 versions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return cell(s)
}

// cell escapes s for a Markdown table cell (format.Cell).
var cell = format.Cell

// num formats a score with about 4 significant digits, without an
// exponent between 1e-3 and 1e7, and NaN or an infinity as "n/a"; pfmt a
// p-value with 2 significant digits (package format).
var (
	num  = format.NA.Score
	pfmt = format.NA.P
)
