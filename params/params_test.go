package params

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

var schema = Schema{
	{Name: "risk", Kind: Number, Min: 0, Max: 1, Step: 0.1},
	{Name: "patience", Kind: Integer, Min: 1, Max: 50, Step: 5},
	{Name: "strategy", Kind: Enum, Items: []string{"cautious", "balanced", "greedy"}},
	{Name: "priority", Kind: Ordering, Items: []string{"flee", "hide", "forage"}},
}

func TestSchemaCheck(t *testing.T) {
	if err := schema.Check(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		f    Field
		want string
	}{
		{Field{Name: "Risk", Kind: Number, Max: 1, Step: 0.1}, `parameters[0]: name "Risk": want lower-case letters, digits and _, starting with a letter, at most 64 bytes`},
		{Field{Name: "r", Kind: Number, Min: 2, Max: 1, Step: 0.1}, "parameters[0] (r): range [2, 1] is empty or not finite"},
		{Field{Name: "r", Kind: Number, Max: 1}, "parameters[0] (r): step 0 must be a positive number"},
		{Field{Name: "n", Kind: Integer, Max: 10, Step: 0.5}, "parameters[0] (n): an integer's min, max and step must be whole numbers, got [0, 10] step 0.5"},
		{Field{Name: "e", Kind: Enum, Items: []string{"a"}}, "parameters[0] (e): an enum needs at least 2 items, got 1"},
		{Field{Name: "o", Kind: Ordering, Items: []string{"a", "a"}}, `parameters[0] (o): item "a" is empty or repeated`},
		{Field{Name: "r", Kind: Number, Max: 1, Step: 0.1, Default: 2.0}, "parameters[0] (r): default: 2 is out of range, allowed [0, 1]"},
		{Field{Name: "e", Kind: Enum, Items: []string{"a", "b"}, Default: "c"}, `parameters[0] (e): default: "c" is not one of the values, allowed one of [a b]`},
		{Field{Name: "x", Kind: 9}, "parameters[0] (x): unknown type kind(9)"},
	}
	for _, tt := range tests {
		if err := (Schema{tt.f}).Check(); err == nil || err.Error() != tt.want {
			t.Errorf("Check(%+v) = %v\nwant %s", tt.f, err, tt.want)
		}
	}
	if err := (Schema{{Name: "a", Kind: Number, Max: 1, Step: 1}, {Name: "a", Kind: Number, Max: 1, Step: 1}}).Check(); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Errorf("repeated name: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	if got := schema.Defaults().String(); got != "risk=0.5 patience=21 strategy=cautious priority=[flee hide forage]" {
		t.Errorf("Defaults = %s", got)
	}
	declared := Schema{
		{Name: "risk", Kind: Number, Min: 0, Max: 1, Step: 0.1, Default: 0.3},
		{Name: "patience", Kind: Integer, Min: 1, Max: 50, Step: 5, Default: json.Number("11")},
		{Name: "strategy", Kind: Enum, Items: []string{"cautious", "greedy"}, Default: "greedy"},
		{Name: "priority", Kind: Ordering, Items: []string{"flee", "hide"}, Default: []any{"hide", "flee"}},
	}
	if err := declared.Check(); err != nil {
		t.Fatal(err)
	}
	if got := declared.Defaults().String(); got != "risk=0.3 patience=11 strategy=greedy priority=[hide flee]" {
		t.Errorf("declared Defaults = %s", got)
	}
	if err := declared.Validate(declared.Defaults()); err != nil {
		t.Error(err)
	}
}

func TestValidate(t *testing.T) {
	good := Set{
		{Name: "risk", Value: NumberValue(0.3)},
		{Name: "patience", Value: IntegerValue(6)},
		{Name: "strategy", Value: EnumValue("greedy")},
		{Name: "priority", Value: OrderingValue([]string{"forage", "flee", "hide"})},
	}
	if err := schema.Validate(good); err != nil {
		t.Fatal(err)
	}
	// An integer written for a number is a number.
	if err := schema.Validate(good.With("risk", IntegerValue(1))); err != nil {
		t.Errorf("integer for a number: %v", err)
	}
	if got := schema.Coerce(good.With("risk", IntegerValue(1))); got[0].Value.Kind != Number {
		t.Errorf("Coerce kept %v", got[0].Value.Kind)
	}
	tests := []struct {
		s    Set
		want string
	}{
		{good.With("risk", NumberValue(1.5)), "policy_parameters.risk: 1.5 is out of range, allowed [0, 1]"},
		{good.With("patience", NumberValue(2.5)), "policy_parameters.patience: 2.5 is not an integer, allowed [1, 50]"},
		{good.With("strategy", EnumValue("bold")), `policy_parameters.strategy: "bold" is not one of the values, allowed one of [cautious balanced greedy]`},
		{good.With("strategy", IntegerValue(3)), `policy_parameters.strategy: 3 is not one of the values, allowed one of [cautious balanced greedy]`},
		{good.With("priority", OrderingValue([]string{"flee", "flee", "hide"})), `policy_parameters.priority[1]: "flee" repeats priority[0], allowed a permutation of [flee hide forage]`},
		{good.With("extra", IntegerValue(1)), "policy_parameters.extra: 1 is not a declared parameter, allowed [risk patience strategy priority]"},
		{good[1:], "policy_parameters.risk: (missing) is required, allowed [0, 1]"},
	}
	for _, tt := range tests {
		if err := schema.Validate(tt.s); err == nil || err.Error() != tt.want {
			t.Errorf("Validate(%s) = %v\nwant %s", tt.s, err, tt.want)
		}
	}
}

