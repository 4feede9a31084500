package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"evolve/accept"
	"evolve/play"
	"evolve/rundir"
	"evolve/store"

	"evolve/agent"
	"evolve/envs"
	"evolve/failure"
	"evolve/llm"
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

// ErrInterrupted is returned (wrapped in an *InterruptedError) when the
// run's context is cancelled: the run directory holds the checkpoint of
// the last finished generation and can be resumed.
var ErrInterrupted = errors.New("run interrupted")

// InterruptedError says where an interrupted run can be resumed from.
type InterruptedError struct {
	Dir         string // the run directory
	Generations int    // generations finished and checkpointed
	Cause       error  // the context's error
}

// Error says how many generations finished and how to resume.
func (e *InterruptedError) Error() string {
	return fmt.Sprintf("%v after %d finished generation(s); resume with: evolve run --resume %s", ErrInterrupted, e.Generations, e.Dir)
}

// Unwrap returns ErrInterrupted and the context's error.
func (e *InterruptedError) Unwrap() []error { return []error{ErrInterrupted, e.Cause} }

// Observer receives the progress of a run. PhaseStart, PhaseEnd and
// GenerationEnd are called from the goroutine running Run; EpisodeDone is
// called from worker goroutines, one call at a time.
type Observer interface {
	// Started announces the run directory; resumed is the number of
	// generations already done when resuming, -1 for a new run.
	Started(runID, dir string, resumed int)
	// PhaseStart announces that total episodes of version on split are
	// about to be played in generation gen. A pool of several versions
	// played together (a generation's candidates on val, a look of the
	// group-sequential gate, the final and base versions on test) is one
	// phase whose version is their versions joined by commas
	// ("v1.0.1,v1.0.2").
	PhaseStart(gen int, split, version string, total int)
	// EpisodeDone reports done of total episodes of the current phase.
	EpisodeDone(done, total int)
	// PhaseEnd reports the end of the current phase.
	PhaseEnd(gen int, split, version string, episodes int, elapsed time.Duration)
	// GenerationEnd reports a finished (and checkpointed) generation.
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
	// Report, if not nil, is called with the run directory after the
	// Parquet files, plots and manifest are written (e.g. to write
	// report.md). Its error fails the run.
	Report func(dir string) error
	// ReportPlots says that Report draws the plots export would draw
	// (results.ValByGenerationName and results.CandidatesName, in png and
	// svg at least), so that export leaves them to it instead of drawing
	// them twice. It has no effect when Report is nil.
	ReportPlots bool
	// LLMCache, if not "", overrides the config's agent.cache for this
	// process: "off", "read" or "readwrite" (the response cache's mode
	// never changes results, so it is not part of a run's config).
	LLMCache string
	// LLMBaseURL, if not "", overrides the config's agent.llm.base_url
	// for this process (how the model is reached never changes results:
	// a run resumes against a moved endpoint with it).
	LLMBaseURL string
	// Executor, if not "", overrides the kind of the config's executor
	// for this process: "local" or "slurm" (where episodes are played
	// never changes results, so it is not part of a run's config).
	Executor string
	// Logger receives the executor's events (Slurm jobs submitted,
	// re-attached, resubmitted, cancelled); nil means none.
	Logger *slog.Logger
}

// Generation summarises one generation of a run.
type Generation struct {
	Index      int              // 0-based generation number
	Incumbent  string           // the incumbent's version
	Failures   failure.Analysis // failure analysis of the incumbent's train episodes
	TrainMean  float64          // the incumbent's mean train score
	Val        stats.Summary    // the incumbent's val scores
	Candidates []Candidate      // the generation's candidates, in proposal order
	Accepted   int              // index into Candidates, or -1
	Decision   accept.Decision  // the full statistical decision
}

// Candidate is one candidate version of a generation.
type Candidate struct {
	Version  string          // the candidate's version, e.g. "v1.0.1"
	Mutation mutate.Mutation // what changed and why
}

