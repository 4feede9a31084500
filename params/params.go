// Package params holds policy parameters: the mutable part of a prompt,
// declared by the agent or environment that reads them as a schema of
// typed fields, and stored in a prompt as an ordered set of values.
//
// A Schema is one table of fields (name, kind, range, step, items, doc).
// It is the only place a parameter is spelled: validation, mutation
// (package mutate), the prompt codec and the process protocol all loop over
// it. The kinds are
//
//   - Number: a real in [Min, Max]; mutation steps by Step and rounds to 3
//     decimals;
//   - Integer: a whole number in [Min, Max]; mutation steps by Step;
//   - Enum: one of Items; mutation moves to the next or previous item;
//   - Ordering: a permutation of Items (e.g. a skill priority); mutation
//     moves one item to the front or back, or rotates.
//
// A Set is the values of one prompt, in the order of its document (which,
// for a prompt derived by mutation, is the order of its ancestor). Sets are
// values: methods that change one return a copy.
package params

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the type of a parameter.
type Kind uint8

// The kinds of parameter.
const (
	Number   Kind = iota + 1 // a real in [Min, Max]
	Integer                  // a whole number in [Min, Max]
	Enum                     // one of Items
	Ordering                 // a permutation of Items
)

var kindNames = map[Kind]string{Number: "number", Integer: "integer", Enum: "enum", Ordering: "ordering"}

// String returns "number", "integer", "enum" or "ordering".
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind named s, or an error naming s.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown parameter type %q (want number, integer, enum or ordering)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	*k = v
	return err
}

// Field declares one parameter.
type Field struct {
	// Name is the parameter's key in a prompt's policy_parameters and in
	// the process protocol: lower-case letters, digits and '_', starting
	// with a letter, at most 64 bytes.
	Name string `json:"name" yaml:"name"`
	// Kind is the parameter's type.
	Kind Kind `json:"type" yaml:"type"`
	// Min and Max bound a Number or Integer, inclusive (Min <= Max;
	// whole numbers for an Integer).
	Min float64 `json:"min,omitempty" yaml:"min,omitempty"`
	Max float64 `json:"max,omitempty" yaml:"max,omitempty"`
	// Step is the mutation step of a Number or Integer, > 0 (a whole
	// number for an Integer).
	Step float64 `json:"step,omitempty" yaml:"step,omitempty"`
	// Items are the values of an Enum or the elements of an Ordering:
	// at least 2, distinct, non-empty.
	Items []string `json:"items,omitempty" yaml:"items,omitempty"`
	// Unit names the unit of a Number or Integer ("turns", "fraction of
	// max HP"); may be empty.
	Unit string `json:"unit,omitempty" yaml:"unit,omitempty"`
	// Doc says what the parameter does; may be empty.
	Doc string `json:"doc,omitempty" yaml:"doc,omitempty"`
	// Default is the value Schema.Defaults gives the parameter, as
	// decoded from JSON or YAML: a number (Number, Integer), a string
	// (Enum) or a list of strings (Ordering); nil for the kind's default.
	Default any `json:"default,omitempty" yaml:"default,omitempty"`
}

// DefaultValue returns f's declared Default as a Value, or the kind's
// default when none is declared: a Number or Integer at the middle of its
// range rounded down to a step from Min, an Enum at its first item, an
// Ordering in declared order. An error says why a declared Default is not
// a value of f.
func (f *Field) DefaultValue() (Value, error) {
	if f.Default == nil {
		switch f.Kind {
		case Number, Integer:
			mid := f.Min
			if f.Step > 0 {
				mid += math.Floor((f.Max-f.Min)/2/f.Step) * f.Step
			}
			return Value{Kind: f.Kind, Num: mid}, nil
		case Enum:
			if len(f.Items) > 0 {
				return EnumValue(f.Items[0]), nil
			}
		case Ordering:
			return OrderingValue(f.Items), nil
		}
		return Value{}, fmt.Errorf("%s: no default for a %s without items", f.Name, f.Kind)
	}
	var v Value
	switch d := f.Default.(type) {
	case float64:
		v = Value{Kind: f.Kind, Num: d}
	case int:
		v = Value{Kind: f.Kind, Num: float64(d)}
	case int64:
		v = Value{Kind: f.Kind, Num: float64(d)}
	case json.Number:
		x, err := d.Float64()
		if err != nil {
			return Value{}, fmt.Errorf("%s: default %s: %w", f.Name, d, err)
		}
		v = Value{Kind: f.Kind, Num: x}
	case string:
		v = EnumValue(d)
	case []string:
		v = OrderingValue(d)
	case []any:
		items := make([]string, len(d))
		for i, it := range d {
			s, ok := it.(string)
			if !ok {
				return Value{}, fmt.Errorf("%s: default: item %d is %v, not a name", f.Name, i, it)
			}
			items[i] = s
		}
		v = OrderingValue(items)
	default:
		return Value{}, fmt.Errorf("%s: default %v (%T) is not a number, a name or a list of names", f.Name, d, d)
	}
	if (f.Kind == Number || f.Kind == Integer) && v.Kind != f.Kind {
		return Value{}, fmt.Errorf("%s: default %v is not a %s", f.Name, f.Default, f.Kind)
	}
	if err := f.check(v); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return Value{}, fmt.Errorf("default: %s", pe.Detail())
		}
		return Value{}, fmt.Errorf("default: %w", err)
	}
	return v, nil
}

