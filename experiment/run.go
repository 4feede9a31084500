package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"evolve/envs"
	"evolve/evaluate"
	"evolve/failure"
	"evolve/mutate"
	"evolve/prompt"
	"evolve/results"
	"evolve/seeds"
	"evolve/stats"
)

// Phases of a generation, as reported to an Observer and written in the
// split column of episodes.parquet.
const (
	PhaseTrain = results.SplitTrain
	PhaseVal   = results.SplitVal
	PhaseTest  = results.SplitTest
)

// Observer receives the progress of a run. PhaseStart, PhaseEnd and
// GenerationEnd are called from the goroutine running Run; EpisodeDone is
// called from worker goroutines, one call at a time.
type Observer interface {
	// PhaseStart announces that total episodes of version on split are
	// about to be played in generation gen.
	PhaseStart(gen int, split, version string, total int)
	// EpisodeDone reports done of total episodes of the current phase.
	EpisodeDone(done, total int)
	// PhaseEnd reports the end of the current phase.
	PhaseEnd(gen int, split, version string, elapsed time.Duration)
	// GenerationEnd reports a finished generation.
	GenerationEnd(g Generation)
}

// Options are the run's settings that never change its results.
type Options struct {
	// Out overrides Config.Output when not empty.
	Out string
	// Workers overrides Config.Workers when > 0.
	Workers int
	// Observer receives progress; nil means none.
	Observer Observer
	// Now returns the time stamped on new prompt versions; nil means
	// SourceDateEpoch if set, else the wall clock (UTC, whole seconds).
	Now func() time.Time
	// Version is the evolve version recorded in the manifest.
	Version string
}

// Generation summarises one generation of a run.
type Generation struct {
	Index      int               // 0-based generation number
	Incumbent  string            // the incumbent's version
	Failures   failure.Analysis  // failure analysis of the incumbent's train episodes
	TrainMean  float64           // the incumbent's mean train score
	Val        stats.Summary     // the incumbent's val scores
	Candidates []Candidate       // the generation's candidates, in proposal order
	Accepted   int               // index into Candidates, or -1
	Decision   evaluate.Decision // the full statistical decision
}

// Candidate is one candidate version of a generation.
type Candidate struct {
	Version  string          // the candidate's version, e.g. "v1.0.1"
	Mutation mutate.Mutation // what changed and why
}

// Result is what a finished run reports.
type Result struct {
	RunID       string        // content-derived run ID (name-hash)
	Dir         string        // the run directory
	Generations []Generation  // in order
	Base        string        // the base version
	Final       string        // the final version
	TestBase    stats.Summary // the base version on the test split
	TestFinal   stats.Summary // the final version on the test split (== TestBase if Final == Base)
	Started     time.Time
	Finished    time.Time
}

// SourceDateEpoch returns the time in the SOURCE_DATE_EPOCH environment
// variable (seconds since 1970, the reproducible-builds convention) and
// whether it is set and valid. Runs stamp new prompt versions with it so
// that two runs of one config write byte-identical prompt files.
func SourceDateEpoch() (time.Time, bool) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// run is the state of one evolution run.
type run struct {
	cfg    *Config
	opt    Options
	id     string
	dir    string
	env    envs.Environment
	seeds  *seeds.Set
	store  *prompt.Store
	runner *evaluate.Runner
	gate   evaluate.Gate
	now    func() time.Time

	episodes    []results.EpisodeRow
	candidates  []results.CandidateRow
	generations []results.GenerationRow
}

// Run executes the experiment cfg: the evolution loop of the architecture
// note, then the test split, then the exports. It creates
// <out>/<run-id>/ (with a numeric suffix if that exists) and returns what
// happened. It stops with ctx.Err() when ctx is cancelled.
func Run(ctx context.Context, cfg *Config, opt Options) (*Result, error) {
	r := &run{cfg: cfg, opt: opt}
	res := &Result{Started: time.Now().UTC()}
	if err := r.setup(); err != nil {
		return nil, err
	}
	res.RunID, res.Dir = r.id, r.dir
	base, err := r.basePrompt()
	if err != nil {
		return nil, err
	}
	if err := r.writeVersion(base); err != nil {
		return nil, err
	}
	res.Base = base.Version.String()

	inc := base
	incVal, err := r.play(ctx, 0, PhaseVal, inc, r.seeds.Val)
	if err != nil {
		return nil, err
	}
	stall := 0
	for g := 0; g < cfg.MaxGenerations; g++ {
		gen, next, nextVal, err := r.generation(ctx, g, inc, incVal, stall)
		if err != nil {
			return nil, err
		}
		res.Generations = append(res.Generations, gen)
		if r.opt.Observer != nil {
			r.opt.Observer.GenerationEnd(gen)
		}
		if next == nil {
			stall++
			if stall >= cfg.Patience {
				break
			}
			continue
		}
		stall = 0
		inc, incVal = next, nextVal
	}
	res.Final = inc.Version.String()
	last := len(res.Generations) - 1
	if res.TestFinal, err = r.test(ctx, last, inc); err != nil {
		return nil, err
	}
	res.TestBase = res.TestFinal
	if res.Final != res.Base {
		if res.TestBase, err = r.test(ctx, last, base); err != nil {
			return nil, err
		}
	}
	res.Finished = time.Now().UTC()
	if err := r.export(res); err != nil {
		return nil, err
	}
	return res, nil
}