// Result is what a finished run reports.
type Result struct {
	RunID       string                  // content-derived run ID (name-hash)
	Dir         string                  // the run directory
	Generations []results.GenerationRow // one per generation, in order (also those before a resume)
	Candidates  []results.CandidateRow  // every candidate, in generation and version order
	Base        string                  // the base version
	Final       string                  // the final version
	TestBase    stats.Summary           // the base version on the test split
	TestFinal   stats.Summary           // the final version on the test split (== TestBase if Final == Base)
	Started     time.Time               // when the run was first started (UTC; a resume keeps it)
	Finished    time.Time               // when the run finished (UTC)
	StopReason  string                  // why the loop stopped: rundir.StopPatience, rundir.StopMaxGenerations, rundir.StopNoFailures, rundir.StopNoCandidates or rundir.StopBudget
	StopHint    string                  // for rundir.StopNoCandidates, what to change in the config; "" otherwise
	// TestBaseErrors and TestFinalErrors count the test episodes of the
	// base and final versions recorded as errors (on_episode_panic:
	// record), which TestBase and TestFinal leave out: a mean is never
	// stated over error episodes.
	TestBaseErrors, TestFinalErrors int
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
	cfg   *Config
	opt   Options
	id    string
	dir   string
	lock  *rundir.Lock
	env   envs.Environment
	info  envs.Info         // env.Info()
	llm   *llm.Client       // the language-model agent's client, nil for the scripted agent
	tally *agent.ReplyTally // the agent's replies that named no action (checkFallbacks)
	// overBudget are the rows of the generation's candidates over the
	// token budget (fitBudget), recorded with its other candidates.
	overBudget []results.CandidateRow
	// llmPrev are the client's totals of the earlier sessions.
	llmPrev llm.Stats
	seeds   *seeds.Set
	base    *prompt.Prompt
	store   *store.Store
	runner  *play.Runner   // the local executor (also builds players for nothing else)
	exec    play.Executor  // where phases are played: runner, or slurm
	slurm   *slurmExecutor // the Slurm executor, nil for local
	gate    accept.Rule
	inputs  *Inputs // what prepare read and checked (the manifest records its paths and hashes)
	now     func() time.Time
	ck      rundir.Run
	// cfgGiven is false on a resume that read the config from the
	// checkpoint (its executor then comes from there too).
	cfgGiven bool

	// firstErr is the first error episode's message of each phase
	// (phaseKey), for checkErrors; errMu guards it.
	errMu    sync.Mutex
	firstErr map[string]string

	trajErr     error // the first error storing trajectories (save returns it)
	episodes    []results.EpisodeRow
	candidates  []results.CandidateRow
	generations []results.GenerationRow
}

// Run executes the experiment cfg: the evolution loop of the architecture
// note, then the test split, then the exports. It creates
// <out>/<run-id>/ (with a numeric suffix if that exists) and returns what
// happened. The run directory is locked while the run lasts and
// checkpointed at every generation boundary; when ctx is cancelled Run
// returns an *InterruptedError and Resume continues the run.
func Run(ctx context.Context, cfg *Config, opt Options) (*Result, error) {
	r := &run{cfg: cfg, opt: opt, cfgGiven: true}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	defer r.exec.Close() // ends the players' processes or cancels live jobs, if any
	if err := r.create(); err != nil {
		return nil, err
	}
	r.logTo()
	defer r.unlock()
	return r.loop(ctx)
}

// prepare resolves the config into the environment, seeds, base prompt,
// gate, runner, clock and run ID. Every check that can refuse the config
// (Config.Check: seed directory, base prompt, and for a new run the output
// directory) happens here, before create makes anything.
func (r *run) prepare() error {
	out := ""
	if r.dir == "" { // a new run: create will make its directory under out
		out = r.cfg.Output
		if r.opt.Out != "" {
			out = r.opt.Out
		}
	}
	in, err := r.cfg.Check(out)
	if err != nil {
		return err
	}
	r.inputs = in
	r.env, r.seeds, r.base, r.gate = in.Env, in.Seeds, in.Base, in.Gate
	workers := r.cfg.Workers
	if r.opt.Workers > 0 {
		workers = r.opt.Workers
	}
	if sb, ok := r.env.(envs.StepBudgeter); ok {
		sb.SetStepBudget(r.cfg.StepBudget)
	}
	if r.opt.LLMCache != "" {
		if _, err := llm.ParseMode(r.opt.LLMCache); err != nil {
			return fmt.Errorf("--cache: %w", err)
		}
		r.cfg.Agent.Cache = r.opt.LLMCache
	}
	if r.opt.LLMBaseURL != "" {
		r.cfg.Agent.LLM.BaseURL = r.opt.LLMBaseURL
	}
	r.tally = &agent.ReplyTally{}
	if r.llm, err = r.cfg.useAgent(r.env, r.tally); err != nil {
		return err
	}
	if r.llm != nil && r.opt.Logger != nil {
		r.llm.SetLogger(r.opt.Logger) // the body of each kind of unusable reply, once per phase (playRaw)
	}
	if r.llm != nil && r.opt.Workers <= 0 {
		workers = r.cfg.Agent.LLM.Concurrency // episodes wait on the model, not on the CPU
	}
	r.info = r.env.Info()
	r.runner = &play.Runner{Env: r.env, Workers: workers, RecordErrors: r.cfg.OnEpisodePanic == "record"}
	r.now = r.opt.Now
	if r.now == nil {
		if t, ok := SourceDateEpoch(); ok {
			r.now = func() time.Time { return t }
		} else {
			r.now = func() time.Time { return time.Now().UTC().Truncate(time.Second) }
		}
	}
	if err := r.checkBudget(); err != nil {
		return err
	}
	if r.id, err = contentID(r.cfg, r.seeds, r.base); err != nil {
		return err
	}
	return r.useExecutor()
}

