package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// allCommands returns every command and subcommand, parents first.
func allCommands() []*Command {
	var out []*Command
	var walk func(cs []*Command)
	walk = func(cs []*Command) {
		for _, c := range cs {
			out = append(out, c)
			walk(c.Commands)
		}
	}
	walk(Commands)
	return out
}

// Every command and subcommand: an unknown flag is a usage error (exit 2,
// the flag named, the usage line), and `evolve help CMD`, `evolve CMD -h`
// and `evolve CMD --help` print the same help (exit 0), which starts with
// the usage line and lists every flag.
func TestEveryCommandUsage(t *testing.T) {
	all := allCommands()
	if len(all) < 25 {
		t.Fatalf("%d commands and subcommands, want at least 25", len(all))
	}
	for _, c := range all {
		words := strings.Fields(c.LongName())
		t.Run(strings.Join(words, "_"), func(t *testing.T) {
			code, stdout, stderr := evolve(t, append(append([]string{}, words...), "--no-such-flag")...)
			if code != exitUsage || stdout != "" ||
				!strings.Contains(stderr, "evolve "+c.LongName()+": flag provided but not defined: -no-such-flag\n") ||
				!strings.Contains(stderr, "usage: "+c.UsageLine+"\n") {
				t.Errorf("unknown flag: exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUsage, stdout, stderr)
			}
			code, help, _ := evolve(t, append([]string{"help"}, words...)...)
			if code != exitOK || !strings.HasPrefix(help, "usage: "+c.UsageLine+"\n\n") {
				t.Fatalf("evolve help %s: exit %d\n%s", c.LongName(), code, help)
			}
			for _, h := range []string{"-h", "--help"} {
				code, out, _ := evolve(t, append(append([]string{}, words...), h)...)
				if code != exitOK || out != help {
					t.Errorf("evolve %s %s: exit %d, and its help differs from evolve help's:\n%s", c.LongName(), h, code, firstDiff(out, help))
				}
			}
			fs, _ := c.newFlags()
			for _, name := range flagNames(fs) {
				if !strings.Contains(help, "  -"+name) {
					t.Errorf("help lacks flag -%s", name)
				}
			}
		})
	}
}

// The usage errors of the command dispatch itself exit 2 and say what is
// wrong; version and help exit 0.
func TestDispatchExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, exitUsage, "", "Commands:"},
		{[]string{"frobnicate"}, exitUsage, "", `evolve: unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, exitUsage, "", "evolve help frobnicate: unknown command"},
		{[]string{"help", "prompt", "frobnicate"}, exitUsage, "", "evolve help prompt frobnicate: unknown command"},
		{[]string{"prompt"}, exitUsage, "", "evolve prompt: want a subcommand: branch, diff, list, log, migrate, new, promote, render, rollback, show, validate\nusage: " + cmdPrompt.UsageLine},
		{[]string{"prompt", "frobnicate"}, exitUsage, "", `evolve prompt: unknown subcommand "frobnicate"`},
		{[]string{"prompt", "list", "--max-chars", "-1"}, exitUsage, "", "evolve prompt list: --max-chars must be >= 0 (0 for no limit), got -1\nusage: " + cmdPromptList.UsageLine},
		{[]string{"compare", "a"}, exitUsage, "", "evolve compare: want BASELINE and CANDIDATE, got 1 argument\nusage: " + cmdCompare.UsageLine},
		{[]string{"help"}, exitOK, "Exit status:\n\n\t0    success\n", ""},
		{[]string{"help", "prompt", "diff"}, exitOK, "usage: " + cmdPromptDiff.UsageLine, ""},
		{[]string{"version"}, exitOK, "evolve ", ""},
	} {
		code, stdout, stderr := evolve(t, tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("evolve %q: exit %d, want %d with %q on stdout and %q on stderr\nstdout: %s\nstderr: %s",
				tt.args, code, tt.code, tt.stdout, tt.stderr, stdout, stderr)
		}
	}
}

// A bandit study stopped by a signal exits 130 and writes nothing.
func TestBanditInterruptedExit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "study")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, &stdout, &stderr, []string{"bandit", "simulate", "--quiet", "--out", out, "--pool", "2", "--requests", "10"})
	if code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted: nothing was written") {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitInterrupted, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted study wrote %s: %v", out, err)
	}
}

// flagNames lists the names of the flags of fs.
func flagNames(fs interface{ VisitAll(func(*flag.Flag)) }) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
