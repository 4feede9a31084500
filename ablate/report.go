package ablate

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"

	"evolve/internal/atomicfile"
	"evolve/results"
)

// Figure base names, under plots/.
const (
	FigFinalTest   = "final_test"
	FigIQM         = "aggregate_iqm"
	FigImprovement = "probability_of_improvement"
	FigProfile     = "performance_profile"
	FigAnytime     = "anytime"
)

// block is one piece of the report, rendered to Markdown, HTML and LaTeX.
type block struct {
	heading string     // a section heading, if not ""
	text    string     // a paragraph, if not ""
	header  []string   // a table's header, if not nil
	rows    [][]string // a table's rows
	figure  string     // a figure's base name, if not ""
	caption string     // the figure's caption or the table's
}

// document is the report's content.
func document(s *Summary, c *Config) []block {
	var b []block
	b = append(b, block{text: fmt.Sprintf("Ablation %s: proposers %s, %d replicates (seed %d: replicate r plays the seed sets of `evolve seeds new --seed S_r`, S_r the r-th SplitMix64 output from %d; its test split is shared by its proposers), every run at the same budget of train and val episodes per environment. CIs are 95%%; bootstrap intervals are stratified percentile intervals over %d resamples (rliable; Agarwal et al., NeurIPS 2021).",
		s.Name, strings.Join(s.Proposers, ", "), s.Replicates, s.Seed, s.Seed, s.BootstrapReps)})
	for _, e := range s.Environments {
		b = append(b, block{heading: "Environment " + e.Name})
		ref := "the best final test mean of its runs"
		if e.BestKnownGiven {
			ref = "the config's best_known"
		}
		b = append(b, block{text: fmt.Sprintf("Budget %d train and val episodes per run. Normalised score: (final − %s)/(%s − %s): 0 is the base version's test mean (over replicates), 1 is %s.",
			e.Budget, g4(float64(e.RefLow)), g4(float64(e.RefHigh)), g4(float64(e.RefLow)), ref)})
		t := block{header: []string{"proposer", "runs", "final test mean [95% CI]", "IQM [95% CI]", "base test mean", "normalised", "episodes used", "generations"},
			caption: "final test mean per proposer on " + e.Name + " across replicates (Student t CI) and its IQM (bootstrap CI)"}
		for _, p := range e.Proposers {
			t.rows = append(t.rows, []string{p.Proposer, fmt.Sprint(p.Runs), withCI(p.FinalTest), withCI(p.IQM),
				f1(float64(p.BaseTest)), f3(float64(p.Normalized)), f0(float64(p.Episodes)), f1(float64(p.Generations))})
		}
		b = append(b, t, pairTable(e.Improvement, "probability of improvement P(X > Y) of the final test means on "+e.Name+", bootstrap CI"))
	}
	b = append(b, block{heading: "Across environments"})
	b = append(b, block{text: "Scores normalised per environment as above (min–max between the base and the best known, as rliable normalises across tasks); runs = replicates, tasks = environments; the bootstrap resamples replicates within each environment."})
	t := block{header: []string{"proposer", "IQM [95% CI]", "mean [95% CI]"}, caption: "normalised score per proposer: IQM and mean with stratified bootstrap CIs"}
	for _, a := range s.Aggregate {
		t.rows = append(t.rows, []string{a.Proposer, withCI3(a.IQM), withCI3(a.Mean)})
	}
	b = append(b, t, pairTable(s.Improvement, "probability of improvement P(X > Y) of the normalised scores, mean over environments, stratified bootstrap CI"))
	b = append(b, block{heading: "Figures"},
		block{figure: FigFinalTest, caption: "Final test mean per proposer and environment: each replicate (dots) and the mean with its 95% CI."},
		block{figure: FigIQM, caption: "IQM of the normalised scores with 95% stratified bootstrap CIs."},
		block{figure: FigImprovement, caption: "P(X > Y) with 95% stratified bootstrap CIs; 0.5 is no difference."},
		block{figure: FigProfile, caption: "Run-score performance profiles: the fraction of runs whose normalised score exceeds τ, with pointwise 95% bootstrap bands."},
		block{figure: FigAnytime, caption: "Anytime curves: the incumbent's val mean against the train and val episodes used, mean over replicates with its 95% CI."})
	return b
}

func pairTable(ps []Pair, caption string) block {
	t := block{header: []string{"X", "Y", "P(X > Y) [95% CI]"}, caption: caption}
	for _, p := range ps {
		t.rows = append(t.rows, []string{p.X, p.Y, withCI3(p.P)})
	}
	return t
}

func g4(x float64) string { return fmtNum(x, 'g', 4) }
func f0(x float64) string { return fmtNum(x, 'f', 0) }
func f1(x float64) string { return fmtNum(x, 'f', 1) }
func f3(x float64) string { return fmtNum(x, 'f', 3) }

func fmtNum(x float64, f byte, p int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	s := fmt.Sprintf("%.*"+string(f), p, x)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	return s
}

func withCI(c CI) string  { return c.Format(1) }
func withCI3(c CI) string { return c.Format(3) }

