package experiment

import (
	"fmt"
	"strings"
	"time"
)

// Executor kinds: where a run's episodes are played.
const (
	// ExecutorLocal plays episodes on this machine's worker pool.
	ExecutorLocal = "local"
	// ExecutorSlurm hands each phase to a Slurm cluster as one job array
	// of `evolve shard` tasks (see SlurmExecutor); the arrays of a
	// generation's candidates are submitted at once (evaluate.PlayAll).
	ExecutorSlurm = "slurm"
)

// ExecutorConfig chooses where a run's episodes are played. It never
// changes a result: a run writes the same Parquet, prompt files and report
// tables whatever its executor, so it is not part of the run's ID or of
// the resolved config a resume compares. The checkpoint records it, so
// that --resume goes on with the executor the run started with unless
// --executor says otherwise. In YAML:
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

// defaultExecutor is the executor of a config that names none.
func defaultExecutor() ExecutorConfig {
	return ExecutorConfig{Kind: ExecutorLocal, ArraySize: 64, Retries: 2, PollInterval: 2 * time.Second}
}

var timeLimitForms = []string{"MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"}

// validate checks the executor section and returns every problem, each
// naming the field and value ("array_size: 0 is out of range, ...").
func (e ExecutorConfig) validate() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch e.Kind {
	case "", ExecutorLocal, ExecutorSlurm:
	default:
		bad("kind: %q is not local or slurm", e.Kind)
	}
	if e.ArraySize < 1 || e.ArraySize > 1000 {
		bad("array_size: %d is out of range, allowed [1, 1000]", e.ArraySize)
	}
	if e.MaxParallel < 0 || e.MaxParallel > 100000 {
		bad("max_parallel: %d is out of range, allowed [0, 100000] (0 = no limit)", e.MaxParallel)
	}
	if e.Retries < 0 || e.Retries > 100 {
		bad("retries: %d is out of range, allowed [0, 100]", e.Retries)
	}
	if e.PollInterval < 100*time.Millisecond || e.PollInterval > 10*time.Minute {
		bad("poll_interval: %v is out of range, allowed [100ms, 10m]", e.PollInterval)
	}
	if e.TimeLimit != "" && !validTimeLimit(e.TimeLimit) {
		bad("time_limit: %q is not a Slurm time (%s)", e.TimeLimit, strings.Join(timeLimitForms, ", "))
	}
	for i, a := range e.ExtraArgs {
		if !strings.HasPrefix(a, "-") || strings.ContainsAny(a, " \t\n") {
			bad("extra_args[%d]: %q is not an option (write --name=value as one item)", i, a)
			continue
		}
		for _, own := range []string{"--array", "-a", "--parsable", "--output", "-o", "--job-name", "-J", "--wait", "-W", "--chdir", "-D"} {
			long := strings.HasPrefix(own, "--") && strings.HasPrefix(a, own+"=")
			short := !strings.HasPrefix(own, "--") && strings.HasPrefix(a, own) // -D/tmp, -J name
			if a == own || long || short {
				bad("extra_args[%d]: %q is set by evolve itself", i, a)
				break
			}
		}
	}
	return errs
}

// validTimeLimit reports whether s is one of Slurm's time forms (or
// "UNLIMITED"/"INFINITE").
func validTimeLimit(s string) bool {
	if s == "UNLIMITED" || s == "INFINITE" {
		return true
	}
	days, rest, hasDays := strings.Cut(s, "-")
	if hasDays {
		if !digits(days) {
			return false
		}
	} else {
		rest = days
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 || (hasDays && len(parts) > 3) {
		return false
	}
	for _, p := range parts {
		if !digits(p) {
			return false
		}
	}
	return true
}

func digits(s string) bool {
	if s == "" || len(s) > 6 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