// setup resolves the config into the environment, seeds, store and run
// directory.
func (r *run) setup() error {
	var err error
	if r.env, err = r.cfg.Env(); err != nil {
		return err
	}
	if r.cfg.Seeds == "embedded" {
		r.seeds, err = seeds.Embedded()
	} else {
		r.seeds, err = seeds.Load(r.cfg.Seeds)
	}
	if err != nil {
		return err
	}
	corr, err := stats.ParseCorrection(r.cfg.Acceptance.Correction)
	if err != nil {
		return err
	}
	r.gate = evaluate.Gate{Alpha: r.cfg.Acceptance.Alpha, Correction: corr}
	workers := r.cfg.Workers
	if r.opt.Workers > 0 {
		workers = r.opt.Workers
	}
	r.runner = &evaluate.Runner{Env: r.env, Workers: workers, StepBudget: r.cfg.StepBudget}
	r.now = r.opt.Now
	if r.now == nil {
		if t, ok := SourceDateEpoch(); ok {
			r.now = func() time.Time { return t }
		} else {
			r.now = func() time.Time { return time.Now().UTC().Truncate(time.Second) }
		}
	}
	if r.id, err = r.runID(); err != nil {
		return err
	}
	out := r.cfg.Output
	if r.opt.Out != "" {
		out = r.opt.Out
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	r.dir = filepath.Join(out, r.id)
	for i := 2; ; i++ {
		err := os.Mkdir(r.dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
		r.dir = filepath.Join(out, fmt.Sprintf("%s.%d", r.id, i))
	}
	r.store, err = prompt.OpenStore(filepath.Join(r.dir, "prompts"))
	return err
}

// runID is the config's name and the first 10 hex digits of the SHA-256 of
// everything that shapes the results: the resolved config, the seed hashes
// and the base prompt.
func (r *run) runID() (string, error) {
	h := sha256.New()
	resolved, err := r.cfg.Resolved()
	if err != nil {
		return "", err
	}
	h.Write(resolved)
	for _, s := range []seeds.Split{seeds.Train, seeds.Val, seeds.Test} {
		fmt.Fprintf(h, "%s %s\n", s, r.seeds.Hashes[s])
	}
	base, err := r.basePrompt()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "base %s\n", base.ContentSHA256)
	return r.cfg.Name + "-" + hex.EncodeToString(h.Sum(nil))[:10], nil
}

// basePrompt returns the embedded base prompt or the configured file.
func (r *run) basePrompt() (*prompt.Prompt, error) {
	if r.cfg.BasePrompt == "embedded" {
		return prompt.Base(), nil
	}
	data, err := os.ReadFile(r.cfg.BasePrompt)
	if err != nil {
		return nil, err
	}
	return prompt.Decode(r.cfg.BasePrompt, data)
}

func (r *run) writeVersion(p *prompt.Prompt) error {
	if err := r.store.Write(p); err != nil {
		return err
	}
	return r.store.SetCurrent(p.Version)
}

// play runs p over one split and records its episodes.
func (r *run) play(ctx context.Context, gen int, split string, p *prompt.Prompt, seedList []uint64) ([]float64, error) {
	outs, err := r.playRaw(ctx, gen, split, p.Version.String(), p.PolicyParameters, seedList)
	if err != nil {
		return nil, err
	}
	r.record(gen, split, p.Version.String(), outs)
	return evaluate.Scores(outs), nil
}

func (r *run) playRaw(ctx context.Context, gen int, split, version string, params prompt.PolicyParameters, seedList []uint64) ([]envs.Outcome, error) {
	obs := r.opt.Observer
	start := time.Now()
	if obs != nil {
		obs.PhaseStart(gen, split, version, len(seedList))
		r.runner.Progress = obs.EpisodeDone
	}
	outs, err := r.runner.Run(ctx, params, seedList)
	if err != nil {
		var pe *evaluate.PanicError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("generation %d, %s split, version %s: %w\n%s", gen, split, version, err, pe.Stack)
		}
		return nil, err
	}
	if obs != nil {
		obs.PhaseEnd(gen, split, version, time.Since(start))
	}
	return outs, nil
}

