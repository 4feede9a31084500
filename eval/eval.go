package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/cache"
	"evolve/envs"
	"evolve/experiment"
	"evolve/internal/atomicfile"
	"evolve/internal/inputfile"
	"evolve/llm"
	"evolve/play"
	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
	"evolve/seeds"
	"evolve/stats"
	"evolve/trajectory"
)

// SemanticsVersion is evolve's episode semantics version. It enters every
// cache key: bump it when a change of evolve (not of an environment or a
// prompt) changes what an episode plays, so that no cached outcome of the
// old semantics is replayed.
const SemanticsVersion = 1

// EpisodeSeed returns the seed that repeat r of seed s plays: s itself for
// r = 0 (so a single repeat plays exactly the seed set, as evolve run
// does), else SplitMix64 (Steele, Lea & Flood 2014) of s + r·0x9E3779B97F4A7C15,
// a seed no other (s, r) of a frozen set is likely to share.
func EpisodeSeed(s uint64, r int) uint64 {
	if r == 0 {
		return s
	}
	z := s + uint64(r)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Version is one prompt version an eval plays.
type Version struct {
	// Label names the version in tables and reports: its prompt version,
	// or "SLUG@vX.Y.Z" when two versions of the eval share a version.
	Label string
	// Source is the argument that named it (a file, a store ref or
	// RUN_DIR:VERSION).
	Source string
	// Prompt is the version, resolved (inheritance applied), its defaults
	// set and its ContentSHA256 computed.
	Prompt *prompt.Prompt

	file string // the prompt file Source names, "" if not a file: for the lines of parameter errors
}

// Observer receives an eval's progress; evolve's progress display
// implements it (experiment.Observer's phase methods).
type Observer interface {
	PhaseStart(gen int, split, version string, total int)
	EpisodeDone(done, total int)
	PhaseEnd(gen int, split, version string, episodes int, elapsed time.Duration)
}

// Options are an eval's settings.
type Options struct {
	// Config names the environment, its variants, the seed sets, workers
	// and on_episode_panic.
	Config *experiment.Config
	// Split is the split of the config's seed set to play: "test" (the
	// default), "val" or "train"; ignored with SeedsFile.
	Split string
	// SeedsFile, if set, is a seed file (one seed per line, as the seed
	// sets' files; "-" for standard input) to play instead of a split,
	// read under inputfile.DefaultLimits; its SHA-256 is recorded.
	SeedsFile string
	// Repeats plays each seed this many times (>= 1; default 1), repeat r
	// from EpisodeSeed(seed, r).
	Repeats int
	// Sets are --set overrides making variants (see
	// experiment.Config.EnvVariants).
	Sets []string
	// Out is the directory the eval directory is created under (default
	// "evals").
	Out string
	// Dir, if set, is the eval directory itself (for CI scripts that need
	// a fixed path): it must not exist, or be empty.
	Dir string
	// Workers bounds the episodes played at once (0: the config's).
	Workers int
	// Cache, if not nil, is the outcome cache: a hit is not played.
	Cache *cache.Cache
	// Observer, if not nil, receives progress.
	Observer Observer
	// Version is the evolve version recorded in the manifest.
	Version string
	// LLMCache, if not "", overrides the config's agent.cache for this
	// process: "off", "read" (replay only: a reply not in the response
	// cache is an error, and nothing is sent) or "readwrite". It is not
	// part of the eval's identity (replies are the same either way).
	LLMCache string
	// Gate is the comparison with the baseline made when the phases are
	// done (the zero value: with the first version, gate.DefaultConfig).
	// Run records it in the checkpoint; Resume uses the recorded one.
	Gate GateSettings
	// GateGiven, for Resume, says that Gate was given on the command
	// line: it must then equal the recorded gate (ErrGateChanged).
	GateGiven bool
	// JUnit is the JUnit XML file the caller writes the verdict to (""
	// for none). Run records it (absolute) in the checkpoint; Resume uses
	// the recorded one when JUnit is "". Result.JUnit is the one to write.
	JUnit string
	// LLMBaseURL, if not "", overrides the config's agent.llm.base_url
	// for this process (how the model is reached is not part of the
	// eval's identity: an eval resumes against a moved endpoint with it).
	LLMBaseURL string
	// Executor, if not "", overrides the kind of the config's executor
	// (on Resume, of the executor the eval started with): "local" or
	// "slurm". Where episodes are played never changes a result, so it
	// is not part of the eval's identity.
	Executor string
	// Logger receives the Slurm executor's events (jobs submitted,
	// re-attached, resubmitted, cancelled); nil means none.
	Logger *slog.Logger
}

// Result is what an eval wrote.
type Result struct {
	// Dir is the eval directory.
	Dir string
	// ID is its name: "NAME-eval-HASH10".
	ID string
	// Versions are the versions played, in the order given.
	Versions []Version
	// Variants are the environment variants' names ("" alone).
	Variants []string
	// Summaries hold one row per version and variant.
	Summaries []results.SummaryRow
	// Episodes are every episode, in the order of episodes.parquet.
	Episodes []results.EpisodeRow
	// Played and Cached count the episodes played and replayed from the
	// cache by this process.
	Played, Cached int
	// Rerecorded counts the episodes of Played that were in the cache
	// without the trajectory the trajectories policy keeps (cached under
	// a policy that dropped it, or by an evolve from before the cache
	// recorded whether it held one): they were played again for it.
	Rerecorded int
	// LLM is the language-model agent's client statistics of this
	// process (calls, HTTP requests, response cache hits, tokens); nil for
	// the scripted agent.
	LLM *llm.Stats
	// Gate is the gate the eval was started with, and Verdict its
	// comparisons with the baseline (no comparisons when there was
	// nothing to compare).
	Gate    GateSettings
	Verdict *Verdict
	// JUnit is the JUnit file to write the verdict to (Options.JUnit, or
	// on Resume the one recorded), "" for none.
	JUnit string
	// AlreadyFinished reports a Resume of an eval that had finished
	// before: nothing was played, the outputs were re-read (and any
	// missing one written again) and the verdict is the stored one.
	AlreadyFinished bool
}

// Run evaluates versions on the config's environment (and variants) and
// writes a new eval directory under opt.Out: the versions' prompt files,
// episodes.parquet (the schema of a run's, with variant and repeat),
// summary.parquet and manifest.yaml. Each phase (a version on a variant)
// is checkpointed when it ends; ctx cancelled stops at once with ctx's
// error and leaves a directory that Resume continues. Outcomes in
// opt.Cache are not played again, and every outcome played is stored
// there (error episodes are neither stored nor replayed).
func Run(ctx context.Context, versions []Version, opt Options) (*Result, error) {
	e, err := newEval(versions, opt)
	if err != nil {
		return nil, err
	}
	if err := e.create(); err != nil {
		return nil, err
	}
	defer e.unlock()
	return e.loop(ctx)
}

type eval struct {
	opt      Options
	cfg      *experiment.Config
	versions []Version
	variants []experiment.EnvVariant
	seeds    []uint64
	ck       rundir.Eval
	gate     *GateSettings // the gate of ck.Gate, decoded (nil in a checkpoint from before gates were recorded)
	dir      string
	lock     *rundir.Lock
	base     *baseline   // the --baseline eval's episodes, nil for the first version
	llm      *llm.Client // the language-model agent's client, nil for the scripted agent
	agent    string      // experiment.Config.AgentIdentity: the outcome cache's Agent
	episodes []results.EpisodeRow
	res      *Result
}

// newEval checks versions and opt and returns the eval to create: its
// variants, agent, seeds, identity and checkpoint, and the baseline it is
// compared with, all before anything is written.
func newEval(versions []Version, opt Options) (*eval, error) {
	if len(versions) == 0 {
		return nil, errors.New("no prompt to evaluate")
	}
	if opt.Repeats == 0 {
		opt.Repeats = 1
	}
	if opt.Repeats < 1 || opt.Repeats > 10000 {
		return nil, fmt.Errorf("--repeats %d: want 1 to 10000", opt.Repeats)
	}
	if opt.Split == "" {
		opt.Split = results.SplitTest
	}
	if opt.Out == "" {
		opt.Out = "evals"
	}
	if opt.Cache != nil {
		opt.Cache.Clean(time.Hour) // temporary files of writers killed an hour ago or more
	}
	e := &eval{opt: opt, cfg: opt.Config, versions: versions}
	var err error
	if e.variants, err = e.cfg.EnvVariants(opt.Sets); err != nil {
		return nil, err
	}
	if err := e.useAgent(); err != nil {
		return nil, err
	}
	for _, v := range e.variants {
		schema := v.Env.Info().Params
		for _, ver := range versions {
			ver.Prompt.PolicyParameters = schema.Coerce(ver.Prompt.PolicyParameters)
			if err := paramProblems(ver, schema, e.cfg.Environment.Name); err != nil {
				return nil, err
			}
		}
	}
	seedsSHA, err := e.readSeeds()
	if err != nil {
		return nil, err
	}
	if err := e.record(seedsSHA); err != nil {
		return nil, err
	}
	if err := e.useExecutor(e.cfg.Executor); err != nil {
		return nil, err
	}
	e.identify(seedsSHA)
	g := opt.Gate
	if err := g.Config.Validate(); err != nil {
		return nil, err
	}
	if g.Baseline != "" {
		if g.Baseline, err = filepath.Abs(g.Baseline); err != nil {
			return nil, err
		}
	}
	if err := e.setGate(g); err != nil {
		return nil, err
	}
	if opt.JUnit != "" {
		if e.ck.JUnit, err = filepath.Abs(opt.JUnit); err != nil {
			return nil, err
		}
	}
	if e.base, err = e.loadBaseline(); err != nil { // before anything is played
		return nil, err
	}
	return e, nil
}

// readSeeds sets e.seeds to the seeds the eval plays, from Options.SeedsFile
// (then the split is test) or the config's seed set's Options.Split, and
// returns the hex SHA-256 of the file they were read from.
func (e *eval) readSeeds() (string, error) {
	if e.opt.SeedsFile != "" {
		data, err := inputfile.Read(e.opt.SeedsFile, inputfile.DefaultLimits)
		if err != nil {
			return "", fmt.Errorf("--seeds: %w", err)
		}
		if e.seeds, err = seeds.Parse(e.opt.SeedsFile, data); err != nil {
			return "", err
		}
		if len(e.seeds) == 0 {
			return "", errors.New("no seeds to play")
		}
		sum := sha256.Sum256(data)
		e.opt.Split = results.SplitTest
		return hex.EncodeToString(sum[:]), nil
	}
	var set *seeds.Set
	var err error
	if e.cfg.Seeds == experiment.Embedded {
		set, err = seeds.Embedded()
	} else {
		set, err = seeds.Load(e.cfg.Seeds)
	}
	if err != nil {
		return "", err
	}
	switch e.opt.Split {
	case results.SplitTrain:
		e.seeds = set.Train
	case results.SplitVal:
		e.seeds = set.Val
	case results.SplitTest:
		e.seeds = set.Test
	default:
		return "", fmt.Errorf("--split %q: want train, val or test", e.opt.Split)
	}
	if len(e.seeds) == 0 {
		return "", errors.New("no seeds to play")
	}
	return set.Hashes[seeds.Split(e.opt.Split)], nil
}

// record starts e's checkpoint with what a resume needs of the
// invocation: the resolved config, the seeds, repeats and --set
// overrides, the config's variants and the settings the resolved config
// leaves out (rundir.Settings).
func (e *eval) record(seedsSHA string) error {
	resolved, err := e.cfg.Resolved()
	if err != nil {
		return err
	}
	e.ck = rundir.Eval{Schema: rundir.EvalSchema, Config: string(resolved), Split: e.opt.Split, Seeds: e.seeds, SeedsSHA: seedsSHA,
		Repeats: e.opt.Repeats, Sets: e.opt.Sets, Started: time.Now().UTC().Truncate(time.Second), Trajectories: e.cfg.Trajectories,
		SeedsFile: e.opt.SeedsFile}
	if e.ck.Variants, err = e.cfg.VariantsYAML(); err != nil {
		return err
	}
	if e.llm != nil && e.cfg.Agent.CacheDir != "" {
		if e.ck.LLMCacheDir, err = filepath.Abs(e.cfg.Agent.CacheDir); err != nil {
			return err
		}
	}
	e.ck.Settings = experiment.SettingsOf(e.cfg)
	e.ck.Settings.LLMCacheDir = e.ck.LLMCacheDir
	return nil
}

// identify sets the eval's ID, "NAME-eval-HASH10", from what it plays
// (the split's seeds, repeats, variants, agent and versions), and records
// the versions in the checkpoint.
func (e *eval) identify(seedsSHA string) {
	h := sha256.New()
	fmt.Fprintf(h, "eval %d\nsplit %s\nseeds %s\nrepeats %d\n", SemanticsVersion, e.opt.Split, seedsSHA, e.opt.Repeats)
	for _, v := range e.variants {
		fmt.Fprintf(h, "variant %s %s\n", v.Name, v.Identity)
	}
	if e.agent != "" { // the scripted agent adds nothing: eval IDs keep
		fmt.Fprintf(h, "agent %s\n", e.agent)
	}
	for _, v := range e.versions {
		fmt.Fprintf(h, "version %s %s\n", v.Label, v.Prompt.ContentSHA256)
		e.ck.Versions = append(e.ck.Versions, rundir.EvalVersion{Label: v.Label, Source: v.Source,
			File: rundir.PromptsDir + "/" + fileName(v.Label) + ".yaml", SHA256: v.Prompt.ContentSHA256})
	}
	e.ck.ID = e.cfg.Name + "-eval-" + hex.EncodeToString(h.Sum(nil))[:10]
}

// setGate records g as the eval's gate, in e.gate and in the checkpoint.
func (e *eval) setGate(g GateSettings) error {
	data, err := json.Marshal(&g)
	if err != nil {
		return err
	}
	e.gate, e.ck.Gate = &g, data
	return nil
}

// useAgent makes every variant play with the config's agent: for a
// language model, one client (experiment.Config.NewLLMClient, with
// opt.LLMCache's mode) shared by the variants.
func (e *eval) useAgent() error {
	if e.opt.LLMCache != "" {
		if _, err := llm.ParseMode(e.opt.LLMCache); err != nil {
			return fmt.Errorf("--llm-cache: %w", err)
		}
		e.cfg.Agent.Cache = e.opt.LLMCache
	}
	if e.opt.LLMBaseURL != "" {
		e.cfg.Agent.LLM.BaseURL = e.opt.LLMBaseURL
	}
	client, err := e.cfg.NewLLMClient()
	if err != nil || client == nil {
		return err
	}
	if e.opt.Logger != nil {
		client.SetLogger(e.opt.Logger) // the body of each kind of unusable reply, once per phase
	}
	for _, v := range e.variants {
		if err := e.cfg.AttachAgent(v.Env, client); err != nil {
			return err
		}
	}
	e.llm, e.agent = client, e.cfg.AgentIdentity()
	return nil
}

// useExecutor records in the checkpoint where the eval plays: ec with its
// kind overridden by Options.Executor (nil for this machine).
func (e *eval) useExecutor(ec rundir.ExecutorConfig) error {
	switch e.opt.Executor {
	case "":
	case rundir.ExecutorLocal, rundir.ExecutorSlurm:
		ec.Kind = e.opt.Executor
	default:
		return fmt.Errorf("--executor: %q is not local or slurm", e.opt.Executor)
	}
	e.ck.Executor = nil
	if ec.Kind == rundir.ExecutorSlurm {
		e.ck.Executor = &ec
	}
	return nil
}

// fileName is label with every character a file name may not hold as '_'.
func fileName(label string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' || r == '@' {
			return r
		}
		return '_'
	}, label)
}

