package results

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"math"
	"os"
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
}

func TestPlotsReproducible(t *testing.T) {
	// A full-size run: 10 generations of 4 candidates, the readability
	// target of PlotCandidates.
	eps, cands, gens := sampleRun("run-plots", 10, 4, 40, 30, 20, 7)
	dirs := []string{t.TempDir(), t.TempDir()}
	writePlots(t, dirs[0], eps, cands, gens)
	// The second time from shuffled input: the plots depend on the rows,
	// not on their order.
	writePlots(t, dirs[1], shuffled(eps, 1), shuffled(cands, 2), shuffled(gens, 3))
	for _, name := range plotFiles {
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