func (r *run) record(gen int, split, version string, outs []envs.Outcome) {
	for i := range outs {
		o := &outs[i]
		r.episodes = append(r.episodes, results.EpisodeRow{
			Run: r.id, Generation: int32(gen), Version: version, Split: split,
			Seed: o.Seed, Score: o.Score, Cause: failure.Classify(o).String(), End: o.End.String(),
			Depth: int32(o.Depth), Turns: int32(o.Turns), Kills: int32(o.Kills), Gold: int32(o.Gold),
			XL: int32(o.XL), KilledBy: o.KilledBy,
			TurnsExplore: int32(o.Actions[envs.ActExplore]), TurnsDescend: int32(o.Actions[envs.ActDescend]),
			TurnsAttack: int32(o.Actions[envs.ActAttack]), TurnsFlee: int32(o.Actions[envs.ActFlee]),
			TurnsEat: int32(o.Actions[envs.ActEat]), TurnsQuaff: int32(o.Actions[envs.ActQuaff]),
			TurnsWait: int32(o.Actions[envs.ActWait]),
		})
	}
}

// generation runs generation g from the incumbent inc (whose val scores
// are incVal) and returns its summary and, if a candidate was accepted,
// the new incumbent and its val scores.
func (r *run) generation(ctx context.Context, g int, inc *prompt.Prompt, incVal []float64, stall int) (Generation, *prompt.Prompt, []float64, error) {
	gen := Generation{Index: g, Incumbent: inc.Version.String(), Accepted: -1}
	trainOuts, err := r.playRaw(ctx, g, PhaseTrain, gen.Incumbent, inc.PolicyParameters, r.seeds.Train)
	if err != nil {
		return gen, nil, nil, err
	}
	r.record(g, PhaseTrain, gen.Incumbent, trainOuts)
	gen.Failures = failure.Analyze(trainOuts)
	gen.TrainMean = mean(evaluate.Scores(trainOuts))

	// Propose k candidates; after a stalled generation, the next k in the
	// proposer's order.
	mcfg := r.cfg.Mutation
	mcfg.Candidates = r.cfg.Mutation.Candidates * (stall + 1)
	muts, err := mutate.Propose(gen.Failures, inc.PolicyParameters, mcfg)
	if err != nil {
		return gen, nil, nil, fmt.Errorf("generation %d: proposing mutations: %w", g, err)
	}
	if skip := r.cfg.Mutation.Candidates * stall; skip < len(muts) {
		muts = muts[skip:]
	} else {
		muts = nil
	}

	// Allocate versions (deterministic: in proposal order from the store's
	// state), evaluate each candidate on val, then decide.
	versions := make([]prompt.Version, len(muts))
	taken := map[prompt.Version]bool{}
	for i, m := range muts {
		bump := prompt.BumpPatch
		if m.Reorder {
			bump = prompt.BumpMinor
		}
		v, err := r.store.Next(inc.Version, bump)
		if err != nil {
			return gen, nil, nil, err
		}
		for taken[v] {
			// Next only sees written versions; step past earlier picks.
			v = nextAfter(v, bump)
		}
		taken[v] = true
		versions[i] = v
	}
	candVal := make([][]float64, len(muts))
	candOuts := make([][]envs.Outcome, len(muts))
	for i, m := range muts {
		if candOuts[i], err = r.playRaw(ctx, g, PhaseVal, versions[i].String(), m.Params, r.seeds.Val); err != nil {
			return gen, nil, nil, err
		}
		candVal[i] = evaluate.Scores(candOuts[i])
	}
	dec, err := evaluate.Decide(incVal, candVal, r.gate)
	if err != nil {
		return gen, nil, nil, fmt.Errorf("generation %d: %w", g, err)
	}
	gen.Decision, gen.Val, gen.Accepted = dec, dec.Incumbent, dec.Accepted

	// Write every candidate as an immutable version with its evidence.
	var next *prompt.Prompt
	for i, m := range muts {
		c := dec.Candidates[i]
		rec := prompt.MutationRecord{
			Version:     versions[i],
			PrevVersion: inc.Version,
			Operator:    m.Operator,
			Description: m.Description,
			Timestamp:   r.now(),
			Evidence: &prompt.Evidence{
				Test:             "mann-whitney-u",
				Alternative:      "greater",
				PValue:           c.Test.P,
				AdjustedPValue:   c.PAdj,
				Correction:       r.cfg.Acceptance.Correction,
				A12:              c.A12,
				NIncumbent:       dec.Incumbent.N,
				NCandidate:       c.Summary.N,
				IncumbentValMean: dec.Incumbent.Mean,
				CandidateValMean: c.Summary.Mean,
				Generation:       g,
				Accepted:         i == dec.Accepted,
			},
		}
		cand := inc.Derive(versions[i], m.Params, rec, r.now())
		if err := r.store.Write(cand); err != nil {
			return gen, nil, nil, err
		}
		r.record(g, PhaseVal, versions[i].String(), candOuts[i])
		gen.Candidates = append(gen.Candidates, Candidate{Version: versions[i].String(), Mutation: m})
		r.candidates = append(r.candidates, results.CandidateRow{
			Run: r.id, Generation: int32(g), Version: versions[i].String(), Parent: gen.Incumbent,
			Operator: m.Operator, Mutation: m.Description, N: int32(c.Summary.N),
			Mean: c.Summary.Mean, Std: c.Summary.Std, Median: c.Summary.Median, IQM: c.Summary.IQM,
			CILow: c.Summary.CILow, CIHigh: c.Summary.CIHigh,
			U: c.Test.U, P: c.Test.P, PAdj: c.PAdj, A12: c.A12, Accepted: i == dec.Accepted,
		})
		if i == dec.Accepted {
			next = cand
		}
	}
	row := results.GenerationRow{
		Run: r.id, Generation: int32(g), Incumbent: gen.Incumbent,
		NTrain: int32(len(trainOuts)), NVal: int32(dec.Incumbent.N), TrainMean: gen.TrainMean,
		ValMean: dec.Incumbent.Mean, ValMedian: dec.Incumbent.Median, ValIQM: dec.Incumbent.IQM,
		ValCILow: dec.Incumbent.CILow, ValCIHigh: dec.Incumbent.CIHigh,
		Failures: int32(gen.Failures.Failures), Injury: int32(gen.Failures.Counts[failure.Injury]),
		CombatLoss: int32(gen.Failures.Counts[failure.CombatLoss]), Starvation: int32(gen.Failures.Counts[failure.Starvation]),
		Entrapment: int32(gen.Failures.Counts[failure.Entrapment]), NCandidates: int32(len(muts)),
		NextIncumbent: gen.Incumbent,
	}
	if next == nil {
		r.generations = append(r.generations, row)
		return gen, nil, nil, nil
	}
	p := dec.Candidates[dec.Accepted].Test.P
	row.Accepted, row.AcceptedP, row.NextIncumbent = next.Version.String(), &p, next.Version.String()
	r.generations = append(r.generations, row)
	if err := r.store.SetCurrent(next.Version); err != nil {
		return gen, nil, nil, err
	}
	return gen, next, candVal[dec.Accepted], nil
}

