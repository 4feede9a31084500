package experiment

import (
	"fmt"
	"sort"
	"strings"

	"evolve/mutate"
	"evolve/rundir"
)

// stopReason says why the loop ends after generation gen (called once
// r.ck.LoopDone is set), and for StopNoCandidates a hint.
func (r *run) stopReason(gen Generation) (reason, hint string) {
	if r.ck.Stall < r.cfg.Patience {
		return rundir.StopMaxGenerations, ""
	}
	failureDriven := mutate.ProposerName(r.cfg.Mutation.Proposer) == mutate.ProposerFailure
	switch {
	case gen.Failures.Failures == 0 && failureDriven: // the baselines propose without failures
		return rundir.StopNoFailures, ""
	case len(gen.Candidates) == 0:
		return rundir.StopNoCandidates, r.noCandidateHint(gen)
	}
	return rundir.StopPatience, ""
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
