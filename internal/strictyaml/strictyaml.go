// Package strictyaml decodes YAML documents strictly: an unknown key, a
// duplicate key, a value of the wrong type (including a fractional number
// for an integer field, which yaml.v3 would truncate, and an integer not
// written in decimal digits: 010, 0x10, 1e1, 2.0) or a second document
// is an error that names the file, the line, the field path and the bad
// value. Every problem of a document is reported at once (see Errors).
// It wraps gopkg.in/yaml.v3, walking its node tree against the target's
// struct fields (by their yaml tags) before decoding. Types that decode
// themselves (yaml.Unmarshaler, encoding.TextUnmarshaler such as
// time.Time) are not walked.
package strictyaml

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Error is a decoding error at a place in a file.
type Error struct {
	File  string // the file name as given to Decode
	Line  int    // 1-based line, 0 if unknown
	Field string // dotted field path, e.g. "environment.params.max_turns"; "" for the document
	Msg   string // what is wrong, naming the bad value and what is allowed
}

// Error returns "FILE:LINE: FIELD: MSG", leaving out an unknown line and an
// empty field.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, each an *Error, sorted by
// line (problems of unknown line, 0, first; problems on one line in the
// order found). Decode returns it when a document has two or more
// problems; errors.As finds its first *Error.
type Errors []*Error

// Error returns one "FILE:LINE: FIELD: MSG" line per problem, joined by
// newlines.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Join sorts problems by line (stably) and returns nil for none, the
// *Error for one and an Errors for more. A nil element is dropped.
func Join(problems ...*Error) error {
	var es Errors
	for _, e := range problems {
		if e != nil {
			es = append(es, e)
		}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Line < es[j].Line })
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return es
}

// List returns the problems of err: the elements of an Errors (also
// wrapped), the *Error itself, or nil if err holds neither.
func List(err error) []*Error {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}

// Validator is implemented by decoded types that check their own values;
// an error it returns is reported at the node's line and field path (see
// FieldError). Decode and DecodeNode call it on out only, not on nested
// values: a type validates its fields in its own Validate.
type Validator interface{ Validate() error }

// Decode parses data (the contents of file) into out, a non-nil pointer to
// a struct, strictly. Fields of out not present in data keep their values,
// so out may hold defaults. Types implementing yaml.Unmarshaler are decoded
// by their own method. Nested fields of type yaml.Node are left for the
// caller (see DecodeNode). A syntax error, an empty document or a second
// document is one *Error; otherwise every unknown or duplicate key, wrong
// type and fractional integer is reported, then out's Validate error (see
// Validator), all at once as by Join: one problem is an *Error, more an
// Errors sorted by line.
func Decode(file string, data []byte, out any) error {
	if err := CheckUTF8(file, data); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Error{File: file, Msg: "empty document"}
		}
		return syntaxError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return &Error{File: file, Line: extra.Line, Msg: "a second YAML document is not allowed"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	return DecodeNode(file, "", root, out)
}

// DecodeNode strictly decodes node into out, reporting errors under the
// field path prefix. It is Decode for a sub-tree, e.g. an environment's
// parameters whose type is known only after the environment's name.
// Errors are as Decode's: every problem at once. Fields with a problem
// keep the value they had; a Validate problem of a field already reported
// is left out.
func DecodeNode(file, prefix string, node *yaml.Node, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("strictyaml: DecodeNode needs a non-nil pointer")
	}
	var problems []*Error
	// values holds the fields whose value is wrong (not those with a
	// wrong key below them): their decoded value is not what the file says.
	values := map[string]bool{}
	dups := map[*yaml.Node]bool{} // mappings with a repeated key
	check(file, prefix, node, rv.Elem().Type(), &problems, values, dups)
	at := func(e *Error) string { return fmt.Sprintf("%d %s", e.Line, e.Field) }
	found := map[string]bool{}
	for _, e := range problems {
		found[at(e)] = true
	}
	// yaml.v3 skips a whole mapping that repeats a key: decode without
	// the repeats (check reported them) to find the other problems.
	if err := withoutRepeats(node, dups).Decode(out); err != nil {
		for _, e := range typeErrors(file, prefix, node, err) {
			values[e.Field] = true
			if !found[at(e)] { // check named it already ("want a mapping")
				problems = append(problems, e)
			}
		}
	}
	// Validate sees the decoded value: only if every value is what the
	// file says (a wrong key elsewhere does not change a value).
	if len(values) == 0 {
		problems = append(problems, validate(file, prefix, node, rv)...)
	}
	return Join(problems...)
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
var textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
var nodeType = reflect.TypeOf(yaml.Node{})

