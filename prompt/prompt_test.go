package prompt

import (
	"evolve/params"

	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// derived is v1.0.0 → v1.0.1 with a threshold mutation and its evidence.
func derived() *Prompt {
	ps := Base().PolicyParameters.With("health_threshold", params.NumberValue(0.4))
	rec := MutationRecord{
		Version: MustParseVersion("v1.0.1"), PrevVersion: MustParseVersion("v1.0.0"),
		Operator:    "threshold_adjustment",
		Description: "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)",
		Timestamp:   t0,
		Evidence: &Evidence{Test: "mann-whitney-u", Alternative: "greater", PValue: 0.0012, AdjustedPValue: 0.0048,
			Correction: "holm", A12: 0.58, NIncumbent: 300, NCandidate: 300, IncumbentValMean: 536.4,
			CandidateValMean: 601.25, Generation: 0, Accepted: true},
	}
	return Base().Derive(rec.Version, ps, rec, t0)
}

// full has every optional part: identity, tags, metadata, inheritance
// and sections, beside the agent parts.
func full() *Prompt {
	p := derived()
	p.Slug, p.Type, p.Branch = "coding-agent", TypeSystem, "exp-2"
	p.Tags = []string{"coding", "team:agents"}
	p.Metadata = Metadata{"owner": "ana", "context_weights": map[string]any{"task_coding": 0.8, "energy_high": -0.3},
		"reviewed": true, "runs": int64(3), "notes": []any{"a", nil, 1.0}}
	p.InheritsFrom = &Ref{Slug: "base-agent", Version: MustParseVersion("v1.2.0")}
	p.OverrideSections = []string{"tools"}
	p.Sections = Sections{{"tools", "You carry a compiler."}, {"style", "Answer with code.\nBe terse.\n"}}
	return p
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update if intended):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestEncodeGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *Prompt
	}{{"base.golden.yaml", Base()}, {"derived.golden.yaml", derived()}, {"full.golden.yaml", full()}} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Encode(tc.p.Clone())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, data)
			// Round trip: decoding gives the same prompt, re-encoding the
			// same bytes.
			q, err := Decode(tc.name, data)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Encode(q.Clone())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs:\n%s\nvs\n%s", again, data)
			}
			want := tc.p.Clone()
			Encode(want) // sets ContentSHA256
			if !reflect.DeepEqual(q, want) {
				t.Errorf("Decode(Encode(p)) = %+v, want %+v", q, want)
			}
		})
	}
}

