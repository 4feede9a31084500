package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// A Command is one evolve command, or one subcommand of a command
// (evolve prompt diff): its usage line, its help, its flags and the
// function that runs it, as cmd/go's base.Command. `evolve help`,
// `evolve help CMD [SUB]`, `evolve CMD --help` and the package
// documentation (doc.go) are all generated from these values.
//
// To add a command, write a file cmd_NAME.go declaring
//
//	var cmdName = &Command{
//		UsageLine: "evolve name [flags] ARG...",
//		Short:     "what it does, in one line of evolve help",
//		Long:      `What it reads and writes, its exit status, examples.`,
//		SetFlags:  nameFlags, // func(fs *flag.FlagSet) any
//		Run:       runName,   // func(ctx context.Context, cmd *Command, args []string) error
//	}
//
// where nameFlags defines the flags on fs, storing them in a new
// *nameFlagValues it returns, and runName reads them back as
// cmd.Flags.(*nameFlagValues). Add cmdName to Commands in main.go, then
// rewrite doc.go with `go generate ./cmd/evolve` (TestDocsUpToDate fails
// until it is rewritten).
//
// Run returns usagef(...) for a bad command line (exit 2, with the usage
// line), an *exitError for a specific status (exitRegression, or
// interruptCode(ctx) when a signal stopped it), nil for success and any
// other error for exit 1; see the exit codes in main.go.
type Command struct {
	// UsageLine is "evolve", the command's name (and its subcommand's
	// name), then its flags and arguments: "evolve eval [flags]
	// PROMPT...", "evolve prompt diff [flags] A B".
	UsageLine string

	// Short is the one-line description of `evolve help`.
	Short string

	// Long is the full description of `evolve help CMD`: what it does,
	// reads and writes, its exit status and examples. Lines indented by a
	// tab are shown as code in doc.go.
	Long string

	// SetFlags defines the command's flags on a new, empty flag set and
	// returns the value they are parsed into (a pointer to a struct of
	// the command's), which Run reads as cmd.Flags. nil: no flags.
	SetFlags func(fs *flag.FlagSet) any

	// Run runs the command with the arguments left after its flags; see
	// above for what its error means. A command with subcommands has
	// none.
	Run func(ctx context.Context, cmd *Command, args []string) error

	// Commands are the subcommands. The first argument after the
	// command's own flags names one; the flags after it are the
	// subcommand's. A command without subcommands takes its flags
	// before, between and after its arguments (parseInterleaved).
	Commands []*Command

	// The fields below are set on the copy of the command that one
	// invocation runs (invocation); the declared values leave them nil.

	// Flag holds the flags of this invocation, parsed.
	Flag *flag.FlagSet
	// Flags is what SetFlags returned for Flag.
	Flags any
	// Stdout takes the results, Stderr progress and diagnostics.
	Stdout, Stderr io.Writer

	// parent is the command that this one is a subcommand of: on a
	// declared value the declared parent (set by linkCommands), on an
	// invocation the parent's invocation.
	parent *Command
}

// linkCommands sets the parent of every subcommand below cmds.
func linkCommands(cmds []*Command) {
	for _, c := range cmds {
		for _, s := range c.Commands {
			s.parent = c
		}
		linkCommands(c.Commands)
	}
}

// depth is 1 for a command, 2 for a subcommand.
func (c *Command) depth() int {
	n := 1
	for p := c.parent; p != nil; p = p.parent {
		n++
	}
	return n
}

// LongName is the command's name with its parent's: "eval", "prompt
// diff".
func (c *Command) LongName() string {
	f := strings.Fields(c.UsageLine)
	return strings.Join(f[1:1+c.depth()], " ")
}

// Name is the command's own name: "eval", "diff".
func (c *Command) Name() string {
	f := strings.Fields(c.UsageLine)
	return f[c.depth()]
}

