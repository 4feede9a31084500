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

// DungeonRules is the dungeon's rule library: for each failure cause,
// rules a model that reads the prompt may be given, most direct first.
var DungeonRules = map[string][]string{
	"starvation":  {"Eat as soon as the status line shows Hungry.", "Never let the status line reach Weak while you carry food."},
	"injury":      {"When HP falls below half of its maximum, quaff a potion of healing or step away before exploring further.", "Rest until HP is full before taking the stairs."},
	"combat_loss": {"Do not keep fighting a monster while your HP is below a third; flee instead.", "Attack only monsters whose letter is lower case."},
	"entrapment":  {"After about 150 turns on a level, stop exploring and head for the down staircase.", "If the map around you has not changed for several turns, take the stairs."},
}

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
