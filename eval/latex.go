package eval

import (
	"bytes"
	"fmt"

	"evolve/report"
	"evolve/results"
)

// ResultsTeXFile is the eval's booktabs table for a paper.
const ResultsTeXFile = "results.tex"

// LaTeX renders results.tex of an eval: one booktabs table (it needs
// \usepackage{booktabs}) with a row per version, grouped by variant under
// the variant's name: n, mean ± half-width of the Student t 95% CI, IQM,
// and for each version compared with the baseline the adjusted p-values
// of both one-sided tests (worse, better), A12 and the verdict ("worse"
// for a regression, "better" for an improvement, "--" for no significant
// difference). It is set in
// \small so that it fits the text width of a one-column article.
func LaTeX(res *Result) []byte {
	var w bytes.Buffer
	cmp := map[[2]string]Comparison{}
	if res.Verdict != nil {
		for _, c := range res.Verdict.Comparisons {
			cmp[[2]string{c.Check.Variant, c.Check.Version}] = c
		}
	}
	variants := len(res.Variants) > 1 || len(res.Variants) == 1 && res.Variants[0] != ""
	fmt.Fprintf(&w, "%% results.tex: written by evolve eval %s.\n%% Needs \\usepackage{booktabs}.\n\n", res.ID)
	caption := fmt.Sprintf("Evaluation \\texttt{%s}: each version on the same seeds. Mean $\\pm$ half-width of the 95\\%% CI; "+
		"IQM is the 25\\%% trimmed mean.", report.TexEscape(res.ID))
	if res.Verdict != nil && len(res.Verdict.Comparisons) > 0 {
		c := res.Verdict.Comparisons[0].Check
		caption += fmt.Sprintf(" Against the baseline %s: adjusted $p$ of the one-sided %s tests, worse ($p_{\\mathrm{w}}$) and better ($p_{\\mathrm{b}}$), "+
			"at $\\alpha = %v$; $A_{12}$ is the Vargha-Delaney effect size.", report.TexEscape(res.Verdict.Baseline), report.TexEscape(c.Test), c.Alpha)
	}
	head := "Version & $n$ & Mean $\\pm$ 95\\% CI & IQM & $p_{\\mathrm{w}}$ & $p_{\\mathrm{b}}$ & $A_{12}$ & Verdict \\\\\n"
	fmt.Fprintf(&w, "\\begin{table}[t]\n\\centering\n\\caption{%s}\n\\label{tab:%s}\n\\small\n\\setlength{\\tabcolsep}{3.5pt}\n\\begin{tabular}{lrrrrrrl}\n\\toprule\n%s",
		caption, labelSafe(res.ID), head)
	variant := "\x00" // none yet
	for _, s := range res.Summaries {
		if s.Variant != variant {
			variant = s.Variant
			w.WriteString("\\midrule\n")
			if variants {
				fmt.Fprintf(&w, "\\multicolumn{8}{l}{\\emph{%s}} \\\\\n", report.TexEscape(s.Variant))
			}
		}
		row := fmt.Sprintf("%s & %d & %s & %s", report.TexEscape(s.Version), s.N, report.TexPM(s.Mean, s.CILow, s.CIHigh), report.TexNum(s.IQM))
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
			row += fmt.Sprintf(" & %s & %s & %s & %s", report.TexP(c.Check.PAdj), report.TexP(c.PBetterAdj), report.TexF3(c.Check.A12), verdict)
		} else if len(cmp) > 0 {
			row += " & -- & -- & -- & baseline"
		} else {
			row += " & -- & -- & -- & --"
		}
		w.WriteString(row + " \\\\\n")
	}
	w.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return w.Bytes()
}

// labelSafe keeps the characters LaTeX accepts in a \label.
func labelSafe(s string) string {
	out := []rune(s)
	for i, r := range out {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			out[i] = '-'
		}
	}
	return string(out)
}
