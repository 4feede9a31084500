package experiment

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"evolve/envs"
	"evolve/internal/atomicfile"
	"evolve/params"
	"evolve/play"
)

// shardSchema is the version of a phase directory's phase.json and shard
// files; a task refuses another.
const shardSchema = 1

// shardSpec is a phase handed to a cluster: phase.json in the phase's
// directory. Every task of the phase reads it and plays Shards[task].
type shardSpec struct {
	Schema     int    `json:"schema"`
	RunID      string `json:"run_id"`
	Phase      string `json:"phase"` // the phase directory's name
	Generation int    `json:"generation"`
	Split      string `json:"split"`
	Config     string `json:"config"`    // the run's resolved config (YAML)
	Workdir    string `json:"workdir"`   // the controller's working directory
	LLMCache   string `json:"llm_cache"` // --cache of the controller, "" for the config's
	// LLMCacheDir is the config's agent.cache_dir ("" for the default),
	// which the resolved config leaves out.
	LLMCacheDir string       `json:"llm_cache_dir,omitempty"`
	Params      params.Set   `json:"params"`
	Prompt      *envs.Prompt `json:"prompt,omitempty"`
	Shards      [][]uint64   `json:"shards"` // contiguous runs of the phase's seeds, in order
	// Record asks the players to record trajectories (play.Phase.Record);
	// they come back in the gob of the outcomes.
	Record bool `json:"record,omitempty"`
}

// shardResult is what a task writes to shard-NNNN.out (gob): the outcomes
// of its seeds, in order, and the episodes it recorded as errors.
type shardResult struct {
	Schema   int
	Outcomes []envs.Outcome
	Errors   []shardError
}

// shardError is an *play.EpisodeError as a task records it.
type shardError struct {
	Seed  uint64
	Err   string
	Panic string // fmt.Sprint of the panic value, "" if none
	Stack []byte
}

// shardExit is shard-NNNN.exit (JSON), written after the .out file: a
// task's exit status, where it ran and how long it took. A task killed
// before it finished writes none.
type shardExit struct {
	Exit     int     `json:"exit"`            // 0: the .out file is complete
	Error    string  `json:"error,omitempty"` // why the task failed
	Node     string  `json:"node"`            // host name of the node
	Job      string  `json:"job,omitempty"`   // SLURM_ARRAY_JOB_ID, "" outside Slurm
	Episodes int     `json:"episodes"`
	Seconds  float64 `json:"seconds"`
}

func shardOut(dir string, task int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%04d.out", task))
}
func shardExitFile(dir string, task int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%04d.exit", task))
}

// cutShards divides seeds into min(n, len(seeds)) contiguous shards whose
// sizes differ by at most one, the larger first.
func cutShards(seeds []uint64, n int) [][]uint64 {
	if n > len(seeds) {
		n = len(seeds)
	}
	if n < 1 {
		return nil
	}
	out := make([][]uint64, 0, n)
	q, r := len(seeds)/n, len(seeds)%n
	at := 0
	for i := 0; i < n; i++ {
		size := q
		if i < r {
			size++
		}
		out = append(out, seeds[at:at+size])
		at += size
	}
	return out
}

