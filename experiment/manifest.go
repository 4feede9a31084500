package experiment

import (
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
	"evolve/stats"
)

// Manifest is manifest.yaml of a run directory: everything needed to know
// what was run, on what, and with which tools.
type Manifest struct {
	RunID        string            `yaml:"run_id"`
	Evolve       string            `yaml:"evolve_version"`
	Go           string            `yaml:"go_version"`
	Host         string            `yaml:"host"`
	Started      time.Time         `yaml:"started"`
	Finished     time.Time         `yaml:"finished"`
	Config       yaml.Node         `yaml:"config"`
	Seeds        map[string]string `yaml:"seed_sha256"`
	SeedCounts   map[string]int    `yaml:"seed_counts"`
	Generations  int               `yaml:"generations"`
	BaseVersion  string            `yaml:"base_version"`
	FinalVersion string            `yaml:"final_version"`
	TestBase     SummaryYAML       `yaml:"test_base"`
	TestFinal    SummaryYAML       `yaml:"test_final"`
}

// SummaryYAML is a stats.Summary as written in the manifest.
type SummaryYAML struct {
	N      int     `yaml:"n"`
	Mean   float64 `yaml:"mean"`
	Std    float64 `yaml:"std"`
	Median float64 `yaml:"median"`
	IQM    float64 `yaml:"iqm"`
	CILow  float64 `yaml:"ci95_low"`
	CIHigh float64 `yaml:"ci95_high"`
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
		Started: res.Started, Finished: res.Finished,
		Config:      *cfgNode.Content[0],
		Seeds:       map[string]string{},
		SeedCounts:  map[string]int{"train": len(r.seeds.Train), "val": len(r.seeds.Val), "test": len(r.seeds.Test)},
		Generations: len(res.Generations), BaseVersion: res.Base, FinalVersion: res.Final,
		TestBase: summaryYAML(res.TestBase), TestFinal: summaryYAML(res.TestFinal),
	}
	for s, h := range r.seeds.Hashes {
		m.Seeds[string(s)] = h
	}
	data, err := yaml.Marshal(&m)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(r.dir, "manifest.yaml"), data, 0o644)
}
