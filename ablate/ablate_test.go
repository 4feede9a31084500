package ablate

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"evolve/results"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\ngot:\n%s", name, got)
	}
}

// tinyConfig is a real ablation small enough for a unit test: the
// dungeon, 2 replicates, the three proposers, 2 generations each.
func tinyConfig(t *testing.T, out string, parallel int) *Config {
	t.Helper()
	y := fmt.Sprintf(`name: tiny
seed: 42
replicates: 2
budget: {episodes: 400}
max_generations: 1000
patience: 100
parallel: %d
bootstrap_reps: 200
output: %s
environments:
  - {name: dungeon, config: default, seeds: {train: 20, val: 40, test: 60}}
`, parallel, out)
	c, err := Parse(filepath.Join(t.TempDir(), "tiny.yaml"), []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runAll runs an ablation and writes its tables and report.
func runAll(t *testing.T, c *Config) []Outcome {
	t.Helper()
	l, err := Open(c)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	outs, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(c, outs); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteReport(c, outs, []string{"png"}); err != nil {
		t.Fatal(err)
	}
	return outs
}

// TestDeterministicAcrossParallel: one run at a time and three at once
// write byte-identical ablation.parquet, anytime.parquet and
// summary.json; and a second invocation on a finished ablation reads it
// and writes the same again.
func TestDeterministicAcrossParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 12 small runs")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	a, b := tinyConfig(t, t.TempDir(), 1), tinyConfig(t, t.TempDir(), 3)
	outs := runAll(t, a)
	runAll(t, b)
	if len(outs) != 6 {
		t.Fatalf("%d outcomes, want 6 (2 replicates x 3 proposers)", len(outs))
	}
	for _, o := range outs {
		if o.Row.EpisodesUsed <= 0 || o.Row.EpisodesUsed > 400 || o.Row.Budget != 400 || o.Row.TestN != 60 || math.IsNaN(o.Row.FinalTestMean) {
			t.Errorf("%+v: want 0 < episodes used <= budget 400 and 60 test episodes", o.Row)
		}
		if o.Row.BaseTestMean != outs[(o.Job.Replicate-1)*3].Row.BaseTestMean {
			t.Errorf("replicate %d: base test means differ between proposers: the test split is not shared", o.Job.Replicate)
		}
	}
	if outs[0].Row.BaseTestMean == outs[3].Row.BaseTestMean {
		t.Error("replicates 1 and 2 have the same base test mean: the seed sets are not the replicates'")
	}
	for _, f := range []string{TableFile, AnytimeFile, SummaryJSON, ReportFile} {
		x, err := os.ReadFile(filepath.Join(a.Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b.Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between parallel 1 and 3", f)
		}
	}
	before, _ := os.ReadFile(filepath.Join(a.Dir(), TableFile))
	again := runAll(t, a)
	after, _ := os.ReadFile(filepath.Join(a.Dir(), TableFile))
	if !bytes.Equal(before, after) || len(again) != len(outs) {
		t.Error("rerunning a finished ablation changed ablation.parquet")
	}
	rows, err := results.ReadAblation(filepath.Join(a.Dir(), TableFile))
	if err != nil || len(rows) != 6 {
		t.Fatalf("ReadAblation: %d rows, %v", len(rows), err)
	}
}

// TestOpenRefusesOtherConfig: a directory holding another config's
// ablation is refused, naming it.
func TestOpenRefusesOtherConfig(t *testing.T) {
	out := t.TempDir()
	c := tinyConfig(t, out, 1)
	l, err := Open(c)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	d := tinyConfig(t, out, 2) // parallel differs: allowed
	if l, err = Open(d); err != nil {
		t.Fatalf("Open with another parallel: %v", err)
	}
	l.Close()
	e := *d
	e.Output += "/sub/.." // the same directory, named otherwise (--resume from another directory)
	if l, err = Open(&e); err != nil {
		t.Fatalf("Open with another output string for the same directory: %v", err)
	}
	l.Close()
	d.Seed++
	if _, err := Open(d); err == nil || !bytes.Contains([]byte(err.Error()), []byte("holds an ablation of another config")) {
		t.Errorf("Open of a changed seed: %v", err)
	}
}

// syntheticOutcomes is a fixed ablation for the report's golden files:
// two environments, three proposers, four replicates.
func syntheticOutcomes() (*Config, []Outcome) {
	best := 1000.0
	c := &Config{Name: "golden", Seed: 9, Replicates: 4, Proposers: []string{"failure", "random", "cmaes"},
		Budget: Budget{Episodes: 5000}, BootstrapReps: 500, Output: "out",
		Environments: []Environment{{Name: "dungeon", Config: DefaultConfig}, {Name: "grid", Config: "grid.yaml", Budget: Budget{Episodes: 800}, BestKnown: &best}}}
	var outs []Outcome
	for r := 1; r <= 4; r++ {
		for e := range c.Environments {
			for p, prop := range c.Proposers {
				base := 500 + 10*float64(r) + 100*float64(e)
				final := base + float64(60*(3-p)) + float64((r*7+p*3)%5)*11
				row := results.AblationRow{Environment: c.Environments[e].Name, Replicate: int32(r), Proposer: prop,
					Run: fmt.Sprintf("runs/%s/r%02d/%s/x", c.Environments[e].Name, r, prop), FinalVersion: "v1.0.3",
					Generations: int32(3 + p), StopReason: "budget", TestN: 100, FinalTestMean: final, BaseTestMean: base,
					EpisodesUsed: int64(4000 - 100*p), Budget: 5000}
				var any []results.AnytimeRow
				for k := range 4 {
					any = append(any, results.AnytimeRow{Environment: row.Environment, Replicate: row.Replicate, Proposer: prop,
						Step: int32(k), EpisodesUsed: int64(300 + 1000*k), Incumbent: fmt.Sprintf("v1.0.%d", k), ValMean: base + float64(k)*(final-base)/3})
				}
				outs = append(outs, Outcome{Job: Job{Env: e, Replicate: r, Proposer: prop}, Row: row, Anytime: any})
			}
		}
	}
	normalize(c, outs)
	return c, outs
}

// TestReportGolden: the report's Markdown, HTML (without figures),
// LaTeX and JSON of a fixed ablation.
func TestReportGolden(t *testing.T) {
	c, outs := syntheticOutcomes()
	s, err := Summarize(c, outs)
	if err != nil {
		t.Fatal(err)
	}
	js, err := JSON(s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", Markdown(s, c))
	golden(t, "report.html", HTML(s, c, nil))
	golden(t, "results.tex", LaTeX(s, c))
	golden(t, "summary.json", js)
	// Checked by hand: grid's references are the base mean over the
	// replicates (625) and best_known (1000); failure beats cmaes on every
	// replicate of both environments.
	if g := s.Environments[1]; g.RefLow != 625 || g.RefHigh != 1000 || !g.BestKnownGiven {
		t.Errorf("grid references %v, %v", g.RefLow, g.RefHigh)
	}
	for _, p := range s.Improvement {
		if p.X == "failure" && p.Y == "cmaes" && p.P.Point != 1 {
			t.Errorf("P(failure > cmaes) = %v, want 1", p.P.Point)
		}
	}
	figs, err := Figures(s, c, outs)
	if err != nil || len(figs) != 5 {
		t.Fatalf("Figures: %d, %v", len(figs), err)
	}
	for _, f := range figs {
		if _, err := f.Figure.Encode("svg"); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
}

// TestNormalized covers the min-max normalisation and its fallback.
func TestNormalized(t *testing.T) {
	for _, tc := range []struct{ x, lo, hi, want float64 }{
		{750, 500, 1000, 0.5}, {500, 500, 1000, 0}, {1000, 500, 1000, 1}, {400, 500, 1000, -0.2},
		{450, 500, 500, -0.1}, {0.5, 0, 0, 0.5},
	} {
		if got := Normalized(tc.x, tc.lo, tc.hi); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Normalized(%v, %v, %v) = %v, want %v", tc.x, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestAnytime: one point per generation (the incumbent at the episodes
// used before it) and the final incumbent at the run's episodes.
func TestAnytime(t *testing.T) {
	gens := []results.GenerationRow{
		{Generation: 1, Incumbent: "v1.0.2", NVal: 40, ValMean: 12, Accepted: "", NextIncumbent: "v1.0.2", EpisodesUsed: 360},
		{Generation: 0, Incumbent: "v1.0.0", NVal: 40, ValMean: 10, Accepted: "v1.0.2", NextIncumbent: "v1.0.2", EpisodesUsed: 220},
		{Generation: 2, Incumbent: "v1.0.2", NVal: 40, ValMean: 12, Accepted: "v1.0.7", NextIncumbent: "v1.0.7", EpisodesUsed: 500},
	}
	cands := []results.CandidateRow{{Generation: 2, Version: "v1.0.7", Mean: 15}, {Generation: 2, Version: "v1.0.6", Mean: 11}}
	got := anytime(results.AblationRow{Environment: "e", Replicate: 1, Proposer: "random"}, gens, cands)
	want := []struct {
		used int64
		v    string
		mean float64
	}{{40, "v1.0.0", 10}, {220, "v1.0.2", 12}, {360, "v1.0.2", 12}, {500, "v1.0.7", 15}}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].EpisodesUsed != w.used || got[i].Incumbent != w.v || got[i].ValMean != w.mean || got[i].Step != int32(i) {
			t.Errorf("point %d = %+v, want %+v", i, got[i], w)
		}
	}
}