// create makes and locks a new eval directory and writes the versions'
// prompt files and the first checkpoint.
func (e *eval) create() error {
	if e.opt.Dir != "" {
		e.dir = e.opt.Dir
		if err := os.MkdirAll(e.dir, 0o755); err != nil {
			return err
		}
		if killedStart(e.dir) {
			// An eval killed before its first checkpoint left only its
			// lock, prompt files and temporary files: nothing to resume,
			// so the same command takes the directory over.
			if err := e.lockDir(); err != nil {
				return err
			}
			ents, _ := os.ReadDir(e.dir)
			for _, ent := range ents {
				if ent.Name() != rundir.EvalLockFile {
					if err := os.RemoveAll(filepath.Join(e.dir, ent.Name())); err != nil {
						return err
					}
				}
			}
			return e.init()
		}
		if ents, err := os.ReadDir(e.dir); err != nil || len(ents) > 0 {
			if _, err := os.Stat(filepath.Join(e.dir, rundir.CheckpointFile)); err == nil {
				return fmt.Errorf("--dir %s holds an eval already (an eval never overwrites one): complete it, or re-emit its verdict, with evolve eval --resume %s", e.dir, e.dir)
			}
			return fmt.Errorf("--dir %s: want a new or empty directory (an eval never overwrites one)", e.dir)
		}
		return e.init()
	}
	if err := os.MkdirAll(e.opt.Out, 0o755); err != nil {
		return err
	}
	e.dir = filepath.Join(e.opt.Out, e.ck.ID)
	for i := 2; ; i++ {
		err := os.Mkdir(e.dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		e.dir = filepath.Join(e.opt.Out, fmt.Sprintf("%s.%d", e.ck.ID, i))
	}
	return e.init()
}

// init locks the new eval directory and writes the prompt files and the
// first checkpoint.
func (e *eval) init() error {
	if e.lock == nil {
		if err := e.lockDir(); err != nil {
			return err
		}
	}
	if err := os.Mkdir(filepath.Join(e.dir, rundir.PromptsDir), 0o755); err != nil {
		return err
	}
	for i, v := range e.versions {
		data, err := prompt.Encode(v.Prompt.Clone())
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(e.dir, filepath.FromSlash(e.ck.Versions[i].File)), data, 0o444); err != nil {
			return err
		}
	}
	return e.save()
}

