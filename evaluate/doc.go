// Package evaluate plays prompt versions over seed splits and decides
// between them: a parallel, deterministic runner of episodes, summary
// metrics of a split's scores, and the acceptance decision of a generation
// (one-sided Mann-Whitney U test of each candidate against the incumbent,
// multiple-comparison correction across the generation's candidates, and
// the choice of the significant candidate with the best val mean).
package evaluate
