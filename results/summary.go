package results

import (
	"cmp"
	"strings"
)

// TableSummary is the table name of summary.parquet (an evaluation's
// per-version statistics).
const TableSummary = "summary"

// SummaryRow is one row of summary.parquet, written by evolve eval: the
// statistics of one version's scores on one environment variant, over
// every (seed, repeat) it played.
//
// Columns: eval, variant, version, prompt_sha256, split, n, mean, std,
// median, iqm, ci_low, ci_high, mean_bca_ci_low, mean_bca_ci_high,
// iqm_ci_low, iqm_ci_high. None is nullable; a statistic that cannot be
// computed (std and the CIs when n < 2) is NaN. The mean has two
// intervals: ci_low/ci_high, Student's t, and mean_bca_ci_low/high, the
// BCa bootstrap; neither reaches 95% coverage with few skewed scores
// (docs/statistics.md has the coverage table).
type SummaryRow struct {
	// Eval is the evaluation's identifier (its directory's name).
	Eval string `parquet:"eval,dict"`
	// Variant is the environment variant ("" for the configured
	// environment alone).
	Variant string `parquet:"variant,dict"`
	// Version is the version's label: its prompt version, or the argument
	// that named it when two arguments share a version.
	Version string `parquet:"version,dict"`
	// PromptSHA256 is the version's content hash (prompt.ContentSHA256).
	PromptSHA256 string `parquet:"prompt_sha256,dict"`
	// Split is the seed split played ("test" for a seed file).
	Split string `parquet:"split,dict"`
	// N is the number of episodes, >= 1.
	N int32 `parquet:"n"`
	// Mean, Std (n-1), Median and IQM (25% trimmed mean) of the scores.
	Mean   float64 `parquet:"mean"`
	Std    float64 `parquet:"std"`
	Median float64 `parquet:"median"`
	IQM    float64 `parquet:"iqm"`
	// CILow and CIHigh bound the Student t 95% CI of the mean.
	CILow  float64 `parquet:"ci_low"`
	CIHigh float64 `parquet:"ci_high"`
	// MeanBCaLow and MeanBCaHigh bound the 95% BCa bootstrap CI of the
	// mean (stats.BootstrapBCa with stats.MeanOf, Efron 1987; 2,000
	// resamples, a fixed seed): asymmetric, so it follows skewed scores
	// where the t interval cannot.
	MeanBCaLow  float64 `parquet:"mean_bca_ci_low"`
	MeanBCaHigh float64 `parquet:"mean_bca_ci_high"`
	// IQMCILow and IQMCIHigh bound the 95% BCa bootstrap CI of the IQM
	// (stats.BootstrapBCa, Efron 1987; 2,000 resamples, a fixed seed).
	IQMCILow  float64 `parquet:"iqm_ci_low"`
	IQMCIHigh float64 `parquet:"iqm_ci_high"`
}

// CompareSummaries is the order of summary.parquet: by eval, variant,
// version ([CompareVersions]), then the content hash.
func CompareSummaries(a, b SummaryRow) int {
	if c := strings.Compare(a.Eval, b.Eval); c != 0 {
		return c
	}
	if c := strings.Compare(a.Variant, b.Variant); c != 0 {
		return c
	}
	if c := CompareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	return cmp.Compare(a.PromptSHA256, b.PromptSHA256)
}

// WriteSummaries writes rows to the Parquet file path, sorted by
// [CompareSummaries], replacing any existing file atomically; errors name
// path, and leave any previous file unchanged.
func WriteSummaries(path string, rows []SummaryRow) error {
	return writeTable(path, TableSummary, rows, orderBy(rows, CompareSummaries))
}

// ReadSummaries reads all rows of a summary Parquet file written by
// [WriteSummaries], in file order. It returns an error wrapping
// [ErrSchema] if the file's metadata names another table or schema
// version. Errors name path.
func ReadSummaries(path string) ([]SummaryRow, error) {
	return readTable[SummaryRow](path, TableSummary)
}
