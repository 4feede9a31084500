package accept

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"evolve/stats"
)

var simFlag = flag.Bool("sim", false, "run the full group-sequential simulation (10,000 reps per row) and print its table (docs/sequential.md)")

func TestLookSizes(t *testing.T) {
	for _, tc := range []struct {
		n, looks int
		want     string
	}{
		{300, 3, "[100 200 300]"},
		{10, 3, "[4 7 10]"},
		{2, 3, "[1 2]"},
		{300, 1, "[300]"},
	} {
		if got := fmt.Sprint(LookSizes(tc.n, tc.looks)); got != tc.want {
			t.Errorf("LookSizes(%d, %d) = %s, want %s", tc.n, tc.looks, got, tc.want)
		}
	}
}

func TestDesignCheck(t *testing.T) {
	f := 0.0
	d, err := Sequential{Looks: 3, Spending: stats.OBrienFleming, Futility: &f}.Design(0.1, 4, 300)
	if err != nil {
		t.Fatal(err)
	}
	// α = 0.1/4 = 0.025 per candidate: the classic O'Brien-Fleming type
	// boundaries 3.7103, 2.5114, 1.9930.
	for k, want := range []float64{3.7103, 2.5114, 1.9930} {
		if math.Abs(d.Bounds[k]-want) > 1e-4 {
			t.Errorf("b_%d = %.5f, want %.4f", k+1, d.Bounds[k], want)
		}
	}
	for _, tc := range []struct {
		k    int
		z    float64
		want string
	}{
		{0, 3.8, StopEfficacy}, {0, 3.0, ""}, {0, -0.1, StopFutility}, {1, 2.6, StopEfficacy},
		{2, 1.99, StopFinal}, {2, 2.0, StopEfficacy}, {2, -3, StopFinal},
	} {
		if got := d.Check(tc.k, tc.z); got != tc.want {
			t.Errorf("Check(%d, %v) = %q, want %q", tc.k, tc.z, got, tc.want)
		}
	}
	if _, err := (Sequential{Looks: 3}).Design(0.05, 0, 300); err == nil {
		t.Error("Design with 0 candidates: no error")
	}
}

