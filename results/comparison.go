package results

import (
	"cmp"
	"strings"
)

// TableComparisons is the table name of comparisons.parquet (an
// evaluation's comparisons of each version with the baseline).
const TableComparisons = "comparisons"

// Verdicts of a ComparisonRow.
const (
	// VerdictRegression: the candidate is significantly worse than the
	// baseline (by more than the margin, if one was set).
	VerdictRegression = "regression"
	// VerdictNotNonInferior: under the non-inferiority hypothesis, the
	// candidate was not shown to be worse by less than the margin.
	VerdictNotNonInferior = "non-inferiority not shown"
	// VerdictImprovement: the candidate is significantly better.
	VerdictImprovement = "improvement"
	// VerdictNoDifference: neither test rejected at alpha.
	VerdictNoDifference = "no significant difference"
)

// Kinds of check of a ComparisonRow (its check column).
const (
	// CheckScore: the comparison of the scores (the regression or
	// non-inferiority test of the gate, and the improvement test).
	CheckScore = "score"
	// CheckFailureShare: the failure-share check of
	// --max-failure-increase (gate.CompareFailures): a one-sided exact
	// test of an increase in the share of failed episodes beyond the
	// margin, in a family of its own.
	CheckFailureShare = "failure-share"
)

// ComparisonRow is one row of comparisons.parquet, written by evolve eval:
// one candidate version against the baseline on one environment variant,
// with both one-sided tests (worse, better) and the effect sizes (check
// "score"); and, with --max-failure-increase, the failure-share check of
// the same version and variant as a row of its own (check
// "failure-share", right after the score row). Every check the eval made
// is a row, whatever its verdict.
//
// Columns: eval, variant, version, baseline, check, n, n_baseline,
// n_paired, mean, baseline_mean, mean_diff, test, failure_method,
// statistic, p_worse, p_worse_adj, p_better, p_better_adj, a12, hl_shift,
// hl_low, hl_high, margin, margin_a12, alpha, correction, family,
// verdict. None is nullable; a number that cannot be computed or does not
// apply (p_better, a12 and the HL columns of a failure-share row) is NaN.
type ComparisonRow struct {
	// Eval is the evaluation's identifier (its directory's name).
	Eval string `parquet:"eval,dict"`
	// Variant is the environment variant ("" for the configured
	// environment alone).
	Variant string `parquet:"variant,dict"`
	// Version is the candidate's label; Baseline the baseline's
	// description (its label, and the eval it came from).
	Version  string `parquet:"version,dict"`
	Baseline string `parquet:"baseline,dict"`
	// Check is the kind of check: CheckScore or CheckFailureShare.
	Check string `parquet:"check,dict"`
	// N and NBaseline are the observations each side's test used;
	// NPaired the candidate observations whose (seed, repeat) the baseline
	// also played.
	N         int32 `parquet:"n"`
	NBaseline int32 `parquet:"n_baseline"`
	NPaired   int32 `parquet:"n_paired"`
	// Mean, BaselineMean and MeanDiff = Mean − BaselineMean, in score
	// units; in a failure-share row the shares of failed episodes, in
	// [0, 1], and their difference.
	Mean         float64 `parquet:"mean"`
	BaselineMean float64 `parquet:"baseline_mean"`
	MeanDiff     float64 `parquet:"mean_diff"`
	// Test is the test that ran (gate.Check.Test: "mwu", "signed-rank",
	// "brunner-munzel-permutation", "welch-t", "paired-t", "bootstrap-t";
	// "failure-increase" in a failure-share row) and Statistic its
	// statistic. FailureMethod is the exact test of a failure-share row
	// (gate.Check.FailureMethod: "mcnemar-exact",
	// "paired-exact-unconditional-score" or "exact-unconditional-score");
	// "" in a score row.
	Test          string  `parquet:"test,dict"`
	FailureMethod string  `parquet:"failure_method,dict"`
	Statistic     float64 `parquet:"statistic"`
	// PWorse is the one-sided p-value of "the candidate is worse" (by
	// more than the margin; in a failure-share row: its share of failed
	// episodes is higher by more than the margin), PWorseAdj adjusted
	// across the check's family (Family); PBetter and PBetterAdj the same
	// for "the candidate is better" (no margin; NaN in a failure-share
	// row). In [0, 1].
	PWorse     float64 `parquet:"p_worse"`
	PWorseAdj  float64 `parquet:"p_worse_adj"`
	PBetter    float64 `parquet:"p_better"`
	PBetterAdj float64 `parquet:"p_better_adj"`
	// A12 is the Vargha-Delaney effect size P(candidate > baseline) +
	// P(tie)/2, in [0, 1].
	A12 float64 `parquet:"a12"`
	// HLShift is the Hodges-Lehmann shift, candidate minus baseline, with
	// its 95% CI [HLLow, HLHigh] (score units).
	HLShift float64 `parquet:"hl_shift"`
	HLLow   float64 `parquet:"hl_low"`
	HLHigh  float64 `parquet:"hl_high"`
	// Margin (score units; in a failure-share row the tolerated increase
	// of the share, in [0, 1)) and MarginA12 (A12 units) of the
	// regression test, 0 when not used.
	Margin    float64 `parquet:"margin"`
	MarginA12 float64 `parquet:"margin_a12"`
	// Alpha is the family-wise level and Correction the adjustment;
	// Family describes the family PWorseAdj is adjusted in
	// (gate.Check.Family, e.g. "4 checks (2 variants × 2 versions), Holm";
	// the failure-share checks are a family of their own).
	Alpha      float64 `parquet:"alpha"`
	Correction string  `parquet:"correction,dict"`
	Family     string  `parquet:"family,dict"`
	// Verdict is VerdictRegression, VerdictNotNonInferior,
	// VerdictImprovement or VerdictNoDifference; a failure-share row is
	// VerdictRegression (an increase beyond the margin shown) or
	// VerdictNoDifference.
	Verdict string `parquet:"verdict,dict"`
}

// CompareComparisons is the order of comparisons.parquet: by eval,
// variant, version ([CompareVersions]), then check (the score row before
// the failure-share row).
func CompareComparisons(a, b ComparisonRow) int {
	if c := strings.Compare(a.Eval, b.Eval); c != 0 {
		return c
	}
	if c := strings.Compare(a.Variant, b.Variant); c != 0 {
		return c
	}
	if c := CompareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	rank := func(check string) int {
		if check == CheckFailureShare {
			return 1
		}
		return 0
	}
	return cmp.Or(cmp.Compare(rank(a.Check), rank(b.Check)), strings.Compare(a.Check, b.Check))
}

// WriteComparisons writes rows to the Parquet file path, sorted by
// [CompareComparisons], replacing any existing file atomically; errors
// name path and leave any previous file unchanged.
func WriteComparisons(path string, rows []ComparisonRow) error {
	return writeTable(path, TableComparisons, rows, orderBy(rows, CompareComparisons))
}

// ReadComparisons reads every row of a file written by
// [WriteComparisons], in file order. It returns an error wrapping
// [ErrSchema] if the file's metadata names another table or schema
// version. Errors name path.
func ReadComparisons(path string) ([]ComparisonRow, error) {
	return readTable[ComparisonRow](path, TableComparisons)
}