// nextAfter returns the version after v by bump b.
func nextAfter(v prompt.Version, b prompt.Bump) prompt.Version {
	if b == prompt.BumpMinor {
		return prompt.Version{Major: v.Major, Minor: v.Minor + 1}
	}
	return prompt.Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch + 1}
}

// test plays p on the test split and summarises its scores with a 95% CI.
func (r *run) test(ctx context.Context, gen int, p *prompt.Prompt) (stats.Summary, error) {
	s, err := r.play(ctx, gen, PhaseTest, p, r.seeds.Test)
	if err != nil {
		return stats.Summary{}, err
	}
	return stats.Summarize(s), nil
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t / float64(len(x))
}

// export writes the Parquet tables, the plots and the manifest.
func (r *run) export(res *Result) error {
	if err := results.WriteEpisodes(filepath.Join(r.dir, "episodes.parquet"), r.episodes); err != nil {
		return err
	}
	if err := results.WriteCandidates(filepath.Join(r.dir, "candidates.parquet"), r.candidates); err != nil {
		return err
	}
	if err := results.WriteGenerations(filepath.Join(r.dir, "generations.parquet"), r.generations); err != nil {
		return err
	}
	plots := filepath.Join(r.dir, "plots")
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	if err := results.PlotValByGeneration(plots, r.generations, r.candidates); err != nil {
		return err
	}
	if err := results.PlotCandidates(plots, r.episodes, r.candidates, r.generations); err != nil {
		return err
	}
	return r.writeManifest(res)
}

// GoVersion is the Go toolchain the binary was built with.
func GoVersion() string { return runtime.Version() }
