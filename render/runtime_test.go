package render

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeRuntime(t *testing.T) {
	full := Runtime{Turn: 12, Observation: "|..@d.|\nHP:10(12)\n",
		History: []Message{{Role: "user", Content: "Turn 11."}, {Role: "assistant", Content: "fight"}},
		Vars:    map[string]string{"session_context": "Level 1"}}
	tests := []struct {
		name string
		data string
		want Runtime
		err  string // the error's text after "vars.yaml: ", if any
	}{
		{"yaml", "turn: 12\nobservation: |\n  |..@d.|\n  HP:10(12)\nhistory:\n  - {role: user, content: \"Turn 11.\"}\n  - {role: assistant, content: fight}\nvars: {session_context: \"Level 1\"}\n", full, ""},
		{"json", `{"turn": 12, "observation": "|..@d.|\nHP:10(12)\n", "history": [{"role": "user", "content": "Turn 11."}, {"role": "assistant", "content": "fight"}], "vars": {"session_context": "Level 1"}}`, full, ""},
		{"json surrogate pair", `{"observation": "\ud83d\ude00"}`, Runtime{Observation: "😀"}, ""},
		{"empty yaml", "", Runtime{}, ""},
		{"yaml unknown key", "turn: 1\nbogus: 2\n", Runtime{}, "yaml: unmarshal errors:\n  line 2: field bogus not found in type render.Runtime"},
		{"json unknown key", `{"turn": 1, "bogus": 2}`, Runtime{}, `json: unknown field "bogus"`},
		{"wrong type", "turn: many\n", Runtime{}, "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `many` into int"},
		{"two documents", "turn: 1\n---\nturn: 2\n", Runtime{}, "more than one document"},
		{"syntax error", "turn: [\n", Runtime{}, "yaml: line 1: did not find expected node content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeRuntime("vars.yaml", []byte(tt.data))
			if tt.err != "" {
				if err == nil || err.Error() != "vars.yaml: "+tt.err {
					t.Errorf("err = %v, want %q", err, "vars.yaml: "+tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeRuntime = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// DecodeRuntime never panics, and what it accepts as JSON survives a
// round trip through encoding/json.
func FuzzDecodeRuntime(f *testing.F) {
	for _, s := range []string{"turn: 3\nobservation: hi\n", `{"turn": 2, "history": [{"role": "user", "content": "x"}]}`,
		"vars: {a: b}\n---\n", "history: [1, 2]", `{"observation": "\ud83d"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rt, err := DecodeRuntime("f", []byte(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		data, err := json.Marshal(rt)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeRuntime("f", data)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", data, err)
		}
		if !reflect.DeepEqual(normal(back), normal(rt)) {
			t.Errorf("round trip: %+v, want %+v", back, rt)
		}
	})
}

// normal makes empty collections nil, as a JSON round trip may not keep
// the difference.
func normal(rt Runtime) Runtime {
	if len(rt.History) == 0 {
		rt.History = nil
	}
	if len(rt.Vars) == 0 {
		rt.Vars = nil
	}
	return rt
}
