package rundir

import "evolve/results"

// The files of a run or eval directory, by name relative to the
// directory. Writers (packages experiment and eval) and readers (List,
// Read, package report, evolve view) name them through these constants.
const (
	// CheckpointFile is the checkpoint (Run or Eval, JSON), rewritten
	// atomically at every generation or phase boundary.
	CheckpointFile = "checkpoint.json"
	// ManifestFile is the manifest (RunManifest or EvalManifest, YAML),
	// written once when the run or eval finishes.
	ManifestFile = "manifest.yaml"
	// EpisodesFile is every episode played (results.EpisodeRow).
	EpisodesFile = results.TableEpisodes + ".parquet"
	// CandidatesFile is a run's candidates (results.CandidateRow).
	CandidatesFile = results.TableCandidates + ".parquet"
	// GenerationsFile is a run's generations (results.GenerationRow).
	GenerationsFile = results.TableGenerations + ".parquet"
	// SummaryFile is an eval's summary, one row per version and variant
	// (results.SummaryRow).
	SummaryFile = "summary.parquet"
	// EpisodeErrorsFile lists the error episodes, one JSON object a line.
	EpisodeErrorsFile = "episode_errors.jsonl"
	// PromptsDir holds a run's prompt store, or an eval's version files.
	PromptsDir = "prompts"
	// RunLockFile and EvalLockFile are the lock files a live process
	// holds (see Lock).
	RunLockFile  = "run.lock"
	EvalLockFile = "eval.lock"
)

// LockFile returns the lock file of a directory of kind k: RunLockFile
// or EvalLockFile.
func (k Kind) LockFile() string {
	if k == KindEval {
		return EvalLockFile
	}
	return RunLockFile
}