// killedStart reports whether dir holds what an eval killed before its
// first checkpoint leaves: eval.lock, and nothing else but prompts/,
// the first (empty) episodes.parquet and temporary files of atomic
// writes.
func killedStart(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	lock := false
	for _, ent := range ents {
		switch name := ent.Name(); {
		case name == rundir.EvalLockFile:
			lock = true
		case name == rundir.PromptsDir && ent.IsDir(), name == rundir.EpisodesFile, atomicfile.IsTemp(name):
		default:
			return false
		}
	}
	return lock
}

// lockDir takes the eval directory's lock (rundir.LockDir) for the
// life of the process.
func (e *eval) lockDir() error {
	l, err := rundir.LockDir(e.dir, rundir.KindEval)
	if err != nil {
		return err
	}
	e.lock = l
	return nil
}

func (e *eval) unlock() { e.lock.Release() }

// save writes episodes.parquet (the rows so far) and then the checkpoint.
func (e *eval) save() error {
	if err := results.WriteEpisodes(filepath.Join(e.dir, rundir.EpisodesFile), e.metrics(), e.episodes); err != nil {
		return err
	}
	return rundir.WriteCheckpoint(e.dir, &e.ck)
}

// metrics are the metric columns of episodes.parquet: those of the first
// variant (variants of one environment declare the same).
func (e *eval) metrics() []envs.Metric { return e.variants[0].Env.Info().Metrics }

