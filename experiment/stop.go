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
	if r.ck.Stall < r.cfg.Patience && !r.exhausted(gen) {
		return rundir.StopMaxGenerations, ""
	}
	switch {
	case gen.Failures.Failures == 0 && r.failureDriven(): // the baselines propose without failures
		return rundir.StopNoFailures, ""
	case len(gen.Candidates) == 0:
		return rundir.StopNoCandidates, r.noCandidateHint(gen)
	}
	return rundir.StopPatience, ""
}

// exhausted reports whether generation gen proposed no candidate with a
// proposer that cannot propose anything else for the same incumbent: the
// failure-driven proposer (the next generation replays the same
// incumbent on the same train seeds, so its failures, its remedies and
// the ones already tried are the same, and past the tried ones it has
// none; with no failure it has nothing to remedy) and a converged CMA-ES.
// The loop then stops (StopNoCandidates or StopNoFailures) instead of
// replaying train phases until patience runs out; the random baseline,
// which draws afresh each generation, goes on.
func (r *run) exhausted(gen Generation) bool {
	return len(gen.Candidates) == 0 && mutate.ProposerName(r.cfg.Mutation.Proposer) != mutate.ProposerRandom
}

// failureDriven reports whether the run's proposer reads failures.
func (r *run) failureDriven() bool {
	return mutate.ProposerName(r.cfg.Mutation.Proposer) == mutate.ProposerFailure
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
