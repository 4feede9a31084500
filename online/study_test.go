package online

import (
	"math"
	"testing"
)

// TestObservationScoresSD checks the exact standard deviation of the
// default observation model against 200,000 seeded draws (tolerance 1%).
func TestObservationScoresSD(t *testing.T) {
	m := DefaultObservationScores
	sd := m.SD()
	if math.Abs(sd-0.1236) > 5e-4 {
		t.Errorf("SD = %.5f, want 0.1236 (+- 5e-4)", sd)
	}
	r := newTestRand(1)
	var s1, s2 float64
	const n = 200000
	for range n {
		x := m.Draw(r)
		s1 += x
		s2 += x * x
	}
	mean := s1 / n
	emp := math.Sqrt(s2/n - mean*mean)
	if math.Abs(emp-sd)/sd > 0.01 {
		t.Errorf("empirical sd %.5f, exact %.5f: differ by more than 1%%", emp, sd)
	}
	if math.Abs(mean-0.7433) > 0.002 {
		t.Errorf("empirical mean %.4f, want 0.7433 (+- 0.002)", mean)
	}
}

// TestRollbackStudy is the simulation behind RollbackRule's documented
// rates: with DefaultRollbackRule, a one-sigma drop is rolled back within
// DetectionWindow (100) scores in >= 95% of seeded trials, and under no
// change at most 1% of trials roll back within 1,000 monitored scores.
// The rates asserted exactly are those of these seeds (20,000 trials per
// row); the bounds (95% and 1%) are what the rule is designed to meet.
func TestRollbackStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: about 3 s")
	}
	rule := DefaultRollbackRule
	models := []struct {
		name                   string
		m                      ScoreModel
		falseRB, inWindow, p95 int // of these seeds
	}{
		{"observations", DefaultObservationScores, 33, 19690, 86},
		{"normal", NormalScores{Mean: 0.7, Sigma: 0.1}, 13, 19709, 86},
	}
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			null, err := RollbackStudy{Rule: rule, Scores: m.m, Trials: 20000, Horizon: 1000, Seed: 1}.Run()
			if err != nil {
				t.Fatal(err)
			}
			drop, err := RollbackStudy{Rule: rule, Scores: m.m, Trials: 20000, Horizon: 1000, ChangeAt: 200, Shift: 1, Seed: 2}.Run()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: false rollbacks in 1,000 scores %d/%d = %.2f%%; one-sigma drop rolled back within %d scores %d/%d = %.2f%% (early %d), delay median %d, p95 %d",
				m.name, null.Early, null.Trials, 100*null.FalseRate(), rule.DetectionWindow(), drop.InWindow, drop.Trials,
				100*drop.DetectionRate(), drop.Early, drop.DelayQuantile(0.5), drop.DelayQuantile(0.95))
			if null.Early != m.falseRB || drop.InWindow != m.inWindow || drop.DelayQuantile(0.95) != m.p95 {
				t.Errorf("false rollbacks %d, in window %d, p95 delay %d; these seeds gave %d, %d, %d",
					null.Early, drop.InWindow, drop.DelayQuantile(0.95), m.falseRB, m.inWindow, m.p95)
			}
			if null.FalseRate() > 0.01 {
				t.Errorf("false rollback rate %.4f > 0.01", null.FalseRate())
			}
			if drop.DetectionRate() < 0.95 {
				t.Errorf("detection rate within %d scores %.4f < 0.95", rule.DetectionWindow(), drop.DetectionRate())
			}
		})
	}
}
