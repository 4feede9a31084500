package experiment

import (
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
	"evolve/llm"
	"evolve/mutate"
	"evolve/stats"
)

// Manifest is manifest.yaml of a run directory: everything needed to know
// what was run, on what, and with which tools.
type Manifest struct {
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
	// StopReason says why the evolution loop stopped: patience,
	// max_generations, no_failures, no_candidates or budget (see
	// StopPatience).
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

// ExecutorManifest is where a run's episodes were played, as the manifest
// records it: the executor's kind and, for Slurm, its settings and every
// job array submitted (over all sessions), with their nodes.
type ExecutorManifest struct {
	Kind      string     `yaml:"kind"`                // "local" or "slurm"
	Partition string     `yaml:"partition,omitempty"` // Slurm partition, "" for the default
	ArraySize int        `yaml:"array_size,omitempty"`
	Jobs      []SlurmJob `yaml:"jobs,omitempty"` // in submission order
}

// SummaryYAML is a stats.Summary as written in the manifest.
type SummaryYAML struct {
	N      int     `yaml:"n"`         // episodes
	Mean   float64 `yaml:"mean"`      // mean score, points
	Std    float64 `yaml:"std"`       // sample standard deviation (n-1)
	Median float64 `yaml:"median"`    // median score
	IQM    float64 `yaml:"iqm"`       // interquartile (25% trimmed) mean
	CILow  float64 `yaml:"ci95_low"`  // Student t 95% CI of the mean, low
	CIHigh float64 `yaml:"ci95_high"` // Student t 95% CI of the mean, high
}

func summaryYAML(s stats.Summary) SummaryYAML {
	return SummaryYAML{s.N, s.Mean, s.Std, s.Median, s.IQM, s.CILow, s.CIHigh}
}

func (r *run) writeManifest(res *Result) error {
	resolved, err := r.cfg.Resolved()
	if err != nil {
		return err
	}
	var cfgNode yaml.Node
	if err := yaml.Unmarshal(resolved, &cfgNode); err != nil {
		return err
	}
	host, _ := os.Hostname()
	m := Manifest{
		RunID: r.id, Evolve: r.opt.Version, Go: GoVersion(), Host: host,
		Started: res.Started, Finished: res.Finished, Sessions: r.ck.Sessions,
		Config:      *cfgNode.Content[0],
		Seeds:       map[string]string{},
		SeedCounts:  map[string]int{"train": len(r.seeds.Train), "val": len(r.seeds.Val), "test": len(r.seeds.Test)},
		Generations: len(res.Generations), BaseVersion: res.Base, FinalVersion: res.Final,
		TestBase: summaryYAML(res.TestBase), TestFinal: summaryYAML(res.TestFinal),
		StopReason: res.StopReason, StopHint: res.StopHint, Trajectories: string(r.cfg.Trajectories.OrDefault()),
		Proposer: mutate.ProposerName(r.cfg.Mutation.Proposer), Episodes: r.episodeCounts(),
	}
	for s, h := range r.seeds.Hashes {
		m.Seeds[string(s)] = h
	}
	m.SeedsDir, m.BasePrompt = r.cfg.Seeds, r.cfg.BasePrompt
	m.BaseContentSHA256 = r.base.ContentSHA256
	if r.inputs != nil {
		m.BasePromptSHA256 = r.inputs.BaseFileSHA256
	}
	m.Executor.Kind = ExecutorLocal
	if r.slurm != nil {
		m.Executor = ExecutorManifest{Kind: ExecutorSlurm, Partition: r.slurm.cfg.Partition, ArraySize: r.slurm.cfg.ArraySize, Jobs: r.slurm.allJobs(r.dir)}
	}
	if r.llm != nil {
		st := r.llmTotals()
		m.LLM = &st
	}
	data, err := yaml.Marshal(&m)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(r.dir, "manifest.yaml"), data, 0o644)
}
