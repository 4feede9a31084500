package experiment

import (
	"bytes"
	"context"
	"errors"
	"evolve/rundir"
	"evolve/store"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
	"evolve/llm"
	"evolve/prompt"
	"evolve/results"
	"evolve/seeds"
	"evolve/trajectory"
)

// SettingsOf returns the settings of cfg that the checkpoint records.
func SettingsOf(cfg *Config) *rundir.Settings {
	s := &rundir.Settings{Workers: cfg.Workers, Trajectories: cfg.Trajectories, MaxErrorRate: cfg.MaxErrorRate,
		LLMCacheDir: cfg.Agent.CacheDir, MaxFallbackRate: cfg.Agent.MaxFallbackRate}
	if cfg.Agent.Kind == AgentLLM {
		s.LLMCache = cfg.Agent.Cache
	}
	return s
}

// ApplySettings sets cfg's settings to s's.
func ApplySettings(s *rundir.Settings, cfg *Config) {
	cfg.Workers, cfg.Trajectories, cfg.MaxErrorRate = s.Workers, s.Trajectories, s.MaxErrorRate
	cfg.Agent.CacheDir, cfg.Agent.MaxFallbackRate = s.LLMCacheDir, s.MaxFallbackRate
	if s.LLMCache != "" {
		cfg.Agent.Cache = s.LLMCache
	}
}

// settingsChanged lists the settings that would change a run's outputs or when
// it stops and that differ between the recorded s and the given config's
// g, as "field: old → new": trajectories, max_error_rate,
// agent.max_fallback_rate and agent.cache (unless overridden with
// --cache, cacheFlag). Workers and the cache directory may change, as the
// endpoint may: they depend on the machine.
func settingsChanged(s, g *rundir.Settings, cacheFlag bool) []string {
	var d []string
	if s.Trajectories.OrDefault() != g.Trajectories.OrDefault() {
		d = append(d, fmt.Sprintf("trajectories: %s → %s", s.Trajectories.OrDefault(), g.Trajectories.OrDefault()))
	}
	if s.MaxErrorRate != g.MaxErrorRate {
		d = append(d, fmt.Sprintf("max_error_rate: %v → %v", s.MaxErrorRate, g.MaxErrorRate))
	}
	if s.MaxFallbackRate != g.MaxFallbackRate {
		d = append(d, fmt.Sprintf("agent.max_fallback_rate: %v → %v", s.MaxFallbackRate, g.MaxFallbackRate))
	}
	if !cacheFlag && s.LLMCache != g.LLMCache {
		d = append(d, fmt.Sprintf("agent.cache: %s → %s (--cache MODE changes it for one session)", orNone(s.LLMCache), orNone(g.LLMCache)))
	}
	return d
}

// ErrFinished is returned (wrapped, naming the run and its directory) by
// Resume for a run that has already finished: there is nothing to do, and
// a retry loop or a requeued cluster job should treat it as success.
var ErrFinished = errors.New("the run has already finished; nothing to resume")

// save writes the tables and then the checkpoint, each atomically: a
// crash between the two leaves tables ahead of the checkpoint, which a
// resume ignores (it drops rows of unfinished generations).
func (r *run) save() error {
	if r.trajErr != nil {
		return r.trajErr
	}
	if err := r.writeTables(); err != nil {
		return err
	}
	return r.saveCheckpoint()
}

// llmTotals returns the language-model client's totals over the run's
// sessions: the earlier sessions' (the checkpoint's when this session
// started) and this process's so far.
func (r *run) llmTotals() llm.Stats {
	return r.llmPrev.Add(r.llm.Stats())
}

// saveCheckpoint writes checkpoint.json alone, atomically.
func (r *run) saveCheckpoint() error {
	if r.llm != nil {
		st := r.llmTotals()
		r.ck.LLMStats = &st
	}
	return rundir.WriteCheckpoint(r.dir, &r.ck)
}

func (r *run) seedHashes() map[string]string {
	m := map[string]string{}
	for s, h := range r.seeds.Hashes {
		m[string(s)] = h
	}
	return m
}

