// Package report turns a run directory into what a paper or a lab notebook
// needs: report.md, a self-contained report.html (figures inlined as SVG,
// no network), results.tex (booktabs tables) and the figures in PNG, SVG
// and PDF under plots/.
//
// Everything is computed from the run directory's files (manifest.yaml and
// the Parquet tables), so a report can be rebuilt at any time with
// `evolve report RUN_DIR`, and every number in it can be recomputed from
// episodes.parquet by another tool. The same run directory gives
// byte-identical report files.
//
// Statistics of the test split (base against final version, both played on
// the same test seeds):
//   - mean with the Student t 95% CI, median, and the IQM (25% trimmed
//     mean, as rliable reports it: Agarwal et al., "Deep Reinforcement
//     Learning at the Edge of the Statistical Precipice", NeurIPS 2021)
//     with a 95% BCa bootstrap CI (Efron 1987), BootstrapReps resamples
//     from a PCG source seeded with BootstrapSeed;
//   - the two-sided Mann-Whitney U test (R's wilcox.test(final, base),
//     Auto method) and the two-sided Wilcoxon signed-rank test paired by
//     seed (R's wilcox.test(final, base, paired = TRUE));
//   - the Vargha-Delaney A12 effect size and the Hodges-Lehmann shift with
//     its 95% CI (R's wilcox.test(..., conf.int = TRUE)).
package report

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/iter"

	"evolve/envs"
	"evolve/gate"
	"evolve/internal/atomicfile"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
)

// Files written into the run directory by Write.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	LaTeXFile    = "results.tex"
	PlotsDir     = "plots"
)

// BootstrapSeed seeds the PCG source of the IQM bootstrap CIs, so that a
// report is reproducible; BootstrapReps is the number of resamples.
const (
	BootstrapSeed = 1
	BootstrapReps = 2000
)

// DefaultFormats are the figure formats Write produces when Options.Formats
// is empty.
var DefaultFormats = []string{"png", "svg", "pdf"}

// ErrNotRun is wrapped by Load's error when dir is not a finished run
// directory (manifest.yaml or a Parquet table is missing).
var ErrNotRun = errors.New("not a finished run directory")

// Settings are the parts of a run's resolved config a report states.
type Settings struct {
	// Environment is the environment's registry name, e.g. "dungeon".
	Environment string
	// Test is the acceptance test, a registered stats.TestName ("mwu" or
	// "signed-rank").
	Test stats.TestName
	// Alpha is the family-wise significance level, in (0, 0.5].
	Alpha float64
	// Correction is the multiple-comparison correction, e.g. "holm".
	Correction string
	// AlphaSpending is how Alpha is spent across generations: "basel"
	// (generation g at α·6/(π²g²)), "none" (α each), or "" for a run
	// from before the setting existed (α each).
	AlphaSpending string
	// Looks, Spending, Futility and Stopping are the group-sequential
	// gate (acceptance.sequential); Looks <= 1 means none. Futility is
	// nil for no futility stop. Stopping is "simultaneous", "separate",
	// or "" for a run from before the setting existed (separate).
	Looks    int
	Spending string
	Futility *float64
	Stopping string
	// Candidates is k, the candidates proposed per generation.
	Candidates int
	// MaxGenerations and Patience are the stopping rule's limits.
	MaxGenerations, Patience int
}

// Version is the test-split statistics of one version.
type Version struct {
	// Version is the prompt version, e.g. "v1.0.5".
	Version string
	// Role is "base", "final", or "base = final" when nothing was accepted.
	Role string
	// Summary of the version's test scores (mean, Student t 95% CI, median,
	// IQM), in score points.
	Summary stats.Summary
	// MeanBCa is the mean with its 95% BCa bootstrap CI (stats.BootstrapBCa
	// with stats.MeanOf, Efron 1987; NaN limits for fewer than 2 scores),
	// beside Summary's Student t interval: the two differ for skewed
	// scores (docs/statistics.md compares their coverage).
	MeanBCa stats.Interval
	// IQM is the IQM with its 95% BCa bootstrap CI (stats.BootstrapBCa;
	// NaN limits for fewer than 2 scores).
	IQM stats.Interval
	// Errors counts the version's test episodes recorded as errors
	// (on_episode_panic: record). They are left out of Summary, MeanBCa,
	// IQM and the comparison: no statistic is stated over them.
	Errors int
}

