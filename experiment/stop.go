package experiment

import (
	"fmt"
	"sort"
	"strings"

	"evolve/mutate"
)

// Stop reasons: why a run's evolution loop stopped, as the manifest
// (stop_reason), the checkpoint, the stdout summary, the report and
// evolve runs and evolve view give it.
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
	// StopInterrupted: a signal stopped the run before its loop ended; it
	// can be resumed (and a resumed run records its own reason).
	StopInterrupted = "interrupted"
)

// StopText returns a one-line explanation of a stop reason for people,
// e.g. "patience: 1 generation(s) in a row without an accepted candidate".
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

// stopReason says why the loop ends after generation gen (called once
// r.ck.LoopDone is set), and for StopNoCandidates a hint.
func (r *run) stopReason(gen Generation) (reason, hint string) {
	if r.ck.Stall < r.cfg.Patience {
		return StopMaxGenerations, ""
	}
	failureDriven := mutate.ProposerName(r.cfg.Mutation.Proposer) == mutate.ProposerFailure
	switch {
	case gen.Failures.Failures == 0 && failureDriven: // the baselines propose without failures
		return StopNoFailures, ""
	case len(gen.Candidates) == 0:
		return StopNoCandidates, r.noCandidateHint(gen)
	}
	return StopPatience, ""
}

// noCandidateHint names the failing causes without a declared remedy, or
// says that every remedy was tried.
func (r *run) noCandidateHint(gen Generation) string {
	switch mutate.ProposerName(r.cfg.Mutation.Proposer) {
	case mutate.ProposerCMAES:
		return "CMA-ES converged (its covariance collapsed below gonum's StopLogDet): nothing is left to sample"
	case mutate.ProposerRandom:
		return "every random draw equalled the incumbent or an earlier draw: the parameter schema has too few values"
	}
	remedies := r.cfg.Mutation.Remedies
	if len(remedies) == 0 {
		remedies = r.info.Remedies
	}
	var bare []string
	for _, c := range r.info.CauseNames() {
		if gen.Failures.Counts[c] > 0 && len(remedies[c]) == 0 {
			bare = append(bare, c)
		}
	}
	sort.Strings(bare)
	if len(bare) > 0 {
		return fmt.Sprintf("no remedy is declared for the failing cause(s) %s: add them under mutation.remedies (or mutation.fill) in the config", strings.Join(bare, ", "))
	}
	return "every remedy of the failing causes was tried: declare more under mutation.remedies or mutation.fill, or raise mutation.candidates"
}
