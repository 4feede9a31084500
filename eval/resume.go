package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"evolve/experiment"
	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
	"evolve/trajectory"
)

// InterruptedError is returned by Run and Resume when ctx is cancelled:
// the eval directory holds the phases finished so far, and the outcomes
// played before the signal are in the cache (if one is used).
type InterruptedError struct {
	Dir    string // the eval directory
	Phases int    // phases finished and checkpointed
	Cause  error  // ctx's error
}

// Error says how many phases finished and where the eval is.
func (e *InterruptedError) Error() string {
	return fmt.Sprintf("eval interrupted (%v) after %d finished phase(s) in %s", e.Cause, e.Phases, e.Dir)
}

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Cause }

// Resume continues the eval in dir from its checkpoint: the versions are
// read from the directory's prompt files (verified), the config (with
// the config's variants and the settings it leaves out, rundir.Settings),
// seeds, --seeds file, repeats, --set variants and gate from the
// checkpoint (rundir.Eval); the baseline is checked
// again before anything is played; phases already done are kept, the
// others played (from opt.Cache where it can). The outputs equal those of
// an eval never interrupted. opt's Config, Split, SeedsFile, Repeats,
// Sets and Out are ignored, and so is opt.Gate unless opt.GateGiven (then
// it must equal the recorded gate, else the error wraps ErrGateChanged).
//
// An eval that has already finished is not played again: the Result
// (AlreadyFinished set) holds its summaries, episodes and the verdict
// stored in its checkpoint, and any output file missing from the
// directory is written again, so that the caller re-emits the verdict and
// exits with its status. Errors name the file at fault.
func Resume(ctx context.Context, dir string, opt Options) (*Result, error) {
	path := filepath.Join(dir, rundir.CheckpointFile)
	ckp, err := rundir.ReadEval(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if killedStart(dir) {
			return nil, fmt.Errorf("%s holds no %s: the eval was stopped before its first checkpoint; run the same evolve eval command again (it takes the directory over)", dir, rundir.CheckpointFile)
		}
		return nil, fmt.Errorf("%s is not a resumable eval directory: no %s", dir, rundir.CheckpointFile)
	case errors.Is(err, rundir.ErrKind):
		return nil, fmt.Errorf("%s is not an eval directory (its %s is not an eval's; a run is resumed with evolve run --resume)", dir, rundir.CheckpointFile)
	case err != nil:
		return nil, err
	}
	ck := *ckp
	gate, err := resumeGate(dir, &ck, opt)
	if err != nil {
		return nil, err
	}
	cfg, err := experiment.Parse(path+" (config)", []byte(ck.Config+ck.Variants))
	if err != nil {
		return nil, err
	}
	var versions []Version
	for _, v := range ck.Versions {
		file := filepath.Join(dir, filepath.FromSlash(v.File))
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		p, err := prompt.Decode(file, data)
		if err != nil {
			return nil, err
		}
		if p.ContentSHA256 != v.SHA256 {
			return nil, fmt.Errorf("%s: content_sha256 %s, the checkpoint recorded %s", file, p.ContentSHA256, v.SHA256)
		}
		versions = append(versions, Version{Label: v.Label, Source: v.Source, Prompt: p})
	}
	e := &eval{opt: opt, cfg: cfg, versions: versions, seeds: ck.Seeds, ck: ck, dir: dir}
	e.opt.Config, e.opt.Split, e.opt.Repeats, e.opt.Sets, e.opt.SeedsFile = cfg, ck.Split, ck.Repeats, ck.Sets, ck.SeedsFile
	e.gate = &gate
	if len(ck.Gate) == 0 || string(ck.Gate) == "null" { // recorded from now on
		if err := e.setGate(gate); err != nil {
			return nil, err
		}
	}
	if e.variants, err = cfg.EnvVariants(ck.Sets); err != nil {
		return nil, err
	}
	cfg.Agent.CacheDir = ck.LLMCacheDir
	cfg.Trajectories = ck.Trajectories
	if ck.Settings != nil {
		experiment.ApplySettings(ck.Settings, cfg) // the alarms, the cache's mode and the workers the eval began with
	}
	ec := cfg.Executor // the resolved config holds none: local
	if ck.Executor != nil {
		ec = *ck.Executor
	}
	if err := e.useExecutor(ec); err != nil {
		return nil, err
	}
	if err := e.useAgent(); err != nil {
		return nil, err
	}
	if opt.JUnit != "" {
		if e.ck.JUnit, err = filepath.Abs(opt.JUnit); err != nil {
			return nil, err
		}
	}
	if err := e.lockDir(); err != nil {
		return nil, err
	}
	defer e.unlock()
	if ck.Finished {
		return e.reopen()
	}
	if err := trajectory.RemoveTemps(dir); err != nil {
		return nil, err
	}
	if e.base, err = e.loadBaseline(); err != nil { // before anything is played
		return nil, err
	}
	rows, _, err := results.ReadEpisodes(filepath.Join(dir, rundir.EpisodesFile))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if slices.Contains(ck.Done, phaseKey(r.Variant, r.Version)) {
			e.episodes = append(e.episodes, r)
		}
	}
	return e.loop(ctx)
}

