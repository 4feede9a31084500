package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
	"evolve/llm"
	"evolve/stats"
)

// RunManifest is a finished run's manifest.yaml: everything needed to
// know what was run, on what, and with which tools. Package experiment
// writes it; its YAML keys are the file's format.
type RunManifest struct {
	RunID        string            `yaml:"run_id"`         // config name and hash, e.g. "default-1275011f00"
	Evolve       string            `yaml:"evolve_version"` // module version of the evolve binary, "(devel)" from source
	Go           string            `yaml:"go_version"`     // Go toolchain, e.g. "go1.26.8"
	Host         string            `yaml:"host"`           // host name of the machine that ran it
	Started      time.Time         `yaml:"started"`        // when the run was first started, UTC (a resume keeps it)
	Finished     time.Time         `yaml:"finished"`       // when the run finished, UTC
	Sessions     []Session         `yaml:"sessions"`
	LLM          *llm.Stats        `yaml:"llm,omitempty"` // the language-model agent's calls, HTTP requests, retries, cache hits and tokens (over all sessions)
	Executor     ExecutorManifest  `yaml:"executor"`      // where the episodes were played
	Config       yaml.Node         `yaml:"config"`        // the resolved config: defaults merged with the file's keys
	Seeds        map[string]string `yaml:"seed_sha256"`   // split name -> hex SHA-256 of its seed file
	SeedCounts   map[string]int    `yaml:"seed_counts"`   // split name -> number of seeds
	Generations  int               `yaml:"generations"`   // generations run, >= 1
	BaseVersion  string            `yaml:"base_version"`  // the version evolution started from
	FinalVersion string            `yaml:"final_version"` // the last accepted version (BaseVersion if none)
	TestBase     SummaryYAML       `yaml:"test_base"`     // BaseVersion's test-split scores
	TestFinal    SummaryYAML       `yaml:"test_final"`    // FinalVersion's test-split scores
	// StopReason says why the evolution loop stopped: StopPatience,
	// StopMaxGenerations, StopNoFailures, StopNoCandidates or StopBudget.
	StopReason string `yaml:"stop_reason"`
	// StopHint is, for no_candidates, what to change in the config.
	StopHint string `yaml:"stop_hint,omitempty"`
	// Proposer is the proposer family that proposed the candidates
	// (mutation.proposer): failure, random or cmaes.
	Proposer string `yaml:"proposer"`
	// Episodes counts the episodes played per split (test not budgeted)
	// against budget.episodes.
	Episodes EpisodeCounts `yaml:"episodes"`
	// Trajectories is the trajectories policy the run stored episodes'
	// trajectories by (failed, all or none), under trajectories/.
	Trajectories string `yaml:"trajectories"`

	// SeedsDir is the absolute path of the seed directory the run read,
	// "embedded" for the built-in seed sets.
	SeedsDir string `yaml:"seeds_dir"`
	// BasePrompt is the absolute path of the base prompt file the run
	// read, "embedded" for the built-in base prompt.
	BasePrompt string `yaml:"base_prompt"`
	// BasePromptSHA256 is the hex SHA-256 of the base prompt file's bytes
	// as read (of the embedded file for "embedded").
	BasePromptSHA256 string `yaml:"base_prompt_sha256"`
	// BaseContentSHA256 is the base version's content_sha256: the hash of
	// its canonical encoding, as its file in the run's store records.
	BaseContentSHA256 string `yaml:"base_content_sha256"`
}

// EpisodeCounts are the episodes a run played, per split, as the
// manifest's episodes records them.
type EpisodeCounts struct {
	Train int `yaml:"train"` // the incumbents' train episodes
	Val   int `yaml:"val"`   // the base version's and the candidates' val episodes
	Test  int `yaml:"test"`  // the base and final versions' test episodes (not budgeted)
	// Budgeted is Train + Val, what budget.episodes bounds.
	Budgeted int `yaml:"budgeted"`
	// Budget is budget.episodes, 0 for none.
	Budget int `yaml:"budget"`
}

// ExecutorManifest is where a run's or eval's episodes were played, as
// the manifest records it: the executor's kind and, for Slurm, its
// settings and every job array submitted (over all sessions), with their
// nodes.
type ExecutorManifest struct {
	Kind      string     `yaml:"kind"`                // ExecutorLocal or ExecutorSlurm
	Partition string     `yaml:"partition,omitempty"` // Slurm partition, "" for the default
	ArraySize int        `yaml:"array_size,omitempty"`
	Jobs      []SlurmJob `yaml:"jobs,omitempty"` // in submission order
}

