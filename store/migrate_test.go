package store

import (
	"errors"
	"evolve/prompt"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/guard"
)

func readMigration(t *testing.T, name string) *Migration {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "migrate", name))
	if err != nil {
		t.Fatal(err)
	}
	return DecodeMigration(name, data)
}

// summary is one line per planned entry: "3 branch base-agent@exp v1.1.0".
func summary(plan *MigrationPlan) []string {
	var out []string
	for _, e := range plan.Entries {
		v := "-"
		if e.Version != nil {
			v = e.Version.String()
		}
		out = append(out, fmt.Sprintf("%d %s %s@%s %s", e.Entry, e.Action, e.Slug, e.Branch, v))
	}
	return out
}

// A migration of ten entries with one bad one writes nothing; its dry run
// lists all ten and the bad one's problems; without the bad entry it
// writes exactly what its dry run planned.
func TestMigrateAllOrNothing(t *testing.T) {
	s := testStore(t)
	m := readMigration(t, "ten.json")
	if len(m.Entries) != 10 || len(m.Problems) != 0 {
		t.Fatalf("decoded %d entries, problems %v", len(m.Entries), m.Problems)
	}
	plan, err := s.Migrate(m, false)
	if !errors.Is(err, ErrInvalidMigration) || plan.Applied {
		t.Fatalf("Migrate: err = %v, applied %v; want ErrInvalidMigration", err, plan.Applied)
	}
	if entries, _ := os.ReadDir(s.Dir()); len(entries) != 1 || entries[0].Name() != "versions.lock" {
		t.Errorf("an invalid migration wrote %v", entries)
	}

	dry, err := s.Migrate(m, true)
	if !errors.Is(err, ErrInvalidMigration) || dry.Applied || !dry.DryRun {
		t.Fatalf("dry run: err = %v", err)
	}
	want := []string{
		"0 create base-agent@main v1.0.0",
		"1 create coding-agent@main v1.0.0",
		"2 create writing-agent@main v1.0.0",
		"3 branch base-agent@exp v2.0.0",
		"4 create greeter@main v1.0.0",
		"5 create tool-runner@main v1.0.0",
		"6 invalid helper@main -",
		"7 append coding-agent@main v1.0.1",
		"8 unchanged base-agent@main -",
		"9 create reviewer@main v1.0.0",
	}
	if got := summary(dry); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dry run plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bad := dry.Entries[6]
	wantProblems := []string{
		`line 47: entry 6: sections.notes: forbidden pattern ignore_previous_instructions (meta_override): "ignore all previous instructions" (line 2, column 8 of the text)`,
	}
	var got []string
	for _, p := range bad.Problems {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(wantProblems, "\n") {
		t.Errorf("entry 6 problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantProblems, "\n"))
	}
	// health_threshold 1.5 is a matter of the agent's schema, which a
	// store does not know: only the text is refused here.
	if len(dry.Problems) != 1 {
		t.Errorf("plan problems = %v, want the one of entry 6", dry.Problems)
	}
	if e := dry.Entries[3]; e.BranchedFrom == nil || e.BranchedFrom.String() != "base-agent@v1.0.0" || e.Bump != "major" {
		t.Errorf("entry 3 = %+v, want a major fork of base-agent@v1.0.0", e)
	}
	if e := dry.Entries[7]; e.Supersedes == nil || e.Supersedes.String() != "v1.0.0" || e.Bump != "patch" {
		t.Errorf("entry 7 = %+v, want a patch superseding v1.0.0", e)
	}

	// Without entry 6 the migration applies, exactly as its dry run says.
	m.Entries = append(m.Entries[:6:6], m.Entries[7:]...)
	m.lines = append(m.lines[:6:6], m.lines[7:]...)
	dry2, err := s.Migrate(m, true)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(s.Dir()); len(entries) != 1 {
		t.Errorf("a dry run wrote %v", entries)
	}
	real, err := s.Migrate(m, false)
	if err != nil || !real.Applied {
		t.Fatalf("Migrate = %v, applied %v", err, real.Applied)
	}
	if a, b := strings.Join(summary(dry2), "\n"), strings.Join(summary(real), "\n"); a != b {
		t.Errorf("the dry run planned\n%s\nbut the migration did\n%s", a, b)
	}
	wantHead(t, s, "base-agent", "main", "v1.0.0")
	wantHead(t, s, "base-agent", "exp", "v2.0.0")
	wantHead(t, s, "coding-agent", "main", "v1.0.1")
	res, err := s.Resolve(prompt.Ref{Slug: "coding-agent"})
	if err != nil {
		t.Fatal(err)
	}
	if tools, _ := res.Prompt.Sections.Get("tools"); tools != "You carry a compiler." || !res.Prompt.HasPolicy() {
		t.Errorf("resolved coding-agent: tools %q, policy %v", tools, res.Prompt.HasPolicy())
	}
	p, _ := s.Load("base-agent", vv("v1.0.0"))
	if w := p.Metadata["context_weights"].(map[string]any)["task_coding"]; w != 0.8 || p.Type != "system" {
		t.Errorf("metadata = %v", p.Metadata)
	}
	g, _ := s.Graph()
	if vi, _ := g.Find("coding-agent", vv("v1.0.1")); vi.Operator != "migration" || vi.Description != "imported from ten.json entry 6" {
		t.Errorf("index entry = %+v", vi)
	}

	// Running it again leaves every (slug, branch) whose HEAD holds the
	// entry's content unchanged; the file's two coding-agent entries are
	// applied in turn again.
	again, err := s.Migrate(m, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range again.Entries {
		want := ActionUnchanged
		if e.Slug == "coding-agent" {
			want = ActionAppend
		}
		if e.Action != want {
			t.Errorf("second run: entry %d %s, want %s", e.Entry, e.Action, want)
		}
	}
}

func TestDecodeMigrationErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"decode_errors.yaml", []string{
			`line 6: entry 1: unknown key "sectons" (known: branch, inherits_from, metadata, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, type)`,
			`line 10: entry 2: policy_parameters.health_threshold.level: want a number, a name or a list of names, got a mapping`,
		}},
		{"decode_errors.json", []string{
			`line 3: entry 1: unknown key "sectons" (known: branch, inherits_from, metadata, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, type)`,
			`line 4: entry 2: health_threshold: want a number, a name or a list of names, got {"level": "high"}`,
			`line 6: entry 3: sections.identity: key given twice`,
			`line 7: entry 4: sections.identity: want text, got 5`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m := readMigration(t, tt.file)
			var got []string
			for _, p := range m.Problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(m.Entries) != 4 && len(m.Entries) != 5 {
				t.Errorf("%d entries, want every entry kept", len(m.Entries))
			}
		})
	}
	for _, tt := range []struct{ name, data, want string }{
		{"x.json", `{"slug": "a"}`, "line 1: want a list of entries (slug, type, branch, sections, ...)"},
		{"x.json", `[{"slug": "a"},]`, "line 1: invalid JSON: invalid character ']' looking for beginning of value"},
		{"x.json", "[\n{\"slug\": \"a\"}\n] x", "line 3: unexpected data after the list of entries"},
		{"x.yaml", "slug: a\n", "line 1: want a list of entries (slug, type, branch, sections, ...)"},
		{"x.yaml", "- slug: [a\n", "line 1: invalid YAML: did not find expected ',' or ']'"},
		{"x.yaml", "", "empty file: want a list of entries"},
		{"x.yaml", "- slug: a\n---\n- slug: b\n", "line 2: a second YAML document is not allowed"},
	} {
		m := DecodeMigration(tt.name, []byte(tt.data))
		if len(m.Problems) != 1 || m.Problems[0].String() != tt.want {
			t.Errorf("DecodeMigration(%q) problems = %v, want %q", tt.data, m.Problems, tt.want)
		}
	}
}

