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
	"strings"

	"evolve/experiment"
	"evolve/prompt"
	"evolve/results"
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

// ErrFinished is returned (wrapped, naming the directory) by Resume for an
// eval that has already finished: nothing is played or written.
var ErrFinished = errors.New("the eval has already finished; nothing to resume")

// Resume continues the eval in dir from its checkpoint: the versions are
// read from the directory's prompt files (verified), the config, seeds,
// repeats and variants from the checkpoint; phases already done are kept,
// the others played (from opt.Cache where it can). The outputs equal
// those of an eval never interrupted. opt's Config, Split, SeedsFile,
// Repeats, Sets and Out are ignored. Errors name the file at fault.
func Resume(ctx context.Context, dir string, opt Options) (*Result, error) {
	path := filepath.Join(dir, CheckpointFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a resumable eval directory: no %s", dir, CheckpointFile)
	}
	if err != nil {
		return nil, err
	}
	var ck checkpoint
	if err := json.Unmarshal(data, &ck); err != nil || ck.ID == "" || !strings.Contains(ck.ID, "-eval-") {
		return nil, fmt.Errorf("%s is not an eval directory (its %s is not an eval's; a run is resumed with evolve run --resume)", dir, CheckpointFile)
	}
	if ck.Finished {
		return nil, fmt.Errorf("eval %s in %s: %w", ck.ID, dir, ErrFinished)
	}
	cfg, err := experiment.Parse(path+" (config)", []byte(ck.Config))
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
	e.opt.Config, e.opt.Split, e.opt.Repeats, e.opt.Sets = cfg, ck.Split, ck.Repeats, ck.Sets
	if e.variants, err = cfg.EnvVariants(ck.Sets); err != nil {
		return nil, err
	}
	cfg.Agent.CacheDir = ck.LLMCacheDir
	cfg.Trajectories = ck.Trajectories
	if err := e.useAgent(); err != nil {
		return nil, err
	}
	if err := e.lockDir(); err != nil {
		return nil, err
	}
	defer e.unlock()
	if err := trajectory.RemoveTemps(dir); err != nil {
		return nil, err
	}
	rows, _, err := results.ReadEpisodes(filepath.Join(dir, EpisodesFile))
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
