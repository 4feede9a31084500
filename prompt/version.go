package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Version is a semantic version "vMAJOR.MINOR.PATCH" of a prompt. Patch
// bumps mark a numeric parameter change, minor bumps a reordered skill
// priority, major bumps a change of the frozen parts.
type Version struct {
	Major, Minor, Patch int // each >= 0
}

// ParseVersion parses "v1.2.3" or "1.2.3". Anything else (missing parts,
// signs, leading zeros, more than 9 digits, suffixes) is an error naming
// the text.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(s, "v")
	parts := strings.Split(t, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("invalid version %q: want vMAJOR.MINOR.PATCH, e.g. v1.0.0", s)
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 || (len(p) > 1 && p[0] == '0') || strings.TrimLeft(p, "0123456789") != "" {
			return Version{}, fmt.Errorf("invalid version %q: want vMAJOR.MINOR.PATCH, e.g. v1.0.0", s)
		}
		n[i], _ = strconv.Atoi(p)
	}
	return Version{n[0], n[1], n[2]}, nil
}

// MustParseVersion is ParseVersion for constants; it panics on error.
func MustParseVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String returns "v1.2.3".
func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) }

// IsZero reports whether v is v0.0.0, the "no version" value.
func (v Version) IsZero() bool { return v == Version{} }

// Compare returns -1, 0 or +1 as v is before, equal to or after w in
// semantic-version order.
func (v Version) Compare(w Version) int {
	switch {
	case v.Major != w.Major:
		return cmpInt(v.Major, w.Major)
	case v.Minor != w.Minor:
		return cmpInt(v.Minor, w.Minor)
	}
	return cmpInt(v.Patch, w.Patch)
}

// Less reports whether v is before w.
func (v Version) Less(w Version) bool { return v.Compare(w) < 0 }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// MarshalYAML writes the version as its string.
func (v Version) MarshalYAML() (any, error) { return v.String(), nil }

// UnmarshalYAML reads a version string; a bad one is reported with its
// line.
func (v *Version) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a version string like v1.0.0", n.Line)}}
	}
	p, err := ParseVersion(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*v = p
	return nil
}

// MarshalText writes the version as its string (JSON keys and values).
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses a version string.
func (v *Version) UnmarshalText(b []byte) error {
	p, err := ParseVersion(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// Bump is the kind of version increment a change calls for.
type Bump int

// The bumps of semantic versioning.
const (
	BumpPatch Bump = iota // a numeric policy parameter changed
	BumpMinor             // the skill priority was reordered
	BumpMajor             // the frozen parts changed
)

// String returns "patch", "minor" or "major".
func (b Bump) String() string {
	switch b {
	case BumpPatch:
		return "patch"
	case BumpMinor:
		return "minor"
	case BumpMajor:
		return "major"
	}
	return fmt.Sprintf("bump(%d)", int(b))
}
