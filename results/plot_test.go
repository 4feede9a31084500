package results

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

var plotsDir = flag.String("plots", "", "also write the sample plots of TestPlotsReproducible to this `dir` for inspection")

// plotFiles are the files the two plot functions write by default.
var plotFiles = []string{
	"val_by_generation.png", "val_by_generation.svg",
	"candidates.png", "candidates.svg",
	"failure_causes.png", "failure_causes.svg",
	"lineage.png", "lineage.svg",
}

// writePlots draws both plots of tables into dir.
func writePlots(t *testing.T, dir string, eps []EpisodeRow, cands []CandidateRow, gens []GenerationRow, formats ...string) {
	t.Helper()
	if err := PlotValByGeneration(dir, gens, cands, formats...); err != nil {
		t.Fatal(err)
	}
	if err := PlotCandidates(dir, eps, cands, gens, formats...); err != nil {
		t.Fatal(err)
	}
	if err := PlotFailureCauses(dir, gens, dungeonCauses, formats...); err != nil {
		t.Fatal(err)
	}
	if err := PlotLineage(dir, gens, cands, formats...); err != nil {
		t.Fatal(err)
	}
}

func TestPlotsReproducible(t *testing.T) {
	// A full-size run: 10 generations of 4 candidates, the readability
	// target of PlotCandidates.
	eps, cands, gens := sampleRun("run-plots", 10, 4, 40, 30, 20, 7)
	dirs := []string{t.TempDir(), t.TempDir()}
	writePlots(t, dirs[0], eps, cands, gens, "png", "svg", "pdf")
	// The second time from shuffled input: the plots depend on the rows,
	// not on their order.
	writePlots(t, dirs[1], shuffled(eps, 1), shuffled(cands, 2), shuffled(gens, 3), "png", "svg", "pdf")
	var pdfs []string
	for _, name := range plotFiles {
		if strings.HasSuffix(name, ".svg") {
			pdfs = append(pdfs, strings.TrimSuffix(name, ".svg")+".pdf")
		}
	}
	for _, name := range append(slices.Clone(plotFiles), pdfs...) {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: %d and %d bytes, not identical across runs", name, len(a), len(b))
		}
	}
	if *plotsDir != "" {
		if err := os.MkdirAll(*plotsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		writePlots(t, *plotsDir, eps, cands, gens, "png", "svg", "pdf")
	}
}

func TestPlotEdgeCases(t *testing.T) {
	one := []GenerationRow{{Run: "r", Generation: 0, Incumbent: "v1.0.0", ValMean: 10, ValCILow: math.NaN(), ValCIHigh: math.NaN()}}
	tests := []struct {
		name  string
		eps   []EpisodeRow
		cands []CandidateRow
		gens  []GenerationRow
	}{
		{"one generation, no candidates, no episodes, NaN CI", nil, nil, one},
		{"all statistics NaN", nil, []CandidateRow{{Generation: 0, Version: "v1.0.1", Mean: math.NaN()}},
			[]GenerationRow{{Generation: 0, Incumbent: "v1.0.0", ValMean: math.NaN(), ValCILow: math.NaN(), ValCIHigh: math.NaN()}}},
		{"CI gap and a lone CI", nil, nil, []GenerationRow{
			{Generation: 0, ValMean: 1, ValCILow: 0, ValCIHigh: 2},
			{Generation: 1, ValMean: 2, ValCILow: math.NaN(), ValCIHigh: math.NaN()},
			{Generation: 2, ValMean: 3, ValCILow: 2, ValCIHigh: 4},
			{Generation: 3, ValMean: 3, ValCILow: 2, ValCIHigh: 4},
		}},
		{"constant scores", []EpisodeRow{{Run: "r", Split: SplitVal, Version: "v1.0.0", Score: 5}, {Run: "r", Split: SplitVal, Version: "v1.0.0", Seed: 1, Score: 5}}, nil, one},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writePlots(t, t.TempDir(), tt.eps, tt.cands, tt.gens)
		})
	}
}

