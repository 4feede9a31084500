package bandit

import (
	"context"
	"math"
	"testing"

	"evolve/agent"
)

// syntheticTable is a table of one context and two versions whose
// scores are given per seed: version v scores score(v, k) on seed k of
// a pool of n seeds.
func syntheticTable(n int, score func(v, k int) float64) *Table {
	t := &Table{
		Contexts: []Context{{Name: "only"}},
		Versions: []Version{{Name: "a", Params: agent.BaseParameters()}, {Name: "b", Params: agent.BaseParameters()}},
		Seeds:    make([]uint64, n),
	}
	sc := make([][]float64, 2)
	ends := make([][]string, 2)
	for v := range 2 {
		sc[v], ends[v] = make([]float64, n), make([]string, n)
		for k := range n {
			sc[v][k] = score(v, k)
		}
	}
	t.Score, t.EndReason = [][][]float64{sc}, [][][]string{ends}
	t.normalise()
	return t
}

// simulateSynthetic plays one policy on the synthetic table.
func simulateSynthetic(t *testing.T, tb *Table, policy string, eps float64, requests, repeats int) []Trace {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Contexts, cfg.Versions, cfg.Policies = tb.Contexts, tb.Versions, []string{policy}
	cfg.Requests, cfg.Repeats, cfg.Epsilon, cfg.Workers = requests, repeats, eps, 2
	tr, err := simulate(context.Background(), &cfg, tb, func(string, int, int) {})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestUCB1Bound: UCB1's mean regret on Bernoulli rewards (means 0.1 and
// 0.9, gap 0.8) stays below the bound of Auer, Cesa-Bianchi and Fischer
// (2002), theorem 1: 8 ln n / gap + (1 + pi^2/3) gap; so does Thompson
// sampling's.
func TestUCB1Bound(t *testing.T) {
	tb := syntheticTable(100, func(v, k int) float64 {
		if (v == 0 && k < 10) || (v == 1 && k < 90) {
			return 1
		}
		return 0
	})
	const n, repeats = 2000, 20
	gap := tb.Gap(0, 0)
	if math.Abs(gap-0.8) > 1e-12 || tb.Best[0] != 1 {
		t.Fatalf("gap %v best %d, want 0.8 and 1", gap, tb.Best[0])
	}
	bound := 8*math.Log(n)/gap + (1+math.Pi*math.Pi/3)*gap
	for _, p := range []string{PolicyUCB1, PolicyThompson} {
		trs := simulateSynthetic(t, tb, p, 0, n, repeats)
		mean := 0.0
		for _, tr := range trs {
			mean += tr.Final() / repeats
		}
		t.Logf("%s: mean regret %.1f after %d requests (UCB1 bound %.1f)", p, mean, n, bound)
		if mean > bound {
			t.Errorf("%s: mean regret %.1f > UCB1's bound %.1f", p, mean, bound)
		}
		if p == PolicyUCB1 {
			for _, tr := range trs {
				if tr.Version[0] != 0 || tr.Version[1] != 1 {
					t.Fatalf("UCB1 repeat %d: first choices %v, want each version once, in order", tr.Repeat, tr.Version[:2])
				}
			}
		}
	}
}

// TestEpsilonGreedyShares: with constant rewards (0.1 and 0.9 of the
// scale), once the better version is known both epsilon-greedy policies
// choose the worse one with probability epsilon/2 exactly. The share
// over 10 x 1,900 requests must be within 4.4 binomial standard errors.
func TestEpsilonGreedyShares(t *testing.T) {
	tb := syntheticTable(10, func(v, _ int) float64 { return float64(1 + 8*v) })
	const n, repeats, eps, skip = 2000, 10, 0.2, 100
	for _, p := range []string{PolicyEpsilonGreedy, PolicySeed} {
		trs := simulateSynthetic(t, tb, p, eps, n, repeats)
		worse, total := 0, 0
		for _, tr := range trs {
			for _, v := range tr.Version[skip:] {
				if v == 0 {
					worse++
				}
				total++
			}
		}
		share, want := float64(worse)/float64(total), eps/2
		se := math.Sqrt(want * (1 - want) / float64(total))
		t.Logf("%s: worse version chosen %d/%d = %.4f, want %.2f +- %.4f", p, worse, total, share, want, 4.4*se)
		if math.Abs(share-want) > 4.4*se {
			t.Errorf("%s: worse version share %.4f, want %.2f +- %.4f", p, share, want, 4.4*se)
		}
	}
}
