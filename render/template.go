package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxNameLen is the longest placeholder name, in bytes.
const MaxNameLen = 64

// Template is a text with {{name}} placeholders, parsed once.
//
// Syntax: "{{", optional spaces, a name, optional spaces, "}}". A name is
// a lowercase letter, then lowercase letters, digits and '_', optionally
// followed by '.'-separated words of the same characters ("version",
// "param.health_threshold", "env.name"), at most MaxNameLen bytes. A
// literal "{{" is written `\{{`; any other backslash, and a "}}" outside a
// placeholder, is literal text. Every other "{{" is a *ParseError.
//
// Execute substitutes every placeholder in one pass over the parsed
// template: a value is copied to the output as it is and never parsed
// again, so a value that contains "{{version}}" stays literal (no
// injection through values).
type Template struct {
	source string    // where the text comes from, for errors
	segs   []segment // literal text and placeholders, in order
}

// segment is literal text (name == "") or one placeholder.
type segment struct {
	text string // the literal text, or the placeholder as written
	name string // the placeholder's name; "" for literal text
	off  int    // byte offset of the segment in the source text
}

// ParseError is a malformed placeholder in a template: where it is and
// what is wrong.
type ParseError struct {
	// Source names the text, as a field path, e.g. "sections.identity",
	// "task_definition", "layers[0].parts.notes".
	Source string
	// Offset is the 0-based byte offset of the offending "{{".
	Offset int
	// Line is the 1-based line of Offset.
	Line int
	// Column is the 1-based column of Offset, in characters.
	Column int
	// Msg says what is wrong.
	Msg string
}

// Error returns "SOURCE:LINE:COLUMN: MSG".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Column, e.Msg)
}

// Parse parses text as a Template; source names it in errors (a field
// path such as "sections.identity"). The error is a *ParseError at the
// first "{{" that does not begin a placeholder: an invalid or too long
// name, or no closing "}}" on the same line.
func Parse(source, text string) (*Template, error) {
	t := &Template{source: source}
	var lit strings.Builder
	litStart := 0
	flush := func(next int) {
		if lit.Len() > 0 {
			t.segs = append(t.segs, segment{text: lit.String(), off: litStart})
			lit.Reset()
		}
		litStart = next
	}
	i := 0
	for i < len(text) {
		switch {
		case strings.HasPrefix(text[i:], `\{{`):
			lit.WriteString("{{")
			i += 3
		case strings.HasPrefix(text[i:], "{{"):
			name, end, msg := placeholderAt(text, i)
			if msg != "" {
				line, col := position(text, i)
				return nil, &ParseError{Source: source, Offset: i, Line: line, Column: col, Msg: msg}
			}
			flush(i)
			t.segs = append(t.segs, segment{text: text[i:end], name: name, off: i})
			i = end
			litStart = i
		default:
			_, size := utf8.DecodeRuneInString(text[i:])
			lit.WriteString(text[i : i+size])
			i += size
		}
	}
	flush(len(text))
	return t, nil
}

// placeholderAt reads the placeholder whose "{{" is at text[i:]: its
// name and the offset just past its "}}", or a message saying why there
// is none.
func placeholderAt(text string, i int) (name string, end int, msg string) {
	j := i + 2
	for j < len(text) && text[j] == ' ' {
		j++
	}
	start := j
	for j < len(text) && isNameByte(text[j]) {
		j++
	}
	name = text[start:j]
	for j < len(text) && text[j] == ' ' {
		j++
	}
	if !strings.HasPrefix(text[j:], "}}") {
		if k := strings.IndexAny(text[i+2:], "}\n"); k >= 0 && text[i+2+k] == '}' && name != "" {
			return "", 0, fmt.Sprintf("placeholder %q: want a name of lowercase letters, digits, '_' and '.' (e.g. {{param.health_threshold}})", cut(text[i:i+2+k+1]))
		}
		return "", 0, `"{{" without a placeholder: want {{name}} closed by "}}" on the same line, or \{{ for a literal "{{"`
	}
	if err := ValidateName(name); err != nil {
		return "", 0, err.Error()
	}
	return name, j + 2, ""
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c >= 'A' && c <= 'Z' || c == '-'
}

// ValidateName checks a placeholder name: a lowercase letter, then
// lowercase letters, digits and '_', in one or more words joined by
// single '.', at most MaxNameLen bytes.
func ValidateName(name string) error {
	bad := func() error {
		return fmt.Errorf("invalid placeholder name %q: want a lowercase letter, then lowercase letters, digits and '_', in words joined by '.' (e.g. param.health_threshold), at most %d bytes", cut(name), MaxNameLen)
	}
	if name == "" || len(name) > MaxNameLen || !(name[0] >= 'a' && name[0] <= 'z') {
		return bad()
	}
	for _, w := range strings.Split(name, ".") {
		if w == "" {
			return bad()
		}
		for k := 0; k < len(w); k++ {
			if c := w[k]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return bad()
			}
		}
	}
	return nil
}

// cut shortens s to at most 40 bytes on a character boundary for a
// message.
func cut(s string) string {
	if len(s) <= 40 {
		return s
	}
	end := 0
	for end < len(s) {
		_, size := utf8.DecodeRuneInString(s[end:])
		if end+size > 37 {
			break
		}
		end += size
	}
	return s[:end] + "..."
}

// position returns the 1-based line and column (in characters) of byte
// offset off of s.
func position(s string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range s[:off] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// Source returns the name the template was parsed with.
func (t *Template) Source() string { return t.source }

// Names returns the placeholder names of t in order of first appearance,
// each once.
func (t *Template) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range t.segs {
		if s.name != "" && !seen[s.name] {
			seen[s.name] = true
			out = append(out, s.name)
		}
	}
	return out
}

// String returns the template as it would be written: literal text with
// every "{{" escaped as `\{{`, and every placeholder as written. Parsing
// it gives the same template.
func (t *Template) String() string {
	var b strings.Builder
	for _, s := range t.segs {
		if s.name != "" {
			b.WriteString(s.text)
		} else {
			b.WriteString(escapeBraces(s.text))
		}
	}
	return b.String()
}

// escapeBraces writes literal text so that Parse reads it back: `\{{`
// for each "{{" (a backslash is literal unless "{{" follows it).
func escapeBraces(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "{{") {
			b.WriteString(`\{{`)
			i += 2
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// Execute writes t to b with each placeholder replaced by value(name), in
// one pass: values are copied as they are and never parsed again. The
// first error of value stops it and is returned as it is.
func (t *Template) Execute(b *strings.Builder, value func(name string) (string, error)) error {
	for _, s := range t.segs {
		if s.name == "" {
			b.WriteString(s.text)
			continue
		}
		v, err := value(s.name)
		if err != nil {
			return err
		}
		b.WriteString(v)
	}
	return nil
}
