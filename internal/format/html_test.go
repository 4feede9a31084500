package format

import (
	"bytes"
	"strings"
	"testing"
)

func TestWritePage(t *testing.T) {
	for _, tc := range []struct {
		kind        PageKind
		has, hasNot []string
	}{
		{RunPage, []string{"td.r, th.r { text-align: right;", "figcaption {"}, []string{".mark", "code {"}},
		{EvalPage, []string{`td[style*="right"]`, "code { font-size: 0.85rem; }", ".mark.bad { background: #d62728; }"}, []string{"td.r", "figcaption"}},
	} {
		var b bytes.Buffer
		if err := WritePage(&b, Page{Kind: tc.kind, Title: `T <1> & "q"`, Body: []byte("<p>x</p>\n")}); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		if !strings.HasPrefix(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n") ||
			!strings.Contains(s, "<title>T &lt;1&gt; &amp; &#34;q&#34;</title>\n<style>\nbody {") ||
			!strings.HasSuffix(s, "}\n</style>\n</head>\n<body>\n<p>x</p>\n</body>\n</html>\n") {
			t.Errorf("kind %d: page frame wrong:\n%s", tc.kind, s)
		}
		for _, h := range tc.has {
			if !strings.Contains(s, h) {
				t.Errorf("kind %d: page lacks %q", tc.kind, h)
			}
		}
		for _, h := range tc.hasNot {
			if strings.Contains(s, h) {
				t.Errorf("kind %d: page has %q", tc.kind, h)
			}
		}
		if strings.Contains(s, "\n\n") {
			t.Errorf("kind %d: the stylesheet has an empty line:\n%s", tc.kind, s)
		}
	}
}

func TestInlineSVG(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<?xml version=\"1.0\"?>\n<!-- c -->\n<svg a=\"1\"></svg>\n", "<svg a=\"1\"></svg>\n"},
		{"<svg/>", "<svg/>"},
		{"not svg", "not svg"},
	} {
		if got := string(InlineSVG([]byte(tc.in))); got != tc.want {
			t.Errorf("InlineSVG(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