// Markdown renders the report as Markdown.
func Markdown(s *Summary, c *Config) []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Ablation %s\n\n", s.Name)
	for _, b := range document(s, c) {
		switch {
		case b.heading != "":
			fmt.Fprintf(&w, "## %s\n\n", b.heading)
		case b.text != "":
			fmt.Fprintf(&w, "%s\n\n", b.text)
		case b.header != nil:
			fmt.Fprintf(&w, "| %s |\n|%s\n", strings.Join(b.header, " | "), strings.Repeat(" --- |", len(b.header)))
			for _, r := range b.rows {
				fmt.Fprintf(&w, "| %s |\n", strings.Join(r, " | "))
			}
			fmt.Fprintf(&w, "\n%s.\n\n", capitalize(b.caption))
		case b.figure != "":
			fmt.Fprintf(&w, "![%s](%s/%s.png)\n\n%s\n\n", b.figure, PlotsDir, b.figure, b.caption)
		}
	}
	return w.Bytes()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// HTML renders the report as one HTML page with the SVG figures inline
// (svgs by figure base name; a missing one is linked as PNG).
func HTML(s *Summary, c *Config, svgs map[string][]byte) []byte {
	var w bytes.Buffer
	e := html.EscapeString
	fmt.Fprintf(&w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Ablation %s</title>\n", e(s.Name))
	w.WriteString("<style>body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td:first-child,th:first-child{text-align:left}figure svg{max-width:100%;height:auto}</style>\n</head>\n<body>\n")
	fmt.Fprintf(&w, "<h1>Ablation %s</h1>\n", e(s.Name))
	for _, b := range document(s, c) {
		switch {
		case b.heading != "":
			fmt.Fprintf(&w, "<h2>%s</h2>\n", e(b.heading))
		case b.text != "":
			fmt.Fprintf(&w, "<p>%s</p>\n", e(b.text))
		case b.header != nil:
			fmt.Fprintf(&w, "<table>\n<caption>%s</caption>\n<tr>", e(capitalize(b.caption)))
			for _, h := range b.header {
				fmt.Fprintf(&w, "<th>%s</th>", e(h))
			}
			w.WriteString("</tr>\n")
			for _, r := range b.rows {
				w.WriteString("<tr>")
				for _, v := range r {
					fmt.Fprintf(&w, "<td>%s</td>", e(v))
				}
				w.WriteString("</tr>\n")
			}
			w.WriteString("</table>\n")
		case b.figure != "":
			w.WriteString("<figure>\n")
			if svg, ok := svgs[b.figure]; ok {
				w.Write(stripProlog(svg))
			} else {
				fmt.Fprintf(&w, "<img src=\"%s/%s.png\" alt=\"%s\">", PlotsDir, b.figure, e(b.figure))
			}
			fmt.Fprintf(&w, "\n<figcaption>%s</figcaption>\n</figure>\n", e(b.caption))
		}
	}
	w.WriteString("</body>\n</html>\n")
	return w.Bytes()
}

// stripProlog drops an SVG file's XML prolog, for inline use.
func stripProlog(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}

// LaTeX renders the report's tables as LaTeX (booktabs), one table per
// environment and one across environments.
func LaTeX(s *Summary, c *Config) []byte {
	var w bytes.Buffer
	fmt.Fprintf(&w, "%% Ablation %s, written by evolve ablate; needs \\usepackage{booktabs}\n", s.Name)
	for _, b := range document(s, c) {
		if b.header == nil {
			continue
		}
		fmt.Fprintf(&w, "\\begin{table}[ht]\n\\centering\n\\caption{%s}\n\\begin{tabular}{l%s}\n\\toprule\n", texEscape(capitalize(b.caption)), strings.Repeat("r", len(b.header)-1))
		w.WriteString(texRow(b.header) + "\\midrule\n")
		for _, r := range b.rows {
			w.WriteString(texRow(r))
		}
		w.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
	}
	return w.Bytes()
}

func texRow(cells []string) string {
	out := make([]string, len(cells))
	for i, v := range cells {
		out[i] = texEscape(v)
	}
	return strings.Join(out, " & ") + " \\\\\n"
}

var texReplacer = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`, "–", "--", "−", "$-$", ">", "$>$")

func texEscape(s string) string { return texReplacer.Replace(s) }

// WriteReport computes the Summary of outs and writes report.md,
// report.html, results.tex, summary.json and plots/ (formats: png, svg and
// pdf) in the ablation's directory, each file atomically. It returns the
// Summary.
func WriteReport(c *Config, outs []Outcome, formats []string) (*Summary, error) {
	s, err := Summarize(c, outs)
	if err != nil {
		return nil, err
	}
	dir := c.Dir()
	plots := filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return nil, err
	}
	figs, err := Figures(s, c, outs)
	if err != nil {
		return nil, err
	}
	if len(formats) == 0 {
		formats = []string{"png", "svg", "pdf"}
	}
	if _, err := results.SaveFigures(plots, figs, formats); err != nil {
		return nil, err
	}
	svgs := map[string][]byte{}
	for _, f := range figs {
		if data, err := os.ReadFile(filepath.Join(plots, f.Name+".svg")); err == nil {
			svgs[f.Name] = data
		}
	}
	js, err := JSON(s)
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{ReportFile: Markdown(s, c), HTMLFile: HTML(s, c, svgs), LaTeXFile: LaTeX(s, c), SummaryJSON: js} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	return s, nil
}
