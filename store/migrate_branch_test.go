package store

import (
	"evolve/prompt"
	"path/filepath"
	"slices"
	"testing"
)

// A migrate entry on a new branch keeps the entry's tags, metadata and
// inherits_from: in the version file, the index and the graph's
// inherits_from edge.
func TestMigrateBranchKeepsFields(t *testing.T) {
	data := []byte(`- slug: base-agent
  sections:
    identity: You are helpful.
- slug: coder
  sections:
    identity: You write code.
- slug: coder
  branch: exp
  tags: [fast, beta]
  metadata:
    owner: ana
  inherits_from: base-agent
  sections:
    identity: You write code quickly.
`)
	m := DecodeMigration("m.yaml", data)
	if len(m.Problems) > 0 {
		t.Fatal(m.Problems)
	}
	s, err := OpenStore(filepath.Join(t.TempDir(), "prompts"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Migrate(m, false)
	if err != nil {
		t.Fatal(err)
	}
	if a := plan.Entries[2].Action; a != ActionBranch {
		t.Fatalf("entry 2: %s, want %s", a, ActionBranch)
	}
	res, err := s.Resolve(mustRef(t, "coder@exp"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Load("coder", res.Prompt.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Tags, []string{"fast", "beta"}) || p.InheritsFrom == nil || p.InheritsFrom.String() != "base-agent" || len(p.Metadata) == 0 {
		t.Errorf("coder@exp: tags %v, inherits_from %v, metadata %v; want [fast beta], base-agent, owner: ana", p.Tags, p.InheritsFrom, p.Metadata)
	}
	vis, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, vi := range vis {
		if vi.Slug == "coder" && vi.Branch == "exp" && !slices.Equal(vi.Tags, []string{"fast", "beta"}) {
			t.Errorf("index: coder@exp tags %v", vi.Tags)
		}
	}
	g, err := s.Graph()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range g.Edges {
		if e.Kind == InheritsFrom && e.From.Slug == "coder" && e.To.Slug == "base-agent" {
			found = true
		}
	}
	if !found {
		t.Error("no inherits_from edge from coder@exp")
	}
}

// An entry on a new branch that leaves out tags, metadata and
// inherits_from keeps the fork point's (main's HEAD), as evolve prompt
// branch does; they were dropped.
func TestMigrateBranchKeepsForkFields(t *testing.T) {
	data := []byte(`- slug: base-agent
  sections:
    identity: You are helpful.
- slug: coder
  tags: [coding]
  metadata:
    owner: ana
  inherits_from: base-agent
  override_sections: [identity]
  sections:
    identity: You write code.
- slug: coder
  branch: exp
  sections:
    identity: You write code quickly.
`)
	m := DecodeMigration("m.yaml", data)
	if len(m.Problems) > 0 {
		t.Fatal(m.Problems)
	}
	s, err := OpenStore(filepath.Join(t.TempDir(), "prompts"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Migrate(m, false)
	if err != nil {
		t.Fatal(err)
	}
	if pe := plan.Entries[2]; pe.Action != ActionBranch || pe.InheritsFrom == nil || pe.InheritsFrom.String() != "base-agent" {
		t.Fatalf("entry 2: %+v, want a branch inheriting from base-agent", pe)
	}
	p, err := s.Load("coder", *plan.Entries[2].Version)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Tags, []string{"coding"}) || p.Metadata["owner"] != "ana" || p.InheritsFrom == nil ||
		!slices.Equal(p.OverrideSections, []string{"identity"}) || p.Sections[0].Text != "You write code quickly." {
		t.Errorf("coder@exp: tags %v, metadata %v, inherits_from %v, override_sections %v, sections %v",
			p.Tags, p.Metadata, p.InheritsFrom, p.OverrideSections, p.Sections)
	}
}

func mustRef(t *testing.T, s string) prompt.Ref {
	t.Helper()
	r, err := prompt.ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