func TestCheckForm(t *testing.T) {
	tests := []struct {
		s    Set
		want string
	}{
		{Set{{Name: "Bad", Value: IntegerValue(1)}}, `policy_parameters.Bad: "Bad" is not a parameter name (lower-case letters, digits and _, starting with a letter)`},
		{Set{{Name: "a", Value: IntegerValue(1)}, {Name: "a", Value: IntegerValue(2)}}, "policy_parameters.a: 2 is given twice"},
		{Set{{Name: "o", Value: OrderingValue([]string{"x", ""})}}, `policy_parameters.o[1]: "" is empty`},
		{Set{{Name: "e", Value: EnumValue("")}}, `policy_parameters.e: "" is empty`},
	}
	for _, tt := range tests {
		if err := CheckForm(tt.s); err == nil || err.Error() != tt.want {
			t.Errorf("CheckForm = %v\nwant %s", err, tt.want)
		}
	}
	if err := CheckForm(nil); err != nil {
		t.Error(err)
	}
}

// JSON and YAML keep the document's order and each value's kind.
func TestCodecs(t *testing.T) {
	in := `{"risk":0.3,"patience":6,"big":1e3,"strategy":"greedy","priority":["hide","flee"]}`
	var s Set
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != "risk=0.3 patience=6 big=1000 strategy=greedy priority=[hide flee]" {
		t.Errorf("decoded %s", got)
	}
	if s[1].Value.Kind != Integer || s[2].Value.Kind != Number {
		t.Errorf("kinds %v %v, want integer and number (1e3 is written as a real)", s[1].Value.Kind, s[2].Value.Kind)
	}
	out, err := json.Marshal(s)
	if err != nil || string(out) != `{"risk":0.3,"patience":6,"big":1000,"strategy":"greedy","priority":["hide","flee"]}` {
		t.Errorf("encoded %s, %v", out, err)
	}
	for _, bad := range []string{`[1]`, `{"a":{"b":1}}`, `{"a":null}`, `{"a":true}`, `{"a":[1]}`} {
		var x Set
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("JSON %s: want error", bad)
		}
	}
	var y struct {
		P Set `yaml:"p"`
	}
	if err := yaml.Unmarshal([]byte("p:\n  risk: 0.3\n  patience: 6\n  one: 1.0\n  strategy: greedy\n  priority: [hide, flee]\n"), &y); err != nil {
		t.Fatal(err)
	}
	if got := y.P.String(); got != "risk=0.3 patience=6 one=1 strategy=greedy priority=[hide flee]" || y.P[2].Value.Kind != Number {
		t.Errorf("YAML decoded %s (kind of one: %v)", got, y.P[2].Value.Kind)
	}
	err = yaml.Unmarshal([]byte("p:\n  a: 1\n  a: 2\n  b: {c: 1}\n  c: .nan\n"), &y)
	if err == nil || !strings.Contains(err.Error(), "line 3: duplicate key (first at line 2)") ||
		!strings.Contains(err.Error(), "line 4: want a number, a name or a list of names, got a mapping") ||
		!strings.Contains(err.Error(), `line 5: ".nan" is not a finite number`) {
		t.Errorf("YAML problems: %v", err)
	}
	// Integer literals other than decimal digits are refused, not read as
	// YAML 1.1 octal (010 = 8) or hexadecimal (0x10 = 16).
	err = yaml.Unmarshal([]byte("p:\n  a: 010\n  b: 0x10\n  c: 1_000\n  d: 10\n  e: 1e1\n"), &y)
	for _, want := range []string{`line 2: "010" is not a decimal integer`, `line 3: "0x10" is not a decimal integer`, `line 4: "1_000"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("YAML integer literals: %v, want %s", err, want)
		}
	}
	if err != nil && (strings.Contains(err.Error(), "line 5") || strings.Contains(err.Error(), "line 6")) {
		t.Errorf("YAML integer literals: %v; 10 and 1e1 (a number) are fine", err)
	}
}

// FuzzUnmarshalJSON: decoding never panics, and what decodes re-encodes to
// JSON that decodes to an equal set.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":0.5,"b":"x","c":["p","q"]}`, `{}`, `{"a":1e400}`, `{"a":-0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var s Set
		if json.Unmarshal([]byte(data), &s) != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			return // a value JSON cannot hold
		}
		var back Set
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(s) {
			t.Fatalf("%s → %s → %v (%v)", data, out, back, err)
		}
	})
}