// PlayShard is what `evolve shard` runs in a cluster task: it plays
// shard task of the phase in dir (a directory the Slurm executor made,
// holding phase.json) and writes shard-NNNN.out (the outcomes, gob) and
// then shard-NNNN.exit (JSON, exit 0), each atomically, so that a task
// run twice (a requeue) writes the same bytes again and a half-written
// shard is never read. workers bounds the episodes played at once (<= 0:
// the config's agent concurrency for a language model, else 1).
//
// On failure it writes shard-NNNN.exit with exit 1 and the error, and
// returns the error: the phase directory cannot be read, task is out of
// range, the config no longer checks on this node (a seed file or
// environment command not reachable here), or an episode could not be
// played.
func PlayShard(ctx context.Context, dir string, task, workers int) (err error) {
	start := time.Now()
	host, _ := os.Hostname()
	exit := shardExit{Node: host, Job: os.Getenv("SLURM_ARRAY_JOB_ID")}
	spec, err := readShardSpec(dir)
	if err != nil {
		return err // not a phase directory: write nothing there
	}
	if task < 0 || task >= len(spec.Shards) {
		return fmt.Errorf("%s: task %d is out of range: the phase has %d shards (0-%d)", dir, task, len(spec.Shards), len(spec.Shards)-1)
	}
	defer func() {
		if err == nil || ctx.Err() != nil {
			return
		}
		exit.Exit, exit.Error, exit.Seconds = 1, err.Error(), time.Since(start).Seconds()
		data, _ := json.Marshal(exit)
		atomicfile.WriteFile(shardExitFile(dir, task), append(data, '\n'), 0o644)
	}()
	if os.Getenv("EVOLVE_CACHE_DIR") == "" && os.Getenv("SLURM_JOB_ID") != "" {
		// Build caches that depend on the node (real NetHack's preload
		// shim, compiled against the node's C library, and its copy of
		// the game) go to the node's own temporary directory, not to a
		// home shared by nodes that may differ.
		os.Setenv("EVOLVE_CACHE_DIR", filepath.Join(os.TempDir(), fmt.Sprintf("evolve-cache-%d", os.Getuid())))
	}
	if spec.Workdir != "" {
		if err := os.Chdir(spec.Workdir); err != nil {
			return fmt.Errorf("%s: the controller's working directory: %w", dir, err)
		}
	}
	cfg, err := Parse(filepath.Join(dir, "phase.json")+" (config)", []byte(spec.Config))
	if err != nil {
		return err
	}
	in, err := cfg.Check("")
	if err != nil {
		return fmt.Errorf("%s: the run's config does not check on %s: %w", dir, host, err)
	}
	env := in.Env
	if sb, ok := env.(envs.StepBudgeter); ok {
		sb.SetStepBudget(cfg.StepBudget)
	}
	if spec.LLMCache != "" {
		cfg.Agent.Cache = spec.LLMCache
	}
	cfg.Agent.CacheDir = spec.LLMCacheDir
	client, err := cfg.useAgent(env, nil)
	if err != nil {
		return err
	}
	if workers <= 0 {
		workers = 1
		if client != nil {
			workers = cfg.Agent.LLM.Concurrency
		}
	}
	var res shardResult
	res.Schema = shardSchema
	runner := &play.Runner{Env: env, Workers: workers, RecordErrors: cfg.OnEpisodePanic == "record"}
	defer runner.Close()
	ph := play.Phase{
		Generation: spec.Generation, Split: spec.Split, Params: spec.Params, Prompt: spec.Prompt, Record: spec.Record,
		OnError: func(ee *play.EpisodeError) {
			se := shardError{Seed: ee.Seed, Err: ee.Err.Error(), Stack: ee.Stack}
			if ee.Panic != nil {
				se.Panic = fmt.Sprint(ee.Panic)
			}
			res.Errors = append(res.Errors, se)
		},
	}
	res.Outcomes, err = runner.Play(ctx, ph, spec.Shards[task])
	if err != nil {
		var ee *play.EpisodeError
		if errors.As(err, &ee) && ee.Stack != nil {
			return fmt.Errorf("%w\n%s", err, ee.Stack)
		}
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&res); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(shardOut(dir, task), buf.Bytes(), 0o644); err != nil {
		return err
	}
	exit.Episodes, exit.Seconds = len(res.Outcomes), time.Since(start).Seconds()
	data, _ := json.Marshal(exit)
	return atomicfile.WriteFile(shardExitFile(dir, task), append(data, '\n'), 0o644)
}

// readShardSpec reads and checks dir/phase.json.
func readShardSpec(dir string) (*shardSpec, error) {
	path := filepath.Join(dir, "phase.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the phase: %w", err)
	}
	var spec shardSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if spec.Schema != shardSchema {
		return nil, fmt.Errorf("%s: schema %d, this evolve reads %d", path, spec.Schema, shardSchema)
	}
	return &spec, nil
}

// readShard returns the outcomes task wrote in dir, or an error if its
// file is missing or not a complete shard of want outcomes.
func readShard(dir string, task, want int) (*shardResult, error) {
	path := shardOut(dir, task)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res shardResult
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if res.Schema != shardSchema {
		return nil, fmt.Errorf("%s: schema %d, this evolve reads %d", path, res.Schema, shardSchema)
	}
	if len(res.Outcomes) != want {
		return nil, fmt.Errorf("%s: %d outcomes, want %d", path, len(res.Outcomes), want)
	}
	return &res, nil
}

// readExit returns task's exit record in dir and whether it exists.
func readExit(dir string, task int) (shardExit, bool, error) {
	var e shardExit
	data, err := os.ReadFile(shardExitFile(dir, task))
	if errors.Is(err, os.ErrNotExist) {
		return e, false, nil
	}
	if err != nil {
		return e, false, err
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, false, fmt.Errorf("%s: %w", shardExitFile(dir, task), err)
	}
	return e, true, nil
}

// TaskFromEnv returns the array task index Slurm gives a task
// (SLURM_ARRAY_TASK_ID), or an error if it is unset or not a number.
func TaskFromEnv() (int, error) {
	s := os.Getenv("SLURM_ARRAY_TASK_ID")
	if s == "" {
		return 0, errors.New("SLURM_ARRAY_TASK_ID is not set: give --task N outside a Slurm array job")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("SLURM_ARRAY_TASK_ID=%q is not a task index", s)
	}
	return n, nil
}
