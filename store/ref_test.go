package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/prompt"
)

func TestGraphParseRef(t *testing.T) {
	two := lineage() // agent and coder
	one := &Graph{Versions: two.Versions[:4]}
	tests := []struct {
		name  string
		g     *Graph
		arg   string
		want  string // the ref, if no error
		usage string // a *RefError's message
		err   string // another error's message
	}{
		{"slug", two, "agent", "agent", "", ""},
		{"branch", two, "agent@exp", "agent@exp", "", ""},
		{"pinned", two, "coder@v1.0.0", "coder@v1.0.0", "", ""},
		{"unknown slug parses", two, "nobody", "nobody", "", ""},
		{"bad slug", two, "Agent", "", `invalid prompt reference "Agent": invalid slug "Agent"`, ""},
		{"bad version", two, "agent@v1.2", "", `invalid prompt reference "agent@v1.2": invalid version "v1.2"`, ""},
		{"only slug: empty", one, "", "agent", "", ""},
		{"only slug: version", one, "v1.0.1", "agent@v1.0.1", "", ""},
		{"only slug: @version", one, "@v1.0.1", "agent@v1.0.1", "", ""},
		{"only slug: @branch", one, "@exp", "agent@exp", "", ""},
		{"only slug: bad branch", one, "@Exp", "", "", `invalid prompt reference "agent@Exp": invalid branch "Exp"`},
		{"several: version", two, "v1.0.0", "", `"v1.0.0" names no prompt, and the store has 2 (agent, coder): write SLUG@v1.0.0`, ""},
		{"several: empty", two, "", "", `"" names no prompt, and the store has 2 (agent, coder): write SLUG`, ""},
		{"several: @branch", two, "@exp", "", `"@exp" names no prompt, and the store has 2 (agent, coder): write SLUG@exp`, ""},
		{"empty store", &Graph{}, "v1.0.0", "", "", "the store has no prompts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.g.ParseRef(tt.arg)
			var re *RefError
			isRef := errors.As(err, &re)
			switch {
			case tt.usage != "":
				if !isRef || !strings.HasPrefix(err.Error(), tt.usage) || re.Arg != tt.arg {
					t.Errorf("ParseRef(%q) = %v, %v; want a *RefError %q", tt.arg, r, err, tt.usage)
				}
			case tt.err != "":
				if err == nil || isRef || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("ParseRef(%q) = %v, %v; want an error (not a *RefError) %q", tt.arg, r, err, tt.err)
				}
			case err != nil || r.String() != tt.want:
				t.Errorf("ParseRef(%q) = %v, %v; want %s", tt.arg, r, err, tt.want)
			}
		})
	}
	if _, err := (&Graph{}).ParseRef(""); !errors.Is(err, ErrNoPrompts) {
		t.Errorf("empty store: err = %v, want ErrNoPrompts", err)
	}
}

func TestOpenExisting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prompts")
	if _, err := OpenExisting(dir); !errors.Is(err, ErrNoStore) || err.Error() != "no prompt store in "+dir+" (no versions.json)" {
		t.Errorf("no directory: err = %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("OpenExisting created %s", dir)
	}
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenExisting(dir); !errors.Is(err, ErrNoStore) {
		t.Errorf("a directory without an index: err = %v, want ErrNoStore", err)
	}
	mustAppend(t, s, sectioned("agent", "identity", "You help."))
	if s2, err := OpenExisting(dir); err != nil || s2.Dir() != dir {
		t.Errorf("a store: %v, %v", s2, err)
	}
}

// LoadFile returns the version's file byte for byte, verified like Load.
func TestLoadFile(t *testing.T) {
	s := twoVersions(t)
	p, data, err := s.LoadFile(prompt.Ref{Slug: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(s.Dir(), "agent", "v1.0.1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != vv("v1.0.1") || string(data) != string(onDisk) {
		t.Errorf("LoadFile(agent) = %s and %d bytes; want v1.0.1 and the file's %d bytes", p.Version, len(data), len(onDisk))
	}
	if _, _, err := s.LoadFile(prompt.Ref{Slug: "agent", Version: vv("v9.0.0")}); !errors.Is(err, ErrNoVersion) {
		t.Errorf("missing version: err = %v, want ErrNoVersion", err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "agent", "v1.0.0.yaml"), append(onDisk, '#'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LoadFile(prompt.Ref{Slug: "agent", Version: vv("v1.0.0")}); !errors.Is(err, prompt.ErrHashMismatch) {
		t.Errorf("edited file: err = %v, want ErrHashMismatch", err)
	}
}