// TestIncumbentScoresReused checks that an incumbent without val episodes
// in its generation is drawn from its latest earlier val episodes.
func TestIncumbentScoresReused(t *testing.T) {
	s := newValScores([]EpisodeRow{
		{Generation: 0, Split: SplitVal, Version: "v1.0.1", Score: 300},
		{Generation: 0, Split: SplitVal, Version: "v1.0.1", Seed: 1, Score: 100},
		{Generation: 1, Split: SplitVal, Version: "v1.0.1", Score: 7},
		{Generation: 0, Split: SplitTrain, Version: "v1.0.1", Score: 50},
		{Generation: 3, Split: SplitVal, Version: "v1.0.1", Score: 9},
	})
	tests := []struct {
		gen     int32
		version string
		want    plotter.Values
	}{
		{0, "v1.0.1", plotter.Values{100, 300}}, // own generation, sorted, train ignored
		{1, "v1.0.1", plotter.Values{7}},
		{2, "v1.0.1", plotter.Values{7}}, // reused from generation 1
		{5, "v1.0.1", plotter.Values{9}}, // reused from generation 3
		{0, "v1.0.2", nil},
	}
	for _, tt := range tests {
		if got := s.incumbent(tt.gen, tt.version); !slices.Equal(got, tt.want) {
			t.Errorf("incumbent(%d, %s) = %v, want %v", tt.gen, tt.version, got, tt.want)
		}
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	gens := []GenerationRow{{Generation: 0, Incumbent: "v1.0.0", ValMean: 1}}
	if err := PlotValByGeneration(dir, nil, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("PlotValByGeneration(no rows) = %v, want ErrNoData", err)
	}
	if err := PlotCandidates(dir, nil, nil, nil); !errors.Is(err, ErrNoData) {
		t.Errorf("PlotCandidates(no rows) = %v, want ErrNoData", err)
	}
	if err := PlotValByGeneration(dir, gens, []CandidateRow{{Run: "other"}}); !errors.Is(err, ErrInvalidRow) {
		t.Errorf("PlotValByGeneration(two runs) = %v, want ErrInvalidRow", err)
	}
	if err := PlotCandidates(dir, []EpisodeRow{{Run: "other"}}, nil, gens); !errors.Is(err, ErrInvalidRow) {
		t.Errorf("PlotCandidates(two runs) = %v, want ErrInvalidRow", err)
	}
	if err := PlotValByGeneration(dir, gens, nil, "png", "jpg"); !errors.Is(err, ErrFormat) {
		t.Errorf("format jpg: err = %v, want ErrFormat", err)
	}
	if err := (Figure{}).Save(filepath.Join(dir, "x.gif")); !errors.Is(err, ErrFormat) {
		t.Errorf("Save(.gif): err = %v, want ErrFormat", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed calls left %d files, want none", len(ents))
	}
	missing := filepath.Join(dir, "missing")
	if err := PlotValByGeneration(missing, gens, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: err = %v, want an error naming it", err)
	}
}

func TestPlotFormats(t *testing.T) {
	eps, cands, gens := sampleRun("run-pdf", 2, 2, 10, 10, 5, 8)
	dir := t.TempDir()
	writePlots(t, dir, eps, cands, gens, ".pdf", "svg")
	for _, name := range []string{"val_by_generation.pdf", "candidates.pdf", "val_by_generation.svg", "candidates.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		magic := "<?xml"
		if strings.HasSuffix(name, ".pdf") {
			magic = "%PDF-"
		}
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts with %q, want %q", name, b[:min(len(b), 8)], magic)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "candidates.png")); !os.IsNotExist(err) {
		t.Errorf("candidates.png written though not asked for (stat: %v)", err)
	}
}

// TestPlotGolden compares the PNGs of a small fixed run with
// testdata/*.golden.png. Rasterization may differ slightly between
// platforms and library versions, so up to 0.5% of the pixels may differ by
// more than 24/255 in a channel.
func TestPlotGolden(t *testing.T) {
	eps, cands, gens := sampleRun("run-golden", 3, 2, 20, 15, 5, 9)
	dir := t.TempDir()
	writePlots(t, dir, eps, cands, gens, "png")
	for _, name := range []string{"val_by_generation", "candidates"} {
		got, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", name+".golden.png")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if frac, err := pngDiff(got, want, 24); err != nil || frac > 0.005 {
			t.Errorf("%s: %.3f%% of pixels differ (%v); look at %s, then run go test -update if the change is intended",
				name, 100*frac, err, filepath.Join(dir, name+".png"))
		}
	}
}

// pngDiff returns the fraction of pixels of two PNGs in which some channel
// differs by more than tol (of 255); images of different sizes differ
// entirely.
func pngDiff(a, b []byte, tol uint32) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 1, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 1, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 1, fmt.Errorf("size %v, want %v", ia.Bounds().Size(), ib.Bounds().Size())
	}
	r := ia.Bounds()
	var diff int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := ia.At(x, y).RGBA()
			r2, g2, b2, a2 := ib.At(x, y).RGBA()
			for _, d := range [...][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
				if max(d[0], d[1])-min(d[0], d[1]) > tol*257 {
					diff++
					break
				}
			}
		}
	}
	return float64(diff) / float64(r.Dx()*r.Dy()), nil
}