// Lookup returns the subcommand called name, or nil.
func (c *Command) Lookup(name string) *Command {
	for _, s := range c.Commands {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// subNames lists the names of c's subcommands, sorted.
func (c *Command) subNames() []string {
	var names []string
	for _, s := range c.Commands {
		names = append(names, s.Name())
	}
	sort.Strings(names)
	return names
}

// newFlags returns a new flag set named after c, silent (errors are
// reported by execute), with c's flags defined on it, and the value they
// are parsed into.
func (c *Command) newFlags() (*flag.FlagSet, any) {
	fs := flag.NewFlagSet("evolve "+c.LongName(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var vals any
	if c.SetFlags != nil {
		vals = c.SetFlags(fs)
	}
	return fs, vals
}

// invocation returns a copy of c for one run: fresh flags, the writers,
// and parent's invocation (nil for a top-level command).
func (c *Command) invocation(parent *Command, stdout, stderr io.Writer) *Command {
	inv := *c
	inv.Flag, inv.Flags = c.newFlags()
	inv.Stdout, inv.Stderr = stdout, stderr
	inv.parent = parent
	return &inv
}

// root is the top-level command of c.
func (c *Command) root() *Command {
	for c.parent != nil {
		c = c.parent
	}
	return c
}

// given reports which flags the command line set, by name.
func (c *Command) given() map[string]bool {
	given := map[string]bool{}
	c.Flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// execute runs c (a declared command; parent is its parent's invocation,
// or nil) on args, the words after its name: it parses c's flags, goes
// down to the subcommand args name, runs the command under a context
// that the first SIGINT or SIGTERM cancels, reports its error on stderr
// and returns the exit status.
func execute(ctx context.Context, c, parent *Command, stdout, stderr io.Writer, args []string) int {
	inv := c.invocation(parent, stdout, stderr)
	var rest []string
	var err error
	if len(c.Commands) > 0 {
		// The command's flags come before its subcommand.
		err = inv.Flag.Parse(args)
		rest = inv.Flag.Args()
	} else {
		rest, err = parseInterleaved(inv.Flag, args)
	}
	if errors.Is(err, flag.ErrHelp) {
		inv.help(stdout)
		return exitOK
	}
	if err != nil {
		return inv.exit(usagef("%v", err))
	}
	if len(c.Commands) > 0 {
		if len(rest) == 0 {
			return inv.exit(usagef("want a subcommand: %s", strings.Join(c.subNames(), ", ")))
		}
		sub := c.Lookup(rest[0])
		if sub == nil {
			return inv.exit(usagef("unknown subcommand %q (want one of %s)", rest[0], strings.Join(c.subNames(), ", ")))
		}
		return execute(ctx, sub, inv, stdout, stderr, rest[1:])
	}
	if s, ok := inv.Flags.(flagSetup); ok {
		if err := s.setup(inv); err != nil {
			return inv.exit(err)
		}
	}
	ctx, stop := signalContext(ctx, c.root().Name())
	defer stop()
	return inv.exit(inv.Run(ctx, inv, rest))
}

// flagSetup is implemented by the flag values of a command whose flags
// need a step after parsing, with the invocation in hand (the prompt
// subcommands take --store from evolve prompt's own flags): execute calls
// setup before Run, and a setup error is the command's error.
type flagSetup interface {
	setup(*Command) error
}

// exit reports err, what the invocation c returned, on c.Stderr and
// returns the exit status it means: exitOK for nil, exitUsage with the
// usage line for a *usageError, an *exitError's code, else exitFailure.
func (c *Command) exit(err error) int {
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(c.Stderr, "evolve %s: %v\n", c.LongName(), err)
		fmt.Fprintf(c.Stderr, "usage: %s\nRun 'evolve %s --help' for details.\n", c.UsageLine, c.LongName())
		return exitUsage
	case errors.As(err, &ee):
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintf(c.Stderr, "evolve %s: %v\n", c.LongName(), ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(c.Stderr, "evolve %s: %v\n", c.LongName(), err)
	return exitFailure
}

// help writes the help of c to w: the usage line, the long help, the
// subcommands and the flags with their defaults.
func (c *Command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	if len(c.Commands) > 0 {
		fmt.Fprintf(w, "\nSubcommands ('evolve %s SUBCOMMAND --help' for each):\n\n", c.LongName())
		c.writeSubcommands(w)
	}
	fs := c.Flag
	if fs == nil {
		fs, _ = c.newFlags()
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// writeSubcommands writes a line per subcommand of c: its name and
// arguments (the usage line without "evolve CMD" and "[flags]") and its
// short help.
func (c *Command) writeSubcommands(w io.Writer) {
	for _, s := range c.Commands {
		args := strings.Fields(s.UsageLine)[s.depth():]
		line := strings.Join(args, " ")
		line = strings.TrimSpace(strings.Replace(line, " [flags]", "", 1))
		fmt.Fprintf(w, "\t%-25s %s\n", line, s.Short)
	}
}

// usageError is a bad command line: exit status 2 and the usage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a *usageError with the formatted message.
func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries a specific exit status with its message; an empty
// message prints nothing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
