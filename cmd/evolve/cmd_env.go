package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"evolve/envs/process"
)

// cmdEnv is evolve env check.
var cmdEnv = &Command{
	UsageLine: "evolve env check [--seeds N] [--agent CMD] [--dir DIR] [--startup-timeout D] [--message-timeout D] [--episode-timeout D] [--max-memory-mb N] -- CMD [ARGS...]",
	Short:     "check that a program conforms to the process protocol (docs/protocol.md)",
	Long: `
Check that the program CMD ARGS... is a conforming environment of the
process protocol (docs/protocol.md), as 'environment: {name: process,
command: [CMD, ARGS...]}' would run it:

	1. the handshake: the hello response and its declarations (parameter
	   schema, causes, metrics, remedies);
	2. N seeds played under the schema's default parameters by one process
	   in order, then by a second process in reverse order; a step-mode
	   environment whose hello declares "direct": true plays the second
	   process over the direct channel (its run request, docs/protocol.md
	   section 2.7), so that step 4 also checks that run plays as reset
	   and step do;
	3. every response decoded strictly: a malformed message, an episode
	   error, a crash or a timeout is a violation; an unknown key a warning;
	4. each seed's two outcomes compared byte for byte: an outcome that
	   depends on anything but seed, parameters and prompt (e.g. on what
	   the process played before) is a violation;
	5. the mean time per episode and, in step mode, per step;
	6. each process closed: one that does not exit within a second of
	   close is killed, and warned about.

In episode mode every play request carries a fixed prompt (slug
"env-check", a one-line text), where a run without a prompt sends null.

The seeds are the first N outputs of SplitMix64 from 0, so they span the
whole uint64 range. In step mode --agent names the agent program (split
at spaces). The report goes to stdout.

Exit status: 0 conforming, 1 a violation, 2 usage error.

Examples:

	evolve env check -- python3 examples/python/env.py
	evolve env check --seeds 50 --dir examples/python -- python3 env.py
	evolve env check --agent 'python3 step_agent.py' --dir examples/python -- python3 step_env.py`,
	SetFlags: envFlags,
	Run:      runEnv,
}

// envFlagValues are the flags of evolve env.
type envFlagValues struct {
	n     int
	agent string
	dir   string
	msg   time.Duration
	ep    time.Duration
	start time.Duration
	mem   int
}

// envFlags defines the flags of evolve env on fs.
func envFlags(fs *flag.FlagSet) any {
	f := new(envFlagValues)
	fs.IntVar(&f.n, "seeds", process.DefaultCheckSeeds, "number of seeds `N` to play, in [1, 100000]")
	fs.StringVar(&f.agent, "agent", "", "the agent program `CMD` of step mode, split at spaces")
	fs.StringVar(&f.dir, "dir", "", "the processes' working directory `DIR` (default: the current one)")
	fs.DurationVar(&f.msg, "message-timeout", 10*time.Second, "time `D` allowed from a request to its response")
	fs.DurationVar(&f.ep, "episode-timeout", 60*time.Second, "time `D` allowed for one episode")
	fs.DurationVar(&f.start, "startup-timeout", 10*time.Second, "time `D` allowed from start to the hello response")
	fs.IntVar(&f.mem, "max-memory-mb", 0, "memory limit `N` in MiB of each process (cgroup memory.max, else RLIMIT_DATA), 0 for none")
	return f
}

// runEnv is evolve env.
func runEnv(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*envFlagValues)
	if len(args) == 0 || args[0] != "check" {
		return usagef("want the subcommand check (evolve cmd check [flags] -- CMD [ARGS...])")
	}
	if len(args) < 2 {
		return usagef("want the environment's command after check (evolve cmd check -- CMD [ARGS...])")
	}
	if f.n < 1 || f.n > 100000 {
		return usagef("--seeds must be in [1, 100000], got %d", f.n)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"message-timeout", f.msg}, {"episode-timeout", f.ep}, {"startup-timeout", f.start}} {
		if d.d <= 0 {
			return usagef("--%s must be a positive duration, got %s", d.name, d.d)
		}
	}
	cfg := process.DefaultConfig()
	cfg.Command = args[1:]
	cfg.Agent = strings.Fields(f.agent)
	cfg.Dir = f.dir
	cfg.MessageTimeout = process.Duration(f.msg)
	cfg.EpisodeTimeout = process.Duration(f.ep)
	cfg.StartupTimeout = process.Duration(f.start)
	cfg.MaxMemoryMB = f.mem
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	rep, err := process.Check(ctx, cfg, process.CheckSeeds(f.n), cmd.Stdout)
	if err != nil {
		return err
	}
	if !rep.OK() {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s does not conform: %d violations (see the report)", strings.Join(cfg.Command, " "), len(rep.Violations))}
	}
	return nil
}
