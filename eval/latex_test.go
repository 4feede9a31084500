package eval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/gate"
	"evolve/results"
)

// latexResult is an eval of three versions on two variants, the widest
// cells a real eval makes: four-digit means, p-values in scientific
// notation, a regression and an improvement.
func latexResult() *Result {
	res := &Result{ID: "default-eval-0123456789", Variants: []string{"max_turns=1500", "max_turns=500"}}
	for _, variant := range res.Variants {
		for i, v := range []string{"v1.0.0", "v1.0.10", "v1.0.11"} {
			res.Summaries = append(res.Summaries, results.SummaryRow{Variant: variant, Version: v, N: 1000, Mean: 1234.5, CILow: 1111.1, CIHigh: 1357.9,
				IQM: 1111.1, IQMCILow: 1000.5, IQMCIHigh: 1222.2})
			if i == 0 {
				continue
			}
			c := Comparison{Check: gate.Check{Version: v, Variant: variant, Test: gate.TestSignedRank, P: 1.7e-17, PAdj: 6.9e-17, A12: 0.396, Alpha: 0.05, Regression: i == 1},
				PBetter: 1, PBetterAdj: 1}
			if i == 2 {
				c.Check.P, c.Check.PAdj, c.PBetter, c.PBetterAdj, c.Improvement, c.Check.A12 = 1, 1, 2.3e-9, 4.6e-9, true, 0.62
			}
			res.Verdict = verdictAppend(res.Verdict, c)
		}
	}
	res.Verdict.Baseline = "v1.0.0 (embedded), the first version of this eval"
	return res
}

func verdictAppend(v *Verdict, c Comparison) *Verdict {
	if v == nil {
		v = &Verdict{}
	}
	v.Comparisons = append(v.Comparisons, c)
	return v
}

// results.tex of an eval has a row per version and variant with the
// verdicts, and compiles with pdflatex into a one-column article without
// an overfull box (skipped without pdflatex; .ci/run installs it).
func TestLaTeX(t *testing.T) {
	tex := string(LaTeX(latexResult()))
	for _, want := range []string{`\begin{tabular}{lrrrrrrl}`, `\multicolumn{8}{l}{\emph{max\_turns=500}}`, `v1.0.10 & 1000 & $1234.5 \pm 123.4$ & 1111.1`, `& worse \\`, `& better \\`,
		`& baseline \\`, `$6.9{\times}10^{-17}$`, `\label{tab:default-eval-0123456789}`} {
		if !strings.Contains(tex, want) {
			t.Errorf("results.tex lacks %q:\n%s", want, tex)
		}
	}
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skip("pdflatex is not installed (Debian: apt-get install texlive-latex-recommended); skipping the compile")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "results.tex"), []byte(tex), 0o644)
	os.WriteFile(filepath.Join(dir, "paper.tex"), []byte("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{results.tex}\n\\end{document}\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "paper.log"))
	for _, bad := range []string{"Overfull \\hbox", "Missing character"} {
		if i := strings.Index(string(log), bad); i >= 0 {
			t.Errorf("paper.log has %q:\n%s", bad, log[i:min(len(log), i+300)])
		}
	}
}
