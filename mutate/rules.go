package mutate

import (
	"fmt"
	"maps"
	"slices"

	"evolve/failure"
	"evolve/prompt/guard"
)

// The operators of text mutations, which edit a prompt's
// rules_constraints: what a model reads, not a number.
const (
	OpAddRule     = "add_rule"     // a library rule appended
	OpReplaceRule = "replace_rule" // a library rule that did not help replaced by the cause's next one
	OpRemoveRule  = "remove_rule"  // a library rule for a cause that no longer occurs removed
)

// ProposeRules returns up to k text mutations of rules (a prompt's
// rules_constraints) answering the failures in a: for the causes ranked
// by count, round-robin, the next rule of library[cause] that rules does
// not hold yet is appended (OpAddRule). Each new rule is screened by
// policy first; a rule it rejects is skipped. Each Mutation has the
// complete new rule list in Rules, TextEdit set, and a description with
// the line diff ("+ Eat as soon as ..."). The result is a deterministic
// function of its arguments.
func ProposeRules(a failure.Analysis, rules []string, library map[string][]string, k int, policy guard.Policy) []Mutation {
	var out []Mutation
	next := map[string]int{}
	for progress := true; progress && len(out) < k; {
		progress = false
		for _, cause := range a.Ranked() {
			lib := library[cause]
			for next[cause] < len(lib) {
				rule := lib[next[cause]]
				next[cause]++
				if slices.Contains(rules, rule) || policy.Error(guard.Text{Field: "rules_constraints", Text: rule}) != nil {
					continue
				}
				out = append(out, Mutation{
					Operator:    OpAddRule,
					Remedy:      "add_rule " + cause,
					Rules:       append(slices.Clone(rules), rule),
					TextEdit:    true,
					Description: fmt.Sprintf("Added rule for %s:\n+ %s", cause, rule),
					Cause:       cause,
				})
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

// ProposeRuleEdits returns up to k text mutations that revise rules
// already in the prompt: for the most frequent cause whose library rule
// i the prompt holds (it did not make the cause go away), the rule
// replaced in place by library rule i+1 (OpReplaceRule); and for each
// library rule of a cause that no failure has any more, its removal
// (OpRemoveRule), so that prompts do not only grow. Rules not from the
// library are never touched. Descriptions carry the line diff ("- old",
// "+ new"). Deterministic; new text is screened by policy.
func ProposeRuleEdits(a failure.Analysis, rules []string, library map[string][]string, k int, policy guard.Policy) []Mutation {
	var out []Mutation
	for _, cause := range a.Ranked() {
		lib := library[cause]
		for i := 0; i+1 < len(lib) && len(out) < k; i++ {
			at := slices.Index(rules, lib[i])
			if at < 0 || slices.Contains(rules, lib[i+1]) || policy.Error(guard.Text{Field: "rules_constraints", Text: lib[i+1]}) != nil {
				continue
			}
			nr := slices.Clone(rules)
			nr[at] = lib[i+1]
			out = append(out, Mutation{Operator: OpReplaceRule, Remedy: "replace_rule " + cause, Rules: nr, TextEdit: true, Cause: cause,
				Description: fmt.Sprintf("Replaced a rule for %s:\n- %s\n+ %s", cause, lib[i], lib[i+1])})
			break
		}
	}
	causes := slices.Sorted(maps.Keys(library))
	for _, cause := range causes {
		if a.Count(cause) > 0 || len(out) >= k {
			continue
		}
		for _, r := range library[cause] {
			if at := slices.Index(rules, r); at >= 0 && len(out) < k {
				out = append(out, Mutation{Operator: OpRemoveRule, Remedy: "remove_rule " + cause, Rules: slices.Delete(slices.Clone(rules), at, at+1),
					TextEdit: true, Description: fmt.Sprintf("Removed a rule for %s (no %s failures any more):\n- %s", cause, cause, r)})
			}
		}
	}
	return out
}
