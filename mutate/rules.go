package mutate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"evolve/failure"
	"evolve/guard"
	"evolve/prompt"
	"evolve/render"
)

// The operators of text mutations, which edit the text a model reads: a
// prompt's rules_constraints and its sections, never a number.
const (
	OpAddRule         = "add_rule"         // a library rule appended
	OpReplaceRule     = "replace_rule"     // a library rule that did not help replaced by the cause's next one
	OpRemoveRule      = "remove_rule"      // a library rule for a cause that no longer occurs removed
	OpReorderSections = "reorder_sections" // a section moved earlier in the declared order
)

// ProposeText returns up to k text mutations of p (resolved: inheritance
// applied) answering the failures in a, in this order: the rules
// ProposeRules would add, the edits ProposeRuleEdits would make, then
// the section moves of ProposeReorder. Rules live in rules_constraints
// or in p's sections: a cause's rules go to its home section (the first
// section in the declared order, render.SectionSpecs, named like the
// cause or holding a line that is one of library[cause], a "- " or "* "
// marker aside), else to rules_constraints.
//
// A frozen section (render.FrozenSections) is never edited: a rule whose
// home section is frozen is appended to rules_constraints instead, a
// library rule inside a frozen section is neither replaced nor removed,
// and no frozen section changes its place in the declared order. Every
// new text is screened by policy first (rejected text is never proposed).
// Each Mutation has TextEdit set, the complete new Rules and Sections,
// and for a move SectionOrder; apply it with ApplyText. The result is a
// deterministic function of its arguments. The error is p's bad section
// declarations (see render.SectionSpecs).
func ProposeText(a failure.Analysis, p *prompt.Prompt, library map[string][]string, k int, policy guard.Policy) ([]Mutation, error) {
	d, err := newDoc(p)
	if err != nil {
		return nil, err
	}
	out := d.add(a, library, k, policy)
	out = append(out, d.edit(a, library, k-len(out), policy)...)
	out = append(out, d.reorder(a, library, k-len(out), policy)...)
	return out, nil
}

// ProposeRules returns up to k text mutations of rules (a prompt's
// rules_constraints) answering the failures in a: for the causes ranked
// by count, round-robin, the next rule of library[cause] that rules does
// not hold yet is appended (OpAddRule). Each new rule is screened by
// policy first; a rule it rejects is skipped. Each Mutation has the
// complete new rule list in Rules, TextEdit set, and a description with
// the line diff ("+ Eat as soon as ..."). The result is a deterministic
// function of its arguments. ProposeText does the same for a prompt with
// sections.
func ProposeRules(a failure.Analysis, rules []string, library map[string][]string, k int, policy guard.Policy) []Mutation {
	d := &doc{rules: rules}
	return d.add(a, library, k, policy)
}

// ProposeRuleEdits returns up to k text mutations that revise rules
// already in the prompt: for the most frequent cause whose library rule
// i the prompt holds (it did not make the cause go away), the rule
// replaced in place by library rule i+1 (OpReplaceRule); and for each
// library rule of a cause that no failure has any more, its removal
// (OpRemoveRule), so that prompts do not only grow. Rules not from the
// library are never touched. Descriptions carry the line diff ("- old",
// "+ new"). Deterministic; new text is screened by policy. ProposeText
// does the same for a prompt with sections.
func ProposeRuleEdits(a failure.Analysis, rules []string, library map[string][]string, k int, policy guard.Policy) []Mutation {
	d := &doc{rules: rules}
	return d.edit(a, library, k, policy)
}

// ApplyText makes p (a clone of the incumbent, as prompt.Derive returns
// it) what text mutation m proposes: its rules_constraints, its sections
// when m.Sections is not nil, and for a move (m.SectionOrder not nil)
// the sections' document order and, when p declares its sections
// (metadata.render.sections), that declaration rewritten in the new order
// with every section's kind. It panics if m is not a text mutation.
func ApplyText(m Mutation, p *prompt.Prompt) {
	if !m.TextEdit {
		panic("mutate: ApplyText of a mutation that is not a text edit")
	}
	p.RulesConstraints = slices.Clone(m.Rules)
	if m.Sections != nil {
		p.Sections = slices.Clone(m.Sections)
	}
	if m.SectionOrder == nil {
		return
	}
	pos := map[string]int{}
	for i, s := range m.SectionOrder {
		pos[s.Name] = i
	}
	p.Sections = slices.Clone(p.Sections)
	slices.SortStableFunc(p.Sections, func(x, y prompt.Section) int {
		px, okx := pos[x.Name]
		py, oky := pos[y.Name]
		switch {
		case okx && oky:
			return px - py
		case okx:
			return -1
		case oky:
			return 1
		}
		return 0
	})
	if _, declared := p.Metadata[render.MetadataKey]; declared {
		list := make([]any, len(m.SectionOrder))
		for i, s := range m.SectionOrder {
			list[i] = map[string]any{"name": s.Name, "kind": string(s.Kind)}
		}
		p.Metadata[render.MetadataKey] = map[string]any{"sections": list}
	}
}