func TestLineage(t *testing.T) {
	gens := []GenerationRow{
		{Run: "r", Generation: 2, Incumbent: "v1.0.2", NVal: 30, ValMean: 30},
		{Run: "r", Generation: 0, Incumbent: "v1.0.0", NVal: 30, ValMean: 10, ValCILow: 8, ValCIHigh: 12, Accepted: "v1.0.1"},
		{Run: "r", Generation: 1, Incumbent: "v1.0.1", NVal: 30, ValMean: 20, Accepted: "v1.0.2"},
	}
	cands := []CandidateRow{
		{Run: "r", Generation: 1, Version: "v1.0.2", Parent: "v1.0.1", Mutation: "m2", N: 30, Mean: 30, PAdj: 0.01, A12: 0.7, Accepted: true},
		{Run: "r", Generation: 0, Version: "v1.0.1", Parent: "v1.0.0", Mutation: "m1", N: 30, Mean: 20, PAdj: 0.02, A12: 0.6, Accepted: true},
		{Run: "r", Generation: 0, Version: "v1.0.3", Parent: "v1.0.0", Mutation: "m3", N: 30, Mean: 5},
	}
	steps, err := Lineage(gens, cands)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, fmt.Sprintf("%s<%s g%d %s n%d %.0f [%.0f %.0f] p%.2f a%.1f", s.Version, s.Parent, s.Generation, s.Mutation, s.N, s.Mean, s.CILow, s.CIHigh, s.PAdj, s.A12))
	}
	want := []string{
		"v1.0.0< g0  n30 10 [8 12] pNaN aNaN",
		"v1.0.1<v1.0.0 g0 m1 n30 20 [0 0] p0.02 a0.6",
		"v1.0.2<v1.0.1 g1 m2 n30 30 [0 0] p0.01 a0.7",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Lineage:\n got %q\nwant %q", got, want)
	}
	if _, err := Lineage(gens, cands[1:]); !errors.Is(err, ErrInvalidRow) ||
		err.Error() != "results: invalid row: generation 1 accepted v1.0.2, which has no candidate row" {
		t.Errorf("missing accepted candidate: err = %v", err)
	}
	if _, err := Lineage(nil, cands); !errors.Is(err, ErrNoData) {
		t.Errorf("no generations: err = %v, want ErrNoData", err)
	}
	if _, err := FailureCausesFigure(nil, dungeonCauses); !errors.Is(err, ErrNoData) {
		t.Errorf("FailureCausesFigure(nil): err = %v, want ErrNoData", err)
	}
	if err := PlotFailureCauses(t.TempDir(), gens, dungeonCauses, "jpg"); !errors.Is(err, ErrFormat) {
		t.Errorf("jpg: err = %v, want ErrFormat", err)
	}
}

// TestPDFText checks that the PDF figures carry their non-ASCII text as
// text (UTF-8 fonts, not vgpdf's cp1252): pdftotext (Debian's
// poppler-utils) of the lineage shows a mutation with → and Δ, not the
// cp1252 mojibake "â†’" and "Î”"; and no figure's title carries the run
// name "glyphs Δ→" (titles leave the run ID out, for papers). The PDFs stay byte-identical across renders.
// Skipped when pdftotext is not installed.
func TestPDFText(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not found (apt-get install poppler-utils): not checking the text of the PDF figures")
	}
	const run = "glyphs Δ→"
	const mutation = "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)"
	eps, cands, gens := sampleRun(run, 3, 2, 20, 15, 5, 9)
	for i := range cands {
		cands[i].Mutation = mutation
	}
	dir := t.TempDir()
	writePlots(t, dir, eps, cands, gens, "pdf")
	for _, name := range []string{"val_by_generation", "candidates", "failure_causes", "lineage"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".pdf")
			out, err := exec.Command(pdftotext, path, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext %s: %v", path, err)
			}
			text := string(out)
			var want []string
			if name == "lineage" {
				want = append(want, "0.300 → 0.400", "Δ=0.100")
			}
			if strings.Contains(text, run) {
				t.Errorf("pdftotext %s: the title carries the run ID %q:\n%s", name, run, text)
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("pdftotext %s: no %q in:\n%s", name, w, text)
				}
			}
			for _, bad := range []string{"â", "Î"} {
				if strings.Contains(text, bad) {
					t.Errorf("pdftotext %s: mojibake %q in:\n%s", name, bad, text)
				}
			}
		})
	}
	// Font subsetting must not depend on map order: five more renders.
	first, err := os.ReadFile(filepath.Join(dir, "lineage.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		again := t.TempDir()
		if err := PlotLineage(again, gens, cands, "pdf"); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(again, "lineage.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, b) {
			t.Fatalf("render %d of lineage.pdf differs from the first", i+2)
		}
	}
}

// Figure titles name what is drawn, not the run: a paper's figure carries
// no run ID (the report and the file's directory name the run).
func TestFigureTitlesWithoutRunID(t *testing.T) {
	eps, cands, gens := sampleRun("run-golden", 3, 2, 20, 15, 5, 9)
	titles := func(f Figure) string {
		s := f.Title
		for _, row := range f.Panels {
			for _, p := range row {
				s += "\n" + p.Title.Text
			}
		}
		return s
	}
	var figs []Figure
	for _, mk := range []func() (Figure, error){
		func() (Figure, error) { return ValByGenerationFigure(gens, cands) },
		func() (Figure, error) { return CandidatesFigure(eps, cands, gens) },
		func() (Figure, error) { return LineageFigure(gens, cands) },
	} {
		f, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f)
	}
	for i, f := range figs {
		if s := titles(f); strings.Contains(s, "run-golden") {
			t.Errorf("figure %d's titles name the run:\n%s", i, s)
		}
	}
}
