// Command simulate prints the simulation tables of docs/statistics.md:
// the size of the gate's tests at their boundary, the family-wise error
// rate of an eval with several variants, and the coverage of confidence
// intervals. Every table uses fixed seeds, so a rerun prints the same
// numbers.
//
//	go run ./gate/internal/simulate -table size      # item: shift margin, both hypotheses
//	go run ./gate/internal/simulate -table a12       # A12 margin (permutation test)
//	go run ./gate/internal/simulate -table fwer      # error control across variants
//	go run ./gate/internal/simulate -table coverage  # t, percentile and BCa intervals
//	go run ./gate/internal/simulate -table stratified # rliable's stratified bootstrap (IQM, mean, P(X > Y))
//	go run ./gate/internal/simulate -table all
//
// -reps sets the number of simulated experiments per cell (default 4000;
// 10000 for a12 and coverage; 2000 for stratified); -perms the random permutations per
// A12-margin test (default 999: the Monte Carlo p-value (1 + k)/(perms + 1)
// keeps the test's level for any number of permutations, and 999 keeps the
// table at a few minutes; the gate uses 9,999). Rates are printed with the
// two-sided 95% Clopper-Pearson interval; "ok" means the lower bound is
// <= alpha (size, FWER: the simulation does not show a rate above alpha)
// or the interval contains alpha (a12). make stats-tables runs them all;
// make sim-a12 the a12 table alone.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"evolve/gate"
	"evolve/stats"

	"gonum.org/v1/gonum/stat/distuv"
)

