package experiment

import (
	"fmt"
	"strings"
	"time"

	"evolve/rundir"
)

// defaultExecutor is the executor of a config that names none.
func defaultExecutor() rundir.ExecutorConfig {
	return rundir.ExecutorConfig{Kind: rundir.ExecutorLocal, ArraySize: 64, Retries: 2, PollInterval: 2 * time.Second}
}

var timeLimitForms = []string{"MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"}

// validate checks the executor section and returns every problem, each
// naming the field and value ("array_size: 0 is out of range, ...").
func validateExecutor(e rundir.ExecutorConfig) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch e.Kind {
	case "", rundir.ExecutorLocal, rundir.ExecutorSlurm:
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
