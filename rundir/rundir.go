package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/gate"
	"evolve/results"
)

// Kind says what a directory holds.
type Kind string

// The kinds.
const (
	KindRun  Kind = "run"  // evolve run
	KindEval Kind = "eval" // evolve eval
)

// Status is where a run or eval stands.
type Status string

// The statuses.
const (
	// Running: a process holds the directory's lock.
	Running Status = "running"
	// Finished: the checkpoint says done (a run's exports, an eval's
	// summary are written).
	Finished Status = "finished"
	// Interrupted: no process holds the lock, and the last session ended
	// by a signal (or an eval stopped before its end): it can be resumed.
	Interrupted Status = "interrupted"
	// Crashed: no process holds the lock and the last session has no
	// end: the process died without a word (kill -9, power loss).
	Crashed Status = "crashed"
)

// Entry is one run or eval directory.
type Entry struct {
	// ID is the run's or eval's ID (its directory's base name, but for a
	// numeric suffix).
	ID string `json:"id"`
	// Kind is KindRun or KindEval.
	Kind Kind `json:"kind"`
	// Dir is the directory, as found under its root (root joined with
	// the relative path).
	Dir string `json:"dir"`
	// Key is Dir relative to its root, with '/' separators, prefixed by
	// the root's index when more than one root is given ("1:runs/x"): a
	// stable name for URLs.
	Key string `json:"key"`
	// Status is where it stands.
	Status Status `json:"status"`
	// Started is when it was first started (UTC); Updated when its
	// checkpoint was last written (UTC).
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Finished is when it finished (UTC), zero if it has not.
	Finished time.Time `json:"finished,omitzero"`
	// Seconds is the time since Started, in seconds: to Finished for a
	// finished directory, to now for a running one (not to its last
	// checkpoint), to Updated (its last checkpoint) otherwise.
	Seconds float64 `json:"seconds"`
	// Name is the config's name.
	Name string `json:"name"`
	// ConfigHash is the SHA-256 (hex, 12 digits) of the resolved config
	// without its name and seeds lines: runs with equal ConfigHash and
	// different seed sets are replicates.
	ConfigHash string `json:"config_hash"`
	// SeedHash is the hash of the seed sets (runs: of the three split
	// hashes; evals: of the seeds played), 12 hex digits.
	SeedHash string `json:"seed_hash"`

	// Generations is a run's finished generations; MaxGenerations the
	// config's bound.
	Generations    int `json:"generations"`
	MaxGenerations int `json:"max_generations"`
	// Accepted counts a run's accepted candidates (versions that became
	// incumbent): the supersedes edges of its prompt store.
	Accepted int `json:"accepted"`
	// Base and Final are a run's base and final versions.
	Base  string `json:"base,omitempty"`
	Final string `json:"final,omitempty"`
	// TestBase and TestFinal are a finished run's mean test scores, nil
	// before its test split is played.
	TestBase  *float64 `json:"test_base,omitempty"`
	TestFinal *float64 `json:"test_final,omitempty"`
	// StopReason says why a run's loop stopped (StopPatience, ...;
	// "interrupted" or "crashed" for a stopped run that recorded none),
	// "" while it runs; StopText explains it.
	StopReason string `json:"stop_reason,omitempty"`
	StopHint   string `json:"stop_hint,omitempty"`

	// Split, Versions and Means are an eval's: the split played, its
	// versions' labels in order, and each version's mean score (the first
	// variant's) once summary.parquet is written.
	Split    string             `json:"split,omitempty"`
	Versions []string           `json:"versions,omitempty"`
	Means    map[string]float64 `json:"means,omitempty"`
	// Phases is an eval's finished phases (variant × version).
	Phases int `json:"phases,omitempty"`
	// Verdict is a finished eval's outcome against its baseline, read
	// from the verdict its checkpoint stores: VerdictRegression,
	// VerdictNotNonInferior, VerdictImprovement or VerdictPass; "" when
	// nothing was compared (one version and no baseline) or the eval has
	// not finished. Baseline names what it was compared with (the
	// eval's description, e.g. "v1.0.0 of /ci/evals/x"), "" likewise.
	Verdict  string `json:"verdict,omitempty"`
	Baseline string `json:"baseline,omitempty"`

	// Problem, if not "", says what could not be read (the entry is then
	// partial).
	Problem string `json:"problem,omitempty"`
}

