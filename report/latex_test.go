package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// texDoc is the smallest paper that uses results.tex as the report's help
// says: booktabs in the preamble, \input where the tables go. It is
// article's default letter-size page and margins, which is where a table
// too wide for a paper's column shows (as an overfull box).
const texDoc = `\documentclass{article}
\usepackage{booktabs}
\begin{document}
\input{results.tex}
\end{document}
`

// needTools skips the test unless every named program is on PATH. CI
// installs them (.ci/run: texlive-latex-recommended, poppler-utils).
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install texlive-latex-recommended poppler-utils); skipping", n)
		}
	}
}

// command runs name in dir and fails t with its output if it fails. The
// timeout only stops a hung TeX; it asserts nothing about speed.
func command(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// TestLaTeXCompiles compiles a document that \inputs results.tex with
// pdflatex, renders its first page with pdftoppm, and checks that TeX
// reported no error, no warning and no overfull box (a table wider than
// the text), that the page is not blank, and that the PDF's text has the
// table's numbers. It does so for the small run and for the same run with
// the widest cells a real run makes (an accepted candidate's p-values in
// scientific notation, four-digit means, two-digit patch numbers). Set EVOLVE_KEEP_TEX=DIR to
// keep each case's PDF and PNG for a look.
func TestLaTeXCompiles(t *testing.T) {
	needTools(t, "pdflatex", "pdftoppm", "pdftotext")
	small := loadSmall(t)
	wide := loadSmall(t)
	renamed := map[string]string{}
	for i := range wide.Candidates {
		c := &wide.Candidates[i]
		renamed[c.Version] = fmt.Sprintf("v1.0.%d", 10+i)
		c.Version = renamed[c.Version]
		c.Mean, c.CILow, c.CIHigh, c.IQM = 1234.5, 1234.5-123.4, 1234.5+123.4, 1111.1
		c.P, c.PAdj = 0.00097, 0.0029
		if c.Accepted { // at most one per generation, in bold
			c.P, c.PAdj = 1.7e-17, 6.9e-17
		}
	}
	for i := range wide.Generations {
		g := &wide.Generations[i]
		if v, ok := renamed[g.Incumbent]; ok {
			g.Incumbent = v
		} else {
			g.Incumbent = "v1.0.10" // the base
		}
		g.ValMean, g.ValCILow, g.ValCIHigh, g.ValIQM = 1234.5, 1234.5-123.4, 1234.5+123.4, 1111.1
	}
	for i := range wide.Test {
		v := &wide.Test[i]
		v.Summary.Mean, v.Summary.CILow, v.Summary.CIHigh = 1234.5, 1234.5-123.4, 1234.5+123.4
		v.IQM.Point, v.IQM.Low, v.IQM.High = 1111.1, 1000.5, 1222.2
	}
	wide.Compare[0].P = 8.3e-146
	for _, tc := range []struct {
		name string
		d    *Data
	}{{"small", small}, {"wide", wide}} {
		t.Run(tc.name, func(t *testing.T) { compileLaTeX(t, tc.d) })
	}
}

func compileLaTeX(t *testing.T, d *Data) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "results.tex"), d.LaTeX(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "paper.tex"), []byte(texDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	command(t, dir, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
	command(t, dir, "pdftoppm", "-png", "-r", "100", "-f", "1", "-l", "1", "-singlefile", "paper.pdf", "page")
	keep(t, dir, "paper.log", "results.tex", "paper.pdf", "page.png")
	logText, err := os.ReadFile(filepath.Join(dir, "paper.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The first pass's "Label(s) may have changed" asks for a second pass
	// that a paper gets anyway; any other warning is a defect.
	logText = bytes.ReplaceAll(logText, []byte("LaTeX Warning: Label(s) may have changed"), nil)
	for _, bad := range []string{"Overfull \\hbox", "Overfull \\vbox", "LaTeX Warning", "Missing character"} {
		if i := bytes.Index(logText, []byte(bad)); i >= 0 {
			end := min(len(logText), i+300)
			t.Errorf("paper.log has %q:\n%s", bad, logText[i:end])
		}
	}

	f, err := os.Open(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("page.png: %v", err)
	}
	// Letter at 100 dpi is 850x1100; the two tables darken a few percent
	// of its pixels.
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 1000 {
		t.Errorf("page.png is %dx%d, want a letter page at 100 dpi (850x1100)", b.Dx(), b.Dy())
	}
	if frac := inkFraction(img); frac < 0.005 {
		t.Errorf("page.png is %.2f%% ink, want a page with tables on it", 100*frac)
	}

	text := string(command(t, dir, "pdftotext", "-layout", "paper.pdf", "-"))
	want := []string{"Val results of run", "Test results of run", d.Manifest.BaseVersion}
	for _, g := range d.Generations {
		want = append(want, g.Incumbent, f1(g.ValMean))
	}
	for _, c := range d.Candidates {
		want = append(want, c.Version, f1(c.Mean), f3(c.A12))
	}
	for _, v := range d.Test {
		want = append(want, f1(v.Summary.Mean), f1(v.IQM.Point))
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the PDF's text lacks %q:\n%s", w, text)
		}
	}
	// Generation rows start with the generation number.
	// pdftotext puts the incumbents' daggers (and the caption's) on
	// lines of their own.
	if n := strings.Count(text, "†"); n != len(d.Generations)+1 {
		t.Errorf("%d daggers, want one per generation's incumbent and the caption's, %d:\n%s", n, len(d.Generations)+1, text)
	}
	if !regexp.MustCompile(`(?m)^\s*0\s+v1\.0\.\d+\s`).MatchString(text) {
		t.Errorf("no row starts with generation 0's incumbent:\n%s", text)
	}
}

// keep copies the named files of dir to $EVOLVE_KEEP_TEX/<test name>, if
// set.
func keep(t *testing.T, dir string, names ...string) {
	to := os.Getenv("EVOLVE_KEEP_TEX")
	if to == "" {
		return
	}
	to = filepath.Join(to, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Error(err)
		return
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(to, name), b, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}

// inkFraction is the fraction of pixels darker than mid-grey.
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	return float64(dark) / float64(b.Dx()*b.Dy())
}
