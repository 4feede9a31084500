package main

import (
	"evolve/internal/atomicfile"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
)

// Exit codes, in one place: every command exits with one of these, and
// the package documentation (exitCodes) states them.
const (
	exitOK          = 0   // success
	exitFailure     = 1   // the command failed (bad input, I/O, a failed measurement, a panicked episode)
	exitUsage       = 2   // bad command line
	exitRegression  = 3   // evolve compare or evolve eval with --fail-on-regression: the gate failed
	exitInterrupted = 130 // stopped by SIGINT (128 + 2)
	exitTerminated  = 143 // stopped by SIGTERM (128 + 15)
)

// exitCodes says what each exit status means, for evolve help and the
// package documentation.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success"},
	{exitFailure, "failure: bad input, an I/O error, a failed measurement, a rejected file"},
	{exitUsage, "usage error: a bad command line (unknown flag, bad flag value, wrong arguments)"},
	{exitRegression, "regression: evolve compare or evolve eval with --fail-on-regression, and a gate check failed"},
	{exitInterrupted, "interrupted by SIGINT: run, eval and bandit stop with it at the first signal (run and eval once their checkpoint is written; serve and view shut down and exit 0), every command at the second"},
	{exitTerminated, "terminated by SIGTERM, as SIGINT"},
}

//go:generate go test -run=TestDocsUpToDate -update

func main() {
	os.Exit(run(context.Background(), os.Stdout, os.Stderr, os.Args[1:]))
}

// Commands are evolve's commands, in the order of evolve help.
var Commands = []*Command{
	cmdAblate,
	cmdBandit,
	cmdCompare,
	cmdEnv,
	cmdEval,
	cmdPower,
	cmdPrompt,
	cmdReport,
	cmdRun,
	cmdRuns,
	cmdSeeds,
	cmdServe,
	cmdShard,
	cmdValidate,
	cmdView,
}

func init() { linkCommands(Commands) }

// lookup returns the command called name, or nil.
func lookup(name string) *Command {
	for _, c := range Commands {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it parses args, runs one command and returns
// the exit status. Tests call it in-process.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		topUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return help(stdout, stderr, args[1:])
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "evolve %s\n", Version())
		return exitOK
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "evolve: unknown command %q\n\n", args[0])
		topUsage(stderr)
		return exitUsage
	}
	return execute(ctx, c, nil, stdout, stderr, args[1:])
}

// help is evolve help [CMD [SUB]]: the overview, or a command's help.
func help(stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		topUsage(stdout)
		return exitOK
	}
	c := lookup(args[0])
	for _, a := range args[1:] {
		if c == nil {
			break
		}
		c = c.Lookup(a)
	}
	if c == nil {
		fmt.Fprintf(stderr, "evolve help %s: unknown command. Run 'evolve help'.\n", strings.Join(args, " "))
		return exitUsage
	}
	c.help(stdout)
	return exitOK
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
	case "ablate":
		return "stopping its runs after their in-flight episodes and writing their checkpoints"
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

// topUsage writes the overview of evolve help: the commands and the
// exit codes.
func topUsage(w io.Writer) {
	fmt.Fprint(w, `evolve evolves structured agent prompts, driven by failures and gated by statistics.

Usage:

	evolve <command> [flags] [arguments]

Commands:

`)
	for _, c := range Commands {
		fmt.Fprintf(w, "	%-10s %s\n", c.Name(), c.Short)
	}
	fmt.Fprint(w, `
Run 'evolve help <command>' or 'evolve <command> --help' for a command's
flags and examples. Flags may come before or after the arguments; '--'
ends them.

Start with:

	evolve run                      # evolve the base prompt on the built-in dungeon
	evolve run --config my.yaml     # your experiment (keys you omit keep their defaults)

Exit status:

`)
	writeExitCodes(w)
}

// writeExitCodes writes a line per exit status.
func writeExitCodes(w io.Writer) {
	for _, e := range exitCodes {
		fmt.Fprintf(w, "\t%-3d  %s\n", e.code, e.meaning)
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
