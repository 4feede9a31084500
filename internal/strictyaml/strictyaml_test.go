package strictyaml

import (
	"errors"
	"fmt"
	"strings"
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
		// yaml.v3 alone would truncate these to 1500, 3 and 1.
		{"fractional int", "inner:\n  count: 1500.5\n", `f.yaml:2: inner.count: "1500.5" is not an integer (it has a fractional part)`},
		{"fractional int in map", "map:\n  a: 3.7\n", `f.yaml:2: map.a: "3.7" is not an integer (it has a fractional part)`},
		{"fractional int in list", "list:\n  - count: 1.2\n", `f.yaml:2: list[0].count: "1.2" is not an integer (it has a fractional part)`},
		{"negative fraction", "inner:\n  count: -0.5\n", `f.yaml:2: inner.count: "-0.5" is not an integer (it has a fractional part)`},
		{"infinite int", "inner:\n  count: -.inf\n", `f.yaml:2: inner.count: "-.inf" is not an integer`},
		{"nan int", "inner:\n  count: .nan\n", `f.yaml:2: inner.count: ".nan" is not an integer`},
		{"non-UTF-8", "name: a\ninner:\n  tags: [caf\xe9]\n", "f.yaml:3: invalid UTF-8: byte 0xe9 at column 13 (save the file as UTF-8)"},
		{"quoted fraction", "inner:\n  count: \"1.5\"\n", `f.yaml:2: inner.count: "1.5" is not an integer`},
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

// Only decimal integer literals decode into an integer field: yaml.v3
// alone reads 010 as 8 (YAML 1.1 octal), 0x10 as 16 and 1e1 as 10.
func TestDecodeIntegerLiterals(t *testing.T) {
	for _, tt := range []struct {
		data string
		want int // when ok
		ok   bool
	}{
		{"7", 7, true}, {"-4", -4, true}, {"+3", 3, true}, {"0", 0, true}, {"120", 120, true},
		{"010", 0, false}, {"0x10", 0, false}, {"0o10", 0, false}, {"0b10", 0, false},
		{"1e1", 0, false}, {"1e3", 0, false}, {"2.0", 0, false}, {"-4.0", 0, false},
		{"1_000", 0, false}, {"-010", 0, false}, {"00", 0, false},
	} {
		var out inner
		err := Decode("f.yaml", []byte("alpha: 1\ncount: "+tt.data+"\n"), &out)
		if tt.ok {
			if err != nil || out.Count != tt.want {
				t.Errorf("count: %s: got %d, %v; want %d", tt.data, out.Count, err, tt.want)
			}
			continue
		}
		want := fmt.Sprintf("f.yaml:2: count: %q is not a decimal integer", tt.data)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("count: %s: got %v (count %d), want %s...", tt.data, err, out.Count, want)
		}
	}
}

// Every problem of a document is reported at once, in line order, each
// with its line and field; Validate runs only when every value decoded.
func TestDecodeReportsEveryProblem(t *testing.T) {
	data := "name: [x]\nnmae: b\ninner:\n  count: 3.5\n  alpha: high\n  beta: 1\n  count: 4\nmap:\n  a: x\nlist:\n  - alhpa: 1\n"
	want := []string{
		"f.yaml:1: name: a list is not a string",
		`f.yaml:2: unknown key "nmae" (known: inner, list, map, name, nested, on, params, ptr)`,
		`f.yaml:4: inner.count: "3.5" is not an integer (it has a fractional part)`,
		`f.yaml:5: inner.alpha: "high" is not a number`,
		`f.yaml:6: inner: unknown key "beta" (known: alpha, count, tags)`,
		"f.yaml:7: inner.count: duplicate key (first at line 4)",
		`f.yaml:9: map.a: "x" is not an integer`,
		`f.yaml:11: list[0]: unknown key "alhpa" (known: alpha, count, tags)`,
	}
	var out outer
	err := Decode("f.yaml", []byte(data), &out)
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T (%v) is not Errors", err, err)
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("errors\n got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if n := len(List(err)); n != len(want) {
		t.Errorf("List: %d problems, want %d", n, len(want))
	}
	var first *Error
	if !errors.As(err, &first) || first.Line != 1 {
		t.Errorf("errors.As: first problem %+v, want line 1", first)
	}
	// Validate sees only values as the file gives them: top's Validate
	// would refuse the kept default -1 of inner.alpha, but the file's
	// value is the problem to fix.
	tp := top{Inner: inner{Alpha: -1}}
	err = Decode("f.yaml", []byte("inner:\n  alpha: high\n  count: 1.5\n"), &tp)
	wantTop := "f.yaml:2: inner.alpha: \"high\" is not a number\nf.yaml:3: inner.count: \"1.5\" is not an integer (it has a fractional part)"
	if err == nil || err.Error() != wantTop {
		t.Errorf("top: err = %v, want\n%s", err, wantTop)
	}
}

// A wrong key does not stop Validate: its problem comes with the key's.
func TestValidateAfterKeyProblems(t *testing.T) {
	var out top
	err := Decode("f.yaml", []byte("inner:\n  alpha: -1\n  beta: 2\n"), &out)
	want := "f.yaml:2: inner.alpha: must be >= 0\nf.yaml:3: inner: unknown key \"beta\" (known: alpha, count, tags)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want\n%s", err, want)
	}
}

func TestJoinAndList(t *testing.T) {
	a := &Error{File: "f", Line: 3, Msg: "a"}
	b := &Error{File: "f", Line: 1, Msg: "b"}
	c := &Error{File: "f", Msg: "c"}
	if Join() != nil || Join(nil) != nil {
		t.Error("Join of nothing is not nil")
	}
	if err := Join(nil, a); err != a {
		t.Errorf("Join of one = %v, want the *Error", err)
	}
	if got := Join(a, b, c).Error(); got != "f: c\nf:1: b\nf:3: a" {
		t.Errorf("Join sorted = %q", got)
	}
	if List(errors.New("plain")) != nil || len(List(a)) != 1 || len(List(fmt.Errorf("w: %w", Join(a, b)))) != 2 {
		t.Error("List")
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
