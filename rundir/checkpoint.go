package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"evolve/internal/atomicfile"
	"evolve/llm"
	"evolve/trajectory"
)

// The checkpoint schemas this evolve writes and reads (the "schema" field
// of a Run's and an Eval's checkpoint.json). A change of a field's
// meaning bumps its kind's schema; a field added with omitempty does
// not, since an older checkpoint reads as one without it.
const (
	RunSchema  = 1
	EvalSchema = 1
)

// ErrKind is wrapped by ReadRun and ReadEval when the directory's
// checkpoint is the other kind's (an eval's read as a run's, or the
// reverse).
var ErrKind = errors.New("the checkpoint is of another kind")

// Run is a run's checkpoint.json: what a run directory records at every
// generation boundary (with the Parquet tables and the prompt store
// written at the same boundary), enough to continue exactly where it
// stopped. Package experiment writes it; its JSON field names are the
// file's format.
type Run struct {
	Schema      int               `json:"schema"` // RunSchema
	RunID       string            `json:"run_id"`
	Config      string            `json:"config"`      // the resolved config (YAML)
	SeedSHA256  map[string]string `json:"seed_sha256"` // split name -> hex SHA-256 of its seed file
	BaseSHA256  string            `json:"base_sha256"` // content hash of the base prompt
	Base        string            `json:"base"`
	BaseValDone bool              `json:"base_val_done"` // the base's val episodes are recorded
	Generations int               `json:"generations"`   // generations finished
	Incumbent   string            `json:"incumbent"`
	Stall       int               `json:"stall"`     // consecutive generations without acceptance
	Versions    []string          `json:"versions"`  // versions this run committed, in order
	LoopDone    bool              `json:"loop_done"` // no generation is left to run
	Done        bool              `json:"done"`      // test split and exports written
	Started     time.Time         `json:"started"`   // when the run was first started (UTC)
	Finished    time.Time         `json:"finished,omitzero"`
	Sessions    []Session         `json:"sessions,omitempty"` // the processes that ran it, in order
	// Executor is the Slurm executor's config of a run played on Slurm
	// (nil for the local executor), so that --resume goes on there.
	Executor *ExecutorConfig `json:"executor,omitempty"`
	// LLMCacheDir is the config's agent.cache_dir, written for evolve
	// versions that read it here (Settings holds it too).
	LLMCacheDir string `json:"llm_cache_dir,omitempty"`
	// Trajectories is the config's trajectories policy, written for
	// evolve versions that read it here (Settings holds it too).
	Trajectories trajectory.Policy `json:"trajectories,omitempty"`
	// Settings are the config's settings that the resolved config
	// (Config) leaves out, as the run started with them (nil in
	// checkpoints of evolve versions before they were recorded), so that
	// a resume without --config runs as the run began and a resume with
	// one is refused if it changes them.
	Settings *Settings `json:"settings,omitempty"`
	// StopReason says why the loop stopped (StopPatience, ...), "" while
	// it runs.
	StopReason string `json:"stop_reason,omitempty"`
	// StopHint is a StopNoCandidates stop's advice, "" otherwise.
	StopHint string `json:"stop_hint,omitempty"`
	// LLMStats are the language-model client's totals over every session
	// up to this checkpoint (nil for the scripted agent), so that the
	// manifest's llm: totals are the run's whether it was interrupted,
	// crashed (the work after the last checkpoint is lost) or not.
	LLMStats *llm.Stats `json:"llm_stats,omitempty"`
}

