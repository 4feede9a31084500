package stats

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

type rliableCase struct {
	RawX             [][]float64 `json:"x"`
	RawY             [][]float64 `json:"y"`
	ScoresX          [][]float64 `json:"scores_x"`
	ScoresY          [][]float64 `json:"scores_y"`
	IQMX             float64     `json:"iqm_x"`
	IQMY             float64     `json:"iqm_y"`
	MeanX            float64     `json:"mean_x"`
	MedianX          float64     `json:"median_x"`
	POI              float64     `json:"poi_x_over_y"`
	OptGapX          *float64    `json:"optimality_gap_x_gamma1"`
	Taus             []float64   `json:"taus"`
	RunScoreProfileX []float64   `json:"run_score_profile_x"`
	AvgScoreProfileX []float64   `json:"avg_score_profile_x"`
}

func rliableRef(t *testing.T, key string, v any) {
	t.Helper()
	raw, ok := loadOracle(t).Rliable[key]
	if !ok {
		t.Fatalf("rliable_reference.%s missing", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding rliable_reference.%s: %v", key, err)
	}
}

// TestRliableOracle compares the aggregates with rliable (oracle
// rliable_reference: rliable_unit_test and example) to tolOracle.
func TestRliableOracle(t *testing.T) {
	for _, key := range []string{"rliable_unit_test", "example"} {
		t.Run(key, func(t *testing.T) {
			var c rliableCase
			rliableRef(t, key, &c)
			x, y := c.RawX, c.RawY
			if x == nil {
				x, y = c.ScoresX, c.ScoresY
			}
			check := func(what string, got, want float64) {
				t.Helper()
				if !near(got, want, tolOracle) {
					t.Errorf("%s = %.17g, want %.17g", what, got, want)
				}
			}
			check("AggregateIQM(x)", AggregateIQM(x), c.IQMX)
			check("AggregateIQM(y)", AggregateIQM(y), c.IQMY)
			check("AggregateMean(x)", AggregateMean(x), c.MeanX)
			check("AggregateMedian(x)", AggregateMedian(x), c.MedianX)
			poi, err := ProbabilityOfImprovement(x, y)
			if err != nil {
				t.Fatal(err)
			}
			check("ProbabilityOfImprovement", poi, c.POI)
			if c.OptGapX != nil {
				check("OptimalityGap(x, 1)", OptimalityGap(x, 1), *c.OptGapX)
			}
			if c.Taus != nil {
				rs, err := RunScoreProfile(x, c.Taus)
				if err != nil {
					t.Fatal(err)
				}
				as, err := AverageScoreProfile(x, c.Taus)
				if err != nil {
					t.Fatal(err)
				}
				for k, tau := range c.Taus {
					if !near(rs[k], c.RunScoreProfileX[k], tolOracle) {
						t.Errorf("RunScoreProfile(tau=%v) = %v, want %v", tau, rs[k], c.RunScoreProfileX[k])
					}
					if !near(as[k], c.AvgScoreProfileX[k], tolOracle) {
						t.Errorf("AverageScoreProfile(tau=%v) = %v, want %v", tau, as[k], c.AvgScoreProfileX[k])
					}
				}
			}
		})
	}
}

// TestIQMTrimRule checks iqm_trim_rule: scipy trim_mean cuts int(0.25·n)
// from each end.
func TestIQMTrimRule(t *testing.T) {
	var c struct {
		Values []float64 `json:"values"`
		IQM    float64   `json:"iqm"`
	}
	rliableRef(t, "iqm_trim_rule", &c)
	if got := IQM(c.Values); !near(got, c.IQM, tolOracle) {
		t.Errorf("IQM = %v, want %v", got, c.IQM)
	}
	if got := Summarize(c.Values).IQM; !near(got, c.IQM, tolOracle) {
		t.Errorf("Summarize.IQM = %v, want %v", got, c.IQM)
	}
	// n = 7: int(1.75) = 1 cut from each end.
	if got := IQM([]float64{100, 1, 2, 3, 4, 5, -100}); got != 3 {
		t.Errorf("IQM(n=7) = %v, want 3", got)
	}
}

// TestSummarize checks x = 1..10 against R: mean 5.5, sd(x) =
// 3.0276503540974917, median 5.5, t.test(x)$conf.int = [3.3341494103866,
// 7.6658505896134] (qt(0.975, 9) = 2.262157162740992), to 1e-9.
func TestSummarize(t *testing.T) {
	x := []float64{3, 1, 2, 4, 5, 6, 7, 8, 9, 10}
	s := Summarize(x)
	want := Summary{N: 10, Mean: 5.5, Std: 3.0276503540974917, Median: 5.5, IQM: 5.5, Min: 1, Max: 10,
		CILow: 3.3341494103866083, CIHigh: 7.665850589613392}
	got := []float64{s.Mean, s.Std, s.Median, s.IQM, s.Min, s.Max, s.CILow, s.CIHigh}
	exp := []float64{want.Mean, want.Std, want.Median, want.IQM, want.Min, want.Max, want.CILow, want.CIHigh}
	for i := range got {
		if !near(got[i], exp[i], 1e-9) {
			t.Errorf("Summarize = %+v, want %+v", s, want)
			break
		}
	}
	if s.N != 10 || x[0] != 3 {
		t.Errorf("N = %d or input modified: %v", s.N, x)
	}
	one := Summarize([]float64{4})
	if one.Mean != 4 || one.Median != 4 || !math.IsNaN(one.Std) || !math.IsNaN(one.CILow) {
		t.Errorf("Summarize(one) = %+v", one)
	}
	if e := Summarize(nil); e.N != 0 || !math.IsNaN(e.Mean) {
		t.Errorf("Summarize(nil) = %+v", e)
	}
	if m := Median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("Median = %v, want 2.5", m)
	}
}

