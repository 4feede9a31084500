package eval

import (
	"evolve/envs"
	"evolve/gate"
	"evolve/results"
)

// Failures returns, for the rows of variant and version label in order,
// whether each episode failed (its cause is not envs.CauseNone; error
// episodes count as failed), with their seeds and repeats: the input of
// gate.CompareFailures, aligned with Scores.
func Failures(rows []results.EpisodeRow, variant, label string) (failed []bool, seedList []uint64, repeats []int) {
	for _, r := range rows {
		if r.Variant == variant && r.Version == label {
			failed = append(failed, r.Cause != envs.CauseNone)
			seedList = append(seedList, r.Seed)
			repeats = append(repeats, int(r.Repeat))
		}
	}
	return failed, seedList, repeats
}

// compareFailures runs the failure-share checks of g (nil when
// g.MaxFailureIncrease is nil): each candidate against the baseline's
// rows, variant by variant, in the order of the score checks.
func (e *eval) compareFailures(g GateSettings, baseRows []results.EpisodeRow, baseVersion string, cands []Version) ([]gate.Check, error) {
	if g.MaxFailureIncrease == nil {
		return nil, nil
	}
	var bases, cs []gate.FailureSample
	for _, variant := range e.variants {
		f, s, r := Failures(baseRows, variant.Name, baseVersion)
		bases = append(bases, gate.FailureSample{Version: baseVersion, Variant: variant.Name, Seeds: s, Repeats: r, Failed: f})
		for _, c := range cands {
			f, s, r := Failures(e.episodes, variant.Name, c.Label)
			cs = append(cs, gate.FailureSample{Version: c.Label, Variant: variant.Name, Seeds: s, Repeats: r, Failed: f})
		}
	}
	return gate.CompareFailures(bases, cs, gate.FailureConfig{Alpha: g.Config.Alpha, MaxIncrease: *g.MaxFailureIncrease,
		Correction: g.Config.Correction, MaxUnmatched: g.Config.MaxUnmatched})
}
