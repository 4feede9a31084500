package report

import "fmt"

// spendingNote is the acceptance row's note on α spent across
// generations.
func (s Settings) spendingNote() string {
	if s.AlphaSpending == "basel" {
		return " for the whole run (generation g tested at α·6/(π²g²))"
	}
	return " per generation"
}

// sequentialNote is the acceptance row's note on a group-sequential gate.
func (s Settings) sequentialNote() string {
	if s.Looks <= 1 {
		return ""
	}
	fut := "no futility stop"
	if s.Futility != nil {
		fut = fmt.Sprintf("futility stop at z < %s", num(*s.Futility))
	}
	return fmt.Sprintf("; group-sequential: %d looks, Lan-DeMets %s spending, %s, %s stopping", s.Looks, s.Spending, fut, s.stopping())
}

// methodsSpending is the methods' sentences on α spending and sequential
// looks, and on which comparison is unbiased; it follows the sentence on
// the gate.
func (s Settings) methodsSpending() string {
	out := ""
	if s.AlphaSpending == "basel" {
		out += ", spent across generations: generation g (from 1) is tested at α_g = α·6/(π²g²), whose sum over all g is α, so that the chance that the run accepts any candidate that is no better than its incumbent is at most α however many generations it runs (a union bound over generations)"
	} else {
		out += ", in every generation (the chance that a run of several generations accepts some non-improving candidate is not controlled)"
	}
	if s.Looks > 1 {
		out += fmt.Sprintf(". The gate is group-sequential (Jennison & Turnbull 2000): each candidate is tested at %d looks on the first k/%d of the val seeds with the standardised rank statistic, against Lan-DeMets %s boundaries (Lan & DeMets 1983) at the generation's α over its candidates (Bonferroni), stopping early for efficacy", s.Looks, s.Looks, s.Spending)
		if s.Futility != nil {
			out += fmt.Sprintf(" or, at an interim look, for futility when z < %s (non-binding)", num(*s.Futility))
		}
		if s.stopping() == "simultaneous" {
			out += "; the generation stops at the first look where a candidate can be accepted, the candidates still going stopping there too (simultaneous stopping: Magirr, Jaki & Whitehead 2012; Urach & Posch 2016)"
		}
		out += "; an accepted candidate that stopped early then plays the rest of the val seeds"
	}
	return out + ". The val means of accepted candidates are biased upward (the winner is chosen on the seeds it is tested on); the test-split comparison of the final version with the base is the unbiased estimate of the improvement"
}

// stopping is the sequential gate's stopping rule, "separate" for a run
// from before the setting existed.
func (s Settings) stopping() string {
	if s.Stopping == "" {
		return "separate"
	}
	return s.Stopping
}

// correctionName names the correction across a generation's candidates:
// the configured one, or Bonferroni for a group-sequential gate (whose
// boundaries spend α/m per candidate).
func (s Settings) correctionName() string {
	if s.Looks > 1 {
		return "Bonferroni"
	}
	return titleCase(s.Correction)
}
