package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in    string
		names []string
		out   string // Execute with value "<NAME>"
		err   string // "LINE:COL" of the error, "" for none
	}{
		{"plain text", nil, "plain text", ""},
		{"{{version}}", []string{"version"}, "<version>", ""},
		{"a {{ param.health_threshold }} b {{version}}{{version}}", []string{"param.health_threshold", "version"}, "a <param.health_threshold> b <version><version>", ""},
		{`literal \{{version}} and \x`, nil, `literal {{version}} and \x`, ""},
		{"closing }} alone", nil, "closing }} alone", ""},
		{"é {{env.name}}", []string{"env.name"}, "é <env.name>", ""},
		{"x\n  {{Version}}", nil, "", "2:3"},
		{"{{ }}", nil, "", "1:1"},
		{"{{param..x}}", nil, "", "1:1"},
		{"{{a.}}", nil, "", "1:1"},
		{"{{9lives}}", nil, "", "1:1"},
		{"{{open", nil, "", "1:1"},
		{"{{open\n}}", nil, "", "1:1"},
		{"ok {{a}} {{a b}}", nil, "", "1:10"},
		{"{{{a}}}", nil, "", "1:1"},
		{"{{" + strings.Repeat("a", MaxNameLen+1) + "}}", nil, "", "1:1"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			tm, err := Parse("sections.x", c.in)
			if c.err != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want a *ParseError at %s", err, c.err)
				}
				if got := fmt.Sprintf("%d:%d", pe.Line, pe.Column); got != c.err || !strings.HasPrefix(err.Error(), "sections.x:"+c.err+": ") {
					t.Errorf("error %q at %s, want at %s", err, got, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tm.Names(); fmt.Sprint(got) != fmt.Sprint(c.names) {
				t.Errorf("Names = %v, want %v", got, c.names)
			}
			var b strings.Builder
			if err := tm.Execute(&b, func(n string) (string, error) { return "<" + n + ">", nil }); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.out {
				t.Errorf("Execute = %q, want %q", b.String(), c.out)
			}
		})
	}
}

// FuzzParse: Parse never panics; what it accepts prints back (String) to
// a text that parses to the same template; names are valid; and
// Execute with values that look like placeholders copies them literally.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "{{version}}", `\{{x}}`, "a {{ b.c }} d", "{{", "}}{{a}}", "{{{{a}}}}", `\\{{a}}`, "x\n{{y}}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := Parse("f", s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) || !strings.HasPrefix(s[pe.Offset:], "{{") {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		for _, n := range tm.Names() {
			if ValidateName(n) != nil {
				t.Fatalf("invalid name %q", n)
			}
		}
		back, err := Parse("f", tm.String())
		if err != nil {
			t.Fatalf("String() = %q does not parse: %v", tm.String(), err)
		}
		if fmt.Sprint(back.segs2()) != fmt.Sprint(tm.segs2()) {
			t.Fatalf("round trip: %q -> %q: %v != %v", s, tm.String(), back.segs, tm.segs)
		}
		var a strings.Builder
		if err := tm.Execute(&a, func(n string) (string, error) { return "{{" + n + "}}", nil }); err != nil {
			t.Fatal(err)
		}
		// One pass: the output holds every placeholder's value verbatim.
		if got := strings.Count(a.String(), "{{"); got < len(placeholders(tm)) {
			t.Fatalf("%d placeholders but %d {{ in %q", len(placeholders(tm)), got, a.String())
		}
	})
}

// segs2 returns t's segments without offsets, for comparing templates
// whose texts differ.
func (t *Template) segs2() []segment {
	out := make([]segment, len(t.segs))
	for i, s := range t.segs {
		out[i] = segment{text: s.text, name: s.name}
	}
	return out
}

func placeholders(t *Template) []string {
	var out []string
	for _, s := range t.segs {
		if s.name != "" {
			out = append(out, s.name)
		}
	}
	return out
}

// FuzzEscape: Unescape inverts Escape, and an escaped text has no '<'
// that could start a tag.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "</identity>", "a < b & c", "&lt;x", "&amp;lt;", "|..<.@d.|", "<!-- x -->", "<?xml?>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if Unescape(e) != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, Unescape(e))
		}
		for i := 0; i+1 < len(e); i++ {
			if e[i] == '<' && tagStart(e[i+1]) {
				t.Fatalf("Escape(%q) = %q opens a tag at %d", s, e, i)
			}
		}
	})
}
