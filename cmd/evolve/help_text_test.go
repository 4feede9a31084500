package main

import (
	"strings"
	"testing"
)

// Flag placeholders name what goes there ("-cache MODE"), not a value
// ("-cache off"); counts agree with their nouns.
func TestHelpPlaceholdersAndPlurals(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"help", "run"}, "-cache MODE", "  -cache off\n"},
		{[]string{"help", "eval"}, "-llm-cache MODE", "  -llm-cache off\n"},
		{[]string{"help", "eval"}, "-split SPLIT", "  -split test\n"},
		{[]string{"help", "eval"}, "-test TEST", "  -test auto\n"},
	} {
		_, stdout, _ := evolve(t, tt.args...)
		if !strings.Contains(stdout, tt.want) || strings.Contains(stdout, tt.not) {
			t.Errorf("%v: want %q and not %q in:\n%s", tt.args, tt.want, tt.not, stdout)
		}
	}
	for n, want := range map[int]string{0: "0 entries", 1: "1 entry", 2: "2 entries"} {
		if got := plural(n, "entry", "entries"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	if code, _, stderr := evolve(t, "report", "a", "b"); code != exitUsage || !strings.Contains(stderr, "got 2 arguments") {
		t.Errorf("report a b: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := evolve(t, "prompt", "diff", "v1.0.0"); code != exitUsage || !strings.Contains(stderr, "got 1 argument\n") {
		t.Errorf("prompt diff with one REF: exit %d\n%s", code, stderr)
	}
}
