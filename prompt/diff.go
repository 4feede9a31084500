package prompt

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"evolve/params"
)

// ChangeKind says how a field differs between two prompts.
type ChangeKind string

// The kinds of Change.
const (
	Added   ChangeKind = "added"   // only the second prompt has the field
	Removed ChangeKind = "removed" // only the first prompt has the field
	Changed ChangeKind = "changed" // both have it, with different values
)

// Change is one difference between two prompts.
type Change struct {
	// Field is the field path: "policy_parameters.health_threshold",
	// "sections.identity", "metadata.context_weights.task_coding",
	// "skill_descriptions.flee", "tags", "mutation_history", ...
	Field string `json:"field"`
	// Kind is added, removed or changed.
	Kind ChangeKind `json:"kind"`
	// Old and New are the values as text: numbers in their shortest
	// form, lists as "[a b]", metadata values as JSON, texts as they are;
	// "" for the side that lacks the field.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"` // see Old
	// Text reports that Old and New are texts (sections, task, rules),
	// best shown as a line diff (see TextDiff).
	Text bool `json:"text,omitempty"`
}

// Diff returns the structured differences from a to b, in document order:
// identity (slug, type, branch), tags, metadata (by key path),
// inherits_from, override_sections, sections (by name, then their order),
// task_definition, rules_constraints, skill_descriptions (by skill),
// policy_parameters (by parameter) and the mutation history (records b
// has beyond a's, or a's that b lacks). Version and timestamp are not
// compared. It is a pure function; nil means no difference.
func Diff(a, b *Prompt) []Change {
	var out []Change
	cmp := func(field, old, new string, text bool) {
		switch {
		case old == new:
		case old == "":
			out = append(out, Change{Field: field, Kind: Added, New: new, Text: text})
		case new == "":
			out = append(out, Change{Field: field, Kind: Removed, Old: old, Text: text})
		default:
			out = append(out, Change{Field: field, Kind: Changed, Old: old, New: new, Text: text})
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	ref := func(r *Ref) string {
		if r == nil {
			return ""
		}
		return r.String()
	}
	cmp("slug", a.SlugOrDefault(), b.SlugOrDefault(), false)
	cmp("type", a.TypeOrDefault(), b.TypeOrDefault(), false)
	cmp("branch", a.BranchOrMain(), b.BranchOrMain(), false)
	cmp("tags", list(a.Tags), list(b.Tags), false)
	am, bm := flatMeta(a.Metadata), flatMeta(b.Metadata)
	for _, k := range unionKeys(am, bm) {
		cmp(k, am[k], bm[k], false)
	}
	cmp("inherits_from", ref(a.InheritsFrom), ref(b.InheritsFrom), false)
	cmp("override_sections", list(a.OverrideSections), list(b.OverrideSections), false)
	names := a.Sections.Names()
	for _, n := range b.Sections.Names() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range names {
		at, _ := a.Sections.Get(n)
		bt, _ := b.Sections.Get(n)
		cmp("sections."+n, at, bt, true)
	}
	if p, q := sharedOrder(a.Sections, b.Sections), sharedOrder(b.Sections, a.Sections); !slices.Equal(p, q) {
		cmp("sections (order)", list(p), list(q), false)
	}
	cmp("task_definition", a.TaskDefinition, b.TaskDefinition, true)
	cmp("rules_constraints", strings.Join(a.RulesConstraints, "\n"), strings.Join(b.RulesConstraints, "\n"), true)
	for _, n := range unionNames(a.SkillDescriptions.Names(), b.SkillDescriptions.Names()) {
		at, _ := a.SkillDescriptions.Get(n)
		bt, _ := b.SkillDescriptions.Get(n)
		cmp("skill_descriptions."+n, at, bt, true)
	}
	for _, n := range unionNames(paramNames(a.PolicyParameters), paramNames(b.PolicyParameters)) {
		cmp("policy_parameters."+n, paramValue(a.PolicyParameters, n), paramValue(b.PolicyParameters, n), false)
	}
	ah, bh := a.MutationHistory, b.MutationHistory
	n := 0
	for n < len(ah) && n < len(bh) && ah[n].Version == bh[n].Version && ah[n].Description == bh[n].Description {
		n++
	}
	for _, r := range ah[n:] {
		cmp("mutation_history."+r.Version.String(), r.Description, "", false)
	}
	for _, r := range bh[n:] {
		cmp("mutation_history."+r.Version.String(), "", r.Description, false)
	}
	return out
}

// sharedOrder returns the names of x's sections that y has too, in x's
// order.
func sharedOrder(x, y Sections) []string {
	var out []string
	for _, n := range x.Names() {
		if _, ok := y.Get(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// unionNames returns a's names, then b's names that a lacks.
func unionNames(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func paramNames(s params.Set) []string {
	out := make([]string, len(s))
	for i, p := range s {
		out[i] = p.Name
	}
	return out
}

// paramValue formats parameter name of s ("0.3", "100", "[a b]"), or ""
// if s has none.
func paramValue(s params.Set, name string) string {
	if v, ok := s.Get(name); ok {
		return v.String()
	}
	return ""
}

// flatMeta maps each leaf path of m ("metadata.context_weights.x") to its
// value as JSON; an empty mapping or list is a leaf.
func flatMeta(m Metadata) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if x, ok := v.(map[string]any); ok && len(x) > 0 {
			for k, e := range x {
				walk(path+"."+k, e)
			}
			return
		}
		data, _ := json.Marshal(v)
		out[path] = string(data)
	}
	for k, v := range m {
		walk("metadata."+k, v)
	}
	return out
}

func unionKeys(a, b map[string]string) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// TextDiff returns a line diff from old to new: each line of either text
// once, prefixed "- " (only in old), "+ " (only in new) or "  " (in
// both), in order; every line ends in "\n". It uses the diff-match-patch
// line mode (Myers' algorithm, github.com/sergi/go-diff) without a time
// limit, so the result is deterministic.
func TextDiff(old, new string) string {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, lines := dmp.DiffLinesToRunes(withNewline(old), withNewline(new))
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lines)
	var out strings.Builder
	for _, d := range diffs {
		prefix := "  "
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			prefix = "- "
		case diffmatchpatch.DiffInsert:
			prefix = "+ "
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				fmt.Fprintf(&out, "%s%s", prefix, l)
			}
		}
	}
	return out.String()
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