// Allowed describes the values f allows: "[0, 1]", "one of [a b c]",
// "a permutation of [a b c]".
func (f *Field) Allowed() string {
	switch f.Kind {
	case Enum:
		return "one of [" + strings.Join(f.Items, " ") + "]"
	case Ordering:
		return "a permutation of [" + strings.Join(f.Items, " ") + "]"
	}
	return fmt.Sprintf("[%s, %s]", FormatNumber(f.Min), FormatNumber(f.Max))
}

// Schema is the table of an agent's or environment's parameters, in their
// canonical order.
type Schema []Field

// Field returns the field named name, or nil.
func (s Schema) Field(name string) *Field {
	for i := range s {
		if s[i].Name == name {
			return &s[i]
		}
	}
	return nil
}

// Names returns the fields' names in order.
func (s Schema) Names() []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].Name
	}
	return out
}

// ValidName reports whether name is a valid parameter name (see Field).
func ValidName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Check returns an error naming the first field of s that is not a valid
// declaration: a bad or repeated name, an unknown kind, an empty or
// inverted range, a non-positive step, fewer than 2 items or a repeated
// item.
func (s Schema) Check() error {
	seen := map[string]bool{}
	for i := range s {
		f := &s[i]
		where := fmt.Sprintf("parameters[%d] (%s)", i, f.Name)
		if !ValidName(f.Name) {
			return fmt.Errorf("parameters[%d]: name %q: want lower-case letters, digits and _, starting with a letter, at most 64 bytes", i, f.Name)
		}
		if seen[f.Name] {
			return fmt.Errorf("%s: the name is declared twice", where)
		}
		seen[f.Name] = true
		switch f.Kind {
		case Number, Integer:
			if !finite(f.Min) || !finite(f.Max) || f.Min > f.Max {
				return fmt.Errorf("%s: range [%v, %v] is empty or not finite", where, f.Min, f.Max)
			}
			if !finite(f.Step) || f.Step <= 0 {
				return fmt.Errorf("%s: step %v must be a positive number", where, f.Step)
			}
			if f.Kind == Integer && (f.Min != math.Trunc(f.Min) || f.Max != math.Trunc(f.Max) || f.Step != math.Trunc(f.Step)) {
				return fmt.Errorf("%s: an integer's min, max and step must be whole numbers, got [%v, %v] step %v", where, f.Min, f.Max, f.Step)
			}
			if len(f.Items) > 0 {
				return fmt.Errorf("%s: a %s has no items", where, f.Kind)
			}
			if f.Default != nil {
				if _, err := f.DefaultValue(); err != nil {
					return fmt.Errorf("%s: %v", where, err)
				}
			}
		case Enum, Ordering:
			if len(f.Items) < 2 {
				return fmt.Errorf("%s: an %s needs at least 2 items, got %d", where, f.Kind, len(f.Items))
			}
			items := map[string]bool{}
			for _, it := range f.Items {
				if it == "" || items[it] {
					return fmt.Errorf("%s: item %q is empty or repeated", where, it)
				}
				items[it] = true
			}
			if f.Default != nil {
				if _, err := f.DefaultValue(); err != nil {
					return fmt.Errorf("%s: %v", where, err)
				}
			}
		default:
			return fmt.Errorf("%s: unknown type %v", where, f.Kind)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Value is one parameter's value: Num for a Number or Integer, Str for an
// Enum, List for an Ordering. Which one is set follows Kind.
type Value struct {
	Kind Kind
	Num  float64
	Str  string
	List []string
}

// NumberValue returns a Number holding x.
func NumberValue(x float64) Value { return Value{Kind: Number, Num: x} }

// IntegerValue returns an Integer holding n.
func IntegerValue(n int) Value { return Value{Kind: Integer, Num: float64(n)} }

// EnumValue returns an Enum holding s.
func EnumValue(s string) Value { return Value{Kind: Enum, Str: s} }

// OrderingValue returns an Ordering holding a copy of l.
func OrderingValue(l []string) Value { return Value{Kind: Ordering, List: slices.Clone(l)} }

func (v Value) clone() Value    { v.List = slices.Clone(v.List); return v }
func (v Value) isNumeric() bool { return v.Kind == Number || v.Kind == Integer }

// Equal reports whether v and w are the same value. A Number and an
// Integer are equal when their numbers are.
func (v Value) Equal(w Value) bool {
	switch {
	case v.isNumeric() && w.isNumeric():
		return v.Num == w.Num
	case v.Kind != w.Kind:
		return false
	case v.Kind == Enum:
		return v.Str == w.Str
	}
	return slices.Equal(v.List, w.List)
}

// String formats v as written in a description: a number in its shortest
// form, an enum as is, an ordering as "[a b c]".
func (v Value) String() string {
	switch v.Kind {
	case Number, Integer:
		return FormatNumber(v.Num)
	case Enum:
		return v.Str
	case Ordering:
		return "[" + strings.Join(v.List, " ") + "]"
	}
	return "?"
}

// FormatNumber formats x in its shortest round-tripping form ("0.3",
// "100").
func FormatNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Param is one named value of a Set.
type Param struct {
	Name  string
	Value Value
}

// Set is a prompt's policy parameters in document order. The zero Set
// (nil) means "no policy parameters".
type Set []Param

// Get returns the value named name and whether s has it.
func (s Set) Get(name string) (Value, bool) {
	for _, p := range s {
		if p.Name == name {
			return p.Value, true
		}
	}
	return Value{}, false
}

// Number returns the number named name (a Number or an Integer), or NaN
// if s has no such numeric parameter.
func (s Set) Number(name string) float64 {
	v, ok := s.Get(name)
	if !ok || !v.isNumeric() {
		return math.NaN()
	}
	return v.Num
}

// Int returns the number named name truncated to an int, or 0 if s has no
// such numeric parameter.
func (s Set) Int(name string) int {
	v, ok := s.Get(name)
	if !ok || !v.isNumeric() {
		return 0
	}
	return int(v.Num)
}

// Enum returns the enum value named name, or "".
func (s Set) Enum(name string) string {
	v, _ := s.Get(name)
	return v.Str
}

// Ordering returns the ordering named name (a copy), or nil.
func (s Set) Ordering(name string) []string {
	v, _ := s.Get(name)
	return slices.Clone(v.List)
}

// With returns a copy of s with name set to v (appended if s has no
// such parameter).
func (s Set) With(name string, v Value) Set {
	out := s.Clone()
	for i := range out {
		if out[i].Name == name {
			out[i].Value = v.clone()
			return out
		}
	}
	return append(out, Param{Name: name, Value: v.clone()})
}

// Clone returns a deep copy of s.
func (s Set) Clone() Set {
	if s == nil {
		return nil
	}
	out := make(Set, len(s))
	for i, p := range s {
		out[i] = Param{Name: p.Name, Value: p.Value.clone()}
	}
	return out
}

// Equal reports whether s and t hold the same names with equal values, in
// the same order.
func (s Set) Equal(t Set) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i].Name != t[i].Name || !s[i].Value.Equal(t[i].Value) {
			return false
		}
	}
	return true
}