func phaseKey(variant, label string) string { return variant + "\x00" + label }

// loop plays the phases not yet done, then writes the summary.
func (e *eval) loop(ctx context.Context) (*Result, error) {
	e.res = &Result{Dir: e.dir, ID: e.ck.ID, Versions: e.versions}
	if e.gate != nil {
		e.res.Gate = *e.gate
	}
	e.res.JUnit = e.ck.JUnit
	workers := e.cfg.Workers
	if e.llm != nil {
		workers = e.cfg.Agent.LLM.Concurrency // episodes wait on the model, not on the CPU
		defer e.llm.Close()
	}
	if e.opt.Workers > 0 {
		workers = e.opt.Workers
	}
	for _, v := range e.variants {
		e.res.Variants = append(e.res.Variants, v.Name)
		runner := &play.Runner{Env: v.Env, Workers: workers, RecordErrors: e.cfg.OnEpisodePanic == "record"}
		if l, ok := v.Env.(interface{ SetLogDir(string) }); ok {
			l.SetLogDir(e.dir)
		}
		var exec play.Executor // nil: the runner plays here
		if x := e.ck.Executor; x != nil {
			var err error
			if exec, err = e.cfg.VariantExecutor(v, *x, e.ck.ID, e.dir, e.opt.LLMCache, e.opt.Logger); err != nil {
				return nil, err
			}
		}
		closeAll := func() {
			runner.Close()
			if exec != nil {
				exec.Close() // cancels the jobs still queued, if any
			}
		}
		for _, ver := range e.versions {
			if slices.Contains(e.ck.Done, phaseKey(v.Name, ver.Label)) {
				continue
			}
			if e.llm != nil {
				e.llm.ResetLogged() // each kind of unusable reply's body is logged once per phase
			}
			if err := e.phase(ctx, runner, exec, v, ver); err != nil {
				closeAll()
				if ctx.Err() != nil {
					return nil, &InterruptedError{Dir: e.dir, Phases: len(e.ck.Done), Cause: err}
				}
				return nil, err
			}
			e.ck.Done = append(e.ck.Done, phaseKey(v.Name, ver.Label))
			if err := e.save(); err != nil {
				closeAll()
				return nil, err
			}
		}
		closeAll()
	}
	if e.llm != nil {
		st := e.llm.Stats()
		e.res.LLM = &st
	}
	if err := e.finish(); err != nil {
		return nil, err
	}
	return e.res, nil
}