// Resume continues the interrupted run in dir from its last checkpoint and
// returns what the whole run produced; the outputs equal those of a run
// that was never interrupted, whatever moment the run was killed at (it
// was proved by killing a run at each of its file-system writes).
//
// cfg is nil to use the config recorded in the run directory; a given cfg
// must resolve to the same config. Before it plays anything, Resume:
//   - refuses a changed config, seed file or base prompt, naming what
//     changed, and a directory another process holds;
//   - removes what a crash left behind: temporary files of atomic writes
//     in the run directory and the prompt store, and staging files of
//     version files; a version file written but not yet listed in the
//     store's index is adopted when the replay writes the same content;
//   - verifies every version file the run committed (the checkpoint's
//     versions) against the store's index and its content hash, and
//     refuses, naming the file, one that does not verify;
//   - refuses a checkpoint whose incumbent disagrees with the store's
//     graph (HEAD of the base prompt's branch) or with generations.parquet.
//
// A directory whose run was killed in its first checkpoint write is taken
// over as a plain rerun takes it over (see resumeStillborn): from the
// checkpoint the write left complete, or afresh with the given cfg.
//
// A run that has already finished returns an error wrapping ErrFinished
// (and nothing is written). The checkpoint and the manifest record each
// session: when it started and ended, at which generation, and whether it
// finished, was interrupted by a signal, or crashed.
func Resume(ctx context.Context, dir string, cfg *Config, opt Options) (*Result, error) {
	ckPath := filepath.Join(dir, rundir.CheckpointFile)
	ckp, err := rundir.ReadRun(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(filepath.Join(dir, rundir.RunLockFile)); serr == nil && stillborn(dir) {
			return resumeStillborn(ctx, dir, cfg, opt)
		}
		return nil, fmt.Errorf("%s is not a resumable run directory: no %s", dir, rundir.CheckpointFile)
	case errors.Is(err, rundir.ErrKind):
		return nil, fmt.Errorf("%s is not a run directory (%v); an eval is resumed with evolve eval --resume", dir, err)
	case err != nil:
		return nil, err
	}
	ck := *ckp
	if ck.Done {
		return nil, fmt.Errorf("run %s in %s: %w", ck.RunID, dir, ErrFinished)
	}
	var ckTime time.Time
	if fi, err := os.Stat(ckPath); err == nil {
		ckTime = fi.ModTime().UTC().Truncate(time.Second)
	}
	cfg, given, err := resumeConfig(dir, &ck, cfg, opt)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, opt: opt, dir: dir, ck: ck, cfgGiven: given}
	if ck.LLMStats != nil {
		r.llmPrev = *ck.LLMStats
	}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	defer r.exec.Close() // ends the players' processes or cancels live jobs, if any
	for _, s := range seeds.Splits {
		if got, want := r.seeds.Hashes[s], ck.SeedSHA256[string(s)]; got != want {
			return nil, fmt.Errorf("cannot resume %s: seed file %s changed: sha256 was %s, is now %s", dir, s.File(), want, got)
		}
	}
	if r.base.ContentSHA256 != ck.BaseSHA256 {
		return nil, fmt.Errorf("cannot resume %s: base prompt %s changed: content sha256 was %s, is now %s", dir, cfg.BasePrompt, ck.BaseSHA256, r.base.ContentSHA256)
	}
	if r.id != ck.RunID {
		return nil, fmt.Errorf("cannot resume %s: it holds run %s, this config and seeds make run %s", dir, ck.RunID, r.id)
	}
	if err := r.lockDir(); err != nil {
		return nil, err
	}
	defer r.unlock()
	if err := r.openStore(); err != nil {
		return nil, err
	}
	if err := r.recover(); err != nil {
		return nil, fmt.Errorf("cannot resume %s: %w", dir, err)
	}
	r.logTo()
	if err := r.readTables(); err != nil {
		return nil, err
	}
	// A crash in create() can come before the base version is written.
	if err := r.writeVersion(r.base); err != nil {
		return nil, fmt.Errorf("cannot resume %s: %w", dir, err)
	}
	if err := r.verify(); err != nil {
		return nil, fmt.Errorf("cannot resume %s: %w", dir, err)
	}
	if n := len(r.ck.Sessions); n > 0 && r.ck.Sessions[n-1].End == "" {
		last := &r.ck.Sessions[n-1]
		last.End, last.Ended, last.AtGeneration = rundir.SessionCrash, ckTime, r.ck.Generations
	}
	r.ck.Sessions = append(r.ck.Sessions, rundir.Session{Started: time.Now().UTC().Truncate(time.Second), FromGeneration: r.ck.Generations})
	if err := r.saveCheckpoint(); err != nil {
		return nil, err
	}
	if opt.Observer != nil {
		opt.Observer.Started(r.id, r.dir, ck.Generations)
	}
	return r.loop(ctx)
}

