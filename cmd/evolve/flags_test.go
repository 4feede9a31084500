package main

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args    []string
		pos     []string
		json    bool
		alpha   string
		wantErr string
	}{
		{args: nil, pos: nil},
		{args: []string{"a", "b"}, pos: []string{"a", "b"}},
		{args: []string{"--json", "--alpha", "0.01", "a", "b"}, pos: []string{"a", "b"}, json: true, alpha: "0.01"},
		{args: []string{"a", "b", "--json", "--alpha", "0.01"}, pos: []string{"a", "b"}, json: true, alpha: "0.01"},
		{args: []string{"a", "--alpha=0.01", "b", "-json"}, pos: []string{"a", "b"}, json: true, alpha: "0.01"},
		// "--" ends the flags; what follows is positional even with a dash.
		{args: []string{"a", "--", "-b", "--json"}, pos: []string{"a", "-b", "--json"}},
		{args: []string{"--json", "--", "a", "b"}, pos: []string{"a", "b"}, json: true},
		{args: []string{"--", "--", "x"}, pos: []string{"--", "x"}},
		// "--" as a flag's value is a value, not the end of flags.
		{args: []string{"--alpha", "--", "a", "--json"}, pos: []string{"a"}, json: true, alpha: "--"},
		// A lone "-" (stdin) is positional.
		{args: []string{"-", "--json", "b"}, pos: []string{"-", "b"}, json: true},
		{args: []string{"a", "--nope"}, wantErr: "flag provided but not defined: -nope"},
		{args: []string{"a", "--alpha"}, wantErr: "flag needs an argument: -alpha"},
		{args: []string{"a", "--help"}, wantErr: flag.ErrHelp.Error()},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			js := fs.Bool("json", false, "")
			alpha := fs.String("alpha", "", "")
			pos, err := parseInterleaved(fs, tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.wantErr == flag.ErrHelp.Error() && !errors.Is(err, flag.ErrHelp) {
					t.Errorf("err = %v, not flag.ErrHelp", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pos, tt.pos) || *js != tt.json || *alpha != tt.alpha {
				t.Errorf("positional %q json %v alpha %q; want %q %v %q", pos, *js, *alpha, tt.pos, tt.json, tt.alpha)
			}
		})
	}
}

// TestFlagsAnywhere runs commands with their flags after the arguments:
// each must behave as with the flags first.
func TestFlagsAnywhere(t *testing.T) {
	base, cand := "testdata/compare/base.txt", "testdata/compare/cand.txt"
	for _, tt := range []struct {
		name        string
		first, last []string
	}{
		{"compare", []string{"compare", "--json", "--test", "signed-rank", base, cand}, []string{"compare", base, cand, "--json", "--test", "signed-rank"}},
		{"compare between", []string{"compare", "--alpha", "0.01", base, cand}, []string{"compare", base, "--alpha", "0.01", cand}},
		{"report", []string{"report", "--formats", "png", "/nonexistent/run"}, []string{"report", "/nonexistent/run", "--formats", "png"}},
		{"run", []string{"run", "--quiet", "--print-config"}, []string{"run", "--print-config", "--quiet"}},
		{"prompt", []string{"prompt", "validate", "--json", "testdata/prompt/rejected.yaml"}, []string{"prompt", "validate", "testdata/prompt/rejected.yaml", "--json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code1, out1, err1 := evolve(t, tt.first...)
			code2, out2, err2 := evolve(t, tt.last...)
			if code1 != code2 || out1 != out2 || err1 != err2 {
				t.Errorf("flags first: exit %d\n%s%s\nflags last: exit %d\n%s%s", code1, out1, err1, code2, out2, err2)
			}
			if strings.Contains(err2, "usage:") {
				t.Errorf("flags last gave a usage error:\n%s", err2)
			}
		})
	}
}