// String formats s on one line: "name=value name=value ...".
func (s Set) String() string {
	parts := make([]string, len(s))
	for i, p := range s {
		parts[i] = p.Name + "=" + p.Value.String()
	}
	return strings.Join(parts, " ")
}

// Error is a parameter value that its schema does not allow.
type Error struct {
	Field   string // the parameter, e.g. "health_threshold" or "skill_priority[2]"
	Value   string // the offending value as written
	Allowed string // what the schema allows, e.g. "[0, 1]"
	// Problem says what is wrong with Value; "" means "is out of range".
	Problem string
}

// Error returns "policy_parameters.FIELD: VALUE PROBLEM, allowed ALLOWED".
func (e *Error) Error() string { return "policy_parameters." + e.Field + ": " + e.Detail() }

// Detail is the error without the field: "VALUE PROBLEM, allowed ALLOWED".
func (e *Error) Detail() string {
	problem := e.Problem
	if problem == "" {
		problem = "is out of range"
	}
	if e.Allowed == "" {
		return e.Value + " " + problem
	}
	return fmt.Sprintf("%s %s, allowed %s", e.Value, problem, e.Allowed)
}

// Validate checks s against the schema: every declared parameter present
// once with a value of its kind in its range, and no undeclared one. It
// returns a *Error for the first problem, in schema order (then set
// order for undeclared names). A Number field accepts an integer value.
func (sc Schema) Validate(s Set) error {
	return errors.Join(sc.Problems(s)...)
}

