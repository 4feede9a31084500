package eval

import (
	"slices"
	"testing"

	"evolve/prompt"
)

func TestLabelVersions(t *testing.T) {
	v := func(slug, label, source string) Version {
		return Version{Label: label, Source: source, Prompt: &prompt.Prompt{Slug: slug}}
	}
	tests := []struct {
		name string
		in   []Version
		want []string
	}{
		{"unique", []Version{v("a", "v1.0.0", "a.yaml"), v("a", "v1.0.1", "b.yaml")}, []string{"v1.0.0", "v1.0.1"}},
		{"two slugs at one version", []Version{v("a", "v1.0.0", "a.yaml"), v("b", "v1.0.0", "b.yaml"), v("b", "v1.0.1", "c.yaml")},
			[]string{"a@v1.0.0", "b@v1.0.0", "v1.0.1"}},
		{"one version twice", []Version{v("a", "v1.0.0", "a.yaml"), v("a", "v1.0.0", "runs/r:v1.0.0")},
			[]string{"a@v1.0.0 (a.yaml)", "a@v1.0.0 (runs/r:v1.0.0)"}},
		{"the default slug", []Version{v("", "v1.0.0", "x.yaml"), v("b", "v1.0.0", "y.yaml")},
			[]string{prompt.DefaultSlug + "@v1.0.0", "b@v1.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			LabelVersions(tt.in)
			var got []string
			for _, v := range tt.in {
				got = append(got, v.Label)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResolvePrompts(t *testing.T) {
	vs, err := ResolvePrompts([]string{"embedded", "embedded"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Label != "dungeon-agent@v1.0.0 (embedded)" || vs[1].Label != "dungeon-agent@v1.0.0 (embedded)" {
		t.Errorf("labels %q, %q", vs[0].Label, vs[1].Label)
	}
	if _, err := ResolvePrompts([]string{"embedded", "missing.yaml"}, ""); err == nil {
		t.Error("a missing file: no error")
	}
}
