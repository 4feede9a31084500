package failure

import (
	"slices"

	"evolve/envs"
)

// Analysis summarises the failures of a batch of episodes by the failure
// causes their environment declares.
type Analysis struct {
	// Causes are the environment's declared causes, in canonical order.
	Causes []string
	// Episodes is the number of episodes analysed.
	Episodes int
	// Failures is the number of failed episodes: cause other than
	// envs.CauseNone (error episodes count: they did not succeed).
	Failures int
	// Counts holds the number of episodes per cause name, including
	// envs.CauseNone and envs.CauseError when they occur.
	Counts map[string]int
}

// Analyze counts the outcomes by cause. causes are the environment's
// declared causes (envs.Info.CauseNames); an outcome's cause is counted
// whatever it is. An empty batch gives zero counts.
func Analyze(causes []string, outcomes []envs.Outcome) Analysis {
	a := Analysis{Causes: slices.Clone(causes), Episodes: len(outcomes), Counts: map[string]int{}}
	for i := range outcomes {
		c := outcomes[i].Cause
		a.Counts[c]++
		if c != envs.CauseNone {
			a.Failures++
		}
	}
	return a
}

// Count returns the number of episodes with cause c.
func (a Analysis) Count(c string) int { return a.Counts[c] }

// Rate returns the share of all episodes that failed with cause c, in
// [0, 1]; 0 for an empty batch.
func (a Analysis) Rate(c string) float64 {
	if a.Episodes == 0 {
		return 0
	}
	return float64(a.Counts[c]) / float64(a.Episodes)
}

// Share returns the share of failures due to cause c, in [0, 1]; 0 when
// there are no failures.
func (a Analysis) Share(c string) float64 {
	if a.Failures == 0 {
		return 0
	}
	return float64(a.Counts[c]) / float64(a.Failures)
}

// Ranked returns the declared causes with at least one episode, most
// frequent first; ties keep the declared order. envs.CauseError is never
// ranked: an episode that could not be played says nothing about the
// policy.
func (a Analysis) Ranked() []string {
	var out []string
	for _, c := range a.Causes {
		if a.Counts[c] > 0 {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(x, y string) int { return a.Counts[y] - a.Counts[x] })
	return out
}

// CountsOf returns the counts of causes, in that order (the per-cause
// columns of generations.parquet).
func (a Analysis) CountsOf(causes []string) []int32 {
	out := make([]int32, len(causes))
	for i, c := range causes {
		out[i] = int32(a.Counts[c])
	}
	return out
}
