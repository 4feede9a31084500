package eval

import (
	"evolve/envs"
	"evolve/trajectory"
)

// storeTrajectories writes the trajectories the config's policy keeps of
// one phase's outcomes (in seed and repeat order) to the eval directory:
// trajectories/SPLIT[/VARIANT]/LABEL.zip, entries named by the seed of
// the seed file and the repeat (key(k) gives outcome k's).
func (e *eval) storeTrajectories(variant, label string, outs []envs.Outcome, key func(k int) (seed uint64, repeat int)) error {
	p := e.cfg.Trajectories
	if !p.Record() {
		return nil
	}
	var es []trajectory.Entry
	for k := range outs {
		o := &outs[k]
		if len(o.Trajectory) == 0 || !p.Keep(o.Cause) {
			continue
		}
		seed, rep := key(k)
		es = append(es, trajectory.Entry{Seed: seed, Repeat: rep, Format: o.TrajectoryFormat, Data: o.Trajectory})
	}
	_, err := trajectory.Write(e.dir, trajectory.Phase{Split: e.opt.Split, Version: label, Variant: variant}, es)
	return err
}