// Data is everything a report shows, loaded from one run directory.
type Data struct {
	// Dir is the run directory.
	Dir string
	// Manifest is the run's manifest.yaml.
	Manifest rundir.RunManifest
	// Settings are decoded from Manifest.Config.
	Settings Settings
	// Episodes, Candidates and Generations are the run's Parquet tables,
	// in their files' (deterministic) order.
	Episodes    []results.EpisodeRow
	Candidates  []results.CandidateRow
	Generations []results.GenerationRow
	// Metrics are the environment's metric columns of episodes.parquet,
	// Causes its failure causes (the per-cause columns of
	// generations.parquet), as the files declare them.
	Metrics []envs.Metric
	Causes  []envs.Cause
	// Lineage is the chain of accepted versions, base first.
	Lineage []results.LineageStep
	// Test holds the test-split statistics of the base and, if it differs,
	// the final version, in that order; empty if the run has no test
	// episodes.
	Test []Version
	// TestErrors counts the base's and final version's test episodes
	// recorded as errors, which no statistic covers (a version whose
	// every test episode is an error has no entry in Test).
	TestErrors int
	// Compare is the final version (the checks' candidate) against the
	// base on the test split, two-sided (gate.HypothesisTwoSided, no
	// family: PAdj = P): first the Mann-Whitney U test with the A12 effect
	// size, the Hodges-Lehmann shift and its 95% CI (score points) and the
	// difference of the mean test scores (MeanDiff, final − base); then,
	// when the two versions were played on the same test seeds, the
	// Wilcoxon signed-rank test of the differences final − base paired by
	// seed (N the pairs with a nonzero difference). Positive shifts and
	// A12 above 0.5 mean the final version scores higher. nil unless Test
	// has two versions.
	Compare []gate.Check
}

// Load reads a finished run directory and computes the report's
// statistics. It returns an error wrapping ErrNotRun if manifest.yaml or a
// Parquet table is missing, and an error naming the file for anything
// unreadable.
func Load(dir string) (*Data, error) {
	d := &Data{Dir: dir}
	mpath := filepath.Join(dir, rundir.ManifestFile)
	m, err := rundir.ReadRunManifest(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("report: %s: %w (no %s; is the run finished?)", dir, ErrNotRun, rundir.ManifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	d.Manifest = *m
	var cfg struct {
		Environment struct {
			Name string `yaml:"name"`
		} `yaml:"environment"`
		Mutation struct {
			Candidates int `yaml:"candidates"`
		} `yaml:"mutation"`
		Acceptance struct {
			Test          stats.TestName `yaml:"test"`
			Alpha         float64        `yaml:"alpha"`
			Correction    string         `yaml:"correction"`
			AlphaSpending string         `yaml:"alpha_spending"`
			Sequential    struct {
				Looks    int      `yaml:"looks"`
				Spending string   `yaml:"spending"`
				Futility *float64 `yaml:"futility"`
				Stopping string   `yaml:"stopping"`
			} `yaml:"sequential"`
		} `yaml:"acceptance"`
		MaxGenerations int `yaml:"max_generations"`
		Patience       int `yaml:"patience"`
	}
	if err := d.Manifest.Config.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("report: %s: config: %w", mpath, err)
	}
	d.Settings = Settings{Environment: cfg.Environment.Name, Test: cfg.Acceptance.Test, Alpha: cfg.Acceptance.Alpha,
		Correction: cfg.Acceptance.Correction, Candidates: cfg.Mutation.Candidates,
		AlphaSpending: cfg.Acceptance.AlphaSpending, Looks: cfg.Acceptance.Sequential.Looks,
		Spending: cfg.Acceptance.Sequential.Spending, Futility: cfg.Acceptance.Sequential.Futility,
		Stopping: cfg.Acceptance.Sequential.Stopping, MaxGenerations: cfg.MaxGenerations, Patience: cfg.Patience}

	read := func(name string, f func(string) error) error {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("report: %s: %w (no %s)", dir, ErrNotRun, name)
		}
		if err := f(p); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		return nil
	}
	if err := read(rundir.EpisodesFile, func(p string) (err error) { d.Episodes, d.Metrics, err = results.ReadEpisodes(p); return }); err != nil {
		return nil, err
	}
	if err := read(rundir.CandidatesFile, func(p string) (err error) { d.Candidates, err = results.ReadCandidates(p); return }); err != nil {
		return nil, err
	}
	if err := read(rundir.GenerationsFile, func(p string) (err error) { d.Generations, d.Causes, err = results.ReadGenerations(p); return }); err != nil {
		return nil, err
	}
	if len(d.Generations) > 0 {
		if d.Lineage, err = results.Lineage(d.Generations, d.Candidates); err != nil {
			return nil, fmt.Errorf("report: %s: %w", dir, err)
		}
	}
	if err := d.testSplit(); err != nil {
		return nil, fmt.Errorf("report: %s: test split: %w", dir, err)
	}
	return d, nil
}

