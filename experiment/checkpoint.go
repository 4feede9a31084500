package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
	"evolve/results"
	"evolve/seeds"
)

// CheckpointFile is the name of a run's checkpoint in its directory.
const CheckpointFile = "checkpoint.json"

const checkpointSchema = 1

// checkpoint is what a run directory records at every generation boundary
// (together with the Parquet tables and the prompt store written at the
// same boundary): enough to continue exactly where it stopped.
type checkpoint struct {
	Schema      int               `json:"schema"`
	RunID       string            `json:"run_id"`
	Config      string            `json:"config"`      // the resolved config (YAML)
	SeedSHA256  map[string]string `json:"seed_sha256"` // per split
	BaseSHA256  string            `json:"base_sha256"` // content hash of the base prompt
	Base        string            `json:"base"`
	BaseValDone bool              `json:"base_val_done"` // the base's val episodes are recorded
	Generations int               `json:"generations"`   // generations finished
	Incumbent   string            `json:"incumbent"`
	Stall       int               `json:"stall"`     // consecutive generations without acceptance
	Versions    []string          `json:"versions"`  // versions this run committed, in order
	LoopDone    bool              `json:"loop_done"` // no generation is left to run
	Done        bool              `json:"done"`      // test split and exports written
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished,omitzero"`
}

// save writes the tables and then the checkpoint, each atomically: a
// crash between the two leaves tables ahead of the checkpoint, which a
// resume ignores (it drops rows of unfinished generations).
func (r *run) save() error {
	if err := r.writeTables(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(&r.ck, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(r.dir, CheckpointFile), append(data, '\n'), 0o644)
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
// that was never interrupted. cfg is nil to use the config recorded in the
// run directory; a given cfg must resolve to the same config. A changed
// config, seed file or base prompt is refused with an error naming what
// changed. A finished run is an error.
func Resume(ctx context.Context, dir string, cfg *Config, opt Options) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a resumable run directory: no %s", dir, CheckpointFile)
	}
	if err != nil {
		return nil, err
	}
	var ck checkpoint
	if err := json.Unmarshal(data, &ck); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, CheckpointFile), err)
	}
	if ck.Schema != checkpointSchema {
		return nil, fmt.Errorf("%s: checkpoint schema %d, this evolve reads %d", filepath.Join(dir, CheckpointFile), ck.Schema, checkpointSchema)
	}
	if ck.Done {
		return nil, fmt.Errorf("run %s in %s has already finished; nothing to resume", ck.RunID, dir)
	}
	recorded, err := Parse(filepath.Join(dir, CheckpointFile)+" (config)", []byte(ck.Config))
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = recorded
	} else {
		a, err := cfg.Resolved()
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(a, []byte(ck.Config)) {
			return nil, fmt.Errorf("cannot resume %s: the config differs from the one it was started with: %s",
				dir, strings.Join(configDiff([]byte(ck.Config), a), "; "))
		}
	}
	r := &run{cfg: cfg, opt: opt, dir: dir, ck: ck}
	if err := r.prepare(); err != nil {
		return nil, err
	}
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
	if err := r.readTables(); err != nil {
		return nil, err
	}
	if opt.Observer != nil {
		opt.Observer.Started(r.id, r.dir, ck.Generations)
	}
	return r.loop(ctx)
}

// readTables reads back the rows of the finished generations; rows of a
// generation the checkpoint does not count (written just before a crash)
// are dropped, as are test rows of an unfinished run.
func (r *run) readTables() error {
	eps, err := results.ReadEpisodes(filepath.Join(r.dir, "episodes.parquet"))
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
	cands, err := results.ReadCandidates(filepath.Join(r.dir, "candidates.parquet"))
	if err != nil {
		return err
	}
	for _, c := range cands {
		if c.Generation < done {
			r.candidates = append(r.candidates, c)
		}
	}
	gens, err := results.ReadGenerations(filepath.Join(r.dir, "generations.parquet"))
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
