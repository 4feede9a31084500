package mutate

import (
	"fmt"
	"slices"

	"evolve/failure"
	"evolve/prompt/guard"
)

// OpAddRule and OpRemoveRule are the operators of text mutations, which
// edit a prompt's rules_constraints: what a model reads, not a number.
const (
	OpAddRule    = "add_rule"
	OpRemoveRule = "remove_rule"
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