// Eval is an eval's checkpoint.json: the phases (variant × version) it
// has finished, so that --resume plays only the rest, and everything of
// its invocation a resume needs. Package eval writes it; its JSON field
// names are the file's format.
type Eval struct {
	Schema   int           `json:"schema"` // EvalSchema
	ID       string        `json:"id"`     // "NAME-eval-HASH10"
	Config   string        `json:"config"` // the resolved config (YAML)
	Split    string        `json:"split"`
	Seeds    []uint64      `json:"seeds"`        // the seeds played, in order
	SeedsSHA string        `json:"seeds_sha256"` // hex SHA-256 of the split's or the --seeds file
	Repeats  int           `json:"repeats"`
	Sets     []string      `json:"sets,omitempty"` // the --set overrides that make the variants
	Versions []EvalVersion `json:"versions"`
	Done     []string      `json:"done"` // "VARIANT\x00LABEL" of finished phases
	Finished bool          `json:"finished"`
	Started  time.Time     `json:"started"`
	// Gate is the gate the eval was started with (eval.GateSettings, as JSON;
	// nil in checkpoints of evolve versions before it was recorded).
	Gate json.RawMessage `json:"gate,omitempty"`
	// Verdict is set when the eval finishes, after its outputs (report,
	// plots, comparisons.parquet, manifest) are written (eval.Verdict, as
	// JSON): a resume of a finished eval re-emits it.
	Verdict json.RawMessage `json:"verdict,omitempty"`
	// JUnit is the JUnit file the eval was started with (absolute).
	JUnit string `json:"junit,omitempty"`
	// LLMCacheDir is the language model's response cache directory
	// (agent.cache_dir made absolute; "" for the default or the scripted
	// agent), written for evolve versions that read it here (Settings
	// holds it too).
	LLMCacheDir string `json:"llm_cache_dir,omitempty"`
	// Trajectories is the config's trajectories policy, written for
	// evolve versions that read it here (Settings holds it too).
	Trajectories trajectory.Policy `json:"trajectories,omitempty"`
	// Settings are the config's settings the resolved config leaves out,
	// as the eval started with them, so that a resume stops, sends and
	// stores as the eval began; nil in checkpoints of evolve versions
	// before they were recorded.
	Settings *Settings `json:"settings,omitempty"`
	// Executor is the executor the eval plays its phases on (nil: this
	// machine), so that a resume goes on there unless told otherwise.
	Executor *ExecutorConfig `json:"executor,omitempty"`
	// Variants are the config's variants as a YAML document ("variants:"
	// and its list, experiment.Config.VariantsYAML), which the resolved
	// config leaves out, so that a resume plays the variants the eval
	// began with; "" without config variants (and in checkpoints of
	// evolve versions before they were recorded).
	Variants string `json:"variants,omitempty"`
	// SeedsFile is the --seeds file as given ("" for a split), which the
	// manifest names, so that a resume's manifest names it too.
	SeedsFile string `json:"seeds_file,omitempty"`
}

// EvalVersion is one version of an eval's checkpoint. Its JSON keys are
// the field names (the format has no tags).
type EvalVersion struct {
	Label  string // the version's label in tables and reports
	Source string // the argument that named it
	File   string // its prompt file, relative to the eval directory ('/' separators)
	SHA256 string // its content_sha256
}

// Settings are the settings of a run or eval that are not part of its
// resolved config (they never change a result, so they are not part of
// its ID) but that a resume must keep: what it stops on, what it sends
// and stores, and how it plays. The checkpoint records them when the run
// or eval starts (after the command line's overrides); the executor is
// recorded beside them (Run.Executor, Eval.Executor).
type Settings struct {
	// Workers is the config's workers (0: GOMAXPROCS); a resume's
	// --workers still overrides it.
	Workers int `json:"workers"`
	// Trajectories is the config's trajectories policy.
	Trajectories trajectory.Policy `json:"trajectories"`
	// MaxErrorRate is the config's max_error_rate, in [0, 1].
	MaxErrorRate float64 `json:"max_error_rate"`
	// LLMCache is the response cache's mode the run played with
	// (agent.cache, or --cache), "" for the scripted agent.
	LLMCache string `json:"llm_cache,omitempty"`
	// LLMCacheDir is agent.cache_dir ("" for the default directory).
	LLMCacheDir string `json:"llm_cache_dir,omitempty"`
	// MaxFallbackRate is agent.max_fallback_rate, in [0, 1] (for the
	// scripted agent too: it is the config's value, unused there).
	MaxFallbackRate float64 `json:"max_fallback_rate"`
}