func main() {
	table := flag.String("table", "all", "the table: `size`, a12, fwer, coverage, stratified or all")
	reps := flag.Int("reps", 0, "simulated experiments per cell (default 4000; 10000 for a12 and coverage)")
	perms := flag.Int("perms", 999, "random permutations per A12-margin test in the a12 table (the gate's default is 9999)")
	flag.Parse()
	if err := run(os.Stdout, *table, *reps, *perms); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, table string, reps, perms int) error {
	or := func(def int) int {
		if reps > 0 {
			return reps
		}
		return def
	}
	tables := map[string]func() error{
		"size":       func() error { return sizeTable(w, or(4000)) },
		"a12":        func() error { return a12Table(w, or(10000), perms) },
		"fwer":       func() error { return fwerTable(w, or(4000)) },
		"coverage":   func() error { return coverageTable(w, or(10000)) },
		"stratified": func() error { return stratifiedTable(w, or(2000)) },
	}
	if table == "all" {
		for _, name := range []string{"size", "a12", "fwer", "coverage", "stratified"} {
			if err := tables[name](); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		return nil
	}
	f, ok := tables[table]
	if !ok {
		return fmt.Errorf("-table %q: want size, a12, fwer, coverage, stratified or all", table)
	}
	return f()
}

// rate formats k of n with its Clopper-Pearson interval.
func rate(k, n int) (string, float64) {
	lo, hi := stats.ClopperPearson(k, n, 0.95)
	return fmt.Sprintf("%5.2f%% [%5.2f, %5.2f]", 100*float64(k)/float64(n), 100*lo, 100*hi), hi
}

const alpha = 0.05

// scoreGen draws one baseline-like score: continuous (normal, sd 100) or
// tied (integers 0..6, a binomial: many ties).
func scoreGen(r *rand.Rand, ties bool) float64 {
	if ties {
		k := 0
		for range 6 {
			if r.IntN(2) == 0 {
				k++
			}
		}
		return float64(k)
	}
	return 500 + 100*r.NormFloat64()
}

// sizeTable: the gate's shift-margin tests at the boundary Δ = −D, in both
// hypotheses, paired and unpaired, with and without ties; and the pass
// rate of a candidate worse by 1.5·D at n = 30.
func sizeTable(w io.Writer, reps int) error {
	fmt.Fprintf(w, "Size of the shift-margin gate at the boundary (true shift = -margin), alpha = %v, %d reps per cell\n", alpha, reps)
	fmt.Fprintf(w, "(regression: rate of failing; non-inferiority: rate of passing; both must be <= alpha: \"ok\" when the\n")
	fmt.Fprintf(w, "lower Clopper-Pearson bound is <= alpha, i.e. the data do not show size > alpha)\n\n")
	fmt.Fprintln(w, "| hypothesis | test | scores | n | rejection rate [95% CI] | size <= alpha |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | --- |")
	for _, hyp := range []string{gate.HypothesisRegression, gate.HypothesisNonInferiority} {
		for _, paired := range []bool{false, true} {
			for _, ties := range []bool{false, true} {
				for _, n := range []int{10, 30, 100} {
					k, err := sizeCell(hyp, paired, ties, n, reps, 0)
					if err != nil {
						return err
					}
					s, _ := rate(k, reps)
					lo, _ := stats.ClopperPearson(k, reps, 0.95)
					test, kind := stats.TestMWU, "continuous"
					if paired {
						test = stats.TestSignedRank
					}
					if ties {
						kind = "integers 0..6 (ties)"
					}
					fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %v |\n", hyp, test, kind, n, s, okMark(lo <= alpha))
				}
			}
		}
	}
	fmt.Fprintf(w, "\nA candidate worse by 1.5 x the margin (continuous scores, n = 30 per side, unpaired): how often it PASSES\n\n")
	fmt.Fprintln(w, "| hypothesis | pass rate [95% CI] |")
	fmt.Fprintln(w, "| --- | ---: |")
	for _, hyp := range []string{gate.HypothesisRegression, gate.HypothesisNonInferiority} {
		k, err := sizeCell(hyp, false, false, 30, reps, 0.5)
		if err != nil {
			return err
		}
		pass := k
		if hyp == gate.HypothesisRegression {
			pass = reps - k
		}
		s, _ := rate(pass, reps)
		fmt.Fprintf(w, "| %s | %s |\n", hyp, s)
	}
	return nil
}

func okMark(ok bool) string {
	if ok {
		return "ok"
	}
	return "NO"
}

// sizeCell counts the experiments whose check rejects its H0 (regression:
// fails; non-inferiority: passes) when the candidate is the baseline
// distribution moved by −(1 + extra)·D. Margin D = 20 (continuous) or 1
// (integers), so that x + D has exactly the baseline's distribution at
// extra = 0.
func sizeCell(hyp string, paired, ties bool, n, reps int, extra float64) (int, error) {
	D := 20.0
	if ties {
		D = 1
	}
	r := rand.New(rand.NewPCG(uint64(n)*1000+boolInt(paired)*10+boolInt(ties), 1))
	test := stats.TestMWU
	if paired {
		test = stats.TestSignedRank
	}
	cfg := gate.Config{Alpha: alpha, Test: test, Margin: D, Hypothesis: hyp}
	k := 0
	x, y := make([]float64, n), make([]float64, n)
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	for range reps {
		for i := range n {
			y[i] = scoreGen(r, ties)
			if paired {
				// Seed difficulty shared by both sides; the candidate's own
				// noise independent: x − y symmetric about −D.
				level := scoreGen(r, ties)
				x[i] = level + scoreGen(r, ties) - (1+extra)*D
				y[i] = level + y[i]
			} else {
				x[i] = scoreGen(r, ties) - (1+extra)*D
			}
		}
		b := gate.Sample{Version: "main", Scores: y}
		c := gate.Sample{Version: "pr", Scores: x}
		if paired {
			b.Seeds, c.Seeds = seeds, seeds
		}
		ch, err := gate.Compare([]gate.Sample{b}, []gate.Sample{c}, cfg)
		if err != nil {
			return 0, err
		}
		rejected := ch[0].PAdj < alpha
		if rejected {
			k++
		}
	}
	return k, nil
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// a12Table: the A12-margin test of the gate (the studentized permutation
// test, logit scale) at its boundary A12 = 0.5 − m, beside the two
// asymptotic tests it replaced, on the same data: normal scores with equal
// or unequal variances, and integer scores with many ties.
func a12Table(w io.Writer, reps, perms int) error {
	const m = 0.1
	theta0 := 0.5 - m
	fmt.Fprintf(w, "Size of the A12-margin gate at the boundary A12 = %v (margin %v), alpha = %v, %d reps per cell, %d random permutations per test\n", theta0, m, alpha, reps, perms)
	fmt.Fprintf(w, "gate: studentized permutation test, Brunner-Munzel statistic on the logit scale (Pauly, Asendorf & Konietschke 2016);\n")
	fmt.Fprintf(w, "same data: the logit statistic with normal quantiles (the previous gate) and the untransformed Brunner-Munzel t test\n")
	fmt.Fprintf(w, "(\"alpha in CI\": the 95%% Clopper-Pearson interval of the gate's rejection rate contains alpha)\n\n")
	fmt.Fprintln(w, "| hypothesis | scores | n per side | gate: permutation [95% CI] | alpha in CI | logit, normal quantiles | Brunner-Munzel t |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | --- | ---: | ---: |")
	// Tied scores: Y ~ Bin(6, 1/2); X ~ Y with probability wt, else Y − 1
	// (independent draws), so A12 = wt·1/2 + (1 − wt)·A(Y − 1, Y) = theta0
	// exactly.
	aLow := 0.0
	for a := range 7 {
		for b := range 7 {
			p := distuv.Binomial{N: 6, P: 0.5}.Prob(float64(a)) * distuv.Binomial{N: 6, P: 0.5}.Prob(float64(b))
			switch {
			case a-1 > b:
				aLow += p
			case a-1 == b:
				aLow += p / 2
			}
		}
	}
	wt := (theta0 - aLow) / (0.5 - aLow)
	type scenario struct {
		name string
		draw func(r *rand.Rand, x, y []float64)
	}
	normal := func(sd float64) func(r *rand.Rand, x, y []float64) {
		// X ~ N(δ, sd²), Y ~ N(0, 1): A12 = Φ(δ/sqrt(1 + sd²)) = theta0.
		delta := distuv.UnitNormal.Quantile(theta0) * math.Sqrt(1+sd*sd)
		return func(r *rand.Rand, x, y []float64) {
			for i := range x {
				x[i] = delta + sd*r.NormFloat64()
				y[i] = r.NormFloat64()
			}
		}
	}
	scenarios := []scenario{
		{"normal, equal SD", normal(1)},
		{"normal, candidate SD x2", normal(2)},
		{"integers 0..6 (ties)", func(r *rand.Rand, x, y []float64) {
			for i := range x {
				y[i] = scoreGen(r, true)
				x[i] = scoreGen(r, true)
				if r.Float64() >= wt {
					x[i]--
				}
			}
		}},
	}
	for _, hyp := range []string{gate.HypothesisRegression, gate.HypothesisNonInferiority} {
		alt := stats.Less
		if hyp == gate.HypothesisNonInferiority {
			alt = stats.Greater
		}
		for si, sc := range scenarios {
			for _, n := range []int{10, 20, 50, 100} {
				r := rand.New(rand.NewPCG(uint64(n), uint64(si)+1))
				cfg := gate.Config{Alpha: alpha, Test: stats.TestMWU, MarginA12: m, Hypothesis: hyp, PermutationReps: perms}
				var k, kLogit, kT int
				x, y := make([]float64, n), make([]float64, n)
				for range reps {
					sc.draw(r, x, y)
					ch, err := gate.Compare([]gate.Sample{{Version: "main", Scores: y}}, []gate.Sample{{Version: "pr", Scores: x}}, cfg)
					if err != nil {
						return err
					}
					if ch[0].PAdj < alpha {
						k++
					}
					lg, err := stats.BrunnerMunzelLogit(x, y, theta0, alt)
					if err != nil {
						return err
					}
					if lg.P < alpha {
						kLogit++
					}
					bt, err := stats.BrunnerMunzel(x, y, theta0, alt)
					if err != nil {
						return err
					}
					if bt.P < alpha {
						kT++
					}
				}
				s, _ := rate(k, reps)
				lo, hi := stats.ClopperPearson(k, reps, 0.95)
				sl, _ := rate(kLogit, reps)
				st, _ := rate(kT, reps)
				fmt.Fprintf(w, "| %s | %s | %d | %s | %v | %s | %s |\n", hyp, sc.name, n, s, okMark(lo <= alpha && alpha <= hi), sl, st)
			}
		}
	}
	return nil
}

// fwerTable: an eval of V variants × K versions with nothing changed: how
// often any check fails, by correction.
func fwerTable(w io.Writer, reps int) error {
	fmt.Fprintf(w, "Family-wise error rate of an eval with nothing changed (every version = baseline), alpha = %v, n = 30 paired seeds, %d reps\n\n", alpha, reps)
	fmt.Fprintln(w, "| variants x versions | correction | any check fails [95% CI] | FWER <= alpha |")
	fmt.Fprintln(w, "| --- | --- | ---: | --- |")
	for _, shape := range [][2]int{{4, 1}, {4, 2}, {8, 1}} {
		for _, corr := range []string{gate.CorrectionHolm, gate.CorrectionHochberg, gate.CorrectionBonferroni, gate.CorrectionNonePerVariant} {
			r := rand.New(rand.NewPCG(uint64(shape[0]*10+shape[1]), 7))
			k, err := fwerCell(r, shape[0], shape[1], 30, reps, corr)
			if err != nil {
				return err
			}
			s, _ := rate(k, reps)
			lo, _ := stats.ClopperPearson(k, reps, 0.95)
			fmt.Fprintf(w, "| %d x %d | %s | %s | %v |\n", shape[0], shape[1], corr, s, okMark(lo <= alpha))
		}
	}
	return nil
}

func fwerCell(r *rand.Rand, variants, versions, n, reps int, corr string) (int, error) {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	k := 0
	for range reps {
		var base, cands []gate.Sample
		for v := range variants {
			name := fmt.Sprintf("v%d", v)
			level := make([]float64, n)
			for i := range level {
				level[i] = 500 + 100*r.NormFloat64()
			}
			mk := func(version string) gate.Sample {
				s := make([]float64, n)
				for i := range s {
					s[i] = level[i] + 30*r.NormFloat64()
				}
				return gate.Sample{Version: version, Variant: name, Seeds: seeds, Scores: s}
			}
			base = append(base, mk("main"))
			for j := range versions {
				cands = append(cands, mk(fmt.Sprintf("pr%d", j)))
			}
		}
		checks, err := gate.Compare(base, cands, gate.Config{Alpha: alpha, Correction: corr})
		if err != nil {
			return 0, err
		}
		if slices.ContainsFunc(checks, func(c gate.Check) bool { return c.Failed }) {
			k++
		}
	}
	return k, nil
}

// coverageTable: normal(0, 1) and lognormal(0, 1) scores; coverage of
// the t interval of the mean, the BCa interval of the mean (both in
// summary.parquet and the reports), the percentile bootstrap interval of
// the IQM and the BCa interval of the IQM, at 95%.
func coverageTable(w io.Writer, reps int) error {
	// True values. normal(0, 1): mean = IQM = 0. lognormal(0, 1): mean
	// e^{1/2}; IQM = E[X | q25 < X < q75] = 2·e^{1/2}·(Φ(z75 − 1) −
	// Φ(z25 − 1)).
	z := distuv.UnitNormal.Quantile(0.75)
	dists := []struct {
		name            string
		draw            func(r *rand.Rand) float64
		trueMean, truth float64
	}{
		{"normal(0, 1)", func(r *rand.Rand) float64 { return r.NormFloat64() }, 0, 0},
		{"lognormal(0, 1)", func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()) },
			math.Exp(0.5), 2 * math.Exp(0.5) * (distuv.UnitNormal.CDF(z-1) - distuv.UnitNormal.CDF(-z-1))},
	}
	const boot = 1000
	fmt.Fprintf(w, "Coverage of 95%% intervals, %d reps per row, %d bootstrap resamples (lognormal(0, 1): mean %.4f, IQM %.4f; normal(0, 1): both 0)\n\n",
		reps, boot, dists[1].trueMean, dists[1].truth)
	fmt.Fprintln(w, "| scores | n | t CI of the mean | BCa CI of the mean | percentile CI of the IQM | BCa CI of the IQM |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for di, d := range dists {
		for _, n := range []int{5, 10, 20, 50} {
			r := rand.New(rand.NewPCG(uint64(n), 99+uint64(di)))
			var tHit, bmHit, pHit, biHit int
			x := make([]float64, n)
			for range reps {
				for i := range x {
					x[i] = d.draw(r)
				}
				s := stats.Summarize(x)
				if s.CILow <= d.trueMean && d.trueMean <= s.CIHigh {
					tHit++
				}
				cfg := stats.BootstrapConfig{Reps: boot, Rand: r}
				bm, err := stats.BootstrapBCa(x, stats.MeanOf, cfg)
				if err != nil {
					return err
				}
				if bm.Low <= d.trueMean && d.trueMean <= bm.High {
					bmHit++
				}
				p, err := stats.BootstrapIQM(x, cfg)
				if err != nil {
					return err
				}
				if p.Low <= d.truth && d.truth <= p.High {
					pHit++
				}
				bi, err := stats.BootstrapBCaIQM(x, cfg)
				if err != nil && !errors.Is(err, stats.ErrNaN) {
					return err
				}
				if err == nil && bi.Low <= d.truth && d.truth <= bi.High {
					biHit++
				}
			}
			c := func(k int) string { s, _ := rate(k, reps); return s }
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", d.name, n, c(tHit), c(bmHit), c(pHit), c(biHit))
		}
	}
	return nil
}