// doc is the text a model reads, as the text operators see it: the
// rules, the sections, and their declared order and kinds.
type doc struct {
	rules []string
	secs  prompt.Sections
	specs []render.SectionSpec
}

func newDoc(p *prompt.Prompt) (*doc, error) {
	specs, err := render.SectionSpecs(p)
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	return &doc{rules: p.RulesConstraints, secs: p.Sections, specs: specs}, nil
}

// kind returns the declared kind of section name (Mutable if undeclared).
func (d *doc) kind(name string) render.SectionKind {
	for _, s := range d.specs {
		if s.Name == name {
			return s.Kind
		}
	}
	return render.Mutable
}

// splitMarker splits a section line into its list marker ("- ", "* " or
// "") and its text, both trimmed of surrounding space but the marker's.
func splitMarker(line string) (marker, text string) {
	t := strings.TrimSpace(line)
	for _, m := range []string{"- ", "* "} {
		if strings.HasPrefix(t, m) {
			return m, strings.TrimSpace(t[len(m):])
		}
	}
	return "", t
}

// loc is where a rule is: in rules_constraints (section "") at index i,
// or on line i of a section.
type loc struct {
	section string
	i       int
}

// find returns where rule is, looking in rules_constraints first, then
// in the sections in document order.
func (d *doc) find(rule string) (loc, bool) {
	if i := slices.Index(d.rules, rule); i >= 0 {
		return loc{"", i}, true
	}
	for _, s := range d.secs {
		for i, line := range strings.Split(s.Text, "\n") {
			if _, t := splitMarker(line); t == rule {
				return loc{s.Name, i}, true
			}
		}
	}
	return loc{}, false
}

// home returns the home section of cause (see ProposeText), "" if none.
func (d *doc) home(cause string, lib []string) string {
	for _, sp := range d.specs {
		text, ok := d.secs.Get(sp.Name)
		if !ok || sp.Kind == render.Injected {
			continue
		}
		if sp.Name == cause {
			return sp.Name
		}
		for _, line := range strings.Split(text, "\n") {
			if _, t := splitMarker(line); t != "" && slices.Contains(lib, t) {
				return sp.Name
			}
		}
	}
	return ""
}

// withSection returns a copy of the sections with section name's text
// replaced by f(lines).
func (d *doc) withSection(name string, f func(lines []string) []string) prompt.Sections {
	out := slices.Clone(d.secs)
	for i, s := range out {
		if s.Name == name {
			out[i].Text = strings.Join(f(strings.Split(s.Text, "\n")), "\n")
		}
	}
	return out
}

// screened reports whether policy lets text into field.
func screened(policy guard.Policy, field, text string) bool {
	return policy.Error(guard.Text{Field: field, Text: text}) == nil
}

// add proposes up to k rule additions (see ProposeRules, ProposeText).
func (d *doc) add(a failure.Analysis, library map[string][]string, k int, policy guard.Policy) []Mutation {
	var out []Mutation
	next := map[string]int{}
	for progress := true; progress && len(out) < k; {
		progress = false
		for _, cause := range a.Ranked() {
			lib := library[cause]
			for next[cause] < len(lib) {
				rule := lib[next[cause]]
				next[cause]++
				if _, has := d.find(rule); has {
					continue
				}
				m, ok := d.place(cause, rule, lib, policy)
				if !ok {
					continue
				}
				m.Operator, m.Remedy = OpAddRule, "add_rule "+cause
				m.Description = fmt.Sprintf("Added rule for %s%s:\n+ %s", cause, m.Description, m.line)
				out = append(out, m.Mutation)
				progress = true
				break
			}
			if len(out) >= k {
				break
			}
		}
	}
	return out
}

// placed is a rule addition made by doc.place: the mutation (without its
// operator and remedy) and the line as written.
type placed struct {
	Mutation
	line string // the line added, with its section's list marker
}

// place returns the mutation that appends rule for cause: to cause's
// home section (see ProposeText) in its list style when that section is
// not frozen, else to rules_constraints. Its Description is "" or " to
// section NAME". ok is false when policy rejects the rule in its field.
func (d *doc) place(cause, rule string, lib []string, policy guard.Policy) (m placed, ok bool) {
	m.Mutation = Mutation{Rules: slices.Clone(d.rules), Sections: slices.Clone(d.secs), TextEdit: true, Cause: cause}
	if h := d.home(cause, lib); h != "" && d.kind(h) != render.Frozen {
		if !screened(policy, "sections."+h, rule) {
			return m, false
		}
		m.Sections = d.withSection(h, func(lines []string) []string {
			for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
				lines = lines[:len(lines)-1]
			}
			marker := ""
			if len(lines) > 0 {
				marker, _ = splitMarker(lines[len(lines)-1])
			}
			m.line = marker + rule
			return append(lines, m.line)
		})
		m.Description = " to section " + h
		return m, true
	}
	if !screened(policy, "rules_constraints", rule) {
		return m, false
	}
	m.Rules = append(m.Rules, rule)
	m.line = rule
	return m, true
}

