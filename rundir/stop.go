package rundir

import "fmt"

// Stop reasons: why a run's evolution loop stopped, as its checkpoint and
// manifest record them (stop_reason) and the stdout summary, the report,
// evolve runs and evolve view give them (StopText).
const (
	// StopPatience: patience consecutive generations accepted no
	// candidate.
	StopPatience = "patience"
	// StopMaxGenerations: max_generations generations ran.
	StopMaxGenerations = "max_generations"
	// StopNoFailures: the incumbent failed no train episode, so nothing
	// was left to fix (the last generation stalled with no failure).
	StopNoFailures = "no_failures"
	// StopNoCandidates: the last generations proposed no candidate (the
	// remedies of the failing causes were used up or none is declared);
	// the stop's hint says what to change.
	StopNoCandidates = "no_candidates"
	// StopBudget: the next generation could exceed budget.episodes (its
	// train phase plus mutation.candidates times the val seeds).
	StopBudget = "budget"
	// StopInterrupted: a signal stopped the run before its loop ended; it
	// can be resumed (and a resumed run records its own reason). Read
	// also gives it, or "crashed", for a stopped run that recorded no
	// reason.
	StopInterrupted = "interrupted"
)

// StopText returns a one-line explanation of a stop reason for people,
// e.g. "patience: 1 generation(s) in a row without an accepted
// candidate"; patience and maxGenerations are the run's config values.
// A reason it does not know is returned as it is.
func StopText(reason string, patience, maxGenerations int) string {
	switch reason {
	case StopPatience:
		return fmt.Sprintf("patience: %d generation(s) in a row without an accepted candidate", patience)
	case StopMaxGenerations:
		return fmt.Sprintf("max_generations: %d generation(s) ran", maxGenerations)
	case StopNoFailures:
		return "no failures left to fix: the incumbent failed no train episode"
	case StopNoCandidates:
		return "no candidate proposed"
	case StopInterrupted:
		return "interrupted (resume with evolve run --resume DIR)"
	case StopBudget:
		return "budget: the next generation could exceed budget.episodes"
	}
	return reason
}
