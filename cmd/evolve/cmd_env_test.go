package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvCheck runs evolve env check on the Python examples (exit 0), on
// an environment whose outcome depends on the process's history (exit 1,
// naming a seed), and with bad command lines (exit 2).
func TestEnvCheck(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: evolve env check runs Python environments")
	}
	ex := filepath.Join("..", "..", "examples", "python")
	stateful := filepath.Join("..", "..", "envs", "process", "testdata", "stateful.py")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"episode example", []string{"env", "check", "--seeds", "5", "--dir", ex, "--", py, "env.py"}, exitOK,
			[]string{"mode episode", "5 of 5 seeds gave byte-identical outcomes", "result: ok"}, nil},
		{"step example", []string{"env", "check", "--seeds", "5", "--dir", ex, "--agent", py + " step_agent.py", "--", py, "step_env.py"}, exitOK,
			[]string{"mode step", "process B in reverse order over the direct channel", "5 of 5 seeds gave byte-identical outcomes", "per step", "result: ok"}, nil},
		{"stateful", []string{"env", "check", "--seeds", "4", "--", py, stateful}, exitFailure,
			[]string{"violation: seed ", "depends on more than seed, parameters and prompt", "result: FAIL (4 violations)"},
			[]string{"does not conform: 4 violations"}},
		{"no subcommand", []string{"env", "--", py, "env.py"}, exitUsage, nil, []string{"want the subcommand check"}},
		{"no command", []string{"env", "check"}, exitUsage, nil, []string{"want the environment's command"}},
		{"bad seeds", []string{"env", "check", "--seeds", "0", "--", py}, exitUsage, nil, []string{"--seeds must be in [1, 100000], got 0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := evolve(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestEnvCheckHelp: the usage line names every flag, --startup-timeout
// included, and the help says what env check sends as the prompt.
func TestEnvCheckHelp(t *testing.T) {
	code, out, _ := evolve(t, "env", "--help")
	for _, want := range []string{"[--startup-timeout D] [--message-timeout D]", `fixed prompt (slug
"env-check"`, "does not exit within a second of"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("env --help: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
}
