package results

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"evolve/envs"
)

// dungeonMetrics and dungeonCauses are the dungeon's declarations as
// sampleRun fabricates them: the columns of episodes.parquet and
// generations.parquet of schema 2, in their order.
var (
	dungeonMetrics = []envs.Metric{
		{Name: "depth", Type: envs.Int, Unit: "levels", Description: "deepest dungeon level reached, from 1"},
		{Name: "turns", Type: envs.Int, Unit: "turns", Description: "game turns played"},
		{Name: "kills", Type: envs.Int, Unit: "monsters", Description: "monsters killed"},
		{Name: "gold", Type: envs.Int, Unit: "gold pieces", Description: "gold held at the end"},
		{Name: "xl", Type: envs.Int, Unit: "levels", Description: "experience level at the end, from 1"},
		{Name: "killed_by", Type: envs.String, Description: "the monster that killed the agent, empty if none"},
		{Name: "turns_explore", Type: envs.Int, Unit: "turns"},
		{Name: "turns_descend", Type: envs.Int, Unit: "turns"},
		{Name: "turns_attack", Type: envs.Int, Unit: "turns"},
		{Name: "turns_flee", Type: envs.Int, Unit: "turns"},
		{Name: "turns_eat", Type: envs.Int, Unit: "turns"},
		{Name: "turns_quaff", Type: envs.Int, Unit: "turns"},
		{Name: "turns_wait", Type: envs.Int, Unit: "turns"},
	}
	dungeonCauses = []envs.Cause{
		{Name: "injury", Description: "killed while the agent's HP was low"},
		{Name: "combat_loss", Description: "killed in a fight"},
		{Name: "starvation", Description: "starved"},
		{Name: "entrapment", Description: "made no progress"},
	}
)

// dungeonValues returns the metrics of dungeonMetrics: depth, turns, kills,
// gold, xl, killed_by, then the turns per action.
func dungeonValues(depth, turns, kills, gold, xl int64, killedBy string, perAction ...int64) []envs.MetricValue {
	v := []envs.MetricValue{{Num: float64(depth)}, {Num: float64(turns)}, {Num: float64(kills)}, {Num: float64(gold)}, {Num: float64(xl)}, {Str: killedBy}}
	for _, n := range perAction {
		v = append(v, envs.MetricValue{Num: float64(n)})
	}
	return v
}

