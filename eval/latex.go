package eval

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"evolve/gate"
	"evolve/internal/format"
	"evolve/results"
)

// ResultsTeXFile is the eval's booktabs table for a paper.
const ResultsTeXFile = "results.tex"

// LaTeX renders results.tex of an eval: one booktabs table (it needs
// \usepackage{booktabs}) with a row per version, grouped by variant under
// the variant's name: n, mean ± half-width of the Student t 95% CI, the
// mean's 95% BCa CI, IQM, and for each version compared with the baseline
// the adjusted p-values of both one-sided tests (worse, better), A12 and
// the verdict ("worse" for a regression, "not n.-i." for non-inferiority
// not shown, "better" for an improvement, "--" for no significant
// difference). With failure-share checks (--max-failure-increase) each
// compared version has a second row, "failed": the version's and
// the baseline's shares of failed episodes, the adjusted p of the exact
// test of an increase beyond the margin (its own family, named in the
// caption with the test) and its verdict ("worse" when an increase was
// shown). It is set in \footnotesize so that it fits the text width of a
// one-column article.
func LaTeX(res *Result) []byte {
	var w bytes.Buffer
	cmp := map[[2]string]VersionVerdict{}
	fail := map[[2]string]gate.Check{}
	var methods []string
	if res.Verdict != nil {
		for _, c := range res.Verdict.Comparisons {
			cmp[[2]string{c.Check.Variant, c.Check.Version}] = c
		}
		for _, c := range res.Verdict.FailureChecks {
			fail[[2]string{c.Variant, c.Version}] = c
			if !slices.Contains(methods, c.FailureMethod) {
				methods = append(methods, c.FailureMethod)
			}
		}
	}
	variants := len(res.Variants) > 1 || len(res.Variants) == 1 && res.Variants[0] != ""
	fmt.Fprintf(&w, "%% results.tex: written by evolve eval %s.\n%% Needs \\usepackage{booktabs}.\n\n", res.ID)
	caption := fmt.Sprintf("Evaluation \\texttt{%s}: each version on the same seeds. Mean $\\pm$ half-width of the Student $t$ 95\\%% CI, "+
		"and the mean's 95\\%% BCa bootstrap CI; IQM is the 25\\%% trimmed mean.", format.TeX(res.ID))
	if res.Verdict != nil && len(res.Verdict.Comparisons) > 0 {
		c := res.Verdict.Comparisons[0].Check
		caption += fmt.Sprintf(" Against the baseline %s: adjusted $p$ of the one-sided %s tests, worse ($p_{\\mathrm{w}}$) and better ($p_{\\mathrm{b}}$), "+
			"at $\\alpha = %v$; $A_{12}$ is the Vargha-Delaney effect size.", format.TeX(res.Verdict.Baseline), format.TeX(string(c.Test)), c.Alpha)
	}
	if fc := res.Verdict.failureFirst(); fc != nil {
		caption += fmt.Sprintf(" Rows \\emph{failed}: the version's share of failed episodes and the baseline's; $p_{\\mathrm{w}}$ of the "+
			"one-sided exact test (%s) of an increase by more than %s percentage points, adjusted in its own family (%s).",
			format.TeX(strings.Join(methods, ", ")), texNum(100*fc.Margin), format.TeX(fc.Family))
	}
	head := "Version & $n$ & Mean $\\pm$ $t$ CI & Mean BCa CI & IQM & $p_{\\mathrm{w}}$ & $p_{\\mathrm{b}}$ & $A_{12}$ & Verdict \\\\\n"
	fmt.Fprintf(&w, "\\begin{table}[t]\n\\centering\n\\caption{%s}\n\\label{tab:%s}\n\\footnotesize\n\\setlength{\\tabcolsep}{2pt}\n\\begin{tabular}{lrrrrrrrl}\n\\toprule\n%s",
		caption, format.TeXLabel(res.ID), head)
	variant := "\x00" // none yet
	for _, s := range res.Summaries {
		if s.Variant != variant {
			variant = s.Variant
			w.WriteString("\\midrule\n")
			if variants {
				fmt.Fprintf(&w, "\\multicolumn{9}{l}{\\emph{%s}} \\\\\n", format.TeX(s.Variant))
			}
		}
		row := fmt.Sprintf("%s & %d & %s & %s & %s", format.TeX(s.Version), s.N, texPM(s.Mean, s.CILow, s.CIHigh),
			texCI(s.MeanBCaLow, s.MeanBCaHigh), texNum(s.IQM))
		if c, ok := cmp[[2]string{s.Variant, s.Version}]; ok {
			verdict := "--"
			switch c.Verdict() {
			case results.VerdictRegression:
				verdict = "worse"
			case results.VerdictNotNonInferior:
				verdict = "not n.-i."
			case results.VerdictImprovement:
				verdict = "better"
			}
			row += fmt.Sprintf(" & %s & %s & %s & %s", format.TeXP(c.Check.PAdj), format.TeXP(c.PBetterAdj), texF3(c.Check.A12), verdict)
		} else if len(cmp) > 0 {
			row += " & -- & -- & -- & baseline"
		} else {
			row += " & -- & -- & -- & --"
		}
		w.WriteString(row + " \\\\\n")
		if f, ok := fail[[2]string{s.Variant, s.Version}]; ok {
			verdict := "--"
			if f.Failed {
				verdict = "worse"
			}
			fmt.Fprintf(&w, "\\quad\\emph{failed} & %d & %s\\%% vs %s\\%% & & & %s & -- & -- & %s \\\\\n",
				f.N, texNum(100*f.Mean), texNum(100*f.BaselineMean), format.TeXP(f.PAdj), verdict)
		}
	}
	w.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return w.Bytes()
}

// texCI formats a confidence interval as "[lo, hi]", or "--" when
// undefined.
func texCI(lo, hi float64) string {
	if ci := format.TeXDash.Interval(lo, hi, 1); ci != "" {
		return ci
	}
	return format.TeXDash.Missing
}

// failureFirst returns the first failure-share check, or nil (also for a
// nil Verdict).
func (v *Verdict) failureFirst() *gate.Check {
	if v == nil || len(v.FailureChecks) == 0 {
		return nil
	}
	return &v.FailureChecks[0]
}

// The numbers of results.tex (package format, missing values as "--"):
// scores with one decimal, effect sizes with three, a mean with its t
// CI's half-width.
func texNum(x float64) string           { return format.TeXDash.Fixed(x, 1) }
func texF3(x float64) string            { return format.TeXDash.Fixed(x, 3) }
func texPM(mean, lo, hi float64) string { return format.TeXPM(mean, lo, hi, 1) }
