package results

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
