package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/gate"
	"evolve/results"
	"evolve/stats"
)

// latexResult is an eval of three versions on two variants, the widest
// cells a real eval makes: four-digit means, p-values in scientific
// notation, a regression and an improvement.
func latexResult() *Result {
	res := &Result{ID: "default-eval-0123456789", Variants: []string{"max_turns=1500", "max_turns=500"}}
	for _, variant := range res.Variants {
		for i, v := range []string{"v1.0.0", "v1.0.10", "v1.0.11"} {
			res.Summaries = append(res.Summaries, results.SummaryRow{Variant: variant, Version: v, N: 1000, Mean: 1234.5, CILow: 1111.1, CIHigh: 1357.9,
				MeanBCaLow: 1120.4, MeanBCaHigh: 1371.2, IQM: 1111.1, IQMCILow: 1000.5, IQMCIHigh: 1222.2})
			if i == 0 {
				continue
			}
			c := VersionVerdict{Check: gate.Check{Version: v, Variant: variant, Test: stats.TestSignedRank, P: 1.7e-17, PAdj: 6.9e-17, A12: 0.396, Alpha: 0.05, Regression: i == 1},
				PBetter: 1, PBetterAdj: 1}
			if i == 2 {
				c.Check.P, c.Check.PAdj, c.PBetter, c.PBetterAdj, c.Improvement, c.Check.A12 = 1, 1, 2.3e-9, 4.6e-9, true, 0.62
			}
			res.Verdict = verdictAppend(res.Verdict, c)
			res.Verdict.FailureChecks = append(res.Verdict.FailureChecks, gate.Check{Version: v, Variant: variant, Test: stats.TestFailureIncrease,
				FailureMethod: "mcnemar-exact", N: 1000, NBaseline: 1000, NPaired: 1000, Mean: 0.125, BaselineMean: 0.083, MeanDiff: 0.042,
				Statistic: 57, P: 3.1e-6, PAdj: 1.2e-5, Margin: 0.02, Alpha: 0.05, Correction: gate.CorrectionHolm, Failed: i == 1, Regression: i == 1,
				Family: "failure checks: 4 checks (2 variants × 2 versions), Holm, separate from the score checks"})
		}
	}
	res.Verdict.Baseline = "v1.0.0 (embedded), the first version of this eval"
	return res
}

func verdictAppend(v *Verdict, c VersionVerdict) *Verdict {
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
	for _, want := range []string{`\begin{tabular}{lrrrrrrrl}`, `\multicolumn{9}{l}{\emph{max\_turns=500}}`, `v1.0.10 & 1000 & $1234.5 \pm 123.4$ & [1120.4, 1371.2] & 1111.1`,
		`& worse \\`, `& better \\`, `& baseline \\`, `$6.9{\times}10^{-17}$`, `\label{tab:default-eval-0123456789}`,
		`\quad\emph{failed} & 1000 & 12.5\% vs 8.3\% & & & $1.2{\times}10^{-5}$ & -- & -- & worse \\`,
		`\quad\emph{failed} & 1000 & 12.5\% vs 8.3\% & & & $1.2{\times}10^{-5}$ & -- & -- & -- \\`,
		`exact test (mcnemar-exact) of an increase by more than 2.0 percentage points`} {
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

// report.md's summary table names the mean's two intervals (Student t and
// BCa) and the IQM's BCa interval, and warns about rows with fewer than
// 10 episodes; meanCI is the BCa interval of stats.
func TestMarkdownIntervals(t *testing.T) {
	res := latexResult()
	md := Markdown(res)
	for _, want := range []string{"| mean [95% t CI] | mean 95% BCa CI | median | IQM [95% BCa CI] |", "| 1234.5 [1111.1, 1357.9] |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "fewer than 10") {
		t.Errorf("warning with n = 1000:\n%s", md)
	}
	res.Summaries[0].N = 7
	if md := Markdown(res); !strings.Contains(md, "Warning: 1 row with fewer than 10 episodes") {
		t.Errorf("no warning for n = 7:\n%s", md)
	}
	x := []float64{1, 2, 2, 3, 5, 8, 13, 21, 34, 55, 89}
	lo, hi := meanCI(x)
	want, err := stats.BootstrapBCa(x, stats.MeanOf, stats.BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 0))})
	if err != nil || lo != want.Low || hi != want.High || !(lo < stats.MeanOf(x) && stats.MeanOf(x) < hi) {
		t.Errorf("meanCI = [%v, %v], stats %+v, err %v", lo, hi, want.Interval, err)
	}
	if lo, hi := meanCI([]float64{3}); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("one score: [%v, %v]", lo, hi)
	}
}

// comparisons.parquet's rows: one "score" row per comparison and one
// "failure-share" row per failure check, with the failure check's test,
// method, p, adjusted p, family and verdict, and NaN where a score
// comparison's numbers do not apply.
func TestComparisonRowsFailureChecks(t *testing.T) {
	res := latexResult()
	rows := ComparisonRows(res)
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 4 score + 4 failure-share", len(rows))
	}
	var fails []results.ComparisonRow
	for _, r := range rows {
		switch r.Check {
		case results.CheckScore:
			if r.Test == string(stats.TestFailureIncrease) || r.FailureMethod != "" {
				t.Errorf("score row %+v", r)
			}
		case results.CheckFailureShare:
			fails = append(fails, r)
		default:
			t.Errorf("check %q", r.Check)
		}
	}
	if len(fails) != 4 {
		t.Fatalf("%d failure-share rows", len(fails))
	}
	f := fails[0]
	if f.Test != string(stats.TestFailureIncrease) || f.FailureMethod != "mcnemar-exact" || f.PWorse != 3.1e-6 || f.PWorseAdj != 1.2e-5 ||
		f.Mean != 0.125 || f.BaselineMean != 0.083 || f.Margin != 0.02 || f.Verdict != results.VerdictRegression ||
		!strings.HasPrefix(f.Family, "failure checks: 4 checks") || !math.IsNaN(f.PBetter) || !math.IsNaN(f.A12) || !math.IsNaN(f.HLShift) ||
		f.Baseline != "v1.0.0" {
		t.Errorf("failure row %+v", f)
	}
	if fails[1].Verdict != results.VerdictNoDifference {
		t.Errorf("passing failure check: verdict %q", fails[1].Verdict)
	}
}