// SlurmJob is one job array the Slurm executor submitted, as the manifest
// lists it.
type SlurmJob struct {
	Phase   string    `yaml:"phase" json:"phase"`                // the phase directory under <run>/slurm/
	JobID   string    `yaml:"job_id" json:"job_id"`              // Slurm's job ID (IDs restart with the controller: the phase names the work)
	Tasks   []int     `yaml:"tasks,flow" json:"tasks"`           // the array indices (shards) it ran
	Nodes   []string  `yaml:"nodes,flow,omitempty" json:"nodes"` // the nodes its finished tasks ran on, sorted
	Retry   int       `yaml:"retry" json:"retry"`                // 0 for the first submission of these shards, n for the n-th resubmission
	Submit  time.Time `yaml:"submitted" json:"submitted"`        // when sbatch returned (UTC)
	Seconds float64   `yaml:"seconds,omitempty" json:"seconds"`  // submission to the last of its shards merged, 0 if it did not end so
}

// SummaryYAML is a stats.Summary as a manifest writes it.
type SummaryYAML struct {
	N      int     `yaml:"n"`         // episodes
	Mean   float64 `yaml:"mean"`      // mean score, points
	Std    float64 `yaml:"std"`       // sample standard deviation (n-1)
	Median float64 `yaml:"median"`    // median score
	IQM    float64 `yaml:"iqm"`       // interquartile (25% trimmed) mean
	CILow  float64 `yaml:"ci95_low"`  // Student t 95% CI of the mean, low
	CIHigh float64 `yaml:"ci95_high"` // Student t 95% CI of the mean, high
}

// SummaryOf returns s as a manifest writes it.
func SummaryOf(s stats.Summary) SummaryYAML {
	return SummaryYAML{s.N, s.Mean, s.Std, s.Median, s.IQM, s.CILow, s.CIHigh}
}

// EvalManifest is a finished eval's manifest.yaml. Package eval writes
// it; its YAML keys are the file's format.
type EvalManifest struct {
	ID        string            `yaml:"id"`             // "NAME-eval-HASH10"
	Evolve    string            `yaml:"evolve_version"` // module version of the evolve binary
	Started   time.Time         `yaml:"started"`        // when the eval was first started, UTC
	Finished  time.Time         `yaml:"finished"`       // when it finished, UTC
	Config    yaml.Node         `yaml:"config"`         // the resolved config
	Split     string            `yaml:"split"`
	SeedsFile string            `yaml:"seeds_file,omitempty"` // the --seeds file, "" for a split
	SeedsSHA  string            `yaml:"seeds_sha256"`
	NSeeds    int               `yaml:"n_seeds"`
	Repeats   int               `yaml:"repeats"`
	Variants  map[string]string `yaml:"variants"` // name -> environment identity
	Versions  []ManifestVersion `yaml:"versions"`
	// Agent is the agent's identity (experiment.Config.AgentIdentity),
	// omitted for the scripted agent.
	Agent string `yaml:"agent,omitempty"`
	// LLM is the language-model agent's calls, HTTP requests, retries,
	// response cache hits and tokens of the process that finished the
	// eval; omitted for the scripted agent.
	LLM *llm.Stats `yaml:"llm,omitempty"`
	// Executor is where a Slurm eval's phases were played: the kind, its
	// settings and every job array submitted (over all sessions);
	// omitted for this machine.
	Executor *ExecutorManifest `yaml:"executor,omitempty"`
}

// ManifestVersion is one version of an eval's manifest.
type ManifestVersion struct {
	Label  string `yaml:"label"`
	Source string `yaml:"source"`
	File   string `yaml:"file"`
	SHA256 string `yaml:"content_sha256"`
}

// ReadRunManifest reads the manifest of the finished run in dir. The
// errors name the file: one that cannot be read (wrapping fs.ErrNotExist
// when the run has not finished) or parsed.
func ReadRunManifest(dir string) (*RunManifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m RunManifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// WriteManifest writes m (a *RunManifest or an *EvalManifest) as dir's
// manifest, atomically.
func WriteManifest(dir string, m any) error {
	switch m.(type) {
	case *RunManifest, *EvalManifest:
	default:
		panic(fmt.Sprintf("rundir: WriteManifest of a %T, want *RunManifest or *EvalManifest", m))
	}
	data, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644)
}

// ReadEvalManifest reads the manifest of the finished eval in dir. The
// errors name the file: one that cannot be read (wrapping fs.ErrNotExist
// when the eval has not finished), one that cannot be parsed, and a
// manifest without an eval ID (a run's, wrapping ErrKind).
func ReadEvalManifest(dir string) (*EvalManifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m EvalManifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !strings.Contains(m.ID, "-eval-") {
		return nil, fmt.Errorf("%s: %w: id %q is not an eval's", path, ErrKind, m.ID)
	}
	return &m, nil
}