// phase plays one version on one variant: every (seed, repeat), from the
// cache where it can, on runner, or on exec when it is not nil (the
// Slurm executor: the outcomes it plays are cached when the phase's
// shards are merged; a resume finds the shards finished before in the
// phase's directory).
func (e *eval) phase(ctx context.Context, runner *play.Runner, exec play.Executor, v experiment.EnvVariant, ver Version) error {
	type job struct {
		seed   uint64
		repeat int
		key    cache.Key
	}
	n := len(e.seeds) * e.opt.Repeats
	outs := make([]envs.Outcome, n)
	var todo []int
	jobs := make([]job, n)
	for i, s := range e.seeds {
		for r := 0; r < e.opt.Repeats; r++ {
			k := i*e.opt.Repeats + r
			jobs[k] = job{seed: s, repeat: r, key: cache.Key{Env: v.Identity, Seed: EpisodeSeed(s, r), Prompt: ver.Prompt.ContentSHA256, Agent: e.agent, Semantics: SemanticsVersion}}
			if e.opt.Cache != nil {
				ce, ok, err := e.opt.Cache.Get(jobs[k].key)
				if err != nil {
					return err
				}
				switch {
				case ok && (ce.Recorded || !e.keepsTrajectory(ce.Cause)):
					outs[k] = ce.Outcome
					e.res.Cached++
					continue
				case ok:
					// The policy keeps this episode's trajectory, which the
					// entry does not hold: play it again, and replace it.
					e.res.Rerecorded++
				}
			}
			todo = append(todo, k)
		}
	}
	start := time.Now()
	label := ver.Label
	if v.Name != "" {
		label += " [" + v.Name + "]"
	}
	if obs := e.opt.Observer; obs != nil {
		obs.PhaseStart(0, e.opt.Split, label, len(todo))
		runner.Progress = obs.EpisodeDone
	}
	if len(todo) > 0 {
		toPlay := make([]uint64, len(todo))
		for i, k := range todo {
			toPlay[i] = jobs[k].key.Seed
		}
		p := ver.Prompt
		text, err := experiment.SystemText(v.Env.Info(), p)
		if err != nil {
			return fmt.Errorf("version %s: rendering the prompt: %w", ver.Label, err)
		}
		pr := &envs.Prompt{Slug: p.SlugOrDefault(), Version: p.Version.String(), Text: text, SHA256: p.ContentSHA256}
		record := e.cfg.Trajectories.Record()
		episode := func(seed uint64) envs.Episode {
			return envs.Episode{Seed: seed, Params: p.PolicyParameters, Prompt: pr, Record: record}
		}
		runner.OnError = func(ee *play.EpisodeError) { e.logError(v.Name, ver.Label, ee) }
		var putErr error
		runner.Finished = nil
		if e.opt.Cache != nil {
			// Cache each outcome as it is played, so that an interrupted
			// eval's resume replays what was played before the signal.
			runner.Finished = func(i int, o envs.Outcome) {
				if o.Cause == envs.CauseError || putErr != nil { // error episodes are retried, never cached
					return
				}
				// Cache only the trajectories the policy keeps; the entry
				// says whether it holds the episode's trajectory.
				kept := e.keepsTrajectory(o.Cause)
				if !kept || len(o.Trajectory) > trajectory.MaxBytes { // the archive drops those over MaxBytes
					o.Trajectory, o.TrajectoryFormat = nil, ""
				}
				putErr = e.opt.Cache.Put(jobs[todo[i]].key, cache.Entry{Outcome: o, Recorded: kept})
			}
		}
		var played []envs.Outcome
		if exec == nil {
			played, err = runner.Run(ctx, episode, toPlay)
		} else {
			ph := play.Phase{Split: e.opt.Split, Params: p.PolicyParameters, Prompt: pr, Record: record,
				Progress: runner.Progress, OnError: runner.OnError}
			if played, err = exec.Play(ctx, ph, toPlay); err == nil && runner.Finished != nil {
				for i, o := range played {
					runner.Finished(i, o)
				}
			}
		}
		if err != nil {
			return err
		}
		if putErr != nil {
			return putErr
		}
		for i, k := range todo {
			outs[k] = played[i]
		}
		e.res.Played += len(todo)
	}
	if obs := e.opt.Observer; obs != nil {
		obs.PhaseEnd(0, e.opt.Split, label, len(todo), time.Since(start))
	}
	if err := e.storeTrajectories(v.Name, ver.Label, outs, func(k int) (uint64, int) { return jobs[k].seed, jobs[k].repeat }); err != nil {
		return err
	}
	nm := len(v.Env.Info().Metrics)
	for k, o := range outs {
		metrics := make([]envs.MetricValue, nm)
		for j := range metrics {
			if j < len(o.Metrics) {
				metrics[j] = o.Metrics[j]
			} else {
				metrics[j].Null = true
			}
		}
		e.episodes = append(e.episodes, results.EpisodeRow{Run: e.ck.ID, Version: ver.Label, Split: e.opt.Split, Variant: v.Name,
			Seed: jobs[k].seed, Repeat: int32(jobs[k].repeat), Score: o.Score, Cause: o.Cause, EndReason: o.EndReason, Metrics: metrics})
	}
	return e.checkHealth(health(e.episodes, e.metrics(), v.Name, ver.Label))
}

