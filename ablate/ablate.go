package ablate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"evolve/experiment"
	"evolve/internal/atomicfile"
	"evolve/internal/flock"
	"evolve/results"
	"evolve/rundir"
	"evolve/seeds"
)

// Files of an ablation directory (Output/Name/).
const (
	ConfigFile  = "ablation.yaml"    // the canonical config (Config.Canonical)
	LockFile    = "ablate.lock"      // held while an evolve ablate works in the directory
	TableFile   = "ablation.parquet" // one row per run (results.AblationRow)
	AnytimeFile = "anytime.parquet"  // the anytime curves (results.AnytimeRow)
	SeedsDir    = "seeds"            // seeds/ENV/rNN/: replicate NN's seed sets
	RunsDir     = "runs"             // runs/ENV/rNN/PROPOSER/RUN-ID/: ordinary run directories
	ReportFile  = "report.md"        // the report (also report.html, results.tex, plots/)
	HTMLFile    = "report.html"
	LaTeXFile   = "results.tex"
	PlotsDir    = "plots"
	SummaryJSON = "summary.json" // the tables of the report as JSON (what --json prints)
)

// Options are the settings of an ablation that never change its results.
type Options struct {
	// Parallel, when > 0, replaces Config.Parallel.
	Parallel int
	// Version is the evolve version the runs' manifests record.
	Version string
	// RunReport, if not nil, writes each run's own report (as evolve run
	// does) once its tables are written.
	RunReport func(dir string) error
	// Logger receives one line per run started and finished; nil means
	// none.
	Logger *slog.Logger
}

// Job is one run of an ablation: one proposer on one replicate of one
// environment.
type Job struct {
	Env       int    // index into Config.Environments
	Replicate int    // from 1
	Proposer  string // mutation.proposer
}

// Jobs returns the ablation's runs in the order they are started:
// replicate by replicate, then environment, then proposer, so that the
// first replicates of every proposer finish first.
func (c *Config) Jobs() []Job {
	var jobs []Job
	for r := 1; r <= c.Replicates; r++ {
		for e := range c.Environments {
			for _, p := range c.Proposers {
				jobs = append(jobs, Job{e, r, p})
			}
		}
	}
	return jobs
}

// Dir returns the ablation's directory, Output/Name.
func (c *Config) Dir() string { return filepath.Join(c.Output, c.Name) }

func repName(r int) string { return fmt.Sprintf("r%02d", r) }

// seedDir is replicate r's seed directory of environment e, absolute
// (a run config resolves a relative one against its own directory).
func (c *Config) seedDir(e, r int) string {
	d := filepath.Join(c.Dir(), SeedsDir, c.Environments[e].Name, repName(r))
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return d
}

// runParent is the directory the job's run directory is created in.
func (c *Config) runParent(j Job) string {
	return filepath.Join(c.Dir(), RunsDir, c.Environments[j.Env].Name, repName(j.Replicate), j.Proposer)
}

