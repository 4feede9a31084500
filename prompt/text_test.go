package prompt

import (
	"strings"
	"testing"
)

func TestWriteDiff(t *testing.T) {
	a := &Prompt{Slug: "agent", Version: MustParseVersion("v1.0.0"), Tags: []string{"x"},
		Sections: Sections{{Name: "identity", Text: "You help.\nBe brief."}}}
	b := a.Clone()
	b.Version, b.Branch, b.Tags = MustParseVersion("v1.1.0"), "exp", nil
	b.Sections = Sections{{Name: "identity", Text: "You help.\nBe kind."}, {Name: "tools", Text: "a sword"}}
	tests := []struct {
		name string
		a, b *Prompt
		want string
	}{
		{"changes", a, b, `--- agent@v1.0.0 (branch main)
+++ agent@v1.1.0 (branch exp)
branch: main → exp
tags: - [x]
sections.identity: changed
      You help.
    - Be brief.
    + Be kind.
sections.tools: added
    + a sword
`},
		{"none", a, a, "--- agent@v1.0.0 (branch main)\n+++ agent@v1.0.0 (branch main)\nno differences\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf strings.Builder
			if err := WriteDiff(&buf, tt.a, tt.b, Diff(tt.a, tt.b)); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

func TestResolutionEncode(t *testing.T) {
	parent := &Prompt{Slug: "base", Version: MustParseVersion("v1.0.0"), Sections: Sections{{Name: "identity", Text: "You help."}}}
	child := &Prompt{Slug: "coder", Version: MustParseVersion("v1.0.2"), InheritsFrom: &Ref{Slug: "base"},
		Sections: Sections{{Name: "tools", Text: "a compiler"}}}
	res, err := Resolve(child, func(Ref) (*Prompt, error) { return parent, nil })
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.Encode()
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(string(data), "\n")
	if header != "# resolved: coder@v1.0.2 ← base@v1.0.0" {
		t.Errorf("header %q", header)
	}
	p, err := Decode("resolved.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the body does not decode: %v\n%s", err, body)
	}
	if got := p.Sections.Names(); strings.Join(got, ",") != "identity,tools" {
		t.Errorf("sections %v, want identity,tools", got)
	}
}
