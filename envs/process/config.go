package process

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Duration is a time.Duration written as a Go duration string ("60s",
// "1m30s", "250ms") in YAML and JSON.
type Duration time.Duration

// UnmarshalText parses a duration string; it must be positive.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (want e.g. 60s, 1m30s, 250ms)", b)
	}
	if v <= 0 {
		return fmt.Errorf("%q is not a positive duration", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as time.Duration.String does ("1m0s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// String returns the duration as time.Duration.String does.
func (d Duration) String() string { return time.Duration(d).String() }

// Config is the configuration of the "process" environment, written under
// environment in an experiment config:
//
//	environment:
//	  name: process
//	  command: [python3, env.py]
//	  dir: examples/python
type Config struct {
	// Command is the environment's program and its arguments; required.
	// Command[0] is looked up in evolve's PATH if it has no '/', else a
	// relative path is relative to Dir.
	Command []string `yaml:"command" json:"command"`
	// Env holds environment variables set for the processes on top of
	// evolve's own environment; nil for none.
	Env map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// Dir is the processes' working directory; "" for evolve's. The
	// experiment config resolves a relative Dir against the config file's
	// directory before New sees it.
	Dir string `yaml:"dir,omitempty" json:"dir,omitempty"`
	// Agent is the agent process's program and arguments, required in
	// step mode (the environment process declares mode "step") and not
	// allowed in episode mode. It runs with the same Env and Dir.
	Agent []string `yaml:"agent,omitempty" json:"agent,omitempty"`
	// EpisodeTimeout bounds the wall time of one episode (default 60s).
	EpisodeTimeout Duration `yaml:"episode_timeout" json:"episode_timeout"`
	// MessageTimeout bounds the time from writing a request to reading
	// its response (default 10s).
	MessageTimeout Duration `yaml:"message_timeout" json:"message_timeout"`
	// StartupTimeout bounds the time from starting a process to reading
	// its hello response (default 10s).
	StartupTimeout Duration `yaml:"startup_timeout" json:"startup_timeout"`
	// MaxMemoryMB limits each process's memory to this many MiB (Linux
	// only; elsewhere Validate refuses a limit): the memory.max of its
	// cgroup v2 (the process and its descendants together) where evolve
	// can create one with the memory controller, else RLIMIT_DATA (each
	// process's private writable memory; address space merely reserved,
	// as V8 and the JVM do, does not count), set with prlimit(2) right
	// after the process starts; 0 means no limit. Range [0, 1048576].
	MaxMemoryMB int `yaml:"max_memory_mb,omitempty" json:"max_memory_mb,omitempty"`
	// PinCPU runs each worker's processes on one CPU (Linux only;
	// elsewhere it does nothing): worker w's environment process, its
	// agent process, their descendants and the evolve thread that talks
	// to them get the CPU affinity of the (w mod n)-th of the n CPUs
	// evolve may run on (sched_setaffinity(2)). A step then runs as
	// context switches on one CPU instead of wake-ups of another CPU,
	// which on an idle machine (or a virtual machine) cost more than the
	// step's own work. Set it for cheap single-threaded programs and at
	// most as many workers as CPUs; leave it off (the default) for a
	// program that uses several threads or processes, which it confines
	// to one CPU, and on a machine busy with other work, from which a
	// pinned worker cannot move away.
	PinCPU bool `yaml:"pin_cpu,omitempty" json:"pin_cpu,omitempty"`
	// Direct plays each step-mode episode over the direct channel
	// (docs/protocol.md, section 2.7): the environment process gets the
	// agent process's stdin and stdout as file descriptors 3 and 4 and
	// exchanges the act requests and actions with it itself, and evolve
	// sends the environment one run request per episode and reads only
	// its outcome. A step then costs two messages instead of four, at the
	// price of evolve's per-step checks and of message_timeout per step
	// (a hung agent ends at episode_timeout). It needs Agent, and an
	// environment whose hello declares "direct": true. Results do not
	// depend on it.
	Direct bool `yaml:"direct,omitempty" json:"direct,omitempty"`
	// StderrDir is the directory of the processes' stderr logs: worker
	// w's environment process appends to StderrDir/process-<w>.log, its
	// agent process to StderrDir/agent-<w>.log, and the handshake process
	// of New to StderrDir/process-hello.log. "" keeps only the tail of
	// stderr that errors quote. The experiment sets it to the run
	// directory.
	StderrDir string `yaml:"stderr_dir,omitempty" json:"stderr_dir,omitempty"`
	// MaxStderrLogMB caps each stderr log file under StderrDir at this
	// many MiB of the processes' stderr; 0 means DefaultMaxStderrLogMB.
	// Range [0, MaxMemoryMBLimit]. Past the cap, the stderr of the
	// process writing is dropped (its tail, which errors quote, is still
	// kept), and the log gets one line saying so, "evolve: stderr log
	// cut at ...", and, when the process ends, how many bytes were
	// dropped. evolve's own lines (a process started, was killed,
	// ended) are always written. It changes no outcome.
	MaxStderrLogMB int `yaml:"max_stderr_log_mb,omitempty" json:"max_stderr_log_mb,omitempty"`
}

// DefaultMaxStderrLogMB is the cap on a stderr log file when
// Config.MaxStderrLogMB is 0: 64 MiB.
const DefaultMaxStderrLogMB = 64

// stderrLogCap returns the cap on a stderr log file in bytes.
func (c *Config) stderrLogCap() int64 {
	if c.MaxStderrLogMB == 0 {
		return DefaultMaxStderrLogMB << 20
	}
	return int64(c.MaxStderrLogMB) << 20
}

// OutcomeConfig returns a copy of c without the settings that change no
// outcome (PinCPU, Direct, StderrDir, MaxStderrLogMB, all zeroed): what identifies the
// environment's results. The experiment hashes it as the environment's
// identity (experiment.EnvVariant.Identity), the key of the outcome cache
// and of evolve eval's fair-baseline check, so that turning direct or
// pin_cpu on or off reuses cached outcomes.
func (c Config) OutcomeConfig() any {
	c.PinCPU, c.Direct, c.StderrDir, c.MaxStderrLogMB = false, false, "", 0
	return c
}

// DefaultConfig returns a Config with the default timeouts (episode 60s,
// message 10s, startup 10s), no memory limit, no CPU pinning and no
// command.
func DefaultConfig() Config {
	return Config{
		EpisodeTimeout: Duration(60 * time.Second),
		MessageTimeout: Duration(10 * time.Second),
		StartupTimeout: Duration(10 * time.Second),
	}
}

// MaxMemoryMBLimit is the largest MaxMemoryMB (1 TiB).
const MaxMemoryMBLimit = 1 << 20

// Validate returns an error naming the first invalid field: a missing or
// empty command, an empty agent argument, a non-positive timeout, a
// memory limit or a stderr log cap out of [0, MaxMemoryMBLimit] or,
// outside Linux, any memory limit (its error wraps errors.ErrUnsupported:
// no other kernel enforces one that evolve can set), direct without an
// agent command, or an environment variable with an empty name or a name
// holding '=' or NUL.
func (c *Config) Validate() error {
	if len(c.Command) == 0 {
		return errors.New("command: required, e.g. command: [python3, env.py]")
	}
	for _, f := range []struct {
		name string
		argv []string
	}{{"command", c.Command}, {"agent", c.Agent}} {
		if len(f.argv) > 0 && f.argv[0] == "" {
			return fmt.Errorf("%s[0]: the program is empty", f.name)
		}
		if i := slices.IndexFunc(f.argv, func(a string) bool { return containsNUL(a) }); i >= 0 {
			return fmt.Errorf("%s[%d]: %q holds a NUL byte", f.name, i, f.argv[i])
		}
	}
	for k, v := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || containsNUL(v) {
			return fmt.Errorf("env: %q=%q: a name must be non-empty without '=' or NUL, a value without NUL", k, v)
		}
	}
	for _, t := range []struct {
		name string
		d    Duration
	}{{"episode_timeout", c.EpisodeTimeout}, {"message_timeout", c.MessageTimeout}, {"startup_timeout", c.StartupTimeout}} {
		if t.d <= 0 {
			return fmt.Errorf("%s: %s is not a positive duration", t.name, t.d)
		}
	}
	if c.Direct && len(c.Agent) == 0 {
		return errors.New("direct: true needs agent: [COMMAND, ARGS...]: over the direct channel the environment process plays the episode with the agent process itself (docs/protocol.md, section 2.7); a language-model agent (agent kind llm) plays relayed step mode only")
	}
	if c.MaxMemoryMB < 0 || c.MaxMemoryMB > MaxMemoryMBLimit {
		return fmt.Errorf("max_memory_mb: %d is out of range, allowed [0, %d] (0 for no limit)", c.MaxMemoryMB, MaxMemoryMBLimit)
	}
	if c.MaxStderrLogMB < 0 || c.MaxStderrLogMB > MaxMemoryMBLimit {
		return fmt.Errorf("max_stderr_log_mb: %d is out of range, allowed [0, %d] (0 for the default, %d)", c.MaxStderrLogMB, MaxMemoryMBLimit, DefaultMaxStderrLogMB)
	}
	if c.MaxMemoryMB > 0 {
		if err := memoryLimitErr(c.MaxMemoryMB); err != nil {
			return err
		}
	}
	return nil
}

func containsNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// ResolvePaths makes a relative Dir absolute against base, the directory
// of the experiment config that names the process, as the config's seeds
// and base_prompt are; an empty Dir becomes base, so that a command like
// [python3, env.py] finds env.py beside the config wherever evolve runs.
func (c *Config) ResolvePaths(base string) {
	switch {
	case c.Dir == "":
		c.Dir = base
	case !filepath.IsAbs(c.Dir):
		c.Dir = filepath.Join(base, c.Dir)
	}
	if abs, err := filepath.Abs(c.Dir); err == nil {
		c.Dir = abs
	}
}
