package power

import (
	"testing"

	"evolve/accept"
	"evolve/stats"
)

// TestSequentialSize: under H0 (no shift) the sequential design's
// rejection rate stays within the binomial 95% CI of its alpha or below,
// for both spending functions, unpaired and paired.
func TestSequentialSize(t *testing.T) {
	pilot, err := FromEffect(0, 1, 2000)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Alpha: 0.05, Power: 0.8, Reps: 2000, MaxN: 1000, Seed: 7}
	for _, sp := range []stats.Spending{stats.OBrienFleming, stats.Pocock} {
		for _, paired := range []bool{false, true} {
			p := pilot
			if paired {
				// Pairs (q_i, q_{n-1-i}): differences symmetric about 0,
				// not all zero (H0 of the signed-rank test).
				c := make([]float64, len(p.Baseline))
				for i := range c {
					c[i] = p.Baseline[len(c)-1-i]
				}
				p = Pilot{Baseline: p.Baseline, Candidate: c, Paired: true}
			}
			d, err := Sequential(accept.Sequential{Looks: 3, Spending: sp}, 0.05, paired)
			if err != nil {
				t.Fatal(err)
			}
			est, err := Curve(p, d, cfg, []int{90})
			if err != nil {
				t.Fatal(err)
			}
			e := est[0]
			if e.Low > 0.05 {
				t.Errorf("%s: size %.4f [%.4f, %.4f] above alpha 0.05", d.Name, e.Power, e.Low, e.High)
			}
			if e.Power == 0 {
				t.Errorf("%s: size 0: the simulation never rejected (a degenerate pilot?)", d.Name)
			}
			t.Logf("%s: size %.4f [%.4f, %.4f]", d.Name, e.Power, e.Low, e.High)
		}
	}
}

// TestSequentialPower: at a real shift the O'Brien-Fleming design keeps
// nearly the fixed-sample U test's power (its last boundary is close to the
// fixed one), and a futility bound costs power.
func TestSequentialPower(t *testing.T) {
	pilot, err := FromEffect(0.3, 1, 2000)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Alpha: 0.05, Power: 0.8, Reps: 1000, MaxN: 1000, Seed: 3}
	fixed := Designs(pilot, cfg)[0]
	seq, err := Sequential(accept.Sequential{Looks: 3, Spending: stats.OBrienFleming}, 0.05, false)
	if err != nil {
		t.Fatal(err)
	}
	f := 1.0
	fut, err := Sequential(accept.Sequential{Looks: 3, Spending: stats.OBrienFleming, Futility: &f}, 0.05, false)
	if err != nil {
		t.Fatal(err)
	}
	pw := func(d Design) float64 {
		est, err := Curve(pilot, d, cfg, []int{120})
		if err != nil {
			t.Fatal(err)
		}
		return est[0].Power
	}
	pf, ps, pu := pw(fixed), pw(seq), pw(fut)
	if ps < pf-0.05 || ps > pf+0.02 {
		t.Errorf("sequential power %.3f, fixed %.3f: want within a few points below", ps, pf)
	}
	if pu >= ps {
		t.Errorf("futility z < 1 power %.3f, without %.3f: want lower", pu, ps)
	}
	t.Logf("power at n = 120, shift 0.3 sd: fixed U %.3f, sequential OBF %.3f, with futility z < 1 %.3f", pf, ps, pu)
	if _, err := Sequential(accept.Sequential{Looks: 21}, 0.05, false); err == nil {
		t.Error("21 looks: no error")
	}
}
