package accept

import (
	"testing"

	"evolve/gate"
	"evolve/stats"
)

// TestDecideSignedRank checks the paired gate: a small shift that every
// seed shows is invisible to the U test but decisive for the signed-rank
// test, whose statistic and p-value are stats.WilcoxonSignedRank's.
func TestDecideSignedRank(t *testing.T) {
	inc := make([]float64, 50)
	shifted := make([]float64, 50)
	for i := range inc {
		inc[i] = float64(i * 10)
		shifted[i] = inc[i] + 1
	}
	for _, tc := range []struct {
		test        stats.TestName
		significant bool
	}{{stats.TestMWU, false}, {stats.TestSignedRank, true}} {
		d, err := Decide(inc, [][]float64{shifted}, Rule{Test: tc.test, Alpha: 0.05, Correction: stats.Holm})
		if err != nil {
			t.Fatal(err)
		}
		cand := d.Candidates[0]
		c := cand.Check
		if cand.Significant() != tc.significant || c.Test != tc.test || c.Hypothesis != gate.HypothesisSuperiority {
			t.Errorf("%v: significant = %v (p %v), test %q, hypothesis %q; want %v", tc.test, cand.Significant(), c.P, c.Test, c.Hypothesis, tc.significant)
		}
		u, _ := stats.MannWhitneyU(shifted, inc, stats.MWUOptions{Alternative: stats.Greater})
		if cand.U != u.U || c.A12 != u.U/2500 || c.N != 50 || c.NBaseline != 50 || c.MeanDiff != 1 {
			t.Errorf("%v: U %v A12 %v n %d vs %d mean diff %v, want U %v", tc.test, cand.U, c.A12, c.N, c.NBaseline, c.MeanDiff, u.U)
		}
		if tc.test == stats.TestMWU {
			if cand.SignedRankV() != nil || c.P != u.P || c.Statistic != u.U || c.Paired {
				t.Errorf("mwu: V %v, P %v, statistic %v, paired %v; want nil, %v, %v, false", cand.SignedRankV(), c.P, c.Statistic, c.Paired, u.P, u.U)
			}
			continue
		}
		want, _ := stats.WilcoxonSignedRank(shifted, inc, stats.SignedRankOptions{Alternative: stats.Greater})
		if v := cand.SignedRankV(); v == nil || *v != 1275 || c.P != want.P || c.PAdj != want.P || !c.Paired || c.NPaired != 50 {
			t.Errorf("signed-rank: V %v P %v PAdj %v paired %v (%d), want V 1275, p %v", v, c.P, c.PAdj, c.Paired, c.NPaired, want.P)
		}
	}
	_, err := Decide(inc, [][]float64{shifted[:49]}, Rule{Test: stats.TestSignedRank, Alpha: 0.05})
	if err == nil || err.Error() != "candidate 0: 49 val scores, incumbent 50: a signed-rank test needs pairs" {
		t.Errorf("unpaired: err = %v", err)
	}
	if _, err := Decide(inc, [][]float64{shifted}, Rule{Test: stats.TestFailureIncrease, Alpha: 0.05}); err == nil ||
		err.Error() != `acceptance test "failure-increase" does not run on scores` {
		t.Errorf("failure-increase as an acceptance test: err = %v", err)
	}
}