// The verdicts of an eval (Entry.Verdict), worst first: an eval with
// checks of several outcomes takes the first that applies.
const (
	// VerdictRegression: a check failed under the regression hypothesis
	// (a loss beyond the margin shown), or a failure-share check failed
	// (a larger share of failed episodes shown).
	VerdictRegression = "regression"
	// VerdictNotNonInferior: under the non-inferiority hypothesis, a
	// candidate was not shown to be worse by less than the margin.
	VerdictNotNonInferior = "not non-inferior"
	// VerdictImprovement: no check failed and a candidate is
	// significantly better than the baseline.
	VerdictImprovement = "improvement"
	// VerdictPass: no check failed and no candidate is shown better.
	VerdictPass = "pass"
)

// storedVerdict is what rundir reads of an eval's stored verdict
// (eval.Verdict: gate checks under their snake_case keys).
type storedVerdict struct {
	Baseline    string `json:"baseline"`
	Comparisons []struct {
		Check struct {
			Failed     bool   `json:"failed"`
			Hypothesis string `json:"hypothesis"`
		} `json:"check"`
		Improvement bool `json:"improvement"`
	} `json:"comparisons"`
	FailureChecks []struct {
		Failed bool `json:"failed"`
	} `json:"failure_checks"`
}

// word returns the Entry.Verdict of v ("" when nothing was compared).
func (v *storedVerdict) word() string {
	if v == nil || len(v.Comparisons)+len(v.FailureChecks) == 0 {
		return ""
	}
	regression, notNI, better := false, false, false
	for _, c := range v.Comparisons {
		switch {
		case c.Check.Failed && c.Check.Hypothesis == gate.HypothesisNonInferiority:
			notNI = true
		case c.Check.Failed:
			regression = true
		case c.Improvement:
			better = true
		}
	}
	for _, c := range v.FailureChecks {
		regression = regression || c.Failed
	}
	switch {
	case regression:
		return VerdictRegression
	case notNI:
		return VerdictNotNonInferior
	case better:
		return VerdictImprovement
	}
	return VerdictPass
}

// baseline returns v's Baseline ("" for nil).
func (v *storedVerdict) baseline() string {
	if v == nil {
		return ""
	}
	return v.Baseline
}

