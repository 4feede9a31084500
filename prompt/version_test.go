package prompt

import (
	"evolve/params"

	"slices"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for an error
	}{
		{"v1.0.0", "v1.0.0"}, {"v0.0.1", "v0.0.1"}, {"v12.340.5", "v12.340.5"}, {"1.2.3", "v1.2.3"},
		{"v1.0", ""}, {"v1.0.0.0", ""}, {"v1.-1.0", ""}, {"v1.a.0", ""}, {"", ""}, {"v01.0.0", ""},
		{"v1.0.0-rc1", ""}, {"v1.0.0/../x", ""}, {" v1.0.0", ""},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseVersion(%q) = %s, want an error", tt.in, v)
		case tt.want != "" && (err != nil || v.String() != tt.want):
			t.Errorf("ParseVersion(%q) = %s, %v; want %s", tt.in, v, err, tt.want)
		}
	}
	if _, err := ParseVersion("v1.0"); err == nil || err.Error() != `invalid version "v1.0": want vMAJOR.MINOR.PATCH, e.g. v1.0.0` {
		t.Errorf("error = %v", err)
	}
}

func TestVersionOrder(t *testing.T) {
	vs := []string{"v1.10.0", "v1.2.0", "v1.0.10", "v2.0.0", "v1.0.2", "v0.9.9"}
	parsed := make([]Version, len(vs))
	for i, s := range vs {
		parsed[i] = MustParseVersion(s)
	}
	slices.SortFunc(parsed, Version.Compare)
	var got []string
	for _, v := range parsed {
		got = append(got, v.String())
	}
	want := []string{"v0.9.9", "v1.0.2", "v1.0.10", "v1.2.0", "v1.10.0", "v2.0.0"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
	if !MustParseVersion("v1.0.2").Less(MustParseVersion("v1.0.10")) || (Version{}).IsZero() == false {
		t.Error("Less or IsZero wrong")
	}
}

func TestNextVersion(t *testing.T) {
	vs := func(s ...string) []Version {
		out := make([]Version, len(s))
		for i, x := range s {
			out[i] = MustParseVersion(x)
		}
		return out
	}
	tests := []struct {
		base     string
		bump     Bump
		existing []Version
		want     string
	}{
		{"v1.0.0", BumpPatch, vs("v1.0.0"), "v1.0.1"},
		{"v1.0.0", BumpPatch, vs("v1.0.0", "v1.0.1", "v1.0.2"), "v1.0.3"},
		{"v1.0.1", BumpPatch, vs("v1.0.0", "v1.0.1", "v1.0.7"), "v1.0.8"}, // largest patch + 1, never reused
		{"v1.0.0", BumpMinor, vs("v1.0.0", "v1.0.5"), "v1.1.0"},
		{"v1.0.5", BumpMinor, vs("v1.0.0", "v1.1.0", "v1.3.0"), "v1.4.0"},
		{"v1.2.0", BumpMajor, vs("v1.0.0", "v3.0.0"), "v4.0.0"},
		{"v2.0.0", BumpPatch, vs("v2.0.0", "v1.0.9"), "v2.0.1"}, // other minors do not count
	}
	for _, tt := range tests {
		got := NextVersion(MustParseVersion(tt.base), tt.bump, tt.existing)
		if got.String() != tt.want {
			t.Errorf("NextVersion(%s, %v, %v) = %s, want %s", tt.base, tt.bump, tt.existing, got, tt.want)
		}
		// Pure: the order of existing does not matter.
		rev := slices.Clone(tt.existing)
		slices.Reverse(rev)
		if again := NextVersion(MustParseVersion(tt.base), tt.bump, rev); again != got {
			t.Errorf("NextVersion depends on the order of existing: %s vs %s", again, got)
		}
	}
}

func TestBumpFor(t *testing.T) {
	base := Base()
	edit := func(f func(p *Prompt)) *Prompt { q := base.Clone(); f(q); return q }
	tests := []struct {
		name string
		new  *Prompt
		want Bump
	}{
		{"nothing", base.Clone(), BumpPatch},
		{"threshold", edit(func(p *Prompt) {
			p.PolicyParameters = p.PolicyParameters.With("health_threshold", params.NumberValue(0.4))
		}), BumpPatch},
		{"tags and metadata", edit(func(p *Prompt) { p.Tags = []string{"x"}; p.Metadata = Metadata{"owner": "ana"} }), BumpPatch},
		{"priority", edit(func(p *Prompt) {
			p.PolicyParameters = p.PolicyParameters.With("skill_priority", params.OrderingValue([]string{"flee", "fight", "eat", "use_item", "explore"}))
		}), BumpMinor},
		{"task", edit(func(p *Prompt) { p.TaskDefinition = "Win." }), BumpMajor},
		{"rules", edit(func(p *Prompt) { p.RulesConstraints = p.RulesConstraints[1:] }), BumpMajor},
		{"section", edit(func(p *Prompt) { p.Sections = Sections{{"identity", "x"}} }), BumpMajor},
		{"type", edit(func(p *Prompt) { p.Type = TypeUser }), BumpMajor},
		{"inherits", edit(func(p *Prompt) { p.InheritsFrom = &Ref{Slug: "other"} }), BumpMajor},
		{"no policy", edit(func(p *Prompt) { p.PolicyParameters = nil }), BumpMajor},
	}
	for _, tt := range tests {
		if got := BumpFor(base, tt.new); got != tt.want {
			t.Errorf("%s: BumpFor = %v, want %v", tt.name, got, tt.want)
		}
	}
}