// useExecutor chooses where phases are played: the config's executor (or
// the checkpoint's, on a resume without a config), with its kind
// overridden by Options.Executor.
func (r *run) useExecutor() error {
	ec := r.cfg.Executor
	if r.ck.Executor != nil && !r.cfgGiven {
		ec = *r.ck.Executor
	}
	switch r.opt.Executor {
	case "":
	case rundir.ExecutorLocal, rundir.ExecutorSlurm:
		ec.Kind = r.opt.Executor
	default:
		return fmt.Errorf("--executor: %q is not local or slurm", r.opt.Executor)
	}
	r.exec = r.runner
	r.ck.Executor = nil
	if ec.Kind != rundir.ExecutorSlurm {
		return nil
	}
	resolved, err := r.cfg.Resolved()
	if err != nil {
		return err
	}
	// The tasks open the response cache in the run's mode: the resolved
	// config they read leaves it out (and they would take readwrite).
	llmCache := r.opt.LLMCache
	if r.cfg.Agent.Kind == AgentLLM && r.cfg.Agent.Cache != "readwrite" {
		llmCache = r.cfg.Agent.Cache
	}
	x, err := newSlurmExecutor(ec, r.id, resolved, llmCache, r.cfg.Agent.CacheDir, func() string { return r.dir }, r.opt.Logger)
	if err != nil {
		return err
	}
	r.exec, r.slurm, r.ck.Executor = x, x, &ec
	return nil
}

// create makes and locks a new run directory and writes the base version.
func (r *run) create() error {
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
		if stillborn(r.dir) {
			// A run of the same inputs died before its first write: take
			// its directory over (the lock below refuses a live one).
			break
		}
		r.dir = filepath.Join(out, fmt.Sprintf("%s.%d", r.id, i))
	}
	return r.start()
}

// start locks r.dir, a new or stillborn run directory, and writes the
// first checkpoint and the base version.
func (r *run) start() error {
	if err := r.lockDir(); err != nil {
		return err
	}
	ck, err := configRecord(r.cfg)
	if err != nil {
		return err
	}
	started := time.Now().UTC().Truncate(time.Second)
	ck.Schema, ck.RunID = rundir.RunSchema, r.id
	ck.SeedSHA256, ck.BaseSHA256 = r.seedHashes(), r.base.ContentSHA256
	ck.Base, ck.Incumbent = r.base.Version.String(), r.base.Version.String()
	ck.Versions, ck.Started = []string{r.base.Version.String()}, started
	ck.Sessions, ck.Executor = []rundir.Session{{Started: started}}, r.ck.Executor
	r.ck = ck
	// The checkpoint comes first, so that a crash at any later write
	// leaves a directory that --resume continues.
	if err := r.recover(); err != nil {
		return err
	}
	if err := r.saveCheckpoint(); err != nil {
		return err
	}
	if err := r.openStore(); err != nil {
		return err
	}
	if err := r.writeVersion(r.base); err != nil {
		return err
	}
	if r.opt.Observer != nil {
		r.opt.Observer.Started(r.id, r.dir, -1)
	}
	return r.save()
}

// openStore opens the run's prompt store, stamping what it records with
// the run's clock.
func (r *run) openStore() error {
	s, err := store.OpenStore(filepath.Join(r.dir, "prompts"))
	if err != nil {
		return err
	}
	s.Now = r.now
	r.store = s
	return nil
}

