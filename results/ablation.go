package results

import (
	"cmp"
	"strings"
)

// Table names of evolve ablate's tables.
const (
	// TableAblation is the table name of ablation.parquet: one row per
	// run of an ablation (environment, replicate, proposer).
	TableAblation = "ablation"
	// TableAnytime is the table name of anytime.parquet: the incumbent's
	// val mean against the episodes used, per run of an ablation.
	TableAnytime = "anytime"
)

// AblationRow is one row of ablation.parquet, written by evolve ablate:
// one run, that is one proposer on one replicate's seed sets of one
// environment, all at the same episode budget.
//
// Columns: environment, replicate, proposer, run, final_version,
// generations, stop_reason, test_n, final_test_mean, base_test_mean,
// normalized_score, episodes_used, budget. None is nullable; a mean that
// cannot be computed (every test episode an error) is NaN.
type AblationRow struct {
	// Environment is the ablation's name of the environment (its
	// environments[].name).
	Environment string `parquet:"environment,dict"`
	// Replicate is the replicate, from 1: the seed sets the run played.
	Replicate int32 `parquet:"replicate"`
	// Proposer is the proposer family (mutation.proposer): failure,
	// random or cmaes.
	Proposer string `parquet:"proposer,dict"`
	// Run is the run directory, relative to the ablation directory
	// (slash-separated).
	Run string `parquet:"run"`
	// FinalVersion is the run's final version (its base if nothing was
	// accepted).
	FinalVersion string `parquet:"final_version,dict"`
	// Generations is the number of generations the run ran, >= 1.
	Generations int32 `parquet:"generations"`
	// StopReason is why the run's loop stopped (budget, patience, ...).
	StopReason string `parquet:"stop_reason,dict"`
	// TestN is the number of test episodes each of the final and base
	// versions played (error episodes left out).
	TestN int32 `parquet:"test_n"`
	// FinalTestMean and BaseTestMean are the mean test scores of the
	// final and base versions, in the environment's score units, on the
	// replicate's test seeds (shared by the replicate's proposers).
	FinalTestMean float64 `parquet:"final_test_mean"`
	BaseTestMean  float64 `parquet:"base_test_mean"`
	// NormalizedScore is FinalTestMean normalised per environment (see
	// package ablate: 0 is the base's mean, 1 the best known score).
	NormalizedScore float64 `parquet:"normalized_score"`
	// EpisodesUsed is the run's train and val episodes (what the budget
	// bounds), >= 0.
	EpisodesUsed int64 `parquet:"episodes_used"`
	// Budget is the run's budget.episodes.
	Budget int64 `parquet:"budget"`
}

// CompareAblation is the order of ablation.parquet: by environment,
// replicate, then proposer.
func CompareAblation(a, b AblationRow) int {
	return cmp.Or(strings.Compare(a.Environment, b.Environment), cmp.Compare(a.Replicate, b.Replicate),
		strings.Compare(a.Proposer, b.Proposer))
}

// WriteAblation writes rows to the Parquet file path, sorted by
// [CompareAblation], replacing any existing file atomically; errors name
// path and leave any previous file unchanged.
func WriteAblation(path string, rows []AblationRow) error {
	return writeTable(path, TableAblation, rows, orderBy(rows, CompareAblation))
}

// ReadAblation reads every row of a file written by [WriteAblation], in
// file order. It returns an error wrapping [ErrSchema] if the file's
// metadata names another table or schema version. Errors name path.
func ReadAblation(path string) ([]AblationRow, error) {
	return readTable[AblationRow](path, TableAblation)
}

// AnytimeRow is one row of anytime.parquet, written by evolve ablate: the
// incumbent of one run at one point of its budget. A run has one row per
// generation (the incumbent the generation started from, at the episodes
// used before it) and a last row (the final incumbent, at the episodes
// used by the whole run).
//
// Columns: environment, replicate, proposer, step, episodes_used,
// incumbent, val_mean. None is nullable.
type AnytimeRow struct {
	Environment string `parquet:"environment,dict"` // as AblationRow.Environment
	Replicate   int32  `parquet:"replicate"`        // as AblationRow.Replicate
	Proposer    string `parquet:"proposer,dict"`    // as AblationRow.Proposer
	// Step is the point's index in the run, from 0 (the base version).
	Step int32 `parquet:"step"`
	// EpisodesUsed is the run's train and val episodes played before the
	// incumbent was chosen (the base version's val phase for step 0).
	EpisodesUsed int64 `parquet:"episodes_used"`
	// Incumbent is the incumbent's version.
	Incumbent string `parquet:"incumbent,dict"`
	// ValMean is the incumbent's mean val score (NaN if none).
	ValMean float64 `parquet:"val_mean"`
}

// CompareAnytime is the order of anytime.parquet: by environment,
// replicate, proposer, then step.
func CompareAnytime(a, b AnytimeRow) int {
	return cmp.Or(strings.Compare(a.Environment, b.Environment), cmp.Compare(a.Replicate, b.Replicate),
		strings.Compare(a.Proposer, b.Proposer), cmp.Compare(a.Step, b.Step))
}

// WriteAnytime writes rows to the Parquet file path, sorted by
// [CompareAnytime], replacing any existing file atomically; errors name
// path and leave any previous file unchanged.
func WriteAnytime(path string, rows []AnytimeRow) error {
	return writeTable(path, TableAnytime, rows, orderBy(rows, CompareAnytime))
}

// ReadAnytime reads every row of a file written by [WriteAnytime], in file
// order (errors as [ReadAblation]).
func ReadAnytime(path string) ([]AnytimeRow, error) {
	return readTable[AnytimeRow](path, TableAnytime)
}
