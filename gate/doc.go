// Package gate decides whether evaluated prompt versions regressed against a
// baseline evaluated on the same seeds, and writes the verdict in the forms
// CI systems read.
//
// # Steps
//
//  1. [Compare] matches each candidate [Sample] with the baseline sample of
//     the same environment variant, pairs the observations by (seed,
//     repeat) on those both sides played, and runs one one-sided test per
//     candidate under the configured hypothesis: "regression" (fail on
//     evidence of a loss beyond the margin) or "non-inferiority" (pass only
//     on evidence that any loss is within the margin), with the margin on
//     a shift (rank tests), on the mean (t tests) or in A12 units
//     (a studentized permutation test with the Brunner-Munzel statistic);
//     see Compare for the tests and their sources.
//  2. It adjusts the p-values across the family, every (variant ×
//     version) check of the call (Holm by default), decides each [Check]
//     (Failed), and quotes the power of the check at its n.
//  3. [WriteJUnit] writes one JUnit test case per check (failed on
//     regression), [Markdown] a pull-request comment,
//     [AppendStepSummary] appends that comment to a GitHub Actions step
//     summary, and [JSON] the checks for --json.
//
// The statistics themselves (rank tests, t tests, Brunner-Munzel, A12, the
// Hodges-Lehmann estimates, Holm's adjustment, Noether's power) are
// package stats'; this package chooses and combines them. docs/
// statistics.md has the simulations of their size and power.
//
// # Conventions
//
// Higher scores are better. "Candidate" is the version under test,
// "baseline" the reference it must not fall behind (e.g. main's last
// evaluation, kept as a CI artifact). Differences and shifts are candidate
// minus baseline, so a negative value means the candidate scores less.
//
// # Errors and warnings
//
// Bad input returns an error wrapping one of [ErrConfig], [ErrSample],
// [ErrNoBaseline], [ErrTooFew] or [ErrUnpaired] (test with errors.Is), and
// naming the variant and version at fault. Statistical caveats that do not
// stop the gate (a fallback from the paired test, ties, a small sample for
// the normal approximation) are in [Check].Warnings.
//
// Everything is deterministic: the same inputs give the same checks and
// byte-identical outputs, in the order of the candidates given.
package gate