// configRecord returns a new run's checkpoint with what it records of
// cfg: the resolved config and the settings it leaves out (with the
// fields of earlier evolve versions, llm_cache_dir and trajectories).
func configRecord(cfg *Config) (rundir.Run, error) {
	resolved, err := cfg.Resolved()
	if err != nil {
		return rundir.Run{}, err
	}
	return rundir.Run{Config: string(resolved), LLMCacheDir: cfg.Agent.CacheDir, Trajectories: cfg.Trajectories,
		Settings: SettingsOf(cfg)}, nil
}

// resumeConfig returns the config a resume of the run in dir with
// checkpoint ck plays and whether it was given: the recorded config with
// the recorded settings (Settings) when cfg is nil, else cfg, refused
// (naming each field) when it differs from the recorded one in what
// shapes results or in a recorded setting a resume may not change.
func resumeConfig(dir string, ck *rundir.Run, cfg *Config, opt Options) (*Config, bool, error) {
	recorded, err := Parse(filepath.Join(dir, rundir.CheckpointFile)+" (config)", []byte(ck.Config))
	if err != nil {
		return nil, false, err
	}
	given := cfg != nil
	if cfg == nil {
		recorded.Agent.CacheDir = ck.LLMCacheDir
		recorded.Trajectories = ck.Trajectories
		if ck.Settings != nil {
			ApplySettings(ck.Settings, recorded)
		}
		cfg = recorded
	} else {
		// How the model is reached (agent.llm's base_url, api_key_env,
		// timeout, retries, concurrency) may change; what changes
		// results may not.
		a, err := cfg.resultsConfig()
		if err != nil {
			return nil, false, err
		}
		b, err := recorded.resultsConfig()
		if err != nil {
			return nil, false, err
		}
		if !bytes.Equal(a, b) {
			return nil, false, fmt.Errorf("cannot resume %s: the config differs from the one it was started with: %s (only how the model is reached, agent.llm's base_url, api_key_env, timeout, retries and concurrency, may change)",
				dir, strings.Join(configDiff(b, a), "; "))
		}
		if ck.Settings != nil {
			if d := settingsChanged(ck.Settings, SettingsOf(cfg), opt.LLMCache != ""); len(d) > 0 {
				return nil, false, fmt.Errorf("cannot resume %s: the config changes settings the run started with: %s (workers, executor, agent.cache_dir and how the model is reached may change)",
					dir, strings.Join(d, "; "))
			}
		}
	}
	return cfg, given, nil
}

// stillborn reports whether dir is a run directory whose process died
// before it wrote its first checkpoint: it holds nothing but the lock file
// and temporary files of atomic writes.
func stillborn(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.Name() != rundir.RunLockFile && !atomicfile.IsTemp(e.Name()) {
			return false
		}
	}
	return true
}

