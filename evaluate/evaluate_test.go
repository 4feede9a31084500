package evaluate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"evolve/agent"
	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/prompt"
	"evolve/stats"
)

func dungeonEnv(t testing.TB) envs.Environment {
	t.Helper()
	e, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func seedRange(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(1000 + 7*i)
	}
	return s
}

// The outcomes are in seed order and identical for any worker count.
func TestRunDeterministicAcrossWorkers(t *testing.T) {
	env := dungeonEnv(t)
	seeds := seedRange(60)
	p := prompt.BaseParameters()
	var ref []envs.Outcome
	for _, w := range []int{1, 2, 7} {
		r := &Runner{Env: env, Workers: w}
		outs, err := r.Run(context.Background(), p, seeds)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range outs {
			if o.Seed != seeds[i] {
				t.Fatalf("workers=%d: out[%d].Seed = %d, want %d", w, i, o.Seed, seeds[i])
			}
		}
		if ref == nil {
			ref = outs
			continue
		}
		for i := range outs {
			if outs[i] != ref[i] {
				t.Fatalf("workers=%d: episode %d differs from workers=1", w, i)
			}
		}
	}
}

func TestRunProgress(t *testing.T) {
	var calls, last int
	r := &Runner{Env: dungeonEnv(t), Workers: 2, Progress: func(done, total int) {
		calls++
		if done != last+1 || total != 10 {
			t.Errorf("Progress(%d, %d) after %d", done, total, last)
		}
		last = done
	}}
	if _, err := r.Run(context.Background(), prompt.BaseParameters(), seedRange(10)); err != nil {
		t.Fatal(err)
	}
	if calls != 10 {
		t.Errorf("Progress called %d times, want 10", calls)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &Runner{Env: dungeonEnv(t)}
	if _, err := r.Run(ctx, prompt.BaseParameters(), seedRange(10)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunInvalidParams(t *testing.T) {
	p := prompt.BaseParameters()
	p.RiskTolerance = 3
	r := &Runner{Env: dungeonEnv(t)}
	if _, err := r.Run(context.Background(), p, seedRange(3)); err == nil || !strings.Contains(err.Error(), "risk_tolerance") {
		t.Fatalf("err = %v, want a risk_tolerance range error", err)
	}
}

// panicky is an agent that panics on its fifth turn.
type panicky struct {
	agent.Agent
	turn int
}

func (p *panicky) Reset() { p.turn = 0; p.Agent.Reset() }
func (p *panicky) Act(o *envs.Observation) envs.Action {
	p.turn++
	if p.turn == 5 {
		panic("agent exploded")
	}
	return p.Agent.Act(o)
}

// A panic inside an episode is recorded with its seed and stack.
func TestRunPanicIsolated(t *testing.T) {
	r := &Runner{Env: dungeonEnv(t), Workers: 2, NewAgent: func(p prompt.PolicyParameters) agent.Agent {
		return &panicky{Agent: agent.NewScripted(p)}
	}}
	_, err := r.Run(context.Background(), prompt.BaseParameters(), seedRange(4))
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *PanicError", err)
	}
	if pe.Value != "agent exploded" || len(pe.Stack) == 0 || !strings.Contains(pe.Error(), "seed") {
		t.Errorf("PanicError = %v (stack %d bytes)", pe, len(pe.Stack))
	}
}

// An episode that exceeds its step budget ends as a recorded timeout.
func TestStepBudget(t *testing.T) {
	r := &Runner{Env: dungeonEnv(t), StepBudget: 25}
	outs, err := r.Run(context.Background(), prompt.BaseParameters(), seedRange(5))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.End != envs.EndStepBudget || o.Turns > 25 {
			t.Errorf("seed %d: end %v after %d turns, want step_budget within 25", o.Seed, o.End, o.Turns)
		}
	}
}

func TestDecide(t *testing.T) {
	inc := make([]float64, 50)
	better := make([]float64, 50)
	same := make([]float64, 50)
	best := make([]float64, 50)
	for i := range inc {
		inc[i] = float64(i)
		same[i] = float64(i) + 0.25
		better[i] = float64(i) + 25
		best[i] = float64(i) + 30
	}
	g := Gate{Alpha: 0.05, Correction: stats.Holm}
	d, err := Decide(inc, [][]float64{same, better, best}, g)
	if err != nil {
		t.Fatal(err)
	}
	if d.Accepted != 2 {
		t.Fatalf("Accepted = %d, want 2 (best significant mean)", d.Accepted)
	}
	if d.Candidates[0].Significant || !d.Candidates[1].Significant || !d.Candidates[2].Significant {
		t.Errorf("significance = %v %v %v, want false true true",
			d.Candidates[0].Significant, d.Candidates[1].Significant, d.Candidates[2].Significant)
	}
	// U, A12 and the Holm adjustment agree with stats.
	for i, c := range d.Candidates {
		want, _ := stats.MannWhitneyU([][]float64{same, better, best}[i], inc, stats.MWUOptions{Alternative: stats.Greater})
		if c.Test.U != want.U || c.Test.P != want.P || math.Abs(c.A12-want.U/2500) > 1e-15 {
			t.Errorf("candidate %d: U %v p %v A12 %v, want %v %v", i, c.Test.U, c.Test.P, c.A12, want.U, want.P)
		}
	}
	ps := []float64{d.Candidates[0].Test.P, d.Candidates[1].Test.P, d.Candidates[2].Test.P}
	adj, _ := stats.Adjust(ps, stats.Holm)
	for i := range adj {
		if d.Candidates[i].PAdj != adj[i] {
			t.Errorf("PAdj[%d] = %v, want %v", i, d.Candidates[i].PAdj, adj[i])
		}
	}
	if d.Incumbent.N != 50 || d.Incumbent.Mean != 24.5 {
		t.Errorf("incumbent summary %+v", d.Incumbent)
	}

	// Nothing significant: keep the incumbent.
	d, _ = Decide(inc, [][]float64{same}, g)
	if d.Accepted != -1 {
		t.Errorf("Accepted = %d, want -1", d.Accepted)
	}
	// Errors.
	if _, err := Decide(nil, [][]float64{same}, g); err == nil {
		t.Error("empty incumbent: want error")
	}
	if _, err := Decide(inc, [][]float64{{}}, g); err == nil {
		t.Error("empty candidate: want error")
	}
	if _, err := Decide(inc, nil, Gate{Alpha: 0}); err == nil {
		t.Error("alpha 0: want error")
	}
}

func TestScores(t *testing.T) {
	got := Scores([]envs.Outcome{{Score: 3}, {Score: 10}})
	if len(got) != 2 || got[0] != 3 || got[1] != 10 {
		t.Fatalf("Scores = %v", got)
	}
}

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
		test        Test
		significant bool
	}{{MWU, false}, {SignedRank, true}} {
		d, err := Decide(inc, [][]float64{shifted}, Gate{Test: tc.test, Alpha: 0.05, Correction: stats.Holm})
		if err != nil {
			t.Fatal(err)
		}
		c := d.Candidates[0]
		if c.Significant != tc.significant {
			t.Errorf("%v: significant = %v (p %v), want %v", tc.test, c.Significant, c.P, tc.significant)
		}
		if tc.test == MWU {
			if c.SignedRank != nil || c.P != c.Test.P {
				t.Errorf("mwu: SignedRank %v, P %v, want nil and %v", c.SignedRank, c.P, c.Test.P)
			}
			continue
		}
		want, _ := stats.WilcoxonSignedRank(shifted, inc, stats.SignedRankOptions{Alternative: stats.Greater})
		if c.SignedRank == nil || c.SignedRank.TPlus != 1275 || c.P != want.P || c.PAdj != want.P {
			t.Errorf("signed-rank: %+v P %v PAdj %v, want V 1275, p %v", c.SignedRank, c.P, c.PAdj, want.P)
		}
	}
	_, err := Decide(inc, [][]float64{shifted[:49]}, Gate{Test: SignedRank, Alpha: 0.05})
	if err == nil || err.Error() != "candidate 0: 49 val scores, incumbent 50: a signed-rank test needs pairs" {
		t.Errorf("unpaired: err = %v", err)
	}
}

func TestParseTest(t *testing.T) {
	for _, s := range []string{"mwu", "signed-rank"} {
		got, err := ParseTest(s)
		if err != nil || got.String() != s {
			t.Errorf("ParseTest(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseTest("t-test"); err == nil || err.Error() != `unknown acceptance test "t-test" (allowed: mwu, signed-rank)` {
		t.Errorf("ParseTest(t-test) err = %v", err)
	}
}