// TestDecideSequential: a candidate stopped for efficacy on its first
// 100 seeds is tested against the incumbent's first 100, accepted over a
// better-meaning one that stopped at the final look without crossing.
func TestDecideSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inc := make([]float64, 300)
	for i := range inc {
		inc[i] = math.Round(500 + 150*rng.NormFloat64())
	}
	good := make([]float64, 100)
	for i := range good {
		good[i] = inc[i] + 200
	}
	final := make([]float64, 300)
	for i := range final {
		final[i] = inc[i] + 250
	}
	d, err := DecideSequential(inc, [][]float64{good, final}, []string{StopEfficacy, StopFinal}, []int{1, 3}, Rule{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if d.Accepted != 0 || !d.Candidates[0].Significant() || d.Candidates[1].Significant() {
		t.Fatalf("accepted %d, significant %v %v; want 0, true false", d.Accepted, d.Candidates[0].Significant(), d.Candidates[1].Significant())
	}
	c := d.Candidates[0]
	if c.Summary.N != 100 || c.Look != 1 || c.Stop != StopEfficacy || c.Check.NBaseline != 100 || c.Check.PAdj != math.Min(1, 2*c.Check.P) {
		t.Errorf("candidate 0: n %d, look %d, stop %q, incumbent n %d, p %v p_adj %v", c.Summary.N, c.Look, c.Stop, c.Check.NBaseline, c.Check.P, c.Check.PAdj)
	}
	if _, err := DecideSequential(inc[:50], [][]float64{good}, []string{StopEfficacy}, []int{1}, Rule{Alpha: 0.05}); err == nil {
		t.Error("a candidate longer than the incumbent: no error")
	}
}

// simRow is one row of the simulation: the gate's rejection rate
// (size under H0, power under a shift) and mean val episodes per
// candidate.
type simRow struct {
	test                 stats.TestName
	looks                int
	spending             stats.Spending
	futility             *float64
	shift                float64
	reject, lo, hi, mean float64
}

// simulate plays reps generations of one candidate against one
// incumbent on n val seeds, scores rounded normal (mean 500, sd 150, the
// dungeon's spread and ties; for the signed-rank test sd 100 of the
// seed shared by the pair and 110 of the episode), the candidate shifted
// by shift, through the group-sequential gate at level alpha.
func simulate(t testing.TB, reps, n int, alpha float64, row simRow, seed uint64) simRow {
	rng := rand.New(rand.NewPCG(seed, 77))
	s := Sequential{Looks: row.looks, Spending: row.spending, Futility: row.futility}
	d, err := s.Design(alpha, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	g := Rule{Test: row.test, Alpha: alpha}
	inc, cand := make([]float64, n), make([]float64, n)
	rejected, episodes := 0, 0
	for range reps {
		for i := range inc {
			// The U test's model is two independent samples; the
			// signed-rank test's, pairs sharing the seed's difficulty.
			seedEffect, sd := 0.0, 150.0
			if row.test == stats.TestSignedRank {
				seedEffect, sd = 100*rng.NormFloat64(), 110
			}
			inc[i] = math.Round(500 + seedEffect + sd*rng.NormFloat64())
			cand[i] = math.Round(500 + row.shift + seedEffect + sd*rng.NormFloat64())
		}
		for k, nk := range d.N {
			z, err := g.Z(cand[:nk], inc[:nk])
			if err != nil {
				t.Fatal(err)
			}
			if stop := d.Check(k, z); stop != "" {
				if stop == StopEfficacy {
					rejected++
				}
				episodes += nk
				break
			}
		}
	}
	row.reject = float64(rejected) / float64(reps)
	row.lo, row.hi = clopperPearson(rejected, reps)
	row.mean = float64(episodes) / float64(reps)
	return row
}

// clopperPearson is the exact 95% binomial CI of x successes in n.
func clopperPearson(x, n int) (lo, hi float64) {
	if x > 0 {
		lo = distuv.Beta{Alpha: float64(x), Beta: float64(n - x + 1)}.Quantile(0.025)
	}
	hi = 1
	if x < n {
		hi = distuv.Beta{Alpha: float64(x + 1), Beta: float64(n - x)}.Quantile(0.975)
	}
	return lo, hi
}

// TestSequentialSimulation checks by simulation that the group-sequential
// gate holds its level (the rejection rate under H0 is not above α: the
// lower Clopper-Pearson bound is <= α) and keeps the fixed-sample gate's
// power to within a few points with O'Brien-Fleming spending (Pocock's
// flat boundaries cost more power at the last look), on 300 val seeds at α = 0.05/4 (the
// default run's per-candidate level in its first generation, about). With
// -sim it runs 10,000 reps per row and prints the table of
// docs/sequential.md:
//
//	go test ./accept -run TestSequentialSimulation -sim -v
func TestSequentialSimulation(t *testing.T) {
	reps := 300
	if *simFlag {
		reps = 10000
	}
	const n, alpha = 300, 0.0125
	zero := 0.0
	var rows []simRow
	for _, test := range []stats.TestName{stats.TestMWU, stats.TestSignedRank} {
		for _, shift := range []float64{0, 40} {
			rows = append(rows,
				simRow{test: test, looks: 1, shift: shift},
				simRow{test: test, looks: 3, spending: stats.OBrienFleming, shift: shift},
				simRow{test: test, looks: 3, spending: stats.OBrienFleming, futility: &zero, shift: shift},
				simRow{test: test, looks: 5, spending: stats.Pocock, futility: &zero, shift: shift},
			)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| test | looks | spending | futility | shift | rejection rate [95%% CI] | mean val episodes |\n|---|---|---|---|---|---|---|\n")
	fixed := map[stats.TestName]float64{}
	for i, row := range rows {
		row = simulate(t, reps, n, alpha, row, uint64(i+1))
		fut := "none"
		if row.futility != nil {
			fut = fmt.Sprintf("z < %g", *row.futility)
		}
		sp := row.spending.String()
		if row.looks == 1 {
			sp = "fixed sample"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %g | %.4f [%.4f, %.4f] | %.1f |\n", row.test, row.looks, sp, fut, row.shift, row.reject, row.lo, row.hi, row.mean)
		switch {
		case row.shift == 0 && row.lo > alpha:
			t.Errorf("%s, %d looks, %s, futility %s: size %.4f [%.4f, %.4f] above α = %v", row.test, row.looks, sp, fut, row.reject, row.lo, row.hi, alpha)
		case row.shift > 0 && row.looks == 1:
			fixed[row.test] = row.reject
		case row.shift > 0 && row.spending == stats.OBrienFleming && row.reject < fixed[row.test]-0.06:
			t.Errorf("%s, %d looks, %s, futility %s: power %.3f, fixed sample %.3f", row.test, row.looks, sp, fut, row.reject, fixed[row.test])
		}
	}
	t.Logf("%d reps per row, n = %d val seeds, α = %v per candidate:\n%s", reps, n, alpha, b.String())
}

// TestDesignRunStopping plays one generation of three candidates (one far
// better than the incumbent, one slightly better, one worse) through
// Design.Run under both stopping rules and checks which seeds each look
// plays and why each candidate stops.
func TestDesignRunStopping(t *testing.T) {
	const n = 60
	inc := make([]float64, n)
	for i := range inc {
		inc[i] = float64((i * 37) % 100)
	}
	shifts := []float64{1000, 3, -40} // crosses at look 1; z in (0, b_1); z < 0
	zero := 0.0
	for _, tc := range []struct {
		simultaneous bool
		stops        []string
		looks        []int
		calls        string
	}{
		{false, []string{StopEfficacy, StopFinal, StopFutility}, []int{1, 3, 1}, "[0 1 2] [0,20) [1] [20,40) [1] [40,60) "},
		{true, []string{StopEfficacy, StopDropped, StopFutility}, []int{1, 1, 1}, "[0 1 2] [0,20) "},
	} {
		s := Sequential{Looks: 3, Spending: stats.OBrienFleming, Futility: &zero, Simultaneous: tc.simultaneous}
		d, err := s.Design(0.05, len(shifts), n)
		if err != nil {
			t.Fatal(err)
		}
		var calls strings.Builder
		scores, stops, looks, err := d.Run(inc, len(shifts), Rule{Test: stats.TestMWU}, func(going []int, from, to int) ([][]float64, error) {
			fmt.Fprintf(&calls, "%v [%d,%d) ", going, from, to)
			out := make([][]float64, len(going))
			for j, i := range going {
				for _, v := range inc[from:to] {
					out[j] = append(out[j], v+shifts[i])
				}
			}
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stops) != fmt.Sprint(tc.stops) || fmt.Sprint(looks) != fmt.Sprint(tc.looks) || calls.String() != tc.calls {
			t.Errorf("simultaneous %v: stops %v looks %v calls %q, want %v %v %q", tc.simultaneous, stops, looks, calls.String(), tc.stops, tc.looks, tc.calls)
		}
		for i, sc := range scores {
			if want := d.N[looks[i]-1]; len(sc) != want {
				t.Errorf("simultaneous %v: candidate %d has %d scores, want n_%d = %d", tc.simultaneous, i, len(sc), looks[i], want)
			}
		}
		dec, err := DecideSequential(inc, scores, stops, looks, Rule{Test: stats.TestMWU, Alpha: 0.05})
		if err != nil || dec.Accepted != 0 {
			t.Errorf("simultaneous %v: accepted %d (%v), want candidate 0", tc.simultaneous, dec.Accepted, err)
		}
	}
	// A candidate that crosses the boundary with a mean below the
	// incumbent's cannot be accepted, so it does not settle the look.
	d := Design{N: []int{3}, Bounds: []float64{1}, Simultaneous: true}
	if d.Settled(0, []float64{5, 5, 5}, [][]float64{{1, 1, 1}}, []string{StopEfficacy}, []int{1}) {
		t.Error("a crossing with a lower mean settled the look")
	}
	if !d.Settled(0, []float64{5, 5, 5}, [][]float64{{6, 6, 6}}, []string{StopEfficacy}, []int{1}) {
		t.Error("a crossing with a higher mean did not settle the look")
	}
}

// TestStoppingRuleSimulation compares the two stopping rules over
// generations of four candidates on 300 val seeds (3 looks,
// O'Brien-Fleming, futility at z < 0, the generation at α = 0.05, so
// α/4 per candidate): with every candidate null, the chance of accepting
// any (whose lower Clopper-Pearson bound must not exceed α); with shifts
// of 40, 20, 0 and 0 points, the chance of accepting the +40 candidate
// and any candidate, and the val episodes played. With -sim it runs
// 10,000 reps per row and prints the table of docs/sequential.md.
func TestStoppingRuleSimulation(t *testing.T) {
	reps := 300
	if *simFlag {
		reps = 10000
	}
	const n, alpha = 300, 0.05
	zero := 0.0
	var b strings.Builder
	fmt.Fprintf(&b, "| stopping | shifts | accepts any [95%% CI] | accepts the best [95%% CI] | mean candidate val episodes |\n|---|---|---|---|---|\n")
	for si, shifts := range [][]float64{{0, 0, 0, 0}, {40, 20, 0, 0}} {
		for _, simultaneous := range []bool{false, true} {
			s := Sequential{Looks: 3, Spending: stats.OBrienFleming, Futility: &zero, Simultaneous: simultaneous}
			d, err := s.Design(alpha, len(shifts), n)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(si+1), 91))
			g := Rule{Test: stats.TestMWU, Alpha: alpha}
			inc := make([]float64, n)
			cands := make([][]float64, len(shifts))
			anyAcc, best, episodes := 0, 0, 0
			for range reps {
				for i := range inc {
					inc[i] = math.Round(500 + 150*rng.NormFloat64())
				}
				for c, sh := range shifts {
					cands[c] = cands[c][:0]
					for range n {
						cands[c] = append(cands[c], math.Round(500+sh+150*rng.NormFloat64()))
					}
				}
				scores, stops, looks, err := d.Run(inc, len(shifts), g, func(going []int, from, to int) ([][]float64, error) {
					out := make([][]float64, len(going))
					for j, i := range going {
						out[j] = cands[i][from:to]
						episodes += to - from
					}
					return out, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				dec, err := DecideSequential(inc, scores, stops, looks, g)
				if err != nil {
					t.Fatal(err)
				}
				if dec.Accepted >= 0 {
					anyAcc++
					if dec.Accepted == 0 {
						best++
					}
				}
			}
			lo, hi := clopperPearson(anyAcc, reps)
			blo, bhi := clopperPearson(best, reps)
			rule := "separate"
			if simultaneous {
				rule = "simultaneous"
			}
			fmt.Fprintf(&b, "| %s | %v | %.4f [%.4f, %.4f] | %.4f [%.4f, %.4f] | %.1f |\n", rule, shifts, float64(anyAcc)/float64(reps), lo, hi, float64(best)/float64(reps), blo, bhi, float64(episodes)/float64(reps))
			if shifts[0] == 0 && lo > alpha {
				t.Errorf("%s stopping, all null: accepts %.4f [%.4f, %.4f], above α = %v", rule, float64(anyAcc)/float64(reps), lo, hi, alpha)
			}
		}
	}
	t.Logf("%d reps per row, n = %d val seeds, 4 candidates, α = %v per generation:\n%s", reps, n, alpha, b.String())
}
