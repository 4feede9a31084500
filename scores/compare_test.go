package scores

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evolve/gate"
	"evolve/stats"
)

// R's ?wilcox.test depression example: x (first visit) and y (second),
// paired by patient.
var (
	depX = []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	depY = []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
)

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Compare against R's wilcox.test on the depression data (candidate x,
// baseline y): paired, V = 40, p = 0.0390625 two-sided, 0.01953125
// greater; unpaired, W = 58 and, without ties, an exact two-sided p of
// twice the one-sided one. The Hodges-Lehmann estimates are checked by
// brute force: the median of the Walsh averages of the paired
// differences, the median of every difference x_i - y_j unpaired.
func TestCompare(t *testing.T) {
	base := &Sample{Source: "y", Scores: depY}
	cand := &Sample{Source: "x", Scores: depX}
	var walsh, diffs []float64
	for i := range depX {
		for j := range depY {
			diffs = append(diffs, depX[i]-depY[j])
			if j >= i {
				walsh = append(walsh, (depX[i]-depY[i]+depX[j]-depY[j])/2)
			}
		}
	}
	tests := []struct {
		test    stats.TestName
		p, pg   float64 // reference p-values; 0: p = 2 pg is checked instead
		v       float64 // V, signed-rank only
		hl      float64
		verdict string
	}{
		{stats.TestSignedRank, 0.0390625, 0.01953125, 40, medianOf(walsh), Improvement},
		{stats.TestMWU, 0, 0, 0, medianOf(diffs), NoDifference},
	}
	for _, tt := range tests {
		t.Run(string(tt.test), func(t *testing.T) {
			c, err := Compare(base, cand, Options{Test: tt.test, Alternative: stats.TwoSided, Method: stats.Auto, Alpha: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			if c.U != 58 || math.Abs(c.A12-58.0/81) > 1e-15 || math.Abs(c.RankBiserial-(2*58.0/81-1)) > 1e-15 || c.N1 != 9 || c.N2 != 9 {
				t.Errorf("U %v A12 %v rank-biserial %v n %d/%d; want 58, 58/81, 35/81, 9/9", c.U, c.A12, c.RankBiserial, c.N1, c.N2)
			}
			switch tt.test {
			case stats.TestSignedRank:
				if c.V == nil || *c.V != tt.v || *c.NPairs != 9 || math.Abs(c.P-tt.p) > 1e-12 || math.Abs(c.PGreater-tt.pg) > 1e-12 {
					t.Errorf("V %v, n %v, p %v, p greater %v; want %v, 9, %v, %v", c.V, c.NPairs, c.P, c.PGreater, tt.v, tt.p, tt.pg)
				}
			default:
				if c.V != nil || c.NPairs != nil || c.Method != "exact" || math.Abs(c.P-2*c.PGreater) > 1e-15 {
					t.Errorf("V %v, method %s, p %v vs 2 p greater %v", c.V, c.Method, c.P, 2*c.PGreater)
				}
			}
			if c.HLShift == nil || math.Abs(*c.HLShift-tt.hl) > 1e-12 || c.HLCILow == nil || !(*c.HLCILow <= *c.HLShift && *c.HLShift <= *c.HLCIHigh) {
				t.Errorf("HL %v [%v, %v], want %v inside its CI", c.HLShift, c.HLCILow, c.HLCIHigh, tt.hl)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %q (p greater %v, p less %v), want %q", c.Verdict, c.PGreater, c.PLess, tt.verdict)
			}
			if c.Baseline.Source != "y" || c.Baseline.N != 9 || math.Abs(c.Candidate.Mean-stats.Summarize(depX).Mean) > 1e-12 || c.Baseline.CILow == nil {
				t.Errorf("summaries %+v %+v", c.Baseline, c.Candidate)
			}
		})
	}
	// Swapping the samples swaps the one-sided p-values.
	a, _ := Compare(base, cand, Options{Test: stats.TestSignedRank, Alpha: 0.05})
	b, _ := Compare(cand, base, Options{Test: stats.TestSignedRank, Alpha: 0.05})
	if a.PGreater != b.PLess || a.PLess != b.PGreater || b.Verdict != Regression {
		t.Errorf("swapped: %v %v %s; want %v %v regression", b.PGreater, b.PLess, b.Verdict, a.PLess, a.PGreater)
	}
	if _, err := Compare(&Sample{Scores: depY}, &Sample{Scores: depX, Seeds: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}}, Options{Test: stats.TestSignedRank, Alpha: 0.05}); err == nil {
		t.Error("signed-rank of a sample with seeds and one without: no error")
	}
	if _, err := Compare(&Sample{}, cand, Options{Test: stats.TestMWU, Alpha: 0.05}); err == nil {
		t.Error("empty baseline: no error")
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		pg, pl, alpha float64
		want          string
	}{
		{0.01, 0.99, 0.05, Improvement},
		{0.99, 0.01, 0.05, Regression},
		{0.05, 0.95, 0.05, NoDifference}, // p < alpha, strictly
		{0.04, 0.04, 0.05, Improvement},  // improvement first
		{0.5, 0.5, 0.05, NoDifference},
	}
	for _, tt := range tests {
		if got := verdict(tt.pg, tt.pl, tt.alpha); got != tt.want {
			t.Errorf("verdict(%v, %v, %v) = %q, want %q", tt.pg, tt.pl, tt.alpha, got, tt.want)
		}
	}
}

// CompareRows: one row per (candidate, key), p-values adjusted across the
// rows (here Holm, checked against stats.Adjust of the rows' own p), the
// verdict from the adjusted one-sided p-values, and every key in both
// files.
func TestCompareRows(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, shift map[string]float64, keys ...string) string {
		var b strings.Builder
		b.WriteString("task,seed,score\n")
		for _, k := range keys {
			for s := range 20 {
				fmt.Fprintf(&b, "%s,%d,%g\n", k, s, float64(100+(s*7)%20)+shift[k])
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := write("base.csv", nil, "a", "b", "c")
	cand := write("cand.csv", map[string]float64{"a": 0.5, "b": 12, "c": -12}, "a", "b", "c")
	o := Options{Test: stats.TestMWU, Alternative: stats.TwoSided, Method: stats.Auto, Alpha: 0.05}
	rows, err := CompareRows([]string{base, cand}, "task", "val", stats.Holm, o)
	if err != nil {
		t.Fatal(err)
	}
	var keys, verdicts []string
	var p []float64
	for _, r := range rows {
		keys, verdicts, p = append(keys, r.Key), append(verdicts, r.Verdict), append(p, r.P)
		if r.File != cand || r.Correction != "holm" {
			t.Errorf("row %s: file %s, correction %s", r.Key, r.File, r.Correction)
		}
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if want := []string{NoDifference, Improvement, Regression}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts %v, want %v", verdicts, want)
	}
	adj, _ := stats.Adjust(p, stats.Holm)
	for i, r := range rows {
		if r.PAdj != adj[i] || r.PAdj < r.P {
			t.Errorf("row %s: p adj %v, want %v (Holm of %v)", r.Key, r.PAdj, adj[i], p)
		}
	}

	missing := write("missing.csv", nil, "a", "b")
	extra := write("extra.csv", nil, "a", "b", "c", "d")
	for _, tt := range []struct {
		files []string
		err   string
	}{
		{[]string{base, missing}, missing + ` has no rows of key "c", which ` + base + " has"},
		{[]string{base, extra}, extra + ` has rows of key "d", which ` + base + " has not"},
		{[]string{base, filepath.Join(dir, "none.csv")}, "no such file"},
	} {
		if _, err := CompareRows(tt.files, "task", "val", stats.Holm, o); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("CompareRows(%v): err = %v, want %q", tt.files, err, tt.err)
		}
	}
}

func TestGateAndFailureChecks(t *testing.T) {
	var b, c []float64
	var failedB, failedC []bool
	for i := range 40 {
		b = append(b, float64(100+i%10))
		c = append(c, float64(80+i%10))
		failedB, failedC = append(failedB, i%10 == 0), append(failedC, i%2 == 0)
	}
	base := &Sample{Source: "base", Scores: b, Failed: failedB}
	cand := &Sample{Source: "cand", Scores: c, Failed: failedC}
	check, err := GateCheck(base, cand, stats.TestMWU, gate.DefaultConfig())
	if err != nil || !check.Failed {
		t.Errorf("a candidate 20 points worse: %+v, %v; want a failed check", check, err)
	}
	if _, err := GateCheck(&Sample{Scores: b[:2]}, &Sample{Scores: c[:2]}, stats.TestMWU, gate.DefaultConfig()); !errors.Is(err, gate.ErrTooFew) {
		t.Errorf("two scores each: err = %v, want gate.ErrTooFew", err)
	}
	// Without seeds, signed-rank pairs by line.
	if check, err := GateCheck(&Sample{Scores: b}, &Sample{Scores: c}, stats.TestSignedRank, gate.DefaultConfig()); err != nil || !check.Failed {
		t.Errorf("signed-rank by line: %+v, %v", check, err)
	}
	fc, err := FailureCheck(base, cand, gate.DefaultConfig(), 0.05)
	if err != nil || !fc.Failed {
		t.Errorf("failures from 10%% to 50%%: %+v, %v; want a failed check", fc, err)
	}
	if _, err := FailureCheck(&Sample{Source: "a.txt", Scores: b}, cand, gate.DefaultConfig(), 0.05); !errors.Is(err, ErrNoCauses) || !strings.HasPrefix(err.Error(), "a.txt has no failure causes") {
		t.Errorf("a sample without causes: err = %v, want ErrNoCauses naming a.txt", err)
	}
}

// Every test the registry offers to evolve compare (stats.UseCompare) is
// one Compare runs; another registered test is refused, not run as U.
func TestCompareRegisteredTests(t *testing.T) {
	base := &Sample{Scores: []float64{1, 2, 3, 4, 5, 6}}
	cand := &Sample{Scores: []float64{2, 3, 5, 5, 7, 9}}
	for _, name := range stats.TestNames(stats.UseCompare) {
		c, err := Compare(base, cand, Options{Test: name, Alternative: stats.TwoSided, Alpha: 0.05})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if c.Test != name {
			t.Errorf("%s: ran %q", name, c.Test)
		}
	}
	if _, err := Compare(base, cand, Options{Test: stats.TestWelchT, Alpha: 0.05}); !errors.Is(err, ErrTest) ||
		err.Error() != `evolve compare does not run this test: "welch-t" (it runs mwu or signed-rank)` {
		t.Errorf("welch-t: err = %v, want ErrTest", err)
	}
}