// Session is one process's part of a run, from its start or resume to its
// end; a run never interrupted has one. Sessions are recorded in the
// checkpoint and listed in the manifest.
type Session struct {
	// Started is when the process started or resumed the run (UTC).
	Started time.Time `json:"started" yaml:"started"`
	// FromGeneration is the number of generations finished when it
	// started (0 for the first session).
	FromGeneration int `json:"from_generation" yaml:"from_generation"`
	// Ended is when it ended (UTC). For a crash, whose moment no process
	// could record, it is the time of the last checkpoint the crashed
	// process wrote.
	Ended time.Time `json:"ended,omitzero" yaml:"ended,omitempty"`
	// AtGeneration is the number of generations finished (checkpointed)
	// when it ended.
	AtGeneration int `json:"at_generation" yaml:"at_generation"`
	// End is how it ended: SessionFinished; the signal that interrupted
	// it ("SIGINT", "SIGTERM", or "interrupted" when the context was
	// cancelled otherwise); SessionCrash, found when the run was
	// resumed; SessionModel or SessionErrors. Empty while the session
	// runs.
	End string `json:"end,omitempty" yaml:"end,omitempty"`
}

// Session ends recorded in Session.End besides a signal's name.
const (
	// SessionFinished: the run finished.
	SessionFinished = "finished"
	// SessionCrash: the process died without a word (kill -9, power
	// loss, a failed write).
	SessionCrash = "crash"
	// SessionModel: the language model's endpoint stayed down past
	// agent.llm.retry_for, or too many turns fell back
	// (agent.max_fallback_rate).
	SessionModel = "model"
	// SessionErrors: a phase recorded more error episodes than
	// max_error_rate allows.
	SessionErrors = "errors"
)

// Executor kinds: where a run's or eval's episodes are played
// (ExecutorConfig.Kind).
const (
	// ExecutorLocal plays episodes on this machine's worker pool.
	ExecutorLocal = "local"
	// ExecutorSlurm hands each phase to a Slurm cluster as one job array
	// of `evolve shard` tasks; the arrays of a generation's candidates
	// are submitted at once (play.PlayAll).
	ExecutorSlurm = "slurm"
)

// ExecutorConfig chooses where a run's episodes are played: the config's
// executor section (experiment.Config.Executor, validated there), which
// the checkpoint records. It never changes a result: a run writes the
// same Parquet, prompt files and report tables whatever its executor, so
// it is not part of the run's ID or of the resolved config a resume
// compares. The checkpoint records it, so that --resume goes on with the
// executor the run started with unless --executor says otherwise. In
// YAML:
//
//	executor:
//	  kind: slurm              # local (default) | slurm
//	  partition: debug         # sbatch -p; "" = the cluster's default
//	  account: ""              # sbatch -A
//	  array_size: 64           # shards (array tasks) a phase is cut into, at most
//	  max_parallel: 0          # array tasks running at once (%K); 0 = no limit
//	  time_limit: "01:00:00"   # sbatch -t per task; "" = the partition's default
//	  extra_args: []           # more sbatch arguments, verbatim (e.g. [--qos=low])
//	  retries: 2               # resubmissions of a failed or vanished task
//	  poll_interval: 2s        # how often squeue is asked
//	  command: []              # the evolve binary on the nodes; default: this one
type ExecutorConfig struct {
	// Kind is ExecutorLocal ("" means it) or ExecutorSlurm.
	Kind string `yaml:"kind" json:"kind"`
	// Partition is sbatch's --partition, "" for the cluster's default.
	Partition string `yaml:"partition" json:"partition,omitempty"`
	// Account is sbatch's --account, "" for none.
	Account string `yaml:"account" json:"account,omitempty"`
	// ArraySize is the most shards a phase is cut into (one array task
	// each), in [1, 1000] (Slurm's default MaxArraySize is 1001). A phase
	// of n seeds has min(ArraySize, n) shards of contiguous seeds.
	ArraySize int `yaml:"array_size" json:"array_size"`
	// MaxParallel bounds the array tasks running at once (sbatch
	// --array=...%K), 0 for no bound.
	MaxParallel int `yaml:"max_parallel" json:"max_parallel,omitempty"`
	// TimeLimit is sbatch's --time for each task ("" for the partition's
	// default), in one of Slurm's forms: "MM", "MM:SS", "HH:MM:SS",
	// "D-HH", "D-HH:MM", "D-HH:MM:SS".
	TimeLimit string `yaml:"time_limit" json:"time_limit,omitempty"`
	// ExtraArgs are more sbatch arguments, passed verbatim (e.g.
	// "--qos=low", "--cpus-per-task=4").
	ExtraArgs []string `yaml:"extra_args" json:"extra_args,omitempty"`
	// Retries is how many times a failed or vanished task is resubmitted
	// before the phase fails, in [0, 100].
	Retries int `yaml:"retries" json:"retries"`
	// PollInterval is how often the controller asks squeue about its
	// jobs, in [100ms, 10m].
	PollInterval time.Duration `yaml:"poll_interval" json:"poll_interval"`
	// Command is the evolve binary (and arguments before "shard") that
	// tasks run on the nodes; empty for the binary running the
	// controller, which must then be reachable from the nodes.
	Command []string `yaml:"command" json:"command,omitempty"`
}