// stratifiedTable: coverage of rliable's stratified bootstrap percentile
// intervals (stats.BootstrapCI of stats.AggregateIQM and
// stats.AggregateMean, stats.ProbabilityOfImprovementCI) at 95%, for
// runs x tasks score matrices: task j's runs are drawn from its own
// distribution (normal(j, 1), or lognormal(0, 1) scaled by 1 + j), the
// tasks being the strata. The aggregate IQM's truth is the IQM of the
// equal mixture of the tasks' distributions (estimated from 3,000,000
// draws), the mean's the mean of the tasks' means, and P(X > Y)'s (X the
// same tasks shifted by +0.5 in normal units, or scaled by 1.5 for
// lognormal) Φ(0.5/√2) = 0.6382 for normal and, for lognormal, P(Z1 −
// Z2 > −ln 1.5) = Φ(ln 1.5/√2) = 0.6131, the same for every task.
func stratifiedTable(w io.Writer, reps int) error {
	const boot = 1000
	type family struct {
		name string
		draw func(r *rand.Rand, task int, better bool) float64
		poi  float64
	}
	fams := []family{
		{"normal(j, 1)", func(r *rand.Rand, j int, better bool) float64 {
			v := r.NormFloat64() + float64(j)
			if better {
				v += 0.5
			}
			return v
		}, distuv.UnitNormal.CDF(0.5 / math.Sqrt2)},
		{"(1+j)·lognormal(0, 1)", func(r *rand.Rand, j int, better bool) float64 {
			v := float64(1+j) * math.Exp(r.NormFloat64())
			if better {
				v *= 1.5
			}
			return v
		}, distuv.UnitNormal.CDF(math.Log(1.5) / math.Sqrt2)},
	}
	fmt.Fprintf(w, "Coverage of 95%% stratified bootstrap percentile intervals (rliable), %d reps per row, %d resamples each\n\n", reps, boot)
	fmt.Fprintln(w, "| scores of task j | runs | tasks | aggregate IQM | aggregate mean | P(X > Y) |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for fi, f := range fams {
		for _, tasks := range []int{1, 3} {
			// The truths of the mixture of the tasks' distributions.
			tr := rand.New(rand.NewPCG(7, uint64(fi*10+tasks)))
			big := make([]float64, 0, 3000000)
			mean := 0.0
			for len(big) < cap(big) {
				for j := range tasks {
					big = append(big, f.draw(tr, j, false))
				}
			}
			for _, v := range big {
				mean += v
			}
			mean /= float64(len(big))
			iqm := stats.IQM(big)
			for _, runs := range []int{3, 5, 10} {
				r := rand.New(rand.NewPCG(uint64(runs), 1000+uint64(fi*10+tasks)))
				x, y := matrix(runs, tasks), matrix(runs, tasks)
				var iqmHit, meanHit, poiHit int
				for range reps {
					for i := range runs {
						for j := range tasks {
							x[i][j], y[i][j] = f.draw(r, j, false), f.draw(r, j, true)
						}
					}
					cfg := stats.BootstrapConfig{Reps: boot, Rand: r}
					ci, err := stats.BootstrapCI(x, stats.AggregateIQM, cfg)
					if err != nil {
						return err
					}
					if ci.Low <= iqm && iqm <= ci.High {
						iqmHit++
					}
					if ci, err = stats.BootstrapCI(x, stats.AggregateMean, cfg); err != nil {
						return err
					}
					if ci.Low <= mean && mean <= ci.High {
						meanHit++
					}
					if ci, err = stats.ProbabilityOfImprovementCI(y, x, cfg); err != nil {
						return err
					}
					if ci.Low <= f.poi && f.poi <= ci.High {
						poiHit++
					}
				}
				c := func(k int) string { s, _ := rate(k, reps); return s }
				fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s |\n", f.name, runs, tasks, c(iqmHit), c(meanHit), c(poiHit))
			}
		}
	}
	return nil
}

// matrix returns a runs x tasks matrix of zeros.
func matrix(runs, tasks int) [][]float64 {
	m := make([][]float64, runs)
	for i := range m {
		m[i] = make([]float64, tasks)
	}
	return m
}