// keepsTrajectory reports whether the eval records episodes and its
// trajectories policy keeps the trajectory of an episode that ended with
// cause.
func (e *eval) keepsTrajectory(cause string) bool {
	return e.cfg.Trajectories.Record() && e.cfg.Trajectories.Keep(cause)
}

// logError appends an error episode to episode_errors.jsonl.
func (e *eval) logError(variant, label string, ee *play.EpisodeError) {
	line, _ := json.Marshal(map[string]any{"variant": variant, "version": label, "seed": ee.Seed, "error": ee.Err.Error()})
	f, err := os.OpenFile(filepath.Join(e.dir, rundir.EpisodeErrorsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// Scores returns the scores, seeds and repeats of version label on
// variant, in (seed, repeat) order of the seed set.
func Scores(rows []results.EpisodeRow, variant, label string) (scores []float64, seedList []uint64, repeats []int) {
	for _, r := range rows {
		if r.Variant == variant && r.Version == label {
			scores = append(scores, r.Score)
			seedList = append(seedList, r.Seed)
			repeats = append(repeats, int(r.Repeat))
		}
	}
	return scores, seedList, repeats
}

// finish writes summary.parquet, compares the versions with the
// baseline, writes the outputs (report.md, plots, report.html,
// comparisons.parquet, results.tex, manifest.yaml), and only then marks
// the eval finished with its verdict: a kill at any write leaves an eval
// that Resume completes.
func (e *eval) finish() error {
	results.SortEpisodes(e.episodes)
	e.res.Episodes = e.episodes
	for _, v := range e.variants {
		for _, ver := range e.versions {
			x, _, _ := Scores(e.episodes, v.Name, ver.Label)
			s := stats.Summarize(x)
			row := results.SummaryRow{Eval: e.ck.ID, Variant: v.Name, Version: ver.Label, PromptSHA256: ver.Prompt.ContentSHA256,
				Split: e.opt.Split, N: int32(s.N), Mean: s.Mean, Std: s.Std, Median: s.Median, IQM: s.IQM, CILow: s.CILow, CIHigh: s.CIHigh}
			row.MeanBCaLow, row.MeanBCaHigh = meanCI(x)
			row.IQMCILow, row.IQMCIHigh = iqmCI(x)
			e.res.Summaries = append(e.res.Summaries, row)
		}
	}
	if err := results.WriteSummaries(filepath.Join(e.dir, rundir.SummaryFile), e.res.Summaries); err != nil {
		return err
	}
	verdict, err := e.compare(e.base)
	if err != nil {
		return err
	}
	var hs []Health
	for _, v := range e.variants {
		for _, ver := range e.versions {
			hs = append(hs, health(e.episodes, e.metrics(), v.Name, ver.Label))
		}
	}
	if showHealth(e.agent, hs) {
		verdict.Health = hs
		base := e.versions[0].Label
		if e.base != nil {
			base = "" // the baseline's phases are another eval's
		}
		for i := range verdict.Comparisons {
			k := &verdict.Comparisons[i].Check
			k.Notes = healthNotes(hs, k.Variant, k.Version, base)
		}
	}
	e.res.Verdict = verdict
	if err := writeOutputs(e.res, false); err != nil {
		return err
	}
	if err := e.writeManifest(); err != nil {
		return err
	}
	if e.ck.Verdict, err = json.Marshal(verdict); err != nil {
		return err
	}
	e.ck.Finished = true
	return e.save()
}

// meanCI is the 95% BCa bootstrap interval of the mean of x
// (stats.BootstrapBCa with stats.MeanOf, Efron 1987; 2,000 resamples from
// a fixed seed, as iqmCI's); NaN for fewer than 2 scores.
func meanCI(x []float64) (float64, float64) {
	if len(x) < 2 {
		return nan(), nan()
	}
	ci, err := stats.BootstrapBCa(x, stats.MeanOf, stats.BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 0))})
	if err != nil {
		return nan(), nan()
	}
	return ci.Low, ci.High
}