// replaced returns a mutation with the rule at l replaced by rule (or
// removed, for rule ""), and the old line and the new one as written.
func (d *doc) replaced(l loc, rule string) (m Mutation, old, line string, ok bool) {
	m = Mutation{Rules: slices.Clone(d.rules), Sections: slices.Clone(d.secs), TextEdit: true}
	if l.section == "" {
		old = d.rules[l.i]
		if rule == "" {
			m.Rules = slices.Delete(m.Rules, l.i, l.i+1)
		} else {
			m.Rules[l.i], line = rule, rule
		}
		return m, old, line, true
	}
	ok = true
	m.Sections = d.withSection(l.section, func(lines []string) []string {
		old = strings.TrimSpace(lines[l.i])
		if rule == "" {
			rest := slices.Delete(slices.Clone(lines), l.i, l.i+1)
			if strings.TrimSpace(strings.Join(rest, "\n")) == "" {
				ok = false // a section is never left blank
			}
			return rest
		}
		marker, _ := splitMarker(lines[l.i])
		line = marker + rule
		lines[l.i] = line
		return lines
	})
	return m, old, line, ok
}

// edit proposes up to k rule replacements and removals (see
// ProposeRuleEdits, ProposeText).
func (d *doc) edit(a failure.Analysis, library map[string][]string, k int, policy guard.Policy) []Mutation {
	var out []Mutation
	where := func(l loc) (field, in string) {
		if l.section == "" {
			return "rules_constraints", ""
		}
		return "sections." + l.section, " in section " + l.section
	}
	for _, cause := range a.Ranked() {
		lib := library[cause]
		for i := 0; i+1 < len(lib) && len(out) < k; i++ {
			l, has := d.find(lib[i])
			if _, dup := d.find(lib[i+1]); !has || dup || (l.section != "" && d.kind(l.section) == render.Frozen) {
				continue
			}
			field, in := where(l)
			if !screened(policy, field, lib[i+1]) {
				continue
			}
			m, old, line, _ := d.replaced(l, lib[i+1])
			m.Operator, m.Remedy, m.Cause = OpReplaceRule, "replace_rule "+cause, cause
			m.Description = fmt.Sprintf("Replaced a rule for %s%s:\n- %s\n+ %s", cause, in, old, line)
			out = append(out, m)
			break
		}
	}
	for _, cause := range slices.Sorted(maps.Keys(library)) {
		if a.Count(cause) > 0 {
			continue
		}
		for _, r := range library[cause] {
			l, has := d.find(r)
			if len(out) >= k || !has || (l.section != "" && d.kind(l.section) == render.Frozen) {
				continue
			}
			m, old, _, ok := d.replaced(l, "")
			if !ok {
				continue
			}
			_, in := where(l)
			m.Operator, m.Remedy = OpRemoveRule, "remove_rule "+cause
			m.Description = fmt.Sprintf("Removed a rule for %s%s (no %s failures any more):\n- %s", cause, in, cause, old)
			out = append(out, m)
		}
	}
	return out
}

// ProposeReorder returns up to k section moves of p (OpReorderSections):
// for the causes ranked by count, the cause's home section (see
// ProposeText), if mutable, is moved earlier in the declared order, past
// every section before it up to the nearest frozen one (frozen sections
// keep their places). A section already there, or whose text policy
// rejects, is not moved. The description has the order's diff
// ("- order: a, b, c" / "+ order: a, c, b"). Deterministic; the error is
// p's bad section declarations.
func ProposeReorder(a failure.Analysis, p *prompt.Prompt, library map[string][]string, k int, policy guard.Policy) ([]Mutation, error) {
	d, err := newDoc(p)
	if err != nil {
		return nil, err
	}
	return d.reorder(a, library, k, policy), nil
}

func (d *doc) reorder(a failure.Analysis, library map[string][]string, k int, policy guard.Policy) []Mutation {
	var out []Mutation
	moved := map[string]bool{}
	for _, cause := range a.Ranked() {
		if len(out) >= k {
			break
		}
		h := d.home(cause, library[cause])
		if h == "" || moved[h] || d.kind(h) != render.Mutable {
			continue
		}
		at := slices.IndexFunc(d.specs, func(s render.SectionSpec) bool { return s.Name == h })
		to := at
		for to > 0 && d.specs[to-1].Kind != render.Frozen {
			to--
		}
		text, _ := d.secs.Get(h)
		if to == at || !screened(policy, "sections."+h, text) {
			continue
		}
		order := slices.Clone(d.specs)
		sp := order[at]
		order = slices.Insert(slices.Delete(order, at, at+1), to, sp)
		moved[h] = true
		names := func(ss []render.SectionSpec) string {
			n := make([]string, len(ss))
			for i, s := range ss {
				n[i] = s.Name
			}
			return strings.Join(n, ", ")
		}
		out = append(out, Mutation{Operator: OpReorderSections, Remedy: "reorder_sections " + cause, Rules: slices.Clone(d.rules),
			Sections: slices.Clone(d.secs), SectionOrder: order, TextEdit: true, Cause: cause,
			Description: fmt.Sprintf("Moved section %s earlier for %s:\n- order: %s\n+ order: %s", h, cause, names(d.specs), names(order))})
	}
	return out
}