// idealBootstrap enumerates every stratified resample of a runs × tasks
// matrix (runs^runs per task, independently per task) and returns the
// sorted values of stat.
func idealBootstrap(scores [][]float64, stat func([][]float64) float64) []float64 {
	runs, tasks := len(scores), len(scores[0])
	perTask := 1
	for range runs {
		perTask *= runs
	}
	total := 1
	for range tasks {
		total *= perTask
	}
	res := make([][]float64, runs)
	for i := range res {
		res[i] = make([]float64, tasks)
	}
	vals := make([]float64, 0, total)
	for code := range total {
		c := code
		for j := range tasks {
			pick := c % perTask
			c /= perTask
			for i := range runs {
				res[i][j] = scores[pick%runs][j]
				pick /= runs
			}
		}
		vals = append(vals, stat(res))
	}
	slices.Sort(vals)
	return vals
}

// inverseCDF returns the smallest value v of sorted vals with
// P(V <= v) >= q.
func inverseCDF(vals []float64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(vals)))) - 1
	return vals[max(k, 0)]
}

// atoms returns the distinct values of sorted vals (merging values within
// 1e-12).
func atoms(vals []float64) []float64 {
	var a []float64
	for _, v := range vals {
		if len(a) == 0 || v-a[len(a)-1] > 1e-12 {
			a = append(a, v)
		}
	}
	return a
}