// reopen returns the Result of the finished eval e, its verdict the
// stored one, after writing any output file that is missing.
func (e *eval) reopen() (*Result, error) {
	res := &Result{Dir: e.dir, ID: e.ck.ID, Versions: e.versions, Gate: *e.gate, Verdict: &Verdict{}, JUnit: e.ck.JUnit, AlreadyFinished: true}
	if len(e.ck.Verdict) > 0 && string(e.ck.Verdict) != "null" {
		if err := json.Unmarshal(e.ck.Verdict, res.Verdict); err != nil {
			return nil, fmt.Errorf("%s: verdict: %w", filepath.Join(e.dir, rundir.CheckpointFile), err)
		}
	}
	for _, v := range e.variants {
		res.Variants = append(res.Variants, v.Name)
	}
	var err error
	if res.Summaries, err = results.ReadSummaries(filepath.Join(e.dir, rundir.SummaryFile)); err != nil {
		return nil, err
	}
	if res.Episodes, _, err = results.ReadEpisodes(filepath.Join(e.dir, rundir.EpisodesFile)); err != nil {
		return nil, err
	}
	e.res, e.episodes = res, res.Episodes
	if err := writeOutputs(res, true); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(e.dir, rundir.ManifestFile)); errors.Is(err, fs.ErrNotExist) {
		if err := e.writeManifest(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// resumeGate returns the gate a resume of the eval in dir (checkpoint
// ck) compares with: the recorded one; opt.Gate for a checkpoint written
// before gates were recorded. A gate given on the command line
// (opt.GateGiven) must equal the recorded one, else the error wraps
// ErrGateChanged.
func resumeGate(dir string, ck *rundir.Eval, opt Options) (GateSettings, error) {
	g := opt.Gate
	if g.Baseline != "" {
		var err error
		if g.Baseline, err = filepath.Abs(g.Baseline); err != nil {
			return GateSettings{}, err
		}
	}
	if len(ck.Gate) == 0 || string(ck.Gate) == "null" { // written before the gate was recorded
		return g, nil
	}
	var rec GateSettings
	if err := json.Unmarshal(ck.Gate, &rec); err != nil {
		return GateSettings{}, fmt.Errorf("%s: gate: %w", filepath.Join(dir, rundir.CheckpointFile), err)
	}
	if opt.GateGiven && !sameGate(g, rec) {
		return GateSettings{}, fmt.Errorf("eval %s in %s: %w: it was started with %s, the resume gives %s (give the same gate flags, or none)",
			ck.ID, dir, ErrGateChanged, gateDesc(rec), gateDesc(g))
	}
	return rec, nil
}

// gateDesc describes a gate's settings for an error message.
func gateDesc(g GateSettings) string {
	base := "the first version"
	if g.Baseline != "" {
		base = g.Baseline
		if g.BaselineVersion != "" {
			base += " (" + g.BaselineVersion + ")"
		}
	}
	c := g.Config
	fi := "off"
	if g.MaxFailureIncrease != nil {
		fi = fmt.Sprint(*g.MaxFailureIncrease)
	}
	return fmt.Sprintf("baseline %s, test %q, alpha %v, margin %v, A12 margin %v, correction %q, fail on regression %v, max failure increase %s",
		base, c.Test, c.Alpha, c.Margin, c.MarginA12, c.Correction, g.FailOnRegression, fi)
}