// lockDir takes the run directory's lock (rundir.LockDir) for the life
// of the process (released by the kernel if it dies).
func (r *run) lockDir() error {
	l, err := rundir.LockDir(r.dir, rundir.KindRun)
	if err != nil {
		return err
	}
	r.lock = l
	return nil
}

func (r *run) unlock() { r.lock.Release() }

// loop runs the generations still to do, the test split and the exports.
func (r *run) loop(ctx context.Context) (*Result, error) {
	defer r.watchEndpoint(ctx)()
	r.trackProgress()
	res := &Result{RunID: r.id, Dir: r.dir, Base: r.ck.Base, Started: r.ck.Started}
	inc, err := r.store.Load(r.base.Slug, prompt.MustParseVersion(r.ck.Incumbent))
	if err != nil {
		return nil, err
	}
	if !r.ck.BaseValDone {
		if _, err := r.play(ctx, 0, PhaseVal, inc, r.seeds.Val); err != nil {
			return nil, r.interrupted(ctx, err)
		}
		r.ck.BaseValDone = true
		if err := r.save(); err != nil {
			return nil, err
		}
	}
	if r.ck.StopReason == rundir.StopInterrupted {
		r.ck.StopReason = "" // resumed
	}
	incVal, err := r.valScores(inc.Version.String())
	if err != nil {
		return nil, err
	}
	for !r.ck.LoopDone {
		g := r.ck.Generations
		gen, next, nextVal, err := r.generation(ctx, g, inc, incVal)
		if err != nil {
			return nil, r.interrupted(ctx, err)
		}
		r.ck.Generations++
		if next == nil {
			r.ck.Stall++
		} else {
			r.ck.Stall = 0
			inc, incVal = next, nextVal
			r.ck.Incumbent = inc.Version.String()
		}
		r.annotate(g)
		r.ck.LoopDone = r.ck.Stall >= r.cfg.Patience || r.ck.Generations >= r.cfg.MaxGenerations || r.exhausted(gen)
		if r.ck.LoopDone {
			r.ck.StopReason, r.ck.StopHint = r.stopReason(gen)
		} else if r.budgetSpent() {
			r.ck.LoopDone, r.ck.StopReason, r.ck.StopHint = true, rundir.StopBudget, ""
		}
		if err := r.save(); err != nil {
			return nil, err
		}
		if r.opt.Observer != nil {
			r.opt.Observer.GenerationEnd(gen)
		}
	}
	res.Final = inc.Version.String()
	res.StopReason, res.StopHint = r.ck.StopReason, r.ck.StopHint
	last := r.ck.Generations - 1
	if res.TestFinal, res.TestBase, res.TestFinalErrors, res.TestBaseErrors, err = r.test(ctx, last, inc); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	// The last phase is played: the progress file goes before the
	// exports, so that a finished run's directory holds none.
	if err := rundir.RemoveProgress(r.dir); err != nil {
		return nil, err
	}
	res.Finished = time.Now().UTC()
	res.Generations, res.Candidates = r.generations, r.candidates
	results.SortGenerations(res.Generations)
	results.SortCandidates(res.Candidates)
	r.endSession(rundir.SessionFinished, res.Finished)
	if err := r.export(ctx, res); err != nil {
		r.endSession("", time.Time{})
		return nil, r.interrupted(ctx, err)
	}
	r.ck.Done, r.ck.Finished = true, res.Finished
	if err := r.save(); err != nil {
		return nil, err
	}
	return res, nil
}

// logTo points the environment's process logs, if it has any, at the run
// directory.
func (r *run) logTo() {
	if l, ok := r.env.(interface{ SetLogDir(dir string) }); ok {
		l.SetLogDir(r.dir)
	}
}

// endSession records how this process's session ended (end "" reopens
// it).
func (r *run) endSession(end string, at time.Time) {
	if n := len(r.ck.Sessions); n > 0 {
		s := &r.ck.Sessions[n-1]
		s.End, s.Ended, s.AtGeneration = end, at.UTC().Truncate(time.Second), r.ck.Generations
		if end == "" {
			s.Ended, s.AtGeneration = time.Time{}, 0
		}
	}
}