// TestBootstrapCIIdeal checks BootstrapCI against ideal_stratified_bootstrap:
// the oracle's quantiles are the inverse-CDF quantiles of all 3^3 × 3^3 = 729
// equally likely stratified resamples. First the enumeration here must
// reproduce them (to tolOracle); then a seeded BootstrapCI with 20000 reps
// must land within ±1 atom (distinct value of the ideal distribution) of
// each, as the oracle's note allows, for the mean and the IQM.
func TestBootstrapCIIdeal(t *testing.T) {
	var c struct {
		Scores    [][]float64 `json:"scores"`
		N         int         `json:"n_resamples"`
		MeanPoint float64     `json:"mean_point"`
		MeanQ025  float64     `json:"mean_q025"`
		MeanQ975  float64     `json:"mean_q975"`
		IQMPoint  float64     `json:"iqm_point"`
		IQMQ025   float64     `json:"iqm_q025"`
		IQMQ975   float64     `json:"iqm_q975"`
	}
	rliableRef(t, "ideal_stratified_bootstrap", &c)
	for _, tc := range []struct {
		name            string
		stat            func([][]float64) float64
		point, q25, q75 float64
	}{
		{"mean", AggregateMean, c.MeanPoint, c.MeanQ025, c.MeanQ975},
		{"iqm", AggregateIQM, c.IQMPoint, c.IQMQ025, c.IQMQ975},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ideal := idealBootstrap(c.Scores, tc.stat)
			if len(ideal) != c.N {
				t.Fatalf("enumerated %d resamples, oracle says %d", len(ideal), c.N)
			}
			if lo, hi := inverseCDF(ideal, 0.025), inverseCDF(ideal, 0.975); !near(lo, tc.q25, tolOracle) || !near(hi, tc.q75, tolOracle) {
				t.Fatalf("ideal quantiles [%v, %v], oracle [%v, %v]", lo, hi, tc.q25, tc.q75)
			}
			ci, err := BootstrapCI(c.Scores, tc.stat, BootstrapConfig{Reps: 20000, Rand: rand.New(rand.NewPCG(2026, 11))})
			if err != nil {
				t.Fatal(err)
			}
			if !near(ci.Point, tc.point, tolOracle) {
				t.Errorf("Point = %v, want %v", ci.Point, tc.point)
			}
			a := atoms(ideal)
			within := func(got, want float64) bool {
				k := slices.IndexFunc(a, func(v float64) bool { return math.Abs(v-want) <= 1e-12 })
				if k < 0 {
					t.Fatalf("oracle quantile %v is not an atom of %v", want, a)
				}
				lo, hi := a[max(k-1, 0)], a[min(k+1, len(a)-1)]
				return got >= lo-1e-12 && got <= hi+1e-12
			}
			if !within(ci.Low, tc.q25) || !within(ci.High, tc.q75) {
				t.Errorf("CI [%v, %v] not within ±1 atom of [%v, %v] (atoms %v)", ci.Low, ci.High, tc.q25, tc.q75, a)
			}
		})
	}
}

// TestBootstrapCIReproducible: a seed reproduces the interval exactly; the
// interval contains the point estimate for a well-behaved statistic.
func TestBootstrapCIReproducible(t *testing.T) {
	var c rliableCase
	rliableRef(t, "example", &c)
	run := func(seed uint64) Interval {
		ci, err := BootstrapCI(c.ScoresX, AggregateIQM, BootstrapConfig{Reps: 500, Rand: rand.New(rand.NewPCG(seed, 0))})
		if err != nil {
			t.Fatal(err)
		}
		return ci
	}
	a, b := run(1), run(1)
	if a != b {
		t.Errorf("same seed, different intervals: %+v vs %+v", a, b)
	}
	if !(a.Low <= a.Point && a.Point <= a.High) || a.Reps != 500 || a.ConfLevel != 0.95 {
		t.Errorf("interval %+v", a)
	}
}

func TestRliableErrors(t *testing.T) {
	ragged := [][]float64{{1, 2}, {3}}
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := BootstrapCI(ragged, AggregateMean, BootstrapConfig{Rand: rng}); !errors.Is(err, ErrShape) {
		t.Errorf("ragged: %v", err)
	}
	if _, err := BootstrapCI(nil, AggregateMean, BootstrapConfig{Rand: rng}); !errors.Is(err, ErrSampleSize) {
		t.Errorf("empty: %v", err)
	}
	if _, err := BootstrapCI([][]float64{{1}}, AggregateMean, BootstrapConfig{Rand: rng, ConfLevel: 2}); !errors.Is(err, ErrOption) {
		t.Errorf("conf 2: %v", err)
	}
	if _, err := BootstrapCI([][]float64{{1}}, func([][]float64) float64 { return math.NaN() }, BootstrapConfig{Rand: rng}); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN stat: %v", err)
	}
	if _, err := ProbabilityOfImprovement([][]float64{{1, 2}}, [][]float64{{1}}); !errors.Is(err, ErrShape) {
		t.Errorf("POI tasks mismatch: %v", err)
	}
	if _, err := RunScoreProfile([][]float64{{math.NaN()}}, []float64{0}); !errors.Is(err, ErrNaN) {
		t.Errorf("profile NaN: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Errorf("nil Rand did not panic")
			}
		}()
		_, _ = BootstrapCI([][]float64{{1}}, AggregateMean, BootstrapConfig{})
	}()
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Errorf("ragged AggregateIQM did not panic")
			}
		}()
		AggregateIQM(ragged)
	}()
	if !math.IsNaN(AggregateMean(nil)) || !math.IsNaN(OptimalityGap(nil, 1)) {
		t.Errorf("empty aggregates not NaN")
	}
}
