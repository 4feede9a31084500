package power

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/stats"
)

// rPowerT is the power_t section of ../stats/testdata/r_reference.json:
// R 4.2.2's power.t.test(n, delta, sd = 1, sig.level = 0.05, type,
// alternative = "one.sided") (stats/testdata/gen_R.R).
func rPowerT(t *testing.T) []struct {
	N     int     `json:"n"`
	Delta float64 `json:"delta"`
	Type  string  `json:"type"`
	Power float64 `json:"power"`
} {
	b, err := os.ReadFile("../stats/testdata/r_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PowerT []struct {
			N     int     `json:"n"`
			Delta float64 `json:"delta"`
			Type  string  `json:"type"`
			Power float64 `json:"power"`
		} `json:"power_t"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.PowerT
}

// normalPilot returns n standard normal quantiles (Blom), paired with
// zeros when paired (so the differences are the quantiles).
func normalPilot(n int, paired bool) Pilot {
	p, _ := FromEffect(0, 1, n)
	if paired {
		return Pilot{Baseline: make([]float64, n), Candidate: p.Baseline, Paired: true}
	}
	return p
}

// TestMeanPowerMatchesR: the simulated power of the gate's non-inferiority
// check on the mean (Welch t, paired t) with margin D, for a candidate
// equal to the baseline, equals R's power.t.test at delta = D within the
// simulation's 99.9% Clopper-Pearson interval.
func TestMeanPowerMatchesR(t *testing.T) {
	for _, c := range rPowerT(t) {
		if c.N > 30 {
			continue // keep the test short
		}
		paired := c.Type == "paired"
		p := normalPilot(4000, paired)
		cfg := Config{Margin: c.Delta, Reps: 1500, Seed: 3}
		var d *Design
		for _, x := range Designs(p, cfg) {
			if strings.Contains(x.Name, "mean margin") {
				d = &x
			}
		}
		if d == nil {
			t.Fatal("no mean design")
		}
		est, err := Curve(p, *d, cfg, []int{c.N})
		if err != nil {
			t.Fatal(err)
		}
		k := int(math.Round(est[0].Power * float64(est[0].Reps)))
		lo, hi := stats.ClopperPearson(k, est[0].Reps, 0.999)
		if c.Power < lo || c.Power > hi {
			t.Errorf("%s n %d delta %v: simulated %v [%v, %v], R power.t.test %v", c.Type, c.N, c.Delta, est[0].Power, lo, hi, c.Power)
		}
	}
}

// TestPlan: Noether's n and the simulated n of the U test agree within
// 25% for a normal shift (A12 = 0.64), the simulated n reaches the target
// and n − 1... is below it (common random numbers), and the
// non-inferiority rows appear with a margin.
func TestPlan(t *testing.T) {
	p, err := FromEffect(-0.5, 1, 2000) // candidate worse by half an SD
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Plan(p, Config{Reps: 250, Margin: 0.2, MaxN: 200}, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	u := rows[0]
	if !strings.Contains(u.Design, "U test") || u.NNoether == 0 || math.Abs(float64(u.NSim-u.NNoether)) > 0.25*float64(u.NNoether) {
		t.Errorf("U test row %+v", u)
	}
	// The formula: A12 = Φ(-0.5/√2) = 0.3618; (1.645 + 0.8416)²/(3·0.1382²)/2 = 54.
	if u.NNoether < 50 || u.NNoether > 58 {
		t.Errorf("Noether n %d, want about 54", u.NNoether)
	}
	if !(u.PowerAtN.Power > 0.5 && u.PowerAtN.Power < 0.8) || u.PowerAtN.N != 40 {
		t.Errorf("power at 40: %+v", u.PowerAtN)
	}
	// A candidate worse by 0.5 SD is not non-inferior at margin 0.2: no n
	// in range shows it (power about alpha or less).
	for _, r := range rows[1:] {
		if r.NSim <= 200 {
			t.Errorf("%s: n %d for a candidate worse than the margin", r.Design, r.NSim)
		}
	}
}

// TestFigureSaves: the power figure of two designs saves as SVG, and the
// same series give the same bytes.
func TestFigureSaves(t *testing.T) {
	p := normalPilot(500, true)
	cfg := Config{Reps: 100, Margin: 0.3}
	var series []Series
	for _, d := range Designs(p, cfg)[:2] {
		pts, err := Curve(p, d, cfg, Grid(5, 80, 5))
		if err != nil {
			t.Fatal(err)
		}
		series = append(series, Series{Design: d.Name, Points: pts})
	}
	dir := t.TempDir()
	var out [2][]byte
	for i := range out {
		f, err := Figure(series, 0.8, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "p.svg")
		if err := f.Save(path); err != nil {
			t.Fatal(err)
		}
		out[i], _ = os.ReadFile(path)
	}
	if len(out[0]) < 1000 || string(out[0]) != string(out[1]) {
		t.Errorf("svg of %d bytes, deterministic %v", len(out[0]), string(out[0]) == string(out[1]))
	}
}

func TestGrid(t *testing.T) {
	g := Grid(5, 1000, 8)
	if g[0] != 5 || g[len(g)-1] != 1000 {
		t.Errorf("grid %v", g)
	}
	for i := 1; i < len(g); i++ {
		if g[i] <= g[i-1] {
			t.Errorf("grid not increasing: %v", g)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	p := normalPilot(10, false)
	for _, c := range []Config{{Alpha: 2}, {Power: 1}, {Margin: -1}, {Reps: -1}, {MaxN: 1}} {
		if _, err := Plan(p, c, 0); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if _, err := Plan(Pilot{Baseline: []float64{1}, Candidate: []float64{1, 2}}, Config{}, 0); err == nil {
		t.Error("tiny pilot: no error")
	}
}