// iqmCI is the 95% BCa bootstrap CI of the IQM (stats.BootstrapBCaIQM,
// Efron 1987; 2,000 resamples, seed 1), NaN for fewer than 2 scores.
func iqmCI(x []float64) (float64, float64) {
	if len(x) < 2 {
		return nan(), nan()
	}
	ci, err := stats.BootstrapBCaIQM(x, stats.BootstrapConfig{Reps: 2000, Rand: rand.New(rand.NewPCG(1, 0))})
	if err != nil {
		return nan(), nan()
	}
	return ci.Low, ci.High
}

func (e *eval) writeManifest() error {
	var cfg yaml.Node
	if err := yaml.Unmarshal([]byte(e.ck.Config), &cfg); err != nil {
		return err
	}
	m := rundir.EvalManifest{ID: e.ck.ID, Evolve: e.opt.Version, Started: e.ck.Started, Finished: time.Now().UTC().Truncate(time.Second),
		Split: e.opt.Split, SeedsFile: e.opt.SeedsFile, SeedsSHA: e.ck.SeedsSHA, NSeeds: len(e.seeds), Repeats: e.opt.Repeats,
		Variants: map[string]string{}}
	if len(cfg.Content) > 0 {
		m.Config = *cfg.Content[0]
	}
	for _, v := range e.variants {
		m.Variants[v.Name] = v.Identity
	}
	for _, v := range e.ck.Versions {
		m.Versions = append(m.Versions, rundir.ManifestVersion{Label: v.Label, Source: v.Source, File: v.File, SHA256: v.SHA256})
	}
	m.Agent, m.LLM = e.agent, e.res.LLM
	if x := e.ck.Executor; x != nil {
		m.Executor = &rundir.ExecutorManifest{Kind: x.Kind, Partition: x.Partition, ArraySize: x.ArraySize, Jobs: experiment.SlurmJobs(e.dir)}
	}
	return rundir.WriteManifest(e.dir, &m)
}

func nan() float64 { return math.NaN() }