// testSplit fills Test and Compare from the test episodes.
func (d *Data) testSplit() error {
	base, final := d.Manifest.BaseVersion, d.Manifest.FinalVersion
	bySeed := map[string]map[uint64]float64{}
	errs := map[string]int{}
	for _, e := range d.Episodes {
		if e.Split != results.SplitTest || (e.Version != base && e.Version != final) {
			continue
		}
		if e.Cause == envs.CauseError {
			errs[e.Version]++
			d.TestErrors++
			continue
		}
		if bySeed[e.Version] == nil {
			bySeed[e.Version] = map[uint64]float64{}
		}
		bySeed[e.Version][e.Seed] = float64(e.Score)
	}
	scores := func(v string) []float64 {
		m := bySeed[v]
		seeds := make([]uint64, 0, len(m))
		for s := range m {
			seeds = append(seeds, s)
		}
		slices.Sort(seeds)
		x := make([]float64, len(seeds))
		for i, s := range seeds {
			x[i] = m[s]
		}
		return x
	}
	versions := []string{base}
	if final != base {
		versions = append(versions, final)
	}
	// The BCa intervals (Efron 1987) of the IQM and of the mean of each
	// version, each from its own source seeded alike, computed at once.
	type intervals struct {
		x         []float64
		iqm, mean stats.Interval
		err       error
	}
	ivs := iter.Map(versions, func(v *string) intervals {
		x := scores(*v)
		iv := intervals{x: x}
		iv.iqm, iv.mean, iv.err = bcaIntervals(x)
		return iv
	})
	for i, v := range versions {
		x, iqm, mean := ivs[i].x, ivs[i].iqm, ivs[i].mean
		if len(x) == 0 {
			continue
		}
		if err := ivs[i].err; err != nil {
			return fmt.Errorf("%s %w", v, err)
		}
		role := "base"
		switch {
		case final == base:
			role = "base = final"
		case v == final:
			role = "final"
		}
		d.Test = append(d.Test, Version{Version: v, Role: role, Summary: stats.Summarize(x), MeanBCa: mean, IQM: iqm, Errors: errs[v]})
	}
	if len(d.Test) != 2 {
		return nil
	}
	x, y := scores(final), scores(base)
	mwu, err := stats.MannWhitneyU(x, y, stats.MWUOptions{})
	if err != nil {
		return err
	}
	shift, err := stats.HodgesLehmann(x, y, stats.ShiftOptions{})
	if err != nil {
		return err
	}
	nan := math.NaN()
	c := gate.Check{
		Version: final, Hypothesis: gate.HypothesisTwoSided, Test: stats.TestMWU, Method: mwu.Method.String(),
		N: mwu.N1, NBaseline: mwu.N2,
		Mean: d.Test[1].Summary.Mean, BaselineMean: d.Test[0].Summary.Mean, MeanDiff: d.Test[1].Summary.Mean - d.Test[0].Summary.Mean,
		Statistic: mwu.U, P: mwu.P, PAdj: mwu.P, A12: mwu.U / float64(mwu.N1*mwu.N2),
		HLShift: shift.Estimate, HLLow: shift.CILow, HLHigh: shift.CIHigh, Power: nan, Correction: gate.CorrectionNone,
	}
	d.Compare = []gate.Check{c}
	if paired := sameSeeds(bySeed[base], bySeed[final]); paired {
		sr, err := stats.WilcoxonSignedRank(x, y, stats.SignedRankOptions{})
		if err != nil {
			return err
		}
		c.Test, c.Method, c.Paired, c.NPaired = stats.TestSignedRank, sr.Method.String(), true, len(x)
		c.N, c.NBaseline, c.Statistic, c.P, c.PAdj = sr.N, sr.N, sr.TPlus, sr.P, sr.P
		c.HLShift, c.HLLow, c.HLHigh = nan, nan, nan // the report shows the U test's shift
		d.Compare = append(d.Compare, c)
	}
	return nil
}