// sampleRun fabricates the tables of a run of nGen generations with nCand
// candidates each, nTrain train and nVal val episodes per version and nTest
// test episodes of the final version. Everything derives from seed, so equal
// arguments give equal tables. Statistics are computed from the fabricated
// scores (U, p and A12 are plausible, not exact).
func sampleRun(run string, nGen, nCand, nTrain, nVal, nTest int, seed uint64) (eps []EpisodeRow, cands []CandidateRow, gens []GenerationRow) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	causes := []string{"injury", "combat_loss", "starvation", "entrapment"}
	ends := map[string]string{"injury": "killed", "combat_loss": "killed", "starvation": "starved", "entrapment": "no_progress", "none": "turn_limit"}
	monsters := []string{"jackal", "kobold", "newt", "gnome lord", "hill orc"}
	episode := func(g int32, version, split string, s uint64, skill float64) EpisodeRow {
		score := int64(math.Max(0, r.NormFloat64()*120+skill))
		cause := "none"
		if r.Float64() < 0.7 {
			cause = causes[r.IntN(len(causes))]
		}
		killedBy := ""
		if ends[cause] == "killed" {
			killedBy = monsters[r.IntN(len(monsters))]
		}
		turns := int64(200 + r.IntN(1800))
		kills, gold, xl := r.IntN(30), r.IntN(500), 1+r.IntN(8)
		return EpisodeRow{
			Run: run, Generation: g, Version: version, Split: split, Seed: s, Score: float64(score),
			Cause: cause, EndReason: ends[cause],
			Metrics: dungeonValues(1+score/100, turns, int64(kills), int64(gold), int64(xl), killedBy,
				turns/2, turns/20, turns/5, turns/25, turns/50, turns/100, turns/10),
		}
	}
	summary := func(scores []float64) (mean, std, median, iqm, lo, hi float64) {
		s := slices.Clone(scores)
		slices.Sort(s)
		mean, std = stat.MeanStdDev(s, nil)
		median = stat.Quantile(0.5, stat.LinInterp, s, nil)
		k := len(s) / 4
		iqm = stat.Mean(s[k:len(s)-k], nil)
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(s) - 1)}.Quantile(0.975) * std / math.Sqrt(float64(len(s)))
		return mean, std, median, iqm, mean - half, mean + half
	}
	mutations := []string{"threshold_adjustment", "skill_priority", "risk_tolerance", "max_steps"}
	incumbent, skill := "v1.0.0", 400.0
	next := 1
	for g := range int32(nGen) {
		var train, val []float64
		counts := map[string]int32{}
		for i := range nTrain {
			e := episode(g, incumbent, SplitTrain, uint64(1000+i), skill)
			eps = append(eps, e)
			train = append(train, e.Score)
			counts[e.Cause]++
		}
		for i := range nVal {
			e := episode(g, incumbent, SplitVal, uint64(5000+i), skill)
			eps = append(eps, e)
			val = append(val, e.Score)
		}
		vm, _, vmed, viqm, vlo, vhi := summary(val)
		gr := GenerationRow{
			Run: run, Generation: g, Incumbent: incumbent, NTrain: int32(nTrain), NVal: int32(nVal),
			TrainMean: stat.Mean(train, nil), ValMean: vm, ValMedian: vmed, ValIQM: viqm, ValCILow: vlo, ValCIHigh: vhi,
			NCandidates: int32(nCand), NextIncumbent: incumbent,
		}
		for _, c := range dungeonCauses {
			gr.CauseCounts = append(gr.CauseCounts, counts[c.Name])
			gr.Failures += counts[c.Name]
		}
		bestP, bestI, bestSkill := 1.0, -1, skill
		var gc []CandidateRow
		for c := range nCand {
			version := fmt.Sprintf("v1.0.%d", next)
			next++
			cs := skill + r.NormFloat64()*60
			var cv []float64
			for i := range nVal {
				e := episode(g, version, SplitVal, uint64(5000+i), cs)
				eps = append(eps, e)
				cv = append(cv, e.Score)
			}
			m, sd, med, iqm, lo, hi := summary(cv)
			var u float64
			for _, a := range cv {
				for _, b := range val {
					switch {
					case a > b:
						u++
					case a == b:
						u += 0.5
					}
				}
			}
			n1n2 := float64(len(cv) * len(val))
			z := (u - n1n2/2) / math.Sqrt(n1n2*float64(len(cv)+len(val)+1)/12)
			p := distuv.UnitNormal.Survival(z)
			padj := math.Min(1, p*float64(nCand))
			op := mutations[c%len(mutations)]
			gc = append(gc, CandidateRow{
				Run: run, Generation: g, Version: version, Parent: incumbent, Operator: op,
				Mutation: fmt.Sprintf("%s: parameter %d %.2f -> %.2f", op, c, 0.3, 0.3+0.05*float64(c+1)),
				N:        int32(nVal), Mean: m, Std: sd, Median: med, IQM: iqm, CILow: lo, CIHigh: hi,
				Test: "mwu", U: u, P: p, PAdj: padj, A12: u / n1n2,
			})
			if c%2 == 1 {
				// Every other candidate was tested paired, so that both
				// a null and a value (0 among them) are in column v.
				v := float64((c / 2) * 7 % (nVal*(nVal+1)/2 + 1))
				gc[c].Test, gc[c].V = "signed-rank", &v
			}
			if padj < 0.05 && padj < bestP {
				bestP, bestI, bestSkill = padj, c, cs
			}
		}
		if bestI >= 0 {
			gc[bestI].Accepted = true
			gr.Accepted = gc[bestI].Version
			gr.AcceptedP = &bestP
			gr.NextIncumbent = gr.Accepted
			incumbent, skill = gr.Accepted, bestSkill
		}
		cands = append(cands, gc...)
		gens = append(gens, gr)
	}
	for i := range nTest {
		eps = append(eps, episode(int32(nGen-1), incumbent, SplitTest, uint64(9000+i), skill))
	}
	return eps, cands, gens
}

// shuffled returns a copy of rows in a random order drawn from seed.
func shuffled[T any](rows []T, seed uint64) []T {
	s := slices.Clone(rows)
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// rowStrings renders each row field by field, pointers dereferenced and
// floats exactly ("NaN" equals "NaN"), so that rows can be compared with
// slices.Equal and differences printed readably.
func rowStrings[T any](rows []T) []string {
	out := make([]string, len(rows))
	for i := range rows {
		v := reflect.ValueOf(rows[i])
		var b strings.Builder
		for j := range v.NumField() {
			f := v.Field(j)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					fmt.Fprintf(&b, "%s=nil ", v.Type().Field(j).Name)
					continue
				}
				f = f.Elem()
			}
			if f.Kind() == reflect.Float64 {
				fmt.Fprintf(&b, "%s=%s ", v.Type().Field(j).Name, strconv.FormatFloat(f.Float(), 'g', -1, 64))
				continue
			}
			fmt.Fprintf(&b, "%s=%v ", v.Type().Field(j).Name, f.Interface())
		}
		out[i] = b.String()
	}
	return out
}

// checkSameRows fails t if got and want differ, naming the first difference.
func checkSameRows[T any](t *testing.T, got, want []T) {
	t.Helper()
	g, w := rowStrings(got), rowStrings(want)
	if len(g) != len(w) {
		t.Fatalf("got %d rows, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("row %d:\n got %s\nwant %s", i, g[i], w[i])
		}
	}
}