// check walks node against type t, appending to problems every unknown
// and duplicate key, every mapping missing where a struct belongs and
// every fractional or non-finite number where an integer belongs.
func check(file, path string, node *yaml.Node, t reflect.Type, problems *[]*Error, values map[string]bool, dups map[*yaml.Node]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	if node == nil || t == nodeType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return
	}
	add := func(line int, field, format string, args ...any) {
		*problems = append(*problems, &Error{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if msg, bad := fraction(node); bad {
			add(node.Line, path, "%s", msg)
			values[path] = true
		} else if msg, bad := nonDecimal(node); bad {
			add(node.Line, path, "%s", msg)
			values[path] = true
		}
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			if node.Tag != "!!null" {
				add(node.Line, path, "want a mapping of %s, got %s", knownKeys(t), describe(node))
				values[path] = true
			}
			return
		}
		fields := structFields(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			if line, dup := seen[k.Value]; dup {
				add(k.Line, join(path, k.Value), "duplicate key (first at line %d)", line)
				dups[node] = true
				continue
			}
			seen[k.Value] = k.Line
			ft, ok := fields[k.Value]
			if !ok {
				add(k.Line, path, "unknown key %q (known: %s)", k.Value, knownKeys(t))
				continue
			}
			check(file, join(path, k.Value), v, ft, problems, values, dups)
		}
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			return // the decoder reports the type error
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			if line, dup := seen[k.Value]; dup {
				add(k.Line, join(path, k.Value), "duplicate key (first at line %d)", line)
				dups[node] = true
				continue
			}
			seen[k.Value] = k.Line
			check(file, join(path, k.Value), v, t.Elem(), problems, values, dups)
		}
	case reflect.Slice, reflect.Array:
		if node.Kind != yaml.SequenceNode {
			return
		}
		for i, v := range node.Content {
			check(file, fmt.Sprintf("%s[%d]", path, i), v, t.Elem(), problems, values, dups)
		}
	}
}

// withoutRepeats returns n, or a copy of it in which the mappings in
// dups lose the second and later occurrences of each key. Aliased nodes
// are not copied.
func withoutRepeats(n *yaml.Node, dups map[*yaml.Node]bool) *yaml.Node {
	if len(dups) == 0 || n == nil || (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode && n.Kind != yaml.DocumentNode) {
		return n
	}
	var content []*yaml.Node
	changed := false
	seen := map[string]bool{}
	for i := 0; i < len(n.Content); i++ {
		if n.Kind == yaml.MappingNode && i+1 < len(n.Content) {
			k := n.Content[i]
			if dups[n] && k.Kind == yaml.ScalarNode && seen[k.Value] {
				changed = true
				i++
				continue
			}
			seen[k.Value] = true
			v := withoutRepeats(n.Content[i+1], dups)
			changed = changed || v != n.Content[i+1]
			content = append(content, k, v)
			i++
			continue
		}
		c := withoutRepeats(n.Content[i], dups)
		changed = changed || c != n.Content[i]
		content = append(content, c)
	}
	if !changed {
		return n
	}
	cp := *n
	cp.Content = content
	return &cp
}

// decimalRE is a decimal integer literal: an optional sign and digits
// without a leading zero (YAML 1.2 core schema's int, minus the octal and
// hexadecimal forms).
var decimalRE = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)