// interrupted wraps err as an *InterruptedError if ctx was cancelled, and
// records in the checkpoint that this session ended by that signal
// (context.Cause names it; see Options).
func (r *run) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil && (errors.Is(err, llm.ErrRetriesExhausted) || errors.Is(err, ErrFallbackRate) || errors.Is(err, ErrErrorRate)) {
		// The endpoint stayed down past retry_for, the model's replies
		// could not be used, or the episodes failed: the run stops
		// resumable.
		end := rundir.SessionModel
		if errors.Is(err, ErrErrorRate) {
			end = rundir.SessionErrors
		}
		r.endSession(end, time.Now())
		if serr := r.saveCheckpoint(); serr != nil {
			return errors.Join(err, serr)
		}
		if errors.Is(err, ErrFallbackRate) || errors.Is(err, ErrErrorRate) { // its message has the resume command
			return err
		}
		return fmt.Errorf("%w\nthe run stopped after %d finished generation(s); once the endpoint answers, resume with: evolve run --resume %s", err, r.ck.Generations, r.dir)
	}
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	end := "interrupted"
	if c := context.Cause(ctx); c != nil && c != ctx.Err() {
		end = c.Error()
	}
	r.endSession(end, time.Now())
	if !r.ck.LoopDone {
		r.ck.StopReason = rundir.StopInterrupted
	}
	ie := &InterruptedError{Dir: r.dir, Generations: r.ck.Generations, Cause: ctx.Err()}
	if serr := r.saveCheckpoint(); serr != nil {
		return errors.Join(ie, fmt.Errorf("recording the interruption in %s: %w", rundir.CheckpointFile, serr))
	}
	return ie
}

// writeVersion writes p to the store. A version left by an interrupted
// generation (listed in the store's index, or a file the crash kept out of
// it) is adopted if it holds the same content (timestamps aside), so that
// a resumed run allocates the same versions as one never interrupted; any
// other existing version is an error.
func (r *run) writeVersion(p *prompt.Prompt) error {
	err := r.store.WriteOrAdopt(p, func(old *prompt.Prompt) bool { return sameContent(old, p) })
	if errors.Is(err, store.ErrVersionExists) {
		return fmt.Errorf("%w: the run directory holds a %s this run did not write", err, p.Version)
	}
	return err
}

// supersede makes next, a candidate of generation g derived from inc,
// HEAD of its branch. A replayed generation whose accepted candidate was
// made HEAD before a crash (the edge next → inc is the branch's latest
// HEAD move) is left as it is.
func (r *run) supersede(g int, inc, next *prompt.Prompt) error {
	graph, err := r.store.Graph()
	if err != nil {
		return err
	}
	slug, branch := next.SlugOrDefault(), next.BranchOrMain()
	if head, _ := graph.Head(slug, branch); head == next.Version {
		if e, ok := lastHeadMove(graph, slug, branch); ok && e.Kind == store.Supersedes && e.To.Version == inc.Version {
			return nil
		}
		return fmt.Errorf("generation %d: %s@%s is HEAD of %s already, but not as the successor of the incumbent %s", g, slug, next.Version, branch, inc.Version)
	}
	return r.store.Supersede(slug, next.Version)
}

// sameContent reports whether a and b are equal but for their timestamps.
func sameContent(a, b *prompt.Prompt) bool {
	strip := func(p *prompt.Prompt) []byte {
		q := p.Clone()
		q.Timestamp = time.Time{}
		for i := range q.MutationHistory {
			q.MutationHistory[i].Timestamp = time.Time{}
		}
		data, err := prompt.Encode(q)
		if err != nil {
			return nil
		}
		return data
	}
	x, y := strip(a), strip(b)
	return x != nil && string(x) == string(y)
}

// play runs p over one split and records its episodes.
func (r *run) play(ctx context.Context, gen int, split string, p *prompt.Prompt, seedList []uint64) ([]float64, error) {
	outs, err := r.playRaw(ctx, gen, split, p, seedList)
	if err != nil {
		return nil, err
	}
	r.record(gen, split, p.Version.String(), outs)
	return accept.Scores(outs), nil
}