// Problems found only when planning (a missing parent, a new branch of a
// slug without main) name the entry and field.
func TestMigratePlanProblems(t *testing.T) {
	s := testStore(t)
	data := `[
 {"slug": "a", "inherits_from": "nobody", "sections": {"x": "y"}},
 {"slug": "b", "branch": "exp", "sections": {"x": "y"}},
 {"sections": {"x": "y"}},
 {"slug": "c", "sections": {"x": "y"}, "policy_parameters": {}}
]`
	plan, err := s.Migrate(DecodeMigration("p.json", []byte(data)), true)
	if !errors.Is(err, ErrInvalidMigration) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, p := range plan.Problems {
		got = append(got, p.String())
	}
	want := []string{
		`line 2: entry 0: inherits_from: writing a@v1.0.0: inherits_from: nobody: no prompt with slug "nobody": no such version`,
		`line 3: entry 1: branch: "exp": the slug b has no main branch to fork it from (give an entry on main first)`,
		"line 4: entry 2: slug: missing: every entry names its prompt's slug",
		"line 5: entry 3: policy_parameters: empty (leave the key out, or give every parameter)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func FuzzDecodeMigration(f *testing.F) {
	for _, name := range []string{"ten.json", "decode_errors.json", "decode_errors.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "migrate", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, data)
	}
	f.Add("m.yaml", []byte("- slug: a\n  metadata: {x: &a [1, *a]}\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if strings.ContainsAny(name, "/\x00") {
			return
		}
		m := DecodeMigration(name, data)
		for _, p := range m.Problems {
			if p.Entry < -1 || p.Entry >= len(m.Entries) || p.Msg == "" {
				t.Fatalf("bad problem %+v for %d entries", p, len(m.Entries))
			}
		}
		bad := map[int]bool{}
		for _, p := range m.Problems {
			bad[p.Entry] = true
		}
		// Every decoded entry that validates makes a prompt that encodes
		// and decodes back to itself.
		for i := range m.Entries {
			if bad[i] || bad[-1] {
				continue
			}
			p := m.Entries[i].Prompt()
			p.Version = prompt.Version{Major: 1, Minor: 0, Patch: 0}
			if p.Validate() != nil {
				continue
			}
			enc, err := prompt.Encode(p)
			if err != nil {
				t.Fatalf("entry %d validates but does not encode: %v", i, err)
			}
			q, err := prompt.Decode("again.yaml", enc)
			if err != nil {
				t.Fatalf("entry %d: canonical encoding does not decode: %v\n%s", i, err, enc)
			}
			if enc2, err := prompt.Encode(q); err != nil || string(enc2) != string(enc) {
				t.Fatalf("entry %d: encoding is not stable: %v\n%s\nvs\n%s", i, err, enc, enc2)
			}
		}
	})
}