// nonDecimal reports whether node, a plain scalar for an integer field,
// is a number that is not written as a decimal integer: a leading zero
// (010, which yaml.v3 reads as octal 8 per YAML 1.1), 0o10, 0x10, 0b10,
// 1_000, a whole float (2.0, 1e1). Such literals are refused rather than
// read as something other than what a reader of the file sees. Quoted
// strings and non-numbers are left to the decoder ("x" is not an integer).
func nonDecimal(node *yaml.Node) (string, bool) {
	if node.Kind != yaml.ScalarNode || node.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return "", false
	}
	tag := node.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		return "", false
	}
	if decimalRE.MatchString(node.Value) {
		return "", false
	}
	return fmt.Sprintf("%q is not a decimal integer (write integers in decimal digits, without a leading zero, exponent, point or base prefix)", node.Value), true
}

// fraction reports whether node, a value for an integer field, is a YAML
// float that is not a whole number (1500.5, .inf, .nan), which yaml.v3
// would truncate or wrap silently, and says why. Whole floats (2.0, 1e3)
// are refused by nonDecimal.
func fraction(node *yaml.Node) (string, bool) {
	if node.Kind != yaml.ScalarNode || node.ShortTag() != "!!float" {
		return "", false
	}
	var f float64
	if err := node.Decode(&f); err != nil {
		return "", false // the decoder reports it
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Sprintf("%q is not an integer", node.Value), true
	case f != math.Trunc(f):
		return fmt.Sprintf("%q is not an integer (it has a fractional part)", node.Value), true
	}
	return "", false
}

// validate calls Validate on out if it implements Validator and returns
// its problems: each error of a joined error (one with Unwrap() []error)
// separately, each as FieldError places it.
func validate(file, path string, node *yaml.Node, rv reflect.Value) []*Error {
	v, ok := rv.Interface().(Validator)
	if !ok {
		return nil
	}
	err := v.Validate()
	if err == nil {
		return nil
	}
	var out []*Error
	for _, e := range flatten(err) {
		out = append(out, FieldError(file, path, node, e))
	}
	return out
}

// flatten splits a joined error (errors.Join) into its errors.
func flatten(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// FieldError reports err, a validation error of the value decoded from
// node at path, as an *Error: at the line of the key named by err's
// "key: problem" prefix when node has that key (the key may be a dotted
// path with [i] indexes below node, reported at its deepest existing
// part), else at node's line.
func FieldError(file, path string, node *yaml.Node, err error) *Error {
	e := &Error{File: file, Line: node.Line, Field: path, Msg: err.Error()}
	key, rest, ok := strings.Cut(err.Error(), ": ")
	if !ok || node.Kind != yaml.MappingNode || strings.ContainsAny(key, " \t") {
		return e
	}
	// key may be a path below node ("policy_parameters.skill_priority[2]"):
	// report the deepest part of it that exists.
	if top, _, _ := strings.Cut(key, "."); hasKey(node, strings.SplitN(top, "[", 2)[0]) {
		e.Line, e.Field, e.Msg = Line(node, key), join(path, key), rest
	}
	return e
}

// hasKey reports whether the mapping node has key.
func hasKey(node *yaml.Node, key string) bool {
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == key {
			return true
		}
	}
	return false
}

func structFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, v := range structFields(f.Type) {
				m[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = f.Type
	}
	return m
}

func knownKeys(t reflect.Type) string {
	var ks []string
	for k := range structFields(t) {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if r := []rune(n.Value); len(r) > 60 {
			return fmt.Sprintf("%q... (%d characters)", string(r[:60]), len(r))
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "nothing"
}

// syntaxError turns a yaml.v3 parse error ("yaml: line 3: ...") into an
// *Error with the line.
func syntaxError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if n, rest, ok := cutLine(msg); ok {
		line, msg = n, rest
	}
	return &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
}

// typeErrors turns a yaml.v3 *TypeError (each of its lines like "line 4:
// cannot unmarshal !!str `abc` into int") into one *Error per line; the
// field path is found by line. Duplicate-key lines are left out: check
// reports those.
func typeErrors(file, prefix string, root *yaml.Node, err error) []*Error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return []*Error{{File: file, Line: root.Line, Field: prefix, Msg: err.Error()}}
	}
	var out []*Error
	for _, msg := range te.Errors {
		if strings.Contains(msg, "already defined at line") {
			continue
		}
		line := 0
		if n, rest, ok := cutLine(msg); ok {
			line, msg = n, rest
		}
		// A scalar that does not fit ("!!str `x` into int") is reported at
		// that scalar; a list or mapping where a scalar belongs at the
		// collection.
		scalar := !strings.Contains(msg, "!!seq") && !strings.Contains(msg, "!!map")
		out = append(out, &Error{File: file, Line: line, Field: pathAtLine(root, prefix, line, scalar), Msg: typeMessage(msg)})
	}
	return out
}