// playRaw plays p (a version, or a candidate not yet written) on
// seedList and returns the outcomes in seed order, recording nothing.
func (r *run) playRaw(ctx context.Context, gen int, split string, p *prompt.Prompt, seedList []uint64) ([]envs.Outcome, error) {
	obs := r.opt.Observer
	start := time.Now()
	if r.llm != nil {
		r.llm.ResetLogged() // each kind of unusable reply's body is logged once per phase
	}
	ph, err := r.phase(gen, split, p)
	if err != nil {
		return nil, err
	}
	if obs != nil {
		obs.PhaseStart(gen, split, ph.Prompt.Version, len(seedList))
		ph.Progress = obs.EpisodeDone
	}
	outs, err := r.exec.Play(ctx, ph, seedList)
	if err != nil {
		return nil, phaseError(gen, split, ph.Prompt.Version, err)
	}
	if obs != nil {
		obs.PhaseEnd(gen, split, ph.Prompt.Version, len(outs), time.Since(start))
	}
	if err := r.checkPhase(gen, split, ph.Prompt.Version, outs); err != nil {
		return nil, err
	}
	return outs, nil
}

// phase is the phase that plays p (a version, or a candidate not yet
// written) on split in generation gen, its errors logged to
// episode_errors.jsonl.
func (r *run) phase(gen int, split string, p *prompt.Prompt) (play.Phase, error) {
	version := p.Version.String()
	ph := play.Phase{Generation: gen, Split: split, OnError: func(ee *play.EpisodeError) { r.logError(gen, split, version, ee) }}
	text, err := r.systemText(p)
	if err != nil {
		return ph, fmt.Errorf("generation %d, %s split, version %s: rendering the prompt: %w", gen, split, version, err)
	}
	pr := &envs.Prompt{Slug: p.SlugOrDefault(), Version: version, Text: text}
	if pr.SHA256 = p.ContentSHA256; pr.SHA256 == "" { // a candidate not yet written
		c := p.Clone()
		if _, err := prompt.Encode(c); err == nil {
			pr.SHA256 = c.ContentSHA256
		}
	}
	ph.Params, ph.Prompt = p.PolicyParameters, pr
	ph.Record = r.recordPhase(split, version)
	return ph, nil
}

// phaseError names the generation, split and version of a phase's error
// from an executor, with the stack of a panicking episode.
func phaseError(gen int, split, version string, err error) error {
	var ee *play.EpisodeError
	if errors.As(err, &ee) {
		msg := fmt.Errorf("generation %d, %s split, version %s: %w", gen, split, version, err)
		if ee.Stack != nil {
			return fmt.Errorf("%w\n%s", msg, ee.Stack)
		}
		return msg
	}
	return err
}