// ReadRun reads the run checkpoint of dir. The errors name the file: one
// that cannot be read (wrapping fs.ErrNotExist when it is missing), one
// that is not JSON or has a field of the wrong type (naming the field), a
// schema other than RunSchema, and an eval's checkpoint (wrapping
// ErrKind).
func ReadRun(dir string) (*Run, error) {
	path := filepath.Join(dir, CheckpointFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ck, err := ParseRun(path, data)
	if err != nil {
		return nil, err
	}
	if ck.Schema != RunSchema {
		return nil, fmt.Errorf("%s: checkpoint schema %d, this evolve reads %d", path, ck.Schema, RunSchema)
	}
	return ck, nil
}

// ParseRun decodes data, a run checkpoint read from path (which errors
// name), without checking its schema: see ReadRun.
func ParseRun(path string, data []byte) (*Run, error) {
	var ck Run
	if err := decode(path, data, &ck); err != nil {
		return nil, err
	}
	if ck.RunID == "" {
		var probe struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.ID != "" {
			return nil, fmt.Errorf("%s: %w: an eval's (id %s), not a run's", path, ErrKind, probe.ID)
		}
		return nil, fmt.Errorf("%s: run_id: missing", path)
	}
	return &ck, nil
}

// ReadEval reads the eval checkpoint of dir. The errors name the file: one
// that cannot be read (wrapping fs.ErrNotExist when it is missing), one
// that is not JSON or has a field of the wrong type (naming the field), a
// run's checkpoint or one without an eval ID (wrapping ErrKind), and a
// schema other than EvalSchema.
func ReadEval(dir string) (*Eval, error) {
	path := filepath.Join(dir, CheckpointFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ck Eval
	if err := decode(path, data, &ck); err != nil {
		return nil, err
	}
	if ck.ID == "" || !strings.Contains(ck.ID, "-eval-") {
		return nil, fmt.Errorf("%s: %w: id %q is not an eval's", path, ErrKind, ck.ID)
	}
	if ck.Schema != EvalSchema {
		return nil, fmt.Errorf("%s: checkpoint schema %d, this evolve reads %d", path, ck.Schema, EvalSchema)
	}
	return &ck, nil
}

// decode unmarshals a checkpoint, naming path and, for a value of the
// wrong type, the field and the value's JSON type.
func decode(path string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("%s: field %s: a JSON %s, want %s", path, te.Field, te.Value, te.Type)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// WriteCheckpoint writes ck (a *Run or an *Eval) as dir's checkpoint:
// indented JSON and a final newline, atomically (a crash leaves the old
// checkpoint or the new one, never a part).
func WriteCheckpoint(dir string, ck any) error {
	switch ck.(type) {
	case *Run, *Eval:
	default:
		panic(fmt.Sprintf("rundir: WriteCheckpoint of a %T, want *Run or *Eval", ck))
	}
	data, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, CheckpointFile), append(data, '\n'), 0o644)
}