var typeErrorRE = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")

// typeMessage rewrites yaml.v3's "cannot unmarshal !!str `abc` into int"
// as `"abc" is not an integer`, naming the value and the wanted type.
func typeMessage(msg string) string {
	m := typeErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return strings.Replace(msg, "cannot unmarshal", "cannot use", 1)
	}
	got := map[string]string{"seq": "a list", "map": "a mapping", "null": "null"}[m[1]]
	if m[2] != "" {
		got = strconv.Quote(m[2])
	} else if got == "" {
		got = "a " + m[1]
	}
	want := m[3]
	switch {
	case strings.HasPrefix(want, "int"), strings.HasPrefix(want, "uint"):
		want = "an integer"
	case strings.HasPrefix(want, "float"):
		want = "a number"
	case want == "bool":
		want = "a boolean (true or false)"
	case want == "string":
		want = "a string"
	case strings.HasPrefix(want, "[]"):
		want = "a list"
	case strings.HasPrefix(want, "map["), strings.Contains(want, "."):
		want = "a mapping"
	}
	return got + " is not " + want
}

func cutLine(msg string) (int, string, bool) {
	var n int
	if _, err := fmt.Sscanf(msg, "line %d:", &n); err != nil {
		return 0, msg, false
	}
	_, rest, _ := strings.Cut(msg, ":")
	return n, strings.TrimSpace(rest), true
}

// pathAtLine finds the field path of the value node on line: the first
// scalar there if scalar, else the first list or mapping.
func pathAtLine(n *yaml.Node, path string, line int, scalar bool) string {
	match := func(v *yaml.Node) bool { return v.Line == line && (v.Kind == yaml.ScalarNode) == scalar }
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if match(v) {
				return p
			}
			if r := pathAtLine(v, p, line, scalar); r != "" {
				return r
			}
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if match(v) {
				return p
			}
			if r := pathAtLine(v, p, line, scalar); r != "" {
				return r
			}
		}
	}
	return ""
}

// CheckUTF8 returns nil if data is valid UTF-8, else an *Error at the
// 1-based line and column (in bytes) of the first invalid byte, naming it
// in hex. yaml.v3's own message ("invalid leading UTF-8 octet") has no
// line; Decode calls this first.
func CheckUTF8(file string, data []byte) *Error {
	if utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("invalid UTF-8: byte 0x%02x at column %d (save the file as UTF-8)", data[i], col)}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += size
		}
		i += size
	}
	return nil
}

// Root parses data and returns its top-level node (nil if data is not
// YAML), for Line.
func Root(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return &doc
}

// Line returns the line of the key at a dotted path with optional [i]
// indexes ("policy_parameters.skill_priority[2]") in the tree under n, or
// of its deepest existing prefix; 0 if none (or n is nil).
func Line(n *yaml.Node, path string) int {
	line := 0
	if path == "" {
		return 0
	}
	for _, part := range strings.Split(path, ".") {
		key, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			key = part[:i]
			fmt.Sscanf(part[i+1:len(part)-1], "%d", &idx)
		}
		var next *yaml.Node
		if n != nil && n.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == key {
					line = n.Content[j].Line
					next = n.Content[j+1]
				}
			}
		}
		if next == nil {
			return line
		}
		if idx >= 0 && next.Kind == yaml.SequenceNode && idx < len(next.Content) {
			next = next.Content[idx]
			line = next.Line
		}
		n = next
	}
	return line
}