// Problems returns every problem Validate would report, each a *Error.
func (sc Schema) Problems(s Set) []error {
	var errs []error
	seen := map[string]int{}
	for i, p := range s {
		if j, dup := seen[p.Name]; dup {
			errs = append(errs, &Error{Field: p.Name, Value: p.Value.String(), Problem: fmt.Sprintf("repeats parameter %d", j)})
			continue
		}
		seen[p.Name] = i
	}
	for i := range sc {
		f := &sc[i]
		v, ok := s.Get(f.Name)
		if !ok {
			errs = append(errs, &Error{Field: f.Name, Value: "(missing)", Problem: "is required", Allowed: f.Allowed()})
			continue
		}
		if err := f.check(v); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range s {
		if sc.Field(p.Name) == nil {
			errs = append(errs, &Error{Field: p.Name, Value: p.Value.String(), Problem: "is not a declared parameter",
				Allowed: "[" + strings.Join(sc.Names(), " ") + "]"})
		}
	}
	return errs
}

// check returns a *Error if v is not a value of f.
func (f *Field) check(v Value) error {
	bad := func(problem string) error {
		val := v.String()
		if v.Kind == Enum {
			val = strconv.Quote(v.Str)
		}
		return &Error{Field: f.Name, Value: val, Problem: problem, Allowed: f.Allowed()}
	}
	switch f.Kind {
	case Number, Integer:
		if !v.isNumeric() {
			if f.Kind == Integer {
				return bad("is not an integer")
			}
			return bad("is not a number")
		}
		if f.Kind == Integer && v.Num != math.Trunc(v.Num) {
			return bad("is not an integer")
		}
		if math.IsNaN(v.Num) || v.Num < f.Min || v.Num > f.Max {
			return bad("")
		}
	case Enum:
		if v.Kind != Enum || !slices.Contains(f.Items, v.Str) {
			return bad("is not one of the values")
		}
	case Ordering:
		if v.Kind != Ordering {
			return bad("is not a list")
		}
		if len(v.List) != len(f.Items) {
			return bad(fmt.Sprintf("has %d items, not %d", len(v.List), len(f.Items)))
		}
		pos := map[string]int{}
		for i, it := range v.List {
			field := fmt.Sprintf("%s[%d]", f.Name, i)
			if !slices.Contains(f.Items, it) {
				return &Error{Field: field, Value: strconv.Quote(it), Problem: "is not an item", Allowed: f.Allowed()}
			}
			if j, dup := pos[it]; dup {
				return &Error{Field: field, Value: strconv.Quote(it), Problem: fmt.Sprintf("repeats %s[%d]", f.Name, j), Allowed: f.Allowed()}
			}
			pos[it] = i
		}
	}
	return nil
}

// CheckForm checks what holds for any schema: valid, distinct names,
// finite numbers, non-empty enum values and orderings of distinct
// non-empty names. It returns a *Error for the first problem, or nil (also
// for an empty s).
func CheckForm(s Set) error {
	for i, p := range s {
		if !ValidName(p.Name) {
			return &Error{Field: p.Name, Value: strconv.Quote(p.Name), Problem: "is not a parameter name (lower-case letters, digits and _, starting with a letter)"}
		}
		for _, q := range s[:i] {
			if q.Name == p.Name {
				return &Error{Field: p.Name, Value: p.Value.String(), Problem: "is given twice"}
			}
		}
		v := p.Value
		switch v.Kind {
		case Number, Integer:
			if !finite(v.Num) {
				return &Error{Field: p.Name, Value: v.String(), Problem: "is not a finite number"}
			}
		case Enum:
			if v.Str == "" {
				return &Error{Field: p.Name, Value: `""`, Problem: "is empty"}
			}
		case Ordering:
			for j, it := range v.List {
				field := fmt.Sprintf("%s[%d]", p.Name, j)
				if it == "" {
					return &Error{Field: field, Value: `""`, Problem: "is empty"}
				}
				if k := slices.Index(v.List[:j], it); k >= 0 {
					return &Error{Field: field, Value: strconv.Quote(it), Problem: fmt.Sprintf("repeats %s[%d]", p.Name, k)}
				}
			}
		default:
			return &Error{Field: p.Name, Value: "?", Problem: "has no value"}
		}
	}
	return nil
}

// Coerce returns s with every numeric value given the kind its field
// declares (an integer written for a Number becomes a Number, a whole
// number written for an Integer an Integer). Values of undeclared names
// are kept as they are.
func (sc Schema) Coerce(s Set) Set {
	out := s.Clone()
	for i := range out {
		if f := sc.Field(out[i].Name); f != nil && out[i].Value.isNumeric() && (f.Kind == Number || f.Kind == Integer) {
			out[i].Value.Kind = f.Kind
		}
	}
	return out
}

// Defaults returns a Set with each field of sc at its DefaultValue, in
// schema order. It assumes sc passed Check (which checks the declared
// defaults).
func (sc Schema) Defaults() Set {
	var s Set
	for i := range sc {
		v, _ := sc[i].DefaultValue()
		s = append(s, Param{Name: sc[i].Name, Value: v})
	}
	return s
}

// MarshalJSON writes s as one JSON object in s's order: numbers as JSON
// numbers, enums as strings, orderings as arrays of strings.
func (s Set) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Name)
		b.Write(k)
		b.WriteByte(':')
		var v []byte
		var err error
		switch p.Value.Kind {
		case Number, Integer:
			if !finite(p.Value.Num) {
				return nil, fmt.Errorf("params: %s is %v, which JSON cannot hold", p.Name, p.Value.Num)
			}
			v = []byte(FormatNumber(p.Value.Num))
		case Enum:
			v, err = json.Marshal(p.Value.Str)
		default:
			v, err = json.Marshal(p.Value.List)
		}
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON reads a JSON object of parameters, keeping the object's
// key order: a number is an Integer if it is whole and written without a
// fraction or exponent, else a Number; a string is an Enum; an array of
// strings an Ordering. Other values are errors naming the key.
func (s *Set) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("params: want a JSON object of parameters, got %v", tok)
	}
	var out Set
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		name := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		v, err := valueFromJSON(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Param{Name: name, Value: v})
	}
	*s = out
	return nil
}

func valueFromJSON(raw json.RawMessage) (Value, error) {
	t := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(t, `"`):
		var s string
		err := json.Unmarshal(raw, &s)
		return EnumValue(s), err
	case strings.HasPrefix(t, `{`), t == "null", t == "true", t == "false":
		return Value{}, fmt.Errorf("want a number, a name or a list of names, got %s", t)
	case strings.HasPrefix(t, `[`):
		var l []string
		if err := json.Unmarshal(raw, &l); err != nil {
			return Value{}, fmt.Errorf("want an array of strings: %w", err)
		}
		return OrderingValue(l), nil
	}
	return ParseNumber(t)
}

// ParseNumber parses a number as written in YAML or JSON: "100" is an
// Integer, "0.3", "1e3" or "100.0" a Number. Errors name the text.
func ParseNumber(t string) (Value, error) {
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !finite(x) {
		return Value{}, fmt.Errorf("%q is not a finite number", t)
	}
	if _, err := strconv.ParseInt(t, 10, 64); err == nil {
		return Value{Kind: Integer, Num: x}, nil
	}
	return NumberValue(x), nil
}
