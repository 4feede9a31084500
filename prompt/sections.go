package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Section is one named block of prompt text ("identity", "constraints",
// "tools"). Rendering shows sections in their order.
type Section struct {
	Name string // a section name (see ValidateSectionName)
	Text string // the section's text, non-blank
}

// Sections is an ordered list of named sections, written in YAML and JSON
// as a mapping from name to text in the same order. Names are unique.
type Sections []Section

// Get returns the text of the section name and whether it exists.
func (ss Sections) Get(name string) (string, bool) {
	for _, s := range ss {
		if s.Name == name {
			return s.Text, true
		}
	}
	return "", false
}

// Names returns the section names in order.
func (ss Sections) Names() []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}

// UnmarshalYAML reads a mapping of section name to text, keeping its
// order. A duplicate name or a value that is not a string is an error at
// its line.
func (ss *Sections) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*ss = nil
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a mapping of section name to text, got %s", n.Line, nodeKind(n))}}
	}
	out := Sections{}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: section %q repeats the one at line %d", k.Line, k.Value, line)}}
		}
		seen[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want text, got %s (quote it to make it text)", v.Line, nodeKind(v))}}
		}
		out = append(out, Section{Name: k.Value, Text: v.Value})
	}
	*ss = out
	return nil
}

// UnmarshalJSON reads an object of section name to text, keeping its
// order; a duplicate name or a non-string value is an error.
func (ss *Sections) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*ss = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &FieldError{"sections", "want an object of section name to text, got " + jsonKind(tok)}
	}
	out := Sections{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // object keys are strings
		var text any
		if err := dec.Decode(&text); err != nil {
			return err
		}
		s, ok := text.(string)
		if !ok {
			return &FieldError{"sections." + name, "want text, got " + jsonKind(text)}
		}
		if seen[name] {
			return &FieldError{"sections." + name, "given twice"}
		}
		seen[name] = true
		out = append(out, Section{Name: name, Text: s})
	}
	*ss = out
	return nil
}

// MarshalJSON writes an object of section name to text in order.
func (ss Sections) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(s.Name)
		v, _ := json.Marshal(s.Text)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// FieldError is a JSON decoding error at a field path of a migration
// entry.
type FieldError struct {
	Field string // the field path, e.g. "sections.identity"
	Msg   string // what is wrong with its value
}

// Error returns "FIELD: MSG".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Metadata is free key-value data about a prompt (owner, notes,
// context_weights for selection). Values are JSON's: nil, bool, int64,
// float64 (finite), string, []any and map[string]any of these, at most
// MaxMetadataDepth deep and MaxMetadataNodes values in all. Keys are
// non-empty. YAML timestamps are kept as the text written.
type Metadata map[string]any

// Limits of Metadata, which bound the work of decoding (YAML aliases can
// otherwise expand a small file into a huge value).
const (
	MaxMetadataDepth = 16    // nesting of mappings and lists
	MaxMetadataNodes = 10000 // values in all
)

// UnmarshalYAML reads a mapping into JSON-compatible values; an
// unsupported value (a non-scalar key, a binary, NaN, too deep or too
// large) is an error at its line.
func (m *Metadata) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		*m = nil
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a mapping, got %s", n.Line, nodeKind(n))}}
	}
	budget := MaxMetadataNodes
	v, err := metaFromYAML(n, 0, &budget)
	if err != nil {
		return &yaml.TypeError{Errors: []string{err.Error()}}
	}
	*m = Metadata(v.(map[string]any))
	return nil
}

func metaFromYAML(n *yaml.Node, depth int, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: metadata has more than %d values", n.Line, MaxMetadataNodes)
	}
	if depth > MaxMetadataDepth {
		return nil, fmt.Errorf("line %d: metadata nests deeper than %d", n.Line, MaxMetadataDepth)
	}
	if n.Kind == yaml.AliasNode {
		return metaFromYAML(n.Alias, depth+1, budget)
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode || k.Value == "" || k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: a metadata key must be non-empty text", k.Line)
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("line %d: metadata key %q is given twice", k.Line, k.Value)
			}
			x, err := metaFromYAML(v, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[k.Value] = x
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, v := range n.Content {
			x, err := metaFromYAML(v, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str", "!!timestamp":
			return n.Value, nil
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %q is not a boolean", n.Line, n.Value)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %q does not fit a 64-bit integer", n.Line, n.Value)
			}
			return i, nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("line %d: %q is not a finite number", n.Line, n.Value)
			}
			return f, nil
		}
		return nil, fmt.Errorf("line %d: metadata value %q of type %s is not supported (want text, a number, a boolean or null)", n.Line, n.Value, n.Tag)
	}
	return nil, fmt.Errorf("line %d: unsupported metadata value", n.Line)
}

