package experiment

import (
	"fmt"
	"log/slog"

	"evolve/play"
	"evolve/rundir"
)

// VariantExecutor returns where an evaluation (evolve eval) plays the
// phases of variant v under executor ec: nil, nil for ExecutorLocal (the
// caller plays on its own runner); for ExecutorSlurm the Slurm executor
// of evolve run (docs/slurm.md), each phase one job array of `evolve
// shard` tasks on dir/slurm/<phase>/, named by id (the eval's ID), the
// tasks playing v's environment: the config with v's parameters. The
// tasks open the language model's response cache in mode llmCache ("" =
// the config's agent.cache) at agent.cache_dir. A phase directory is
// named by what it plays, so a resumed or requeued eval finds the shards
// played before and plays only the rest; the outcomes equal a local
// runner's. Errors: an unknown kind, and finding this evolve binary for
// the tasks.
func (c *Config) VariantExecutor(v EnvVariant, ec rundir.ExecutorConfig, id, dir, llmCache string, logger *slog.Logger) (play.Executor, error) {
	switch ec.Kind {
	case "", rundir.ExecutorLocal:
		return nil, nil
	case rundir.ExecutorSlurm:
	default:
		return nil, fmt.Errorf("executor: %q is not local or slurm", ec.Kind)
	}
	vc := *c
	if v.params != nil {
		vc.Environment.params = v.params
	}
	// An eval plays without the run's step budget: so do its tasks.
	vc.StepBudget = 0
	resolved, err := vc.Resolved()
	if err != nil {
		return nil, err
	}
	if llmCache == "" && c.Agent.Kind == AgentLLM && c.Agent.Cache != "readwrite" {
		llmCache = c.Agent.Cache
	}
	x, err := newSlurmExecutor(ec, id, resolved, llmCache, c.Agent.CacheDir, func() string { return dir }, logger)
	if err != nil {
		return nil, err
	}
	return x, nil
}

// SlurmJobs returns every job array submitted for the phases under
// dir/slurm/ (a run's or an eval's directory), over all its sessions, in
// submission order, with the nodes their tasks' exit records name; nil
// when none was.
func SlurmJobs(dir string) []rundir.SlurmJob {
	return (&slurmExecutor{}).allJobs(dir)
}
