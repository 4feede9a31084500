package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"evolve/internal/atomicfile"
	"evolve/rundir"
)

// resumeStillborn continues a run directory whose process died in its
// first checkpoint write (see stillborn): it holds the lock file and at
// most temporary files, no checkpoint.json. Resume takes it over as a
// plain rerun of the same config does, so that a retry loop that only
// calls --resume succeeds:
//
//  1. A temporary file of that write that holds a complete checkpoint of
//     this directory's run (the process died after writing and syncing it,
//     before the rename) is renamed into place, finishing the atomic
//     write, and the run is resumed from it as from any checkpoint.
//  2. Otherwise, with cfg (--config), the run starts afresh in dir if cfg
//     makes dir's run ID (dir is named ID or ID.N); a config that makes
//     another ID is refused, naming both.
//  3. Otherwise nothing in dir records the config: the error says to give
//     --config with the config the run was started with.
//
// A directory another process holds (its lock) is refused in every case.
func resumeStillborn(ctx context.Context, dir string, cfg *Config, opt Options) (*Result, error) {
	lock, err := rundir.LockDir(dir, rundir.KindRun)
	if err != nil {
		return nil, err
	}
	tmp := completeCheckpointTemp(dir)
	if tmp != "" {
		err := os.Rename(tmp, filepath.Join(dir, rundir.CheckpointFile))
		if err == nil {
			err = atomicfile.SyncDir(dir)
		}
		lock.Release()
		if err != nil {
			return nil, fmt.Errorf("cannot resume %s: finishing its first checkpoint: %w", dir, err)
		}
		return Resume(ctx, dir, cfg, opt)
	}
	lock.Release()
	if cfg == nil {
		return nil, fmt.Errorf("%s holds no %s: the run was killed in its first checkpoint write, before its config was recorded; resume with --config FILE (the config it was started with), or run the same 'evolve run' again (either reuses the directory)", dir, rundir.CheckpointFile)
	}
	r := &run{cfg: cfg, opt: opt, cfgGiven: true, dir: dir}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	defer r.exec.Close()
	if base := filepath.Base(dir); base != r.id && !strings.HasPrefix(base, r.id+".") {
		return nil, fmt.Errorf("cannot resume %s: this config and seeds make run %s, not the run of that directory", dir, r.id)
	}
	if err := r.start(); err != nil {
		return nil, err
	}
	r.logTo()
	defer r.unlock()
	return r.loop(ctx)
}

// completeCheckpointTemp returns the path of a temporary file of an
// atomic write of checkpoint.json in dir that holds a whole checkpoint of
// this directory's run (its schema, and dir named by its run ID), or ""
// if there is none.
func completeCheckpointTemp(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !atomicfile.IsTemp(name) || !strings.HasPrefix(name, "."+rundir.CheckpointFile+".tmp-") {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		ck, err := rundir.ParseRun(path, data)
		if err != nil || ck.Schema != rundir.RunSchema || ck.Config == "" {
			continue
		}
		if base := filepath.Base(dir); base != ck.RunID && !strings.HasPrefix(base, ck.RunID+".") {
			continue
		}
		return path
	}
	return ""
}