// A YAML entry with several mistakes gets every problem at once, in line
// order; the entries around it are unaffected.
func TestDecodeMigrationEveryProblemOfAnEntry(t *testing.T) {
	data := "- slug: ok\n  sections:\n    identity: Fine.\n- slug: bad\n  sectons: {identity: typo}\n  policy_parameters:\n    health_threshold: {level: high}\n    max_combat_attempts: [2.5]\n  tagz: [x]\n"
	m := DecodeMigration("m.yaml", []byte(data))
	var got []string
	for _, p := range m.Problems {
		got = append(got, p.String())
	}
	keys := "branch, inherits_from, metadata, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, type"
	want := []string{
		`line 5: entry 1: unknown key "sectons" (known: ` + keys + `)`,
		`line 7: entry 1: policy_parameters.health_threshold.level: want a number, a name or a list of names, got a mapping`,
		`line 9: entry 1: unknown key "tagz" (known: ` + keys + `)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A dry run writes nothing: not the store's directory, not its lock file,
// whether the store exists or not; its plan equals the one of an existing
// empty store.
func TestMigrateDryRunWritesNothing(t *testing.T) {
	m := readMigration(t, "ten.json")
	dir := filepath.Join(t.TempDir(), "prompts")
	now := func() time.Time { return t0 }
	plan, err := PlanMigration(dir, m, guard.Default(), now)
	if !errors.Is(err, ErrInvalidMigration) || plan.Applied || !plan.DryRun || len(plan.Entries) != 10 {
		t.Fatalf("PlanMigration: err = %v, plan %+v", err, plan)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run of a missing store created %s (stat: %v)", dir, err)
	}
	// An existing store: the dry run leaves its files as they were.
	s := testStore(t)
	if _, err := s.Append(sectioned("keep", "identity", "Kept."), "create", ""); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(s.Dir(), "versions.lock"))
	before := listFiles(t, s.Dir())
	dry, err := s.Migrate(m, true)
	if !errors.Is(err, ErrInvalidMigration) || dry.Applied {
		t.Fatalf("dry run: err = %v", err)
	}
	if after := listFiles(t, s.Dir()); after != before {
		t.Errorf("a dry run changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if strings.Join(summary(dry), "\n") != strings.Join(summary(plan), "\n") {
		t.Errorf("plans differ:\n%s\n%s", strings.Join(summary(dry), "\n"), strings.Join(summary(plan), "\n"))
	}
}

// listFiles lists the files under dir with their sizes.
func listFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		fmt.Fprintf(&b, "%s:%d ", strings.TrimPrefix(path, dir), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
