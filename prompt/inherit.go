package prompt

import (
	"errors"
	"fmt"
	"strings"
)

// MaxInheritanceDepth is the longest inherits_from chain Resolve follows
// (a prompt, its parent, ... : at most this many ancestors).
const MaxInheritanceDepth = 16

// ErrCycle reports an inherits_from chain that comes back to a slug it
// has passed; the error is a *CycleError naming the cycle.
var ErrCycle = errors.New("inheritance cycle")

// CycleError is an inherits_from chain that returns to a slug already in
// it: Chain lists the prompts from the first to the one whose parent
// closes the cycle, Back is that parent's reference.
type CycleError struct {
	Chain []Ref // pinned references, the resolved prompt first
	Back  Ref   // the reference that names a slug already in Chain
}

// Error returns "inheritance cycle: a@v1.0.1 → b@v1.0.0 → a (a prompt
// cannot inherit from itself, directly or through others)".
func (e *CycleError) Error() string {
	parts := make([]string, 0, len(e.Chain)+1)
	for _, r := range e.Chain {
		parts = append(parts, r.String())
	}
	parts = append(parts, e.Back.String())
	return fmt.Sprintf("inheritance cycle: %s (a prompt cannot inherit from itself, directly or through others)", strings.Join(parts, " → "))
}

// Is makes errors.Is(err, ErrCycle) true.
func (e *CycleError) Is(target error) bool { return target == ErrCycle }

// Resolution is a prompt with its inheritance applied.
type Resolution struct {
	// Prompt is the merged prompt: it has no InheritsFrom and no
	// ContentSHA256, and is what rendering and agents see.
	Prompt *Prompt
	// Chain pins every version merged, the resolved prompt first, then
	// its parent, grandparent, ...; len(Chain) >= 1.
	Chain []Ref
}

// Resolve applies p's inheritance: it follows inherits_from from p with
// lookup, which returns the prompt a reference names (a pinned version,
// or the HEAD of a branch), and merges the chain from the root ancestor
// down (see Merge). Resolve is a pure function of p and lookup. Errors:
// a *CycleError (ErrCycle) when a slug recurs, an error naming the
// reference when lookup fails, and an error when the chain is longer than
// MaxInheritanceDepth.
func Resolve(p *Prompt, lookup func(Ref) (*Prompt, error)) (*Resolution, error) {
	chain := []*Prompt{p}
	refs := []Ref{p.Ref()}
	for cur := p; cur.InheritsFrom != nil; {
		ref := *cur.InheritsFrom
		for _, r := range refs {
			if r.Slug == ref.Slug {
				return nil, &CycleError{Chain: refs, Back: ref}
			}
		}
		if len(chain) > MaxInheritanceDepth {
			return nil, fmt.Errorf("resolving %s: inherits_from chain longer than %d", p.Ref(), MaxInheritanceDepth)
		}
		parent, err := lookup(ref)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: parent %s of %s: %w", p.Ref(), ref, cur.Ref(), err)
		}
		if parent.SlugOrDefault() != ref.Slug {
			return nil, fmt.Errorf("resolving %s: parent %s is %s", p.Ref(), ref, parent.Ref())
		}
		chain = append(chain, parent)
		refs = append(refs, parent.Ref())
		cur = parent
	}
	merged := chain[len(chain)-1].Clone()
	merged.InheritsFrom, merged.OverrideSections = nil, nil
	for i := len(chain) - 2; i >= 0; i-- {
		merged = Merge(merged, chain[i])
	}
	merged.ContentSHA256 = ""
	return &Resolution{Prompt: merged, Chain: refs}, nil
}

// Merge returns child with its parent's content merged in; both are left
// unchanged. The rules, from the graph prompt design:
//   - sections: the parent's first, in its order; a child section of the
//     same name extends the parent's (the parent's text, a blank line, the
//     child's) unless the child lists it in override_sections, which
//     replaces the parent's text outright (in the parent's position);
//     child sections the parent lacks follow in the child's order;
//   - task_definition, rules_constraints, skill_descriptions and
//     policy_parameters: the child's if it has them, else the parent's;
//   - identity (slug, type, branch, version, timestamp), tags, metadata
//     and mutation history: the child's own, never inherited;
//   - inherits_from, override_sections and content_sha256 are cleared:
//     the result is a flat prompt.
func Merge(parent, child *Prompt) *Prompt {
	out := child.Clone()
	out.InheritsFrom, out.OverrideSections, out.ContentSHA256 = nil, nil, ""
	override := map[string]bool{}
	for _, n := range child.OverrideSections {
		override[n] = true
	}
	var secs Sections
	for _, ps := range parent.Sections {
		s := ps
		if ct, ok := child.Sections.Get(ps.Name); ok {
			if override[ps.Name] {
				s.Text = ct
			} else {
				s.Text = strings.TrimRight(ps.Text, "\n") + "\n\n" + ct
			}
		}
		secs = append(secs, s)
	}
	for _, cs := range child.Sections {
		if _, ok := parent.Sections.Get(cs.Name); !ok {
			secs = append(secs, cs)
		}
	}
	out.Sections = secs
	if out.TaskDefinition == "" {
		out.TaskDefinition = parent.TaskDefinition
	}
	if len(out.RulesConstraints) == 0 {
		out.RulesConstraints = cloneStrings(parent.RulesConstraints)
	}
	if len(out.SkillDescriptions) == 0 && len(parent.SkillDescriptions) > 0 {
		out.SkillDescriptions = append(Sections{}, parent.SkillDescriptions...)
	}
	if !out.HasPolicy() && parent.HasPolicy() {
		out.PolicyParameters = parent.PolicyParameters.Clone()
	}
	return out
}
