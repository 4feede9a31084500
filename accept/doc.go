// Package accept is the acceptance decision of a generation: whether a
// candidate replaces the incumbent, from their val scores (package play
// plays them).
//
// Decide is the acceptance decision of a generation: each candidate's val
// scores against the incumbent's by the Rule's one-sided test, a
// registered stats.TestName run through its registration: the
// Mann-Whitney U test (stats.TestMWU) or, with the versions paired by
// seed, the Wilcoxon signed-rank test (stats.TestSignedRank); the
// p-values adjusted across the
// generation's candidates (Rule.Correction, Holm in the default config);
// and, among the candidates significant at Rule.Alpha whose val mean
// exceeds the incumbent's, the one with the best val mean accepted (the
// earliest on a tie), or none, so that the incumbent stays. The Decision
// holds every Candidate: its check (a gate.Check with the hypothesis
// gate.HypothesisSuperiority: test, statistic, p-values, A12, the one
// comparison type the gate, eval, compare and the report also use) and
// the val summary, for the run's tables and report.
//
// Sequential is the group-sequential form of the gate (Jennison &
// Turnbull 2000, ch. 7): a Design tests each candidate at looks on growing
// prefixes of the val seeds against Lan-DeMets efficacy boundaries, and
// stops it early for efficacy or futility; DecideSequential then makes the
// same decision from where each candidate stopped. Scores reads the
// scores a decision takes from a phase's outcomes.
package accept