// bcaIntervals returns the 95% BCa intervals (Efron 1987) of the IQM and
// of the mean of x, BootstrapReps resamples each from a source seeded
// with BootstrapSeed, computed concurrently; with fewer than 2 scores,
// the point estimates with NaN bounds. The error names the interval.
func bcaIntervals(x []float64) (iqm, mean stats.Interval, err error) {
	iqm = stats.Interval{Point: math.NaN(), Low: math.NaN(), High: math.NaN(), ConfLevel: 0.95}
	mean = iqm
	if len(x) == 0 {
		return iqm, mean, nil
	}
	iqm.Point, mean.Point = stats.IQM(x), stats.MeanOf(x)
	if len(x) < 2 {
		return iqm, mean, nil
	}
	var wg conc.WaitGroup
	var errIQM, errMean error
	wg.Go(func() {
		var bca stats.BCaInterval
		if bca, errIQM = stats.BootstrapBCaIQM(x, stats.BootstrapConfig{Reps: BootstrapReps, Rand: rand.New(rand.NewPCG(BootstrapSeed, 0))}); errIQM == nil {
			iqm = bca.Interval
		}
	})
	wg.Go(func() {
		var bca stats.BCaInterval
		if bca, errMean = stats.BootstrapBCa(x, stats.MeanOf, stats.BootstrapConfig{Reps: BootstrapReps, Rand: rand.New(rand.NewPCG(BootstrapSeed, 0))}); errMean == nil {
			mean = bca.Interval
		}
	})
	wg.Wait()
	switch {
	case errIQM != nil:
		return iqm, mean, fmt.Errorf("IQM CI: %w", errIQM)
	case errMean != nil:
		return iqm, mean, fmt.Errorf("mean BCa CI: %w", errMean)
	}
	return iqm, mean, nil
}

func sameSeeds(a, b map[uint64]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for s := range a {
		if _, ok := b[s]; !ok {
			return false
		}
	}
	return true
}

// Options configures Write.
type Options struct {
	// Formats are the figure formats, any of "png", "svg" and "pdf";
	// empty means DefaultFormats. SVG is always written too, since
	// report.html inlines it.
	Formats []string
}

// Write loads dir (see Load), draws the figures into dir/plots and writes
// dir/report.md, dir/report.html and dir/results.tex, each atomically. It
// returns the paths written, in that order after the figures, and the
// errors of Load, of the plot functions, or one naming the file that could
// not be written.
func Write(dir string, opt Options) ([]string, error) {
	d, err := Load(dir)
	if err != nil {
		return nil, err
	}
	formats := opt.Formats
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	if !slices.Contains(formats, "svg") {
		formats = append(slices.Clone(formats), "svg")
	}
	plots := filepath.Join(dir, PlotsDir)
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	figs := d.figures()
	named := make([]results.NamedFigure, len(figs))
	for i, f := range figs {
		fig, err := f.build()
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		named[i] = results.NamedFigure{Name: f.name, Figure: fig, Build: f.build}
	}
	written, err := results.SaveFigures(plots, named, formats)
	if err != nil {
		return written, fmt.Errorf("report: %w", err)
	}
	svgs := map[string][]byte{}
	for _, f := range figs {
		b, err := os.ReadFile(filepath.Join(plots, f.name+".svg"))
		if err != nil {
			return written, fmt.Errorf("report: %w", err)
		}
		svgs[f.name] = b
	}
	for _, out := range []struct {
		name string
		data []byte
	}{
		{MarkdownFile, d.Markdown()},
		{HTMLFile, d.HTML(svgs)},
		{LaTeXFile, d.LaTeX()},
	} {
		p := filepath.Join(dir, out.name)
		if err := atomicfile.WriteFile(p, out.data, 0o644); err != nil {
			return written, fmt.Errorf("report: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}

// figure is one of the report's figures: its file name, title and
// caption, and the function that builds it from the run's rows.
type figure struct {
	name, title, caption string
	build                func() (results.Figure, error)
}

func (d *Data) figures() []figure {
	return []figure{
		{results.ValByGenerationName, "Val score by generation",
			"The incumbent's mean val score per generation with its 95% CI (band), the best candidate (ring) and the accepted one (triangle).",
			func() (results.Figure, error) { return results.ValByGenerationFigure(d.Generations, d.Candidates) }},
		{results.LineageName, "Lineage of accepted versions",
			"Each accepted version's val mean with its 95% CI, labelled with the mutation that produced it; grey rings are rejected candidates.",
			func() (results.Figure, error) { return results.LineageFigure(d.Generations, d.Candidates) }},
		{results.FailureCausesName, "Failure causes by generation",
			"The incumbent's failed train episodes per generation, split by cause.",
			func() (results.Figure, error) { return results.FailureCausesFigure(d.Generations, d.Causes) }},
		{results.CandidatesName, "Candidates per generation",
			"Val score distributions of the incumbent (*) and each candidate; the accepted candidate (+) is green.",
			func() (results.Figure, error) {
				return results.CandidatesFigure(d.Episodes, d.Candidates, d.Generations)
			}},
	}
}