// UnmarshalJSON reads an object; integers become int64, other numbers
// float64.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unexpected data after the metadata object")
	}
	if v == nil {
		*m = nil
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &FieldError{"metadata", "want an object, got " + jsonKind(v)}
	}
	budget := MaxMetadataNodes
	x, err := metaFromJSON(obj, 0, &budget)
	if err != nil {
		return &FieldError{"metadata", err.Error()}
	}
	*m = Metadata(x.(map[string]any))
	return nil
}

func metaFromJSON(v any, depth int, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("metadata has more than %d values", MaxMetadataNodes)
	}
	if depth > MaxMetadataDepth {
		return nil, fmt.Errorf("metadata nests deeper than %d", MaxMetadataDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "" {
				return nil, fmt.Errorf("a metadata key must be non-empty text")
			}
			y, err := metaFromJSON(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			x[k] = y
		}
		return x, nil
	case []any:
		for i, e := range x {
			y, err := metaFromJSON(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			x[i] = y
		}
		return x, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s is not a finite number", x)
		}
		return f, nil
	}
	return v, nil // string, bool, nil
}

// Validate checks that every value is of a supported type, every key
// non-empty, floats finite, and the limits kept; errors name the key path
// ("metadata.context_weights.task_coding").
func (m Metadata) Validate() error {
	budget := MaxMetadataNodes
	return checkMeta("metadata", map[string]any(m), 0, &budget)
}

func checkMeta(path string, v any, depth int, budget *int) error {
	if *budget--; *budget < 0 {
		return fmt.Errorf("metadata: more than %d values", MaxMetadataNodes)
	}
	if depth > MaxMetadataDepth {
		return fmt.Errorf("%s: nests deeper than %d", path, MaxMetadataDepth)
	}
	switch x := v.(type) {
	case nil, bool, int64, string:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %v is not a finite number", path, x)
		}
		return nil
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if k == "" {
				return fmt.Errorf("%s: a key is empty", path)
			}
			if err := checkMeta(path+"."+k, x[k], depth+1, budget); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for i, e := range x {
			if err := checkMeta(fmt.Sprintf("%s[%d]", path, i), e, depth+1, budget); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a value of type %T is not supported (want text, a number, a boolean, null, a list or a mapping)", path, v)
}

// Strings calls f with the path and value of every string in m, in key
// order (keys sorted at each level).
func (m Metadata) Strings(f func(path, s string)) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case string:
			f(path, x)
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(path+"."+k, x[k])
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("metadata", map[string]any(m))
}

// clone returns a deep copy of m.
// Clone returns a deep copy of m (nil for nil).
func (m Metadata) Clone() Metadata {
	if m == nil {
		return nil
	}
	return Metadata(cloneMeta(map[string]any(m)).(map[string]any))
}

func cloneMeta(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneMeta(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneMeta(e)
		}
		return out
	}
	return v
}

// metaNode is the canonical YAML of a metadata value: keys sorted, floats
// in their shortest round-tripping form with a '.' or exponent.
func metaNode(v any) *yaml.Node {
	switch x := v.(type) {
	case map[string]any:
		m := mapping()
		for _, k := range sortedKeys(x) {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, metaNode(x[k]))
		}
		if len(x) == 0 {
			m.Style = yaml.FlowStyle
		}
		return m
	case []any:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			s.Content = append(s.Content, metaNode(e))
		}
		if len(x) == 0 {
			s.Style = yaml.FlowStyle
		}
		return s
	case string:
		return str(x)
	case bool:
		return boolean(x)
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}
	case float64:
		return float(x)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Delim:
		if x == '[' {
			return "a list"
		}
		return "an object"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}
