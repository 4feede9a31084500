package prompt

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Defaults for a prompt that does not name its slug, branch or type (the
// prompt files of runs made before the store held many prompts).
const (
	DefaultSlug = "dungeon-agent" // the slug of the built-in agent prompt
	MainBranch  = "main"          // the default branch of every slug
	DefaultType = TypeSystem      // the type of a prompt that names none
)

// The prompt types a store accepts (the role the text plays in a
// conversation with a language model).
const (
	TypeSystem    = "system"    // a system prompt
	TypeUser      = "user"      // a user message template
	TypeAssistant = "assistant" // an assistant message template
	TypeTool      = "tool"      // a tool description or tool-result template
)

// Types lists the valid prompt types. Callers must not modify it.
var Types = []string{TypeSystem, TypeUser, TypeAssistant, TypeTool}

// Limits of names.
const (
	MaxNameLen = 64 // bytes in a slug, branch, section name or tag
)

var (
	slugRE    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	branchRE  = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)
	sectionRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	tagRE     = regexp.MustCompile(`^[a-z0-9]+([._:-][a-z0-9]+)*$`)
)

// ValidateSlug checks a slug: 1 to 64 lowercase letters and digits in
// words joined by single hyphens ("dungeon-agent"). A valid slug is a
// safe directory name: it has no '/', '.', or '..'.
func ValidateSlug(s string) error {
	if len(s) > MaxNameLen || !slugRE.MatchString(s) {
		return fmt.Errorf("invalid slug %q: want lowercase letters and digits in words joined by single hyphens, e.g. dungeon-agent, at most %d characters", s, MaxNameLen)
	}
	return nil
}

// ValidateBranch checks a branch name: 1 to 64 lowercase letters and
// digits in words joined by single '.', '_' or '-' ("exp-2", "lr_0.1"),
// and not a version ("v1.0.0" would make "slug@v1.0.0" ambiguous).
func ValidateBranch(s string) error {
	if len(s) > MaxNameLen || !branchRE.MatchString(s) {
		return fmt.Errorf("invalid branch %q: want lowercase letters and digits in words joined by single '.', '_' or '-', e.g. exp-2, at most %d characters", s, MaxNameLen)
	}
	if _, err := ParseVersion(s); err == nil {
		return fmt.Errorf("invalid branch %q: a branch may not be named like a version", s)
	}
	return nil
}

// ValidateSectionName checks a section name: a lowercase letter, then
// lowercase letters, digits and '_' ("identity", "tool_use"), at most 64.
func ValidateSectionName(s string) error {
	if len(s) > MaxNameLen || !sectionRE.MatchString(s) {
		return fmt.Errorf("invalid section name %q: want a lowercase letter, then lowercase letters, digits and '_', e.g. tool_use, at most %d characters", s, MaxNameLen)
	}
	return nil
}

// ValidateTag checks a tag: lowercase letters and digits in words joined
// by single '.', '_', ':' or '-' ("nethack", "team:agents"), at most 64.
func ValidateTag(s string) error {
	if len(s) > MaxNameLen || !tagRE.MatchString(s) {
		return fmt.Errorf("invalid tag %q: want lowercase letters and digits in words joined by single '.', '_', ':' or '-', e.g. team:agents, at most %d characters", s, MaxNameLen)
	}
	return nil
}

// ValidateType checks a prompt type against Types.
func ValidateType(s string) error {
	for _, t := range Types {
		if s == t {
			return nil
		}
	}
	return fmt.Errorf("invalid type %q: allowed %s", s, strings.Join(Types, ", "))
}

// Ref names a prompt in a store: a slug with a branch (its HEAD) or a
// pinned version. Its text form is "slug" (HEAD of main), "slug@branch"
// or "slug@v1.2.3"; branch names may not look like versions, so the form
// is never ambiguous. At most one of Branch and Version is set.
type Ref struct {
	Slug    string  // the prompt's slug
	Branch  string  // a branch whose HEAD is meant; "" with a zero Version means main
	Version Version // a pinned version; zero means a branch HEAD
}

// ParseRef parses "slug", "slug@branch" or "slug@vX.Y.Z" and validates
// every part; an error names the text and the bad part.
func ParseRef(s string) (Ref, error) {
	slug, at, has := strings.Cut(s, "@")
	if err := ValidateSlug(slug); err != nil {
		return Ref{}, fmt.Errorf("invalid prompt reference %q: %v", s, err)
	}
	r := Ref{Slug: slug}
	if !has {
		return r, nil
	}
	if strings.HasPrefix(at, "v") && strings.TrimLeft(at[1:], "0123456789.") == "" {
		v, err := ParseVersion(at)
		if err != nil {
			return Ref{}, fmt.Errorf("invalid prompt reference %q: %v", s, err)
		}
		r.Version = v
		return r, nil
	}
	if err := ValidateBranch(at); err != nil {
		return Ref{}, fmt.Errorf("invalid prompt reference %q: %v", s, err)
	}
	r.Branch = at
	return r, nil
}

// String returns "slug", "slug@branch" or "slug@v1.2.3".
func (r Ref) String() string {
	switch {
	case !r.Version.IsZero():
		return r.Slug + "@" + r.Version.String()
	case r.Branch != "":
		return r.Slug + "@" + r.Branch
	}
	return r.Slug
}

// Pinned reports whether r names a version rather than a branch HEAD.
func (r Ref) Pinned() bool { return !r.Version.IsZero() }

// BranchOrMain returns r.Branch, or MainBranch if it is empty.
func (r Ref) BranchOrMain() string {
	if r.Branch == "" {
		return MainBranch
	}
	return r.Branch
}

// MarshalText writes r as its string.
func (r Ref) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses r with ParseRef.
func (r *Ref) UnmarshalText(b []byte) error {
	p, err := ParseRef(string(b))
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// UnmarshalYAML reads a reference string; a bad one is reported with its
// line.
func (r *Ref) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a prompt reference like base-agent, base-agent@main or base-agent@v1.0.0", n.Line)}}
	}
	p, err := ParseRef(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*r = p
	return nil
}