// logError appends a recorded error episode to episode_errors.jsonl: one
// JSON object per line with generation, split, version, seed, error (the
// message, with the tail of a process's stderr), and for a panic the
// panic value and stack.
func (r *run) logError(gen int, split, version string, ee *play.EpisodeError) {
	rec := map[string]any{
		"generation": gen, "split": split, "version": version, "seed": ee.Seed, "error": ee.Err.Error(),
	}
	if ee.Panic != nil {
		rec["panic"], rec["stack"] = fmt.Sprint(ee.Panic), string(ee.Stack)
	}
	r.errMu.Lock()
	if r.firstErr == nil {
		r.firstErr = map[string]string{}
	}
	if k := phaseKey(gen, split, version); r.firstErr[k] == "" {
		r.firstErr[k] = fmt.Sprintf("seed %d: %v", ee.Seed, ee.Err)
	}
	r.errMu.Unlock()
	line, _ := json.Marshal(rec)
	f, err := os.OpenFile(filepath.Join(r.dir, rundir.EpisodeErrorsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

func (r *run) record(gen int, split, version string, outs []envs.Outcome) {
	for i := range outs {
		o := &outs[i]
		metrics := make([]envs.MetricValue, len(r.info.Metrics))
		for j := range metrics {
			if j < len(o.Metrics) {
				metrics[j] = o.Metrics[j]
			} else {
				metrics[j].Null = true
			}
		}
		r.episodes = append(r.episodes, results.EpisodeRow{
			Run: r.id, Generation: int32(gen), Version: version, Split: split,
			Seed: o.Seed, Score: o.Score, Cause: o.Cause, EndReason: o.EndReason, Metrics: metrics,
		})
	}
	r.storeTrajectories(split, version, outs)
}

// valScores returns the recorded val scores of version, in the order of
// the val seed file (the order the runner played them in).
func (r *run) valScores(version string) ([]float64, error) {
	bySeed := make(map[uint64]float64, len(r.seeds.Val))
	for i := range r.episodes {
		e := &r.episodes[i]
		if e.Split == PhaseVal && e.Version == version {
			bySeed[e.Seed] = e.Score
		}
	}
	out := make([]float64, len(r.seeds.Val))
	for i, s := range r.seeds.Val {
		v, ok := bySeed[s]
		if !ok {
			return nil, fmt.Errorf("run directory %s: no val episode of %s for seed %d (episodes.parquet incomplete)", r.dir, version, s)
		}
		out[i] = float64(v)
	}
	return out, nil
}

// test plays the final version final and, if it is not the base, the
// base on the test split, as one pool, records their episodes (the
// final's first) and summarises each one's scores with a 95% CI, leaving
// out the episodes recorded as errors, which it counts.
func (r *run) test(ctx context.Context, gen int, final *prompt.Prompt) (finalSum, baseSum stats.Summary, finalErrs, baseErrs int, err error) {
	ps := []draft{{prompt: final}}
	if final.Version != r.base.Version {
		ps = append(ps, draft{prompt: r.base})
	}
	outs, err := r.playPool(ctx, gen, PhaseTest, ps, r.seeds.Test)
	if err != nil {
		return finalSum, baseSum, 0, 0, err
	}
	for i, p := range ps {
		r.record(gen, PhaseTest, p.prompt.Version.String(), outs[i])
	}
	finalSum, finalErrs = summarizeOK(outs[0])
	baseSum, baseErrs = finalSum, finalErrs
	if len(outs) > 1 {
		baseSum, baseErrs = summarizeOK(outs[1])
	}
	return finalSum, baseSum, finalErrs, baseErrs, nil
}

// summarizeOK summarises the scores of the outcomes not recorded as
// errors and returns them with the count of those that were.
func summarizeOK(outs []envs.Outcome) (stats.Summary, int) {
	x := make([]float64, 0, len(outs))
	errs := 0
	for i := range outs {
		if outs[i].Cause == envs.CauseError {
			errs++
			continue
		}
		x = append(x, float64(outs[i].Score))
	}
	return stats.Summarize(x), errs
}

// mean is stats.MeanOf of x, and 0 for no values (a generation whose
// train episodes all ended in an error).
func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return stats.MeanOf(x)
}

// writeTables writes the three Parquet tables with the rows so far.
func (r *run) writeTables() error {
	if err := results.WriteEpisodes(filepath.Join(r.dir, rundir.EpisodesFile), r.info.Metrics, r.episodes); err != nil {
		return err
	}
	if err := results.WriteCandidates(filepath.Join(r.dir, rundir.CandidatesFile), r.candidates); err != nil {
		return err
	}
	return results.WriteGenerations(filepath.Join(r.dir, rundir.GenerationsFile), r.info.Causes, r.generations)
}

// export writes the final Parquet tables, the plots, the manifest and the
// report. It stops with ctx's error if ctx is cancelled before or while a
// step runs (the run is then not finished: a resume exports again).
func (r *run) export(ctx context.Context, res *Result) error {
	plots := filepath.Join(r.dir, "plots")
	steps := []func() error{r.writeTables, func() error { return os.MkdirAll(plots, 0o755) }}
	if r.opt.Report == nil || !r.opt.ReportPlots {
		steps = append(steps,
			func() error { return results.PlotValByGeneration(plots, r.generations, r.candidates) },
			func() error { return results.PlotCandidates(plots, r.episodes, r.candidates, r.generations) })
	}
	steps = append(steps, func() error { return r.writeManifest(res) })
	if r.opt.Report != nil {
		steps = append(steps, func() error { return r.opt.Report(r.dir) })
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// GoVersion is the Go toolchain the binary was built with.
func GoVersion() string { return runtime.Version() }

// derive is inc's child of mutation m: its parameters, or for a text
// mutation its text (mutate.ApplyText).
func derive(inc *prompt.Prompt, v prompt.Version, m mutate.Mutation, rec prompt.MutationRecord, ts time.Time) *prompt.Prompt {
	if !m.TextEdit {
		return inc.Derive(v, m.Params, rec, ts)
	}
	c := inc.Derive(v, inc.PolicyParameters, rec, ts)
	mutate.ApplyText(m, c)
	return c
}

// systemText is the text the run's agent is given (SystemText).
func (r *run) systemText(p *prompt.Prompt) (string, error) { return SystemText(r.info, p) }