// The embedded base file is already canonical: Encode(Base()) reproduces
// it apart from the hash line.
func TestBaseIsCanonical(t *testing.T) {
	b := Base()
	want := "health_threshold=0.3 hunger_threshold=0.5 max_exploration_steps=100 max_combat_attempts=3 risk_tolerance=0.5 skill_priority=[explore fight eat use_item flee]"
	if b.Version.String() != "v1.0.0" || b.PolicyParameters.String() != want {
		t.Fatalf("Base() = %s %v, want v1.0.0 with %s (the design note's parameters)", b.Version, b.PolicyParameters, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	base := string(BaseYAML())
	edit := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("base lacks %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	encodedDerived, err := Encode(derived())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "p.yaml: empty document"},
		{"syntax", "version: [v1\n", "p.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"not a mapping", "- a\n- b\n", "p.yaml:1: want a mapping of branch, content_sha256, inherits_from, metadata, mutation_history, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, timestamp, type, version, got a sequence"},
		{"unknown key", edit("mutation_history: []", "mutation_history: []\nnotes: hi"),
			`p.yaml:34: unknown key "notes" (known: branch, content_sha256, inherits_from, metadata, mutation_history, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, timestamp, type, version)`},
		{"mapping as a value", edit("max_combat_attempts: 3", "max_combat_attempts: {a: 1}"),
			`p.yaml:25: policy_parameters.max_combat_attempts.a: want a number, a name or a list of names, got a mapping`},
		{"bad parameter name", edit("  risk_tolerance: 0.5", "  risk_tolerance: 0.5\n  Patience: 3"),
			`p.yaml:27: policy_parameters.Patience: "Patience" is not a parameter name (lower-case letters, digits and _, starting with a letter)`},
		{"duplicate key", edit("  risk_tolerance: 0.5", "  risk_tolerance: 0.5\n  risk_tolerance: 0.6"),
			`p.yaml:27: policy_parameters.risk_tolerance: duplicate key (first at line 26)`},
		{"NaN threshold", edit("hunger_threshold: 0.5", "hunger_threshold: .nan"),
			`p.yaml:23: policy_parameters.hunger_threshold: ".nan" is not a finite number`},
		{"bad version", edit("version: v1.0.0", "version: 1.0"),
			`p.yaml:1: version: invalid version "1.0": want vMAJOR.MINOR.PATCH, e.g. v1.0.0`},
		{"repeated skill", edit("    - flee", "    - explore"),
			`p.yaml:32: policy_parameters.skill_priority[4]: "explore" repeats skill_priority[0]`},
		{"missing task", edit("task_definition: |", "task_definition: \"\"\nx_task: |"),
			`p.yaml:4: unknown key "x_task" (known: branch, content_sha256, inherits_from, metadata, mutation_history, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, timestamp, type, version)`},
		{"empty task", base[:strings.Index(base, "task_definition:")] + "task_definition: \" \"\n" + base[strings.Index(base, "rules_constraints:"):],
			"p.yaml:3: task_definition: empty"},
		{"history for another version", strings.Replace(string(encodedDerived), "version: v1.0.1\n", "version: v1.0.2\n", 1),
			"p.yaml:33: mutation_history: last record is for v1.0.1, not this version v1.0.2"},
		{"edited after writing", strings.Replace(string(encodedDerived), "health_threshold: 0.4", "health_threshold: 0.5", 1),
			"p.yaml: content hash mismatch: content_sha256 records "},
	}
	// The optional parts: identity, tags, sections, inheritance, metadata.
	const secs = "sections: {a: b}\n"
	tests = append(tests, []struct{ name, data, want string }{
		{"bad slug", "version: v1.0.0\nslug: Bad Slug\n" + secs,
			`p.yaml:2: slug: invalid slug "Bad Slug": want lowercase letters and digits in words joined by single hyphens, e.g. dungeon-agent, at most 64 characters`},
		{"bad type", "version: v1.0.0\ntype: robot\n" + secs, `p.yaml:2: type: invalid type "robot": allowed system, user, assistant, tool`},
		{"branch like a version", "version: v1.0.0\nbranch: v1.0.0\n" + secs, `p.yaml:2: branch: invalid branch "v1.0.0": a branch may not be named like a version`},
		{"repeated tag", "version: v1.0.0\ntags: [a, a]\n" + secs, `p.yaml:2: tags[1]: "a" repeats tags[0]`},
		{"section not text", "version: v1.0.0\nsections:\n  identity: 5\n", `p.yaml:3: sections.identity: want text, got "5" (quote it to make it text)`},
		{"section name", "version: v1.0.0\nsections:\n  Identity: x\n",
			`p.yaml:3: sections.Identity: invalid section name "Identity": want a lowercase letter, then lowercase letters, digits and '_', e.g. tool_use, at most 64 characters`},
		{"repeated section", "version: v1.0.0\nsections:\n  a: x\n  a: y\n", `p.yaml:4: sections.a: section "a" repeats the one at line 3`},
		{"override without parent", "version: v1.0.0\noverride_sections: [a]\n" + secs, "p.yaml:2: override_sections: only a prompt with inherits_from overrides sections"},
		{"override of a missing section", "version: v1.0.0\nslug: a\ninherits_from: b\noverride_sections: [c]\n" + secs,
			`p.yaml:4: override_sections[0]: "c" is not a section of this prompt (it overrides the parent's section of the same name)`},
		{"bad reference", "version: v1.0.0\ninherits_from: x@\n" + secs,
			`p.yaml:2: inherits_from: invalid prompt reference "x@": invalid branch "": want lowercase letters and digits in words joined by single '.', '_' or '-', e.g. exp-2, at most 64 characters`},
		{"inherits from itself", "version: v1.0.0\nslug: a\ninherits_from: a@v0.9.0\n" + secs,
			"p.yaml:3: inherits_from: a@v0.9.0 is this prompt's own slug; a prompt cannot inherit from itself"},
		{"NaN metadata", "version: v1.0.0\nmetadata:\n  a: .nan\n" + secs, `p.yaml:3: metadata.a: ".nan" is not a finite number`},
		{"binary metadata", "version: v1.0.0\nmetadata:\n  a: !!binary aGk=\n" + secs,
			`p.yaml:3: metadata.a: metadata value "aGk=" of type !!binary is not supported (want text, a number, a boolean or null)`},
		{"empty task key", "version: v1.0.0\ntask_definition: \"\"\n" + secs, "p.yaml:2: task_definition: empty (leave the key out, or give a value)"},
		{"empty parameters", "version: v1.0.0\npolicy_parameters: {}\n" + secs, "p.yaml:2: policy_parameters: empty (leave the key out, or give a value)"},
		{"no content", "version: v1.0.0\n", "p.yaml:1: the prompt has no content: give sections, a task_definition or policy_parameters (or inherits_from)"},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("p.yaml", []byte(tt.data))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if tt.name == "edited after writing" {
				if !errors.Is(err, ErrHashMismatch) || !strings.HasPrefix(err.Error(), tt.want) ||
					!strings.Contains(err.Error(), "(the file was edited after it was written, and a stored version is immutable; to use the edited file as a new prompt, delete its content_sha256 line") {
					t.Errorf("err = %v, want ErrHashMismatch starting %q", err, tt.want)
				}
				return
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(BaseYAML())
	if d, err := Encode(derived()); err == nil {
		f.Add(d)
	}
	f.Add([]byte("version: v1.0.0\n"))
	if d, err := Encode(full()); err == nil {
		f.Add(d)
	}
	f.Add([]byte("version: v1.0.0\nslug: a\nmetadata: {x: &a [1, *a, {y: *a}]}\nsections: {s: t}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		enc, err := Encode(p.Clone())
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		q, err := Decode("again.yaml", enc)
		if err != nil {
			t.Fatalf("canonical encoding does not decode: %v\n%s", err, enc)
		}
		enc2, err := Encode(q.Clone())
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %v\n%s\nvs\n%s", err, enc, enc2)
		}
	})
}

func TestRender(t *testing.T) {
	r := derived().Render()
	for _, want := range []string{"NetHack", "health_threshold", "0.4", "explore"} {
		if !strings.Contains(r, want) {
			t.Errorf("Render lacks %q:\n%s", want, r)
		}
	}
	if r != derived().Render() {
		t.Error("Render is not a pure function")
	}
}
