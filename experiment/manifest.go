package experiment

import (
	"os"

	"gopkg.in/yaml.v3"

	"evolve/mutate"
	"evolve/rundir"
)

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
	m := rundir.RunManifest{
		RunID: r.id, Evolve: r.opt.Version, Go: GoVersion(), Host: host,
		Started: res.Started, Finished: res.Finished, Sessions: r.ck.Sessions,
		Config:      *cfgNode.Content[0],
		Seeds:       map[string]string{},
		SeedCounts:  map[string]int{"train": len(r.seeds.Train), "val": len(r.seeds.Val), "test": len(r.seeds.Test)},
		Generations: len(res.Generations), BaseVersion: res.Base, FinalVersion: res.Final,
		TestBase: rundir.SummaryOf(res.TestBase), TestFinal: rundir.SummaryOf(res.TestFinal),
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
	m.Executor.Kind = rundir.ExecutorLocal
	if r.slurm != nil {
		m.Executor = rundir.ExecutorManifest{Kind: rundir.ExecutorSlurm, Partition: r.slurm.cfg.Partition, ArraySize: r.slurm.cfg.ArraySize, Jobs: r.slurm.allJobs(r.dir)}
	}
	if r.llm != nil {
		st := r.llmTotals()
		m.LLM = &st
	}
	return rundir.WriteManifest(r.dir, &m)
}
