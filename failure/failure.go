package failure

import (
	"fmt"

	"evolve/envs"
)

// Cause is why an episode failed.
type Cause uint8

// The failure causes. None means the episode did not fail: it reached the
// turn limit alive or the deepest level.
const (
	None       Cause = iota // not a failure
	Injury                  // killed by a monster outside a fight the agent chose (caught exploring, fleeing, eating)
	CombatLoss              // killed during a fight the agent chose to take or continue
	Starvation              // died of hunger
	Entrapment              // ended by the no-progress rule (stuck, dead end, oscillation) or the runner's step budget
	Error                   // the episode crashed (a panic in the environment or agent): not a policy failure, never proposed on
	NumCauses               // number of causes including None; not a cause
)

// Causes lists the four failure causes in their canonical order (the order
// of tables, plots and Parquet columns).
var Causes = []Cause{Injury, CombatLoss, Starvation, Entrapment}

var causeNames = [...]string{"none", "injury", "combat_loss", "starvation", "entrapment", "error"}

// String returns the cause's snake_case name, e.g. "combat_loss".
func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return fmt.Sprintf("cause(%d)", uint8(c))
}

// ParseCause returns the cause named s ("none", "injury", "combat_loss",
// "starvation", "entrapment", "error"), or an error naming s.
func ParseCause(s string) (Cause, error) {
	for i, n := range causeNames {
		if n == s {
			return Cause(i), nil
		}
	}
	return None, fmt.Errorf("unknown failure cause %q (want one of %v)", s, causeNames)
}

// Classify returns the failure cause of one episode from its outcome:
// killed in a chosen fight is CombatLoss, killed otherwise Injury, starved
// Starvation, no progress or an exhausted step budget Entrapment, a
// recorded panic Error, and the turn limit or the deepest level None.
func Classify(o *envs.Outcome) Cause {
	switch o.End {
	case envs.EndKilled:
		if o.InChosenFight {
			return CombatLoss
		}
		return Injury
	case envs.EndStarved:
		return Starvation
	case envs.EndNoProgress, envs.EndStepBudget:
		return Entrapment
	case envs.EndPanic:
		return Error
	}
	return None
}

// Analysis summarises the failures of a batch of episodes.
type Analysis struct {
	// Episodes is the number of episodes analysed.
	Episodes int
	// Failures is the number of failed episodes (cause other than None).
	Failures int
	// Counts holds the number of episodes per cause, indexed by Cause
	// (Counts[None] counts the successes).
	Counts [NumCauses]int
}

// Analyze classifies every outcome. An empty batch gives a zero Analysis.
func Analyze(outcomes []envs.Outcome) Analysis {
	var a Analysis
	a.Episodes = len(outcomes)
	for i := range outcomes {
		c := Classify(&outcomes[i])
		a.Counts[c]++
		if c != None {
			a.Failures++
		}
	}
	return a
}

// Rate returns the share of all episodes that failed with cause c, in
// [0, 1]; 0 for an empty batch.
func (a Analysis) Rate(c Cause) float64 {
	if a.Episodes == 0 {
		return 0
	}
	return float64(a.Counts[c]) / float64(a.Episodes)
}

// Share returns the share of failures due to cause c, in [0, 1]; 0 when
// there are no failures.
func (a Analysis) Share(c Cause) float64 {
	if a.Failures == 0 {
		return 0
	}
	return float64(a.Counts[c]) / float64(a.Failures)
}

// Ranked returns the failure causes with at least one episode, most
// frequent first; ties keep the order of Causes.
func (a Analysis) Ranked() []Cause {
	out := make([]Cause, 0, len(Causes))
	for _, c := range Causes {
		if a.Counts[c] > 0 {
			out = append(out, c)
		}
	}
	// insertion sort: stable, 4 elements
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && a.Counts[out[j]] > a.Counts[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
