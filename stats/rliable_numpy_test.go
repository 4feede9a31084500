package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// numpyRef is stats/testdata/rliable_numpy_reference.json, written by
// scripts/rliable_reference.py (an implementation of rliable's metrics in
// numpy alone).
type numpyRef struct {
	Cases []struct {
		Name    string      `json:"name"`
		X       [][]float64 `json:"x"`
		Y       [][]float64 `json:"y"`
		IQMX    float64     `json:"iqm_x"`
		IQMY    float64     `json:"iqm_y"`
		MeanX   float64     `json:"mean_x"`
		POIXY   float64     `json:"poi_x_over_y"`
		POIYX   float64     `json:"poi_y_over_x"`
		Taus    []float64   `json:"taus"`
		Profile []float64   `json:"run_score_profile_x"`
	} `json:"cases"`
	Ideal struct {
		Scores        [][]float64 `json:"scores"`
		IQM           idealDist   `json:"iqm"`
		Mean          idealDist   `json:"mean"`
		POIX          [][]float64 `json:"poi_x"`
		POIY          [][]float64 `json:"poi_y"`
		POI           idealDist   `json:"poi"`
		ProfileScores [][]float64 `json:"profile_scores"`
		ProfileTau    float64     `json:"profile_tau"`
		Profile       idealDist   `json:"profile"`
	} `json:"ideal"`
}

// idealDist summarises an ideal bootstrap distribution: its size, its
// inverse-CDF 2.5% and 97.5% quantiles and its distinct values.
type idealDist struct {
	N     int       `json:"n_resamples"`
	Q025  float64   `json:"q025"`
	Q975  float64   `json:"q975"`
	Atoms []float64 `json:"atoms"`
}

func loadNumpyRef(t *testing.T) numpyRef {
	t.Helper()
	data, err := os.ReadFile("testdata/rliable_numpy_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r numpyRef
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) == 0 {
		t.Fatal("no cases in the reference")
	}
	return r
}

// TestRliableNumpyPoints checks the IQM, the mean, the probability of
// improvement (both ways) and the run-score profile against the numpy
// reference to 1e-12.
func TestRliableNumpyPoints(t *testing.T) {
	for _, c := range loadNumpyRef(t).Cases {
		t.Run(c.Name, func(t *testing.T) {
			check := func(what string, got, want float64) {
				t.Helper()
				if !near(got, want, 1e-12) {
					t.Errorf("%s = %.17g, want %.17g", what, got, want)
				}
			}
			check("AggregateIQM(x)", AggregateIQM(c.X), c.IQMX)
			check("AggregateIQM(y)", AggregateIQM(c.Y), c.IQMY)
			check("AggregateMean(x)", AggregateMean(c.X), c.MeanX)
			for _, p := range []struct {
				name string
				a, b [][]float64
				want float64
			}{{"P(X > Y)", c.X, c.Y, c.POIXY}, {"P(Y > X)", c.Y, c.X, c.POIYX}} {
				got, err := ProbabilityOfImprovement(p.a, p.b)
				if err != nil {
					t.Fatal(err)
				}
				check(p.name, got, p.want)
			}
			prof, err := RunScoreProfile(c.X, c.Taus)
			if err != nil {
				t.Fatal(err)
			}
			for k, tau := range c.Taus {
				check("RunScoreProfile at "+fmtG(tau), prof[k], c.Profile[k])
			}
		})
	}
}

func fmtG(x float64) string { b, _ := json.Marshal(x); return string(b) }

// withinAtom reports whether got lies within one atom (distinct value) of
// want in the ideal distribution d: a Monte Carlo percentile can land on
// a neighbouring atom of the ideal bootstrap's quantile.
func withinAtom(t *testing.T, d idealDist, got, want float64) bool {
	t.Helper()
	k := slices.IndexFunc(d.Atoms, func(v float64) bool { return math.Abs(v-want) <= 1e-12 })
	if k < 0 {
		t.Fatalf("reference quantile %v is not one of its atoms", want)
	}
	lo, hi := d.Atoms[max(k-1, 0)], d.Atoms[min(k+1, len(d.Atoms)-1)]
	return got >= lo-1e-12 && got <= hi+1e-12
}

// TestStratifiedBootstrapNumpyIdeal checks the stratified bootstrap CIs
// of the IQM, the mean, the probability of improvement and the run-score
// profile against the ideal bootstrap the numpy reference enumerates:
// 20000 seeded resamples must put each limit within one atom of the
// ideal 2.5% and 97.5% quantiles. A bootstrap that resampled across tasks
// (not stratified), or x and y jointly, gives other distributions and
// fails.
func TestStratifiedBootstrapNumpyIdeal(t *testing.T) {
	r := loadNumpyRef(t).Ideal
	cfg := func(stream uint64) BootstrapConfig {
		return BootstrapConfig{Reps: 20000, Rand: rand.New(rand.NewPCG(20261128, stream))}
	}
	check := func(name string, d idealDist, iv Interval) {
		t.Helper()
		if !withinAtom(t, d, iv.Low, d.Q025) || !withinAtom(t, d, iv.High, d.Q975) {
			t.Errorf("%s: CI [%v, %v], ideal [%v, %v] (atoms %v)", name, iv.Low, iv.High, d.Q025, d.Q975, d.Atoms)
		}
	}
	for _, tc := range []struct {
		name string
		stat func([][]float64) float64
		d    idealDist
	}{{"iqm", AggregateIQM, r.IQM}, {"mean", AggregateMean, r.Mean}} {
		if n := len(idealBootstrap(r.Scores, tc.stat)); n != tc.d.N {
			t.Fatalf("%s: the Go enumeration has %d resamples, numpy's %d", tc.name, n, tc.d.N)
		}
		iv, err := BootstrapCI(r.Scores, tc.stat, cfg(1))
		if err != nil {
			t.Fatal(err)
		}
		check(tc.name, tc.d, iv)
	}
	iv, err := ProbabilityOfImprovementCI(r.POIX, r.POIY, cfg(2))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := ProbabilityOfImprovement(r.POIX, r.POIY); iv.Point != want {
		t.Errorf("ProbabilityOfImprovementCI point %v, want %v", iv.Point, want)
	}
	check("probability of improvement", r.POI, iv)
	ivs, err := RunScoreProfileCI(r.ProfileScores, []float64{r.ProfileTau}, cfg(3))
	if err != nil {
		t.Fatal(err)
	}
	check("run-score profile", r.Profile, ivs[0])
}

// TestProbabilityOfImprovementCIReproducible: a seed reproduces the
// interval; the errors are those of ProbabilityOfImprovement.
func TestProbabilityOfImprovementCIReproducible(t *testing.T) {
	x := [][]float64{{1, 2}, {3, 1}, {2, 2}}
	y := [][]float64{{0, 1}, {2, 2}}
	run := func() Interval {
		iv, err := ProbabilityOfImprovementCI(x, y, BootstrapConfig{Reps: 300, Rand: rand.New(rand.NewPCG(5, 6))})
		if err != nil {
			t.Fatal(err)
		}
		return iv
	}
	if a, b := run(), run(); a != b {
		t.Errorf("same seed, different intervals: %+v, %+v", a, b)
	}
	if _, err := ProbabilityOfImprovementCI(x, [][]float64{{1}}, BootstrapConfig{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Error("x with 2 tasks against y with 1: no error")
	}
	if _, err := RunScoreProfileCI(x, []float64{math.NaN()}, BootstrapConfig{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Error("NaN tau: no error")
	}
}