// ReplicateSeed returns S_r, the seed of replicate r (from 1) of an
// ablation seeded by seed: the r-th output of SplitMix64 (Steele, Lea and
// Flood 2014) started at seed. Replicate r's seed sets are byte for byte
// those of `evolve seeds new --train N --val N --test N --seed S_r`.
func ReplicateSeed(seed uint64, r int) uint64 {
	z := seed + uint64(r)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Open makes (or reopens) the ablation's directory and locks it: a new
// directory records c.Canonical() as ablation.yaml; an existing one must
// hold the same config (a rerun continues it), but for replicates,
// parallel and bootstrap_reps, which a rerun may change (more replicates
// add runs, fewer leave the extra ones out of the tables; the config is
// then recorded anew). It returns the lock, to be
// released with Close. Errors: the directory is in use by another evolve
// ablate, or holds an ablation of another config.
func Open(c *Config) (*Lock, error) {
	dir := c.Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock.TryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("ablation directory %s is in use by another evolve ablate (%v); wait for it to finish or stop it first", dir, err)
	}
	l := &Lock{f: f}
	want := c.Canonical()
	path := filepath.Join(dir, ConfigFile)
	got, err := os.ReadFile(path)
	if err == nil && !bytes.Equal(got, want) {
		old, perr := Parse(path, got)
		if perr != nil || !bytes.Equal(old.identity(), c.identity()) {
			err = fmt.Errorf("%s holds an ablation of another config (its %s differs from %s's in more than replicates, parallel and bootstrap_reps); change name or output, or rerun it with its own config: evolve ablate --resume %s", dir, ConfigFile, c.file, dir)
		} else {
			err = fs.ErrNotExist // the same runs: record the new replicates, parallel or bootstrap_reps
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = atomicfile.WriteFile(path, want, 0o644)
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// identity is Canonical without what never changes a run of the
// ablation: replicates (replicate r's runs do not depend on how many
// there are), parallel, bootstrap_reps, and name and output (where the
// directory is: --resume DIR from another working directory, or a moved
// directory). A rerun may change these.
func (c *Config) identity() []byte {
	d := *c
	d.Replicates, d.Parallel, d.BootstrapReps, d.Name, d.Output = 0, 0, 0, "", ""
	return d.Canonical()
}

// Lock is an ablation directory's lock.
type Lock struct{ f *os.File }

// Close releases the lock.
func (l *Lock) Close() {
	flock.Unlock(l.f)
	l.f.Close()
}

// Resume loads the config an ablation directory records (ablation.yaml).
func Resume(dir string) (*Config, error) {
	return Load(filepath.Join(dir, ConfigFile))
}

// EnsureSeeds writes replicate r's seed sets of every environment if
// they are missing, each created in a temporary directory and renamed into
// place (so a kill leaves either none or a whole set), and checks an
// existing set against the bytes it must hold.
func (c *Config) EnsureSeeds() error {
	for e, env := range c.Environments {
		for r := 1; r <= c.Replicates; r++ {
			s := ReplicateSeed(c.Seed, r)
			sizes := seeds.Sizes{Train: env.Seeds.Train, Val: env.Seeds.Val, Test: env.Seeds.Test}
			by := fmt.Sprintf("evolve seeds new --seed %d", s)
			dir := c.seedDir(e, r)
			if _, err := os.Stat(dir); err == nil {
				want, err := seeds.Generate(s, sizes, by)
				if err != nil {
					return err
				}
				for name, data := range want {
					got, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil || !bytes.Equal(got, data) {
						return fmt.Errorf("seed set %s: %s is not what replicate %d's seed %d and sizes make (changed by hand, or the ablation's seed or seeds changed): move the directory away", dir, name, r, s)
					}
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return err
			}
			tmp := dir + ".tmp"
			if err := os.RemoveAll(tmp); err != nil {
				return err
			}
			if _, err := seeds.Create(tmp, s, sizes, by); err != nil {
				return err
			}
			if err := os.Rename(tmp, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// Outcome is what one finished run of an ablation gives.
type Outcome struct {
	Job     Job
	Dir     string // the run directory
	Row     results.AblationRow
	Anytime []results.AnytimeRow
}

// Run runs (or continues) every run of the ablation, Parallel at a time,
// and returns their outcomes in Jobs order. A run whose directory exists
// is resumed (experiment.Resume; a finished one is only read), so a rerun
// after a crash or kill -9 continues where the runs stopped and gives the
// same outcomes. The caller holds the directory's Lock. On the first
// error it stops starting runs, cancels the running ones and returns
// that error (an interrupted run's error wraps experiment.ErrInterrupted).
func Run(ctx context.Context, c *Config, opt Options) ([]Outcome, error) {
	if err := c.EnsureSeeds(); err != nil {
		return nil, err
	}
	jobs := c.Jobs()
	par := c.Parallel
	if opt.Parallel > 0 {
		par = opt.Parallel
	}
	if par == 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	outs := make([]Outcome, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					errs[i] = ctx.Err()
					continue
				}
				outs[i], errs[i] = c.runJob(ctx, jobs[i], opt)
				if errs[i] != nil {
					cancel()
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	// The first error in job order that is not a consequence of cancel.
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, experiment.ErrInterrupted) {
			return nil, err
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	normalize(c, outs)
	return outs, nil
}

// runJob runs or resumes one job and reads its outcome.
func (c *Config) runJob(ctx context.Context, j Job, opt Options) (Outcome, error) {
	rc, err := c.RunConfig(j.Env, j.Proposer, c.seedDir(j.Env, j.Replicate))
	if err != nil {
		return Outcome{}, err
	}
	parent := c.runParent(j)
	env := c.Environments[j.Env].Name
	ropt := experiment.Options{Out: parent, Workers: c.Workers, Version: opt.Version, Report: opt.RunReport, ReportPlots: opt.RunReport != nil}
	dir, err := existingRun(parent)
	if err != nil {
		return Outcome{}, err
	}
	start := time.Now()
	if opt.Logger != nil {
		opt.Logger.Info("run started", "environment", env, "replicate", j.Replicate, "proposer", j.Proposer, "resume", dir != "")
	}
	if dir == "" {
		var res *experiment.Result
		if res, err = experiment.Run(ctx, rc, ropt); err == nil {
			dir = res.Dir
		}
	} else if _, err = experiment.Resume(ctx, dir, rc, ropt); errors.Is(err, experiment.ErrFinished) {
		err = nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("%s replicate %d proposer %s: %w", env, j.Replicate, j.Proposer, err)
	}
	out, err := readOutcome(c, j, dir)
	if err == nil && opt.Logger != nil {
		opt.Logger.Info("run done", "environment", env, "replicate", j.Replicate, "proposer", j.Proposer,
			"final_test_mean", out.Row.FinalTestMean, "base_test_mean", out.Row.BaseTestMean,
			"episodes_used", out.Row.EpisodesUsed, "generations", out.Row.Generations,
			"elapsed", time.Since(start).Round(time.Second).String())
	}
	return out, err
}

// existingRun returns the run directory under parent, "" if none.
func existingRun(parent string) (string, error) {
	ents, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(parent, e.Name()))
		}
	}
	switch len(dirs) {
	case 0:
		return "", nil
	case 1:
		return dirs[0], nil
	}
	return "", fmt.Errorf("%s holds %d run directories, want one: move the extra ones away", parent, len(dirs))
}

// readOutcome reads a finished run's manifest and tables.
func readOutcome(c *Config, j Job, dir string) (Outcome, error) {
	m, err := rundir.ReadRunManifest(dir)
	if err != nil {
		return Outcome{}, fmt.Errorf("reading the finished run %s: %w", dir, err)
	}
	rel, err := relTo(c.Dir(), dir)
	if err != nil {
		return Outcome{}, err
	}
	env := c.Environments[j.Env].Name
	o := Outcome{Job: j, Dir: dir, Row: results.AblationRow{
		Environment: env, Replicate: int32(j.Replicate), Proposer: j.Proposer, Run: filepath.ToSlash(rel),
		FinalVersion: m.FinalVersion, Generations: int32(m.Generations), StopReason: m.StopReason,
		TestN: int32(m.TestFinal.N), FinalTestMean: m.TestFinal.Mean, BaseTestMean: m.TestBase.Mean,
		EpisodesUsed: int64(m.Episodes.Budgeted), Budget: int64(m.Episodes.Budget),
	}}
	gens, _, err := results.ReadGenerations(filepath.Join(dir, rundir.GenerationsFile))
	if err != nil {
		return Outcome{}, err
	}
	cands, err := results.ReadCandidates(filepath.Join(dir, rundir.CandidatesFile))
	if err != nil {
		return Outcome{}, err
	}
	o.Anytime = anytime(o.Row, gens, cands)
	return o, nil
}

// anytime returns a run's anytime curve: the incumbent of each generation
// at the episodes used before it, then the final incumbent at the
// episodes used by the run.
func anytime(row results.AblationRow, gens []results.GenerationRow, cands []results.CandidateRow) []results.AnytimeRow {
	gens = slices.Clone(gens)
	results.SortGenerations(gens)
	var out []results.AnytimeRow
	used := int64(0)
	add := func(version string, mean float64) {
		out = append(out, results.AnytimeRow{Environment: row.Environment, Replicate: row.Replicate, Proposer: row.Proposer,
			Step: int32(len(out)), EpisodesUsed: used, Incumbent: version, ValMean: mean})
	}
	for i, g := range gens {
		if i == 0 {
			used = int64(g.NVal) // the base version's val phase comes first
		}
		add(g.Incumbent, g.ValMean)
		used = g.EpisodesUsed
	}
	if len(gens) > 0 {
		last := gens[len(gens)-1]
		mean := last.ValMean
		if last.Accepted != "" {
			mean = math.NaN()
			for _, c := range cands {
				if c.Generation == last.Generation && c.Version == last.Accepted {
					mean = c.Mean
				}
			}
		}
		add(last.NextIncumbent, mean)
	}
	return out
}

// normalize fills each outcome's normalised score (see Normalization).
func normalize(c *Config, outs []Outcome) {
	for e := range c.Environments {
		lo, hi := Reference(c, e, outs)
		for i := range outs {
			if outs[i].Job.Env == e {
				outs[i].Row.NormalizedScore = Normalized(outs[i].Row.FinalTestMean, lo, hi)
			}
		}
	}
}

// Reference returns the min-max references of environment e's normalised
// scores: lo, the mean over the replicates of the base version's test
// mean (the base is the same for every proposer), and hi, the
// environment's best_known if set, else the highest final test mean of
// any of its runs.
func Reference(c *Config, e int, outs []Outcome) (lo, hi float64) {
	hi = math.Inf(-1)
	seen := map[int]bool{}
	n := 0
	for _, o := range outs {
		if o.Job.Env != e {
			continue
		}
		if !seen[o.Job.Replicate] && !math.IsNaN(o.Row.BaseTestMean) {
			seen[o.Job.Replicate] = true
			lo += o.Row.BaseTestMean
			n++
		}
		if !math.IsNaN(o.Row.FinalTestMean) {
			hi = max(hi, o.Row.FinalTestMean)
		}
	}
	lo /= float64(n)
	if b := c.Environments[e].BestKnown; b != nil {
		hi = *b
	}
	return lo, hi
}

// Normalized returns the min-max normalised score (x − lo)/(hi − lo) of
// rliable (Agarwal et al. 2021, after Bellemare et al.'s human-normalised
// Atari scores): 0 is the base version's test mean, 1 the best known. When
// hi <= lo (no run beat the base) the scale is max(|lo|, 1) instead, so
// that the score stays finite and keeps its sign.
func Normalized(x, lo, hi float64) float64 {
	d := hi - lo
	if !(d > 0) {
		d = max(math.Abs(lo), 1)
	}
	return (x - lo) / d
}

// Write writes ablation.parquet and anytime.parquet of outs in the
// ablation's directory.
func Write(c *Config, outs []Outcome) error {
	rows := make([]results.AblationRow, len(outs))
	var any []results.AnytimeRow
	for i, o := range outs {
		rows[i] = o.Row
		any = append(any, o.Anytime...)
	}
	if err := results.WriteAblation(filepath.Join(c.Dir(), TableFile), rows); err != nil {
		return err
	}
	return results.WriteAnytime(filepath.Join(c.Dir(), AnytimeFile), any)
}

// relTo returns path relative to base, both made absolute first.
func relTo(base, path string) (string, error) {
	b, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Rel(b, p)
}
