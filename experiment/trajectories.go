package experiment

import (
	"os"
	"path/filepath"

	"evolve/envs"
	"evolve/trajectory"
)

// recordPhase reports whether the players of a phase (version on split)
// are asked to record: the policy records, and no archive of the phase
// exists yet (the incumbent's train episodes, played again every
// generation with the same seeds, are recorded once).
func (r *run) recordPhase(split, version string) bool {
	if !r.cfg.Trajectories.Record() || r.dir == "" {
		return false
	}
	rel, err := trajectory.Phase{Split: split, Version: version}.Rel()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(r.dir, rel))
	return err != nil
}

// storeTrajectories writes the trajectories of a phase's outcomes that
// the policy keeps to the run directory (trajectory.Write); the first
// error is kept for save to return.
func (r *run) storeTrajectories(split, version string, outs []envs.Outcome) {
	if r.trajErr != nil || !r.cfg.Trajectories.Record() {
		return
	}
	es := trajectory.FromOutcomes(r.cfg.Trajectories, outs, nil, nil)
	if _, err := trajectory.Write(r.dir, trajectory.Phase{Split: split, Version: version}, es); err != nil {
		r.trajErr = err
	}
}
