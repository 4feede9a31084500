package strictyaml

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

type inner struct {
	Alpha float64  `yaml:"alpha"`
	Tags  []string `yaml:"tags"`
	Count int      `yaml:"count"`
}

// Validate implements Validator.
func (i inner) Validate() error {
	if i.Alpha < 0 {
		return errors.New("alpha: must be >= 0")
	}
	return nil
}

type outer struct {
	Name   string           `yaml:"name"`
	On     bool             `yaml:"on"`
	Inner  inner            `yaml:"inner"`
	List   []inner          `yaml:"list"`
	Params yaml.Node        `yaml:"params"`
	Map    map[string]int   `yaml:"map"`
	Skip   string           `yaml:"-"`
	Ptr    *inner           `yaml:"ptr,omitempty"`
	Nested map[string]inner `yaml:"nested"`
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "f.yaml: empty document"},
		{"syntax", "name: [x\n", "f.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		{"unknown top key", "name: a\nnmae: b\n", `f.yaml:2: unknown key "nmae" (known: inner, list, map, name, nested, on, params, ptr)`},
		{"unknown nested key", "inner:\n  alpha: 1\n  beta: 2\n", `f.yaml:3: inner: unknown key "beta" (known: alpha, count, tags)`},
		{"unknown key in list element", "list:\n  - alpha: 1\n  - alhpa: 2\n", `f.yaml:3: list[1]: unknown key "alhpa" (known: alpha, count, tags)`},
		{"unknown key in map value", "nested:\n  a:\n    cnt: 1\n", `f.yaml:3: nested.a: unknown key "cnt" (known: alpha, count, tags)`},
		{"duplicate key", "name: a\nname: b\n", "f.yaml:2: name: duplicate key (first at line 1)"},
		{"int type", "inner:\n  count: many\n", `f.yaml:2: inner.count: "many" is not an integer`},
		{"float type", "inner:\n  alpha: high\n", `f.yaml:2: inner.alpha: "high" is not a number`},
		{"bool type", "on: perhaps\n", `f.yaml:1: on: "perhaps" is not a boolean (true or false)`},
		{"list for scalar", "name:\n  - a\n", "f.yaml:2: name: a list is not a string"},
		{"mapping for scalar", "name:\n  a: 1\n", "f.yaml:2: name: a mapping is not a string"},
		{"bad list element", "inner:\n  tags:\n    - a\n    - [b]\n", "f.yaml:4: inner.tags[1]: a list is not a string"},
		{"not a mapping", "- 1\n", "f.yaml:1: want a mapping of inner, list, map, name, nested, on, params, ptr, got a sequence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out outer
			err := Decode("f.yaml", []byte(tt.data), &out)
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// top validates a nested field; its error is reported at that field.
type top struct {
	Inner inner `yaml:"inner"`
}

// Validate implements Validator.
func (t top) Validate() error {
	if t.Inner.Alpha < 0 {
		return errors.New("inner.alpha: must be >= 0")
	}
	return nil
}

func TestValidator(t *testing.T) {
	var out top
	err := Decode("f.yaml", []byte("inner:\n  count: 1\n  alpha: -1\n"), &out)
	if err == nil || err.Error() != "f.yaml:3: inner.alpha: must be >= 0" {
		t.Errorf("err = %v", err)
	}
	// Nested Validate methods are not called: inner.Validate would refuse.
	var o outer
	if err := Decode("f.yaml", []byte("inner:\n  alpha: -1\n"), &o); err != nil {
		t.Errorf("nested validator called: %v", err)
	}
}

func TestDecodeKeepsDefaultsAndLeavesNodes(t *testing.T) {
	out := outer{Name: "default", Inner: inner{Alpha: 0.5, Count: 3}}
	data := "inner:\n  count: 7\nparams:\n  anything: [1, 2]\nmap:\n  a: 1\n"
	if err := Decode("f.yaml", []byte(data), &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "default" || out.Inner.Alpha != 0.5 || out.Inner.Count != 7 || out.Map["a"] != 1 {
		t.Errorf("decoded %+v", out)
	}
	if out.Params.Kind != yaml.MappingNode || Line(&out.Params, "anything") != 4 {
		t.Errorf("params node kind %v, line of anything %d", out.Params.Kind, Line(&out.Params, "anything"))
	}
	// The node is decoded later, strictly, under its path.
	var in inner
	err := DecodeNode("f.yaml", "params", &out.Params, &in)
	if err == nil || err.Error() != `f.yaml:4: params: unknown key "anything" (known: alpha, count, tags)` {
		t.Errorf("DecodeNode: err = %v", err)
	}
}

func TestLine(t *testing.T) {
	root := Root([]byte("a:\n  b:\n    - x\n    - y: 1\n      z: 2\nc: 3\n"))
	tests := []struct {
		path string
		want int
	}{
		{"a", 1}, {"a.b", 2}, {"a.b[0]", 3}, {"a.b[1]", 4}, {"a.b[1].z", 5}, {"c", 6},
		{"a.missing", 1}, {"a.b[9]", 2}, {"nope", 0},
	}
	for _, tt := range tests {
		if got := Line(root, tt.path); got != tt.want {
			t.Errorf("Line(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
	if Line(nil, "a") != 0 {
		t.Error("Line(nil) != 0")
	}
}

func TestFieldError(t *testing.T) {
	root := Root([]byte("policy:\n  skills:\n    - a\n    - b\n  limit: 3\n"))
	node := root
	for _, tt := range []struct {
		err, want string
	}{
		{"policy.skills[1]: bad", "f.yaml:4: policy.skills[1]: bad"},
		{"policy.limit: too big", "f.yaml:5: policy.limit: too big"},
		{"other: x", "f.yaml:1: other: x"},
		{"no key here", "f.yaml:1: no key here"},
	} {
		if got := FieldError("f.yaml", "", node, errors.New(tt.err)).Error(); got != tt.want {
			t.Errorf("FieldError(%q) = %s, want %s", tt.err, got, tt.want)
		}
	}
}
