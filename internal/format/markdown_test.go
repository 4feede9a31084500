package format

import (
	"strings"
	"testing"
)

func TestCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v1.0.0", "v1.0.0"},
		{"a|b", `a\|b`},
		{`a\|b`, `a\\\|b`},
		{`C:\dir\`, `C:\\dir\\`},
		{"line one\nline two", "line one line two"},
		{"crlf\r\nend", "crlf end"},
		{"cr\rend", "cr end"},
		{"two  spaces\tand tab", "two  spaces\tand tab"},
		{"*emphasis* and `code`", "*emphasis* and `code`"},
		{"", ""},
	} {
		if got := Cell(tc.in); got != tc.want {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// unescapeCell undoes Cell but for line breaks, as a GFM reader does: a
// backslash escapes the next character.
func unescapeCell(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 == len(s) || (s[i+1] != '\\' && s[i+1] != '|') {
				return "", false // a lone backslash: Cell never writes one
			}
			i++
		} else if s[i] == '|' {
			return "", false // an unescaped pipe would end the cell
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// FuzzCell checks that a cell stays one cell on one line, and that a
// reader gets the text back with line breaks as spaces.
func FuzzCell(f *testing.F) {
	for _, s := range []string{"a|b", `\|`, "x\r\ny", `\\`, "é|\n", "|||"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Cell(s)
		if strings.ContainsAny(c, "\r\n") {
			t.Fatalf("Cell(%q) = %q holds a line break", s, c)
		}
		got, ok := unescapeCell(c)
		if !ok {
			t.Fatalf("Cell(%q) = %q has an unescaped pipe or a lone backslash", s, c)
		}
		want := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
		if got != want {
			t.Fatalf("Cell(%q) = %q reads back as %q, want %q", s, c, got, want)
		}
	})
}
