// Package mutate proposes candidate policy parameters from a failure
// analysis. It has the four structured mutation operators of the reference
// design (threshold adjustment, skill priority, risk tolerance, max steps),
// each a deterministic function from parameters to new parameters and a
// human-readable description, and the proposer that maps the most frequent
// failure causes to up to k distinct, in-range candidates. No operator
// writes free text into a prompt.
//
// The proposer's steps, in order:
//  1. rank the failure causes by count (failure.Analysis.Ranked);
//  2. list each cause's remedies, most direct first (see Remedies);
//  3. take remedies round-robin across the ranked causes, skipping any
//     whose result equals the current parameters or an earlier candidate;
//  4. stop at k candidates, filling with a priority rotation if needed.
package mutate