// recover removes the temporary files a crash left in the run directory
// and the prompt store (see store.Store.Recover). The caller holds the
// run directory's lock.
func (r *run) recover() error {
	ents, err := os.ReadDir(r.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if atomicfile.IsTemp(e.Name()) {
			if err := os.Remove(filepath.Join(r.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	plots := filepath.Join(r.dir, "plots")
	if ents, err := os.ReadDir(plots); err == nil {
		for _, e := range ents {
			if atomicfile.IsTemp(e.Name()) {
				if err := os.Remove(filepath.Join(plots, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	if err := trajectory.RemoveTemps(r.dir); err != nil {
		return err
	}
	if r.store == nil {
		return nil // a new run: no store yet
	}
	_, err = r.store.Recover()
	return err
}

// verify checks, before a resume plays anything, that every version the
// run committed verifies, and that the checkpoint's incumbent agrees with
// the store's graph and with generations.parquet (read by readTables).
// The store may be one step ahead of the checkpoint: the generation in
// flight may have written its candidates and made the accepted one HEAD
// (a supersedes edge from a version the checkpoint does not list to the
// incumbent); the replay of that generation adopts them.
func (r *run) verify() error {
	ck := &r.ck
	committed := map[string]bool{}
	for _, v := range ck.Versions {
		pv, err := prompt.ParseVersion(v)
		if err != nil {
			return fmt.Errorf("%s: versions: %w", rundir.CheckpointFile, err)
		}
		if _, err := r.store.Load(r.base.SlugOrDefault(), pv); err != nil {
			return err
		}
		committed[v] = true
	}
	if !committed[ck.Incumbent] {
		return fmt.Errorf("%s: the incumbent %s is not among the run's versions %v", rundir.CheckpointFile, ck.Incumbent, ck.Versions)
	}
	g, err := r.store.Graph()
	if err != nil {
		return err
	}
	slug, branch := r.base.SlugOrDefault(), r.base.BranchOrMain()
	head, ok := g.Head(slug, branch)
	if !ok {
		return fmt.Errorf("%s: the prompt store has no branch %s of %s, the checkpoint's incumbent is %s", r.store.Dir(), branch, slug, ck.Incumbent)
	}
	if head.String() != ck.Incumbent {
		e, moved := lastHeadMove(g, slug, branch)
		pending := moved && e.Kind == store.Supersedes && e.From.Version == head &&
			e.To.Version.String() == ck.Incumbent && !committed[head.String()]
		if !pending {
			return fmt.Errorf("%s says the incumbent is %s but the prompt store's HEAD of %s@%s is %s; refusing to continue from an inconsistent checkpoint",
				rundir.CheckpointFile, ck.Incumbent, slug, branch, head)
		}
	}
	if ck.Generations > 0 {
		if len(r.generations) != ck.Generations {
			return fmt.Errorf("%s counts %d finished generations, generations.parquet has %d of them", rundir.CheckpointFile, ck.Generations, len(r.generations))
		}
		if last := r.generations[len(r.generations)-1]; last.NextIncumbent != ck.Incumbent {
			return fmt.Errorf("%s says the incumbent is %s but generations.parquet says generation %d left %s; refusing to continue from an inconsistent checkpoint",
				rundir.CheckpointFile, ck.Incumbent, last.Generation, last.NextIncumbent)
		}
	}
	return nil
}

// lastHeadMove returns the most recent edge that moved HEAD of (slug,
// branch), if any.
func lastHeadMove(g *store.Graph, slug, branch string) (store.Edge, bool) {
	for i := len(g.Edges) - 1; i >= 0; i-- {
		e := g.Edges[i]
		if e.From.Slug == slug && e.Branch == branch && e.Kind != store.InheritsFrom {
			return e, true
		}
	}
	return store.Edge{}, false
}

// readTables reads back the rows of the finished generations; rows of a
// generation the checkpoint does not count (written just before a crash)
// are dropped, as are test rows of an unfinished run.
func (r *run) readTables() error {
	if r.ck.Generations == 0 && !r.ck.BaseValDone {
		// Nothing is expected from the tables, which a crash in create()
		// may have left unwritten.
		return nil
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(r.dir, rundir.EpisodesFile))
	if err != nil {
		return err
	}
	done := int32(r.ck.Generations)
	for _, e := range eps {
		keep := e.Generation < done && e.Split != results.SplitTest
		if e.Generation == 0 && e.Split == results.SplitVal && e.Version == r.ck.Base && r.ck.BaseValDone {
			keep = true // the base's val episodes, played before generation 0
		}
		if keep {
			r.episodes = append(r.episodes, e)
		}
	}
	cands, err := results.ReadCandidates(filepath.Join(r.dir, rundir.CandidatesFile))
	if err != nil {
		return err
	}
	for _, c := range cands {
		if c.Generation < done {
			r.candidates = append(r.candidates, c)
		}
	}
	gens, _, err := results.ReadGenerations(filepath.Join(r.dir, rundir.GenerationsFile))
	if err != nil {
		return err
	}
	for _, g := range gens {
		if g.Generation < done {
			r.generations = append(r.generations, g)
		}
	}
	return nil
}

// configDiff lists the fields that differ between two resolved configs,
// as "field: old → new".
func configDiff(old, new []byte) []string {
	flatten := func(data []byte) map[string]string {
		var v any
		yaml.Unmarshal(data, &v)
		m := map[string]string{}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch t := v.(type) {
			case map[string]any:
				for k, x := range t {
					p := k
					if prefix != "" {
						p = prefix + "." + k
					}
					walk(p, x)
				}
			default:
				m[prefix] = fmt.Sprint(t)
			}
		}
		walk("", v)
		return m
	}
	a, b := flatten(old), flatten(new)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		if a[k] != b[k] {
			diffs = append(diffs, fmt.Sprintf("%s: %s → %s", k, orNone(a[k]), orNone(b[k])))
		}
	}
	sort.Strings(diffs)
	if len(diffs) == 0 {
		diffs = []string{"(formatting only)"}
	}
	return diffs
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