// List walks roots and returns every run and eval directory under them,
// newest first (then by Key). A root that does not exist or cannot be
// walked is an error naming it; a directory whose checkpoint cannot be
// parsed is listed with Problem set. Symbolic links are not followed.
func List(roots []string) ([]Entry, error) {
	var out []Entry
	for i, root := range roots {
		if _, err := os.Stat(root); err != nil {
			return nil, fmt.Errorf("rundir: %w", err)
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root {
					return err
				}
				return nil // an unreadable subdirectory is skipped
			}
			if !d.IsDir() {
				return nil
			}
			if _, err := os.Stat(filepath.Join(path, CheckpointFile)); err != nil {
				return nil
			}
			e := Read(path)
			rel, _ := filepath.Rel(root, path)
			e.Key = filepath.ToSlash(rel)
			if len(roots) > 1 {
				e.Key = fmt.Sprintf("%d:%s", i, e.Key)
			}
			out = append(out, e)
			return filepath.SkipDir
		})
		if err != nil {
			return nil, fmt.Errorf("rundir: walking %s: %w", root, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.After(out[j].Started)
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// Read returns the entry of one run or eval directory (Key is left
// empty). What cannot be read is said in Problem.
func Read(dir string) Entry {
	e := Entry{Dir: dir, ID: filepath.Base(dir)}
	ckPath := filepath.Join(dir, CheckpointFile)
	data, err := os.ReadFile(ckPath)
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	var probe struct {
		RunID string `json:"run_id"`
		ID    string `json:"id"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		e.Problem = fmt.Sprintf("%s: %v", ckPath, err)
		return e
	}
	var config string
	var started time.Time
	var run *Run
	var ev *Eval
	if probe.ID != "" && probe.RunID == "" {
		ev = new(Eval)
		err = decode(ckPath, data, ev)
		config, started = ev.Config, ev.Started
	} else {
		run = new(Run)
		err = decode(ckPath, data, run)
		config, started = run.Config, run.Started
	}
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	if fi, err := os.Stat(ckPath); err == nil {
		e.Updated = fi.ModTime().UTC().Truncate(time.Second)
	}
	e.Started = started.UTC()
	var cfg struct {
		Name           string `yaml:"name"`
		MaxGenerations int    `yaml:"max_generations"`
	}
	_ = yaml.Unmarshal([]byte(config), &cfg)
	e.Name, e.MaxGenerations = cfg.Name, cfg.MaxGenerations
	e.ConfigHash = configHash(config)
	if ev != nil {
		readEval(&e, dir, ev)
	} else {
		readRun(&e, dir, run)
	}
	end := e.Finished
	switch {
	case e.Status == Running:
		end = time.Now().UTC()
	case end.IsZero():
		end = e.Updated
	}
	if !e.Started.IsZero() && end.After(e.Started) {
		e.Seconds = end.Sub(e.Started).Seconds()
	}
	return e
}

func readRun(e *Entry, dir string, ck *Run) {
	e.Kind, e.ID = KindRun, ck.RunID
	e.Generations, e.Base, e.Final = ck.Generations, ck.Base, ck.Incumbent
	e.StopReason, e.StopHint = ck.StopReason, ck.StopHint
	var splits []string
	for s, h := range ck.SeedSHA256 {
		splits = append(splits, s+" "+h)
	}
	sort.Strings(splits)
	e.SeedHash = short(strings.Join(splits, "\n"))
	// Each accepted candidate superseded the incumbent in the run's
	// prompt store (cheaper to read than generations.parquet).
	var store struct {
		Edges []struct {
			Kind string `json:"kind"`
		} `json:"edges"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, PromptsDir, "versions.json")); err == nil && json.Unmarshal(data, &store) == nil {
		for _, ed := range store.Edges {
			if ed.Kind == "supersedes" {
				e.Accepted++
			}
		}
	}
	switch {
	case ck.Done:
		e.Status = Finished
		e.Finished = ck.Finished.UTC()
		if m, err := ReadRunManifest(dir); err == nil {
			b, f := m.TestBase.Mean, m.TestFinal.Mean
			e.TestBase, e.TestFinal = &b, &f
		}
	case Locked(dir, KindRun):
		e.Status = Running
	default:
		e.Status = Crashed
		if n := len(ck.Sessions); n > 0 && ck.Sessions[n-1].End != "" {
			e.Status = Interrupted
		}
		if e.StopReason == "" {
			e.StopReason = string(e.Status)
		}
	}
}

func readEval(e *Entry, dir string, ck *Eval) {
	e.Kind, e.ID, e.Split = KindEval, ck.ID, ck.Split
	e.SeedHash = short(ck.SeedsSHA)
	for _, v := range ck.Versions {
		e.Versions = append(e.Versions, v.Label)
	}
	e.Phases = len(ck.Done)
	switch {
	case ck.Finished:
		e.Status = Finished
		var v *storedVerdict
		if len(ck.Verdict) > 0 {
			_ = json.Unmarshal(ck.Verdict, &v)
		}
		e.Verdict, e.Baseline = v.word(), v.baseline()
		summary := filepath.Join(dir, SummaryFile)
		if fi, err := os.Stat(summary); err == nil {
			e.Finished = fi.ModTime().UTC().Truncate(time.Second)
		}
		if rows, err := results.ReadSummaries(summary); err == nil {
			e.Means = map[string]float64{}
			first := ""
			if len(rows) > 0 {
				first = rows[0].Variant
			}
			for _, r := range rows {
				if r.Variant == first {
					e.Means[r.Version] = r.Mean
				}
			}
		}
	case Locked(dir, KindEval):
		e.Status = Running
	default:
		e.Status = Interrupted
	}
}

// configHash hashes a resolved config without its name and seeds lines.
func configHash(cfg string) string {
	var keep []string
	for _, l := range strings.Split(cfg, "\n") {
		if !strings.HasPrefix(l, "seeds:") && !strings.HasPrefix(l, "name:") {
			keep = append(keep, l)
		}
	}
	return short(strings.Join(keep, "\n"))
}

func short(s string) string {
	if s == "" {
		return ""
	}
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:12]
}
