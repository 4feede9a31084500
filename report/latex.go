package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"evolve/internal/format"
)

// LaTeX renders results.tex: two booktabs tables ready to \input into a
// paper (they need \usepackage{booktabs}).
//
// The first lists, per generation, the incumbent and every candidate on
// the val split: version, n, mean ± half-width of the Student t 95% CI,
// IQM, the one-sided p of the acceptance test, the adjusted p and the A12
// effect size, and under each candidate its mutation in short
// (ShortMutation, on a line of its own: a column would not fit the text
// width); the incumbent's version carries a dagger, accepted candidates
// are in bold. The second gives the base
// and final versions on the test split: n, mean ± 95% CI, IQM with its
// bootstrap CI, and the two-sided U test p and A12 of final against base.
//
// The tables are set in \small with 3.5pt column padding so that they fit
// the text width of a standard one-column article, even with p-values in
// scientific notation and four-digit means (report/latex_test.go compiles
// them with pdflatex and fails on an overfull box).
func (d *Data) LaTeX() []byte {
	var w bytes.Buffer
	run := format.TeX(d.Manifest.RunID)
	label := format.TeXLabel(d.Manifest.RunID)
	s := d.Settings
	fmt.Fprintf(&w, "%% results.tex: written by evolve report from run %s.\n%% Needs \\usepackage{booktabs}.\n\n", d.Manifest.RunID)

	fmt.Fprintf(&w, `\begin{table}[t]
\centering
\caption{Val results of run \texttt{%s}. Each candidate is compared with its
generation's incumbent by a one-sided %s test (candidate better), $p$-values
%s, $\alpha = %s$. Mean $\pm$ half-width
of the 95\%% CI; IQM is the 25\%% trimmed mean; $A_{12}$ is the Vargha-Delaney
effect size; under each candidate, its change to the incumbent in short.
$^\dagger$~the generation's incumbent; accepted candidates in bold.}
\label{tab:%s-val}
\small
\setlength{\tabcolsep}{3.5pt}
\begin{tabular}{rlrrrrrr}
\toprule
Gen. & Version & $n$ & Mean $\pm$ 95\%% CI & IQM & $p$ & $p_{\mathrm{adj}}$ & $A_{12}$ \\
`, run, format.TeX(testLong(s.Test)), adjusted(s.Correction), num(s.Alpha), label)
	for _, g := range d.Generations {
		w.WriteString("\\midrule\n")
		fmt.Fprintf(&w, "%d & %s & %d & %s & %s & -- & -- & -- \\\\\n",
			g.Generation, format.TeX(g.Incumbent)+"$^\\dagger$", g.NVal, pm(g.ValMean, g.ValCILow, g.ValCIHigh), texNum(g.ValIQM))
		for _, c := range d.Candidates {
			if c.Generation != g.Generation {
				continue
			}
			cells := []string{c.Version, strconv.Itoa(int(c.N)), pm(c.Mean, c.CILow, c.CIHigh), texNum(c.IQM),
				format.TeXP(c.P), format.TeXP(c.PAdj), texF3(c.A12)}
			if c.Accepted {
				for i, x := range cells {
					cells[i] = bold(x)
				}
			}
			fmt.Fprintf(&w, " & %s \\\\\n", strings.Join(cells, " & "))
			if m := texMutation(c.Mutation); m != "" {
				// The mutation, in short, on a line of its own: the table
				// has no room for a column at the text width.
				fmt.Fprintf(&w, " & \\multicolumn{7}{l}{\\footnotesize\\quad %s} \\\\\n", m)
			}
		}
	}
	w.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")

	if len(d.Test) > 0 {
		fmt.Fprintf(&w, `
\begin{table}[t]
\centering
\caption{Test results of run \texttt{%s}: base and final version on the
frozen test seeds. Mean $\pm$ half-width of the Student $t$ 95\%% CI, and
the mean's 95\%% BCa bootstrap CI; IQM with its 95\%% BCa bootstrap CI
(%d resamples each); $p$ of the two-sided Mann-Whitney U test and $A_{12}$
of the final version against the base.}
\label{tab:%s-test}
\footnotesize
\setlength{\tabcolsep}{2pt}
\begin{tabular}{llrrrrrr}
\toprule
Version & Role & $n$ & Mean $\pm$ $t$ CI & Mean BCa CI & IQM [BCa CI] & $p$ & $A_{12}$ \\
\midrule
`, run, BootstrapReps, label)
		for i, v := range d.Test {
			p, a := "--", "--"
			if i == 1 && len(d.Compare) > 0 {
				p, a = format.TeXP(d.Compare[0].P), texF3(d.Compare[0].A12)
			}
			fmt.Fprintf(&w, "%s & %s & %d & %s & [%s, %s] & %s [%s, %s] & %s & %s \\\\\n", v.Version, format.TeX(v.Role), v.Summary.N,
				pm(v.Summary.Mean, v.Summary.CILow, v.Summary.CIHigh), texNum(v.MeanBCa.Low), texNum(v.MeanBCa.High),
				texNum(v.IQM.Point), texNum(v.IQM.Low), texNum(v.IQM.High), p, a)
		}
		w.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	}
	return w.Bytes()
}

// The numbers of results.tex (package format, missing values as "--"):
// a mean with its t CI's half-width (pm), scores with one decimal
// (texNum), effect sizes with three (texF3), p-values in math mode
// (format.TeXP).
func pm(mean, lo, hi float64) string { return format.TeXPM(mean, lo, hi, 1) }
func texNum(x float64) string        { return format.TeXDash.Fixed(x, 1) }
func texF3(x float64) string         { return format.TeXDash.Fixed(x, 3) }

// bold makes a cell bold, inside math mode for math cells.
func bold(s string) string {
	if strings.HasPrefix(s, "$") {
		return "$\\mathbf{" + strings.Trim(s, "$") + "}$"
	}
	return "\\textbf{" + s + "}"
}

// adjusted says how p-values were adjusted, for a caption.
func adjusted(c string) string {
	if c == "none" || c == "" {
		return "not adjusted"
	}
	return format.TeX(titleCase(c)) + "-adjusted across the generation's candidates"
}

// titleCase names a correction as papers do: "Holm", "BH".
func titleCase(c string) string {
	switch c {
	case "bh", "by":
		return strings.ToUpper(c)
	case "":
		return c
	}
	return strings.ToUpper(c[:1]) + c[1:]
}
