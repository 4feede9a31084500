package main

import (
	"evolve/internal/atomicfile"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
)

// Exit codes, in one place (see the package documentation).
const (
	exitOK          = 0   // success
	exitFailure     = 1   // the command failed (bad input, I/O, a panicked episode)
	exitUsage       = 2   // bad command line
	exitRegression  = 3   // evolve compare --fail-on-regression: the candidate is significantly worse
	exitInterrupted = 130 // stopped by SIGINT (128 + 2)
	exitTerminated  = 143 // stopped by SIGTERM (128 + 15)
)

func main() {
	os.Exit(run(context.Background(), os.Stdout, os.Stderr, os.Args[1:]))
}

// command is one subcommand of evolve.
type command struct {
	name     string
	synopsis string // one line for `evolve --help`
	usage    string // the argument synopsis, e.g. "[--config FILE] [--out DIR]"
	help     string // what the command does, shown by `evolve CMD --help`
	flags    func(fs *flag.FlagSet) func(ctx context.Context, env *cmdEnv, args []string) error
	// subcommands: the first argument names a subcommand that parses the
	// rest of the line itself, so the command's own flags must come
	// before it. Other commands take flags anywhere (parseInterleaved).
	subcommands bool
}

// cmdEnv is what a command writes to.
type cmdEnv struct {
	stdout, stderr io.Writer
}

// usageError is a bad command line: exit status 2 and the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries a specific exit status with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// run is the whole program: it parses args, runs one command and returns
// the exit status. Tests call it in-process.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	env := &cmdEnv{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		topUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				cmdUsage(stdout, c, nil)
				return exitOK
			}
		}
		topUsage(stdout)
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "evolve %s\n", Version())
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "evolve: unknown command %q\n\n", args[0])
		topUsage(stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("evolve "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runCmd := c.flags(fs)
	parse := parseInterleaved
	if c.subcommands {
		parse = func(fs *flag.FlagSet, args []string) ([]string, error) {
			err := fs.Parse(args)
			return fs.Args(), err
		}
	}
	cmdArgs, err := parse(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			cmdUsage(stdout, c, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "evolve %s: %v\n", c.name, err)
		fmt.Fprintf(stderr, "usage: evolve %s %s\nRun 'evolve %s --help' for details.\n", c.name, c.usage, c.name)
		return exitUsage
	}
	ctx, stop := signalContext(ctx, c.name)
	defer stop()
	err = runCmd(ctx, env, cmdArgs)
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "evolve %s: %v\n", c.name, err)
		fmt.Fprintf(stderr, "usage: evolve %s %s\nRun 'evolve %s --help' for details.\n", c.name, c.usage, c.name)
		return exitUsage
	case errors.As(err, &ee):
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(stderr, "evolve %s: %v\n", c.name, ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "evolve %s: %v\n", c.name, err)
	return exitFailure
}

// signalKey is the context key of the *atomic.Value holding the first
// signal received.
type signalKey struct{}

// signalContext cancels ctx on the first SIGINT or SIGTERM, so that a run
// stops starting episodes and writes its checkpoint; a second signal exits
// at once with 130 or 143 (every file is written atomically, so nothing on
// disk is half-written). cmd names the command, for the message that
// says what the first signal does. The returned stop function stops
// listening.
func signalContext(ctx context.Context, cmd string) (context.Context, func()) {
	doing := signalDoing(cmd)
	var got atomic.Value
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, signalKey{}, &got))
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			got.Store(sig)
			fmt.Fprintf(os.Stderr, "evolve: %v: %s (send it again to exit now)\n", sig, doing)
			cancel(errors.New(signalName(sig))) // the cause the run records in its checkpoint
			atomicfile.NoteInterrupt()          // for the test-only fault hook
		case <-done:
			return
		}
		select {
		case sig := <-ch:
			fmt.Fprintf(os.Stderr, "evolve: %v again: exiting now\n", sig)
			os.Exit(signalExit(sig))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// signalDoing says what the first SIGINT or SIGTERM makes command cmd
// do: only the commands that write a checkpoint (run, eval) say they
// write one.
func signalDoing(cmd string) string {
	switch cmd {
	case "run", "eval":
		return "stopping after in-flight episodes and writing the checkpoint"
	case "serve":
		return "finishing the requests in flight and writing their observations"
	case "shard":
		return "stopping the shard (its task writes nothing; the controller resubmits it)"
	case "view":
		return "closing the server"
	case "bandit":
		return "stopping the simulation (nothing is written)"
	case "env":
		return "stopping the episodes in flight"
	}
	return "stopping"
}

// signalName is "SIGINT" or "SIGTERM".
func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// signalExit is the exit status for a signal: 128 + its number.
func signalExit(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}

// interruptCode returns the exit status for the signal that cancelled ctx
// (130 for SIGINT, 143 for SIGTERM; 130 when cancelled otherwise).
func interruptCode(ctx context.Context) int {
	if v, ok := ctx.Value(signalKey{}).(*atomic.Value); ok {
		if sig, ok := v.Load().(os.Signal); ok {
			return signalExit(sig)
		}
	}
	return exitInterrupted
}

func topUsage(w io.Writer) {
	fmt.Fprint(w, `evolve evolves structured agent prompts, driven by failures and gated by statistics.

Usage:

	evolve <command> [flags] [arguments]

Commands:

`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "	%-10s %s\n", n, commands[n].synopsis)
	}
	fmt.Fprint(w, `
Run 'evolve <command> --help' for a command's flags and examples. Flags
may come before or after the arguments; '--' ends them.

Start with:

	evolve run                      # evolve the base prompt on the built-in dungeon
	evolve run --config my.yaml     # your experiment (keys you omit keep their defaults)

Exit status: 0 success, 1 failure, 2 usage error, 3 regression (compare, eval --fail-on-regression),
130 interrupted (SIGINT), 143 terminated (SIGTERM).
`)
}

func cmdUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: evolve %s %s\n\n%s\n", c.name, c.usage, strings.TrimSpace(c.help))
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// Version returns the module version and VCS revision of the binary, e.g.
// "v0.1.0" or "(devel) 3f2a9c1", from its build information; a binary
// built without VCS stamping (go run) asks git about its source tree
// (sourceRevision).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	stamped := false
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 7 {
			v += " " + s.Value[:7]
			stamped = true
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	if !stamped {
		if rev := sourceRevision(); rev != "" {
			v += " " + rev
		}
	}
	return v
}
