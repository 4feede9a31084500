package bandit

import (
	"bytes"
	"context"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"

	"evolve/online"
	"evolve/params"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// smallConfig is a study small enough for a unit test (640 episodes,
// 6 x 4 streams of 400 requests, 4 x 200 rollback trials).
func smallConfig(workers int) Config {
	cfg := DefaultConfig()
	cfg.Pool, cfg.Requests, cfg.Repeats, cfg.Workers = 40, 400, 4, workers
	cfg.Rollback.Trials = 200
	return cfg
}

var (
	smallOnce sync.Once
	smallRes  *Result
	smallErr  error
)

// small returns the small study run on one worker, computed once.
func small(t *testing.T) *Result {
	t.Helper()
	smallOnce.Do(func() { smallRes, smallErr = Run(context.Background(), smallConfig(1), nil) })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallRes
}

func TestContextsSignals(t *testing.T) {
	want := map[string]online.Signals{
		"standard":  {SignalTimePressure: 0, SignalGoalNear: 0, SignalStallRisk: 0},
		"short":     {SignalTimePressure: 0.8, SignalGoalNear: 0, SignalStallRisk: 0},
		"shallow":   {SignalTimePressure: 0, SignalGoalNear: 16.0 / 18, SignalStallRisk: 0},
		"impatient": {SignalTimePressure: 0, SignalGoalNear: 0, SignalStallRisk: 0.8},
	}
	for _, c := range DefaultContexts() {
		got := c.Signals()
		for name, w := range want[c.Name] {
			if math.Abs(got[name]-w) > 1e-12 {
				t.Errorf("%s: %s = %v, want %v", c.Name, name, got[name], w)
			}
		}
		if err := online.CheckSignals(Signals(), got); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" for none
	}{
		{"default", func(*Config) {}, ""},
		{"requests", func(c *Config) { c.Requests = 0 }, "requests must be >= 1, got 0"},
		{"repeats", func(c *Config) { c.Repeats = 1 }, "repeats must be >= 2"},
		{"epsilon", func(c *Config) { c.Epsilon = 1.5 }, "epsilon must be in [0, 1], got 1.5"},
		{"epsilon NaN", func(c *Config) { c.Epsilon = math.NaN() }, "epsilon must be in [0, 1], got NaN"},
		{"alpha", func(c *Config) { c.Alpha = 0 }, "alpha must be in (0, 1], got 0"},
		{"pool", func(c *Config) { c.Pool = 1001 }, "pool must be in [1, 1000]"},
		{"policy", func(c *Config) { c.Policies = []string{"ucb2"} }, `policies[0]: unknown policy "ucb2"`},
		{"policy twice", func(c *Config) { c.Policies = []string{"ucb1", "ucb1"} }, `policies[1]: "ucb1" is given twice`},
		{"context config", func(c *Config) { c.Contexts[1].Config.MaxTurns = 5 }, "contexts[1] (short): max_turns: 5 is out of range"},
		{"context name", func(c *Config) { c.Contexts[0].Name = "a b" }, `contexts[0]: name "a b"`},
		{"version twice", func(c *Config) { c.Versions[1].Name = "v1.0.0" }, `versions[1]: name "v1.0.0" is given twice`},
		{"one version", func(c *Config) { c.Versions = c.Versions[:1] }, "versions: 1 given, a selection needs at least 2"},
		{"unknown signal", func(c *Config) { c.Versions[3].ContextWeights = map[string]float64{"user_frustrated": 1} },
			`versions[3] (sprinter): context_weights: "user_frustrated" is not a signal of the study`},
		{"bad params", func(c *Config) {
			c.Versions[0].Params = c.Versions[0].Params.With("risk_tolerance", params.NumberValue(2))
		}, "versions[0] (v1.0.0): policy_parameters.risk_tolerance"},
		{"rollback version", func(c *Config) { c.Rollback.Version = "v9" }, `rollback: version "v9" is not one of the study's versions`},
		{"rollback change", func(c *Config) { c.Rollback.ChangeAt = 990 }, "rollback: change_at 990 must be in [0, horizon 1000 - window 50]"},
		{"rollback shift", func(c *Config) { c.Rollback.Shifts = []float64{-1} }, "rollback: shifts[0]: -1 is not a finite number >= 0"},
		{"rollback rule", func(c *Config) { c.Rollback.Rule.Window = 0 }, "rollback: rollback window must be >= 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.edit(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestStudyInvariants checks the accounting of a small study: rewards in
// [0, 1] with each context's best episode at 1, every policy on the same
// streams, regret = the table's gap (>= 0, so cumulative regret never
// decreases), the oracle's regret 0, and summaries that add up.
func TestStudyInvariants(t *testing.T) {
	res := small(t)
	tb := res.Table
	for c := range tb.Contexts {
		hi := 0.0
		for v := range tb.Versions {
			for _, r := range tb.Reward[c][v] {
				if r < 0 || r > 1 {
					t.Fatalf("context %d version %d: reward %v outside [0, 1]", c, v, r)
				}
				hi = max(hi, r)
			}
			if tb.Gap(c, v) < 0 {
				t.Errorf("context %d version %d: gap %v < 0", c, v, tb.Gap(c, v))
			}
		}
		if hi != 1 {
			t.Errorf("context %d: highest reward %v, want 1", c, hi)
		}
	}
	cfg := &res.Config
	for _, tr := range res.Traces {
		first := res.Trace(cfg.Policies[0], tr.Repeat)
		if !slices.Equal(tr.Context, first.Context) || !slices.Equal(tr.Seed, first.Seed) {
			t.Fatalf("%s repeat %d: not the stream %s saw", tr.Policy, tr.Repeat, first.Policy)
		}
		for i, v := range tr.Version {
			c := tr.Context[i]
			if tr.Regret[i] != tb.Gap(c, v) || tr.Reward[i] != tb.Reward[c][v][tr.Seed[i]] {
				t.Fatalf("%s repeat %d request %d: regret %v reward %v, want the table's %v and %v", tr.Policy, tr.Repeat, i, tr.Regret[i], tr.Reward[i], tb.Gap(c, v), tb.Reward[c][v][tr.Seed[i]])
			}
		}
		if tr.Policy == PolicyOracle && tr.Final() != 0 {
			t.Errorf("oracle repeat %d: regret %v, want 0", tr.Repeat, tr.Final())
		}
	}
	// The streams of different repeats differ.
	if slices.Equal(res.Traces[0].Context, res.Traces[1].Context) {
		t.Error("repeats 0 and 1 drew the same contexts")
	}
	for _, s := range res.Summaries {
		sum := 0.0
		for _, x := range s.ByContext {
			sum += x
		}
		if math.Abs(sum-s.Final.Mean) > 1e-9 {
			t.Errorf("%s: regret by context sums to %v, final mean %v", s.Policy, sum, s.Final.Mean)
		}
		if s.Policy == PolicySeed && (s.VsSeed.Mean != 0 || s.VsSeed.Std != 0) {
			t.Errorf("seed vs itself: %+v", s.VsSeed)
		}
	}
	oracle := res.Summaries[slices.Index(cfg.Policies, PolicyOracle)]
	uniform := res.Summaries[slices.Index(cfg.Policies, PolicyUniform)]
	if oracle.Final.Mean != 0 || oracle.OptimalShare != 1 {
		t.Errorf("oracle: regret %v, optimal share %v; want 0 and 1", oracle.Final.Mean, oracle.OptimalShare)
	}
	// Uniform: each request is optimal with probability 1/4; 6400 Bernoulli
	// trials, so the share is within 0.25 +- 4.4 standard errors (0.024).
	if math.Abs(uniform.OptimalShare-0.25) > 4.4*math.Sqrt(0.25*0.75/1600) {
		t.Errorf("uniform: optimal share %v, want 0.25 +- 0.024", uniform.OptimalShare)
	}
	// The cumulative regret of regret.parquet's rows never decreases.
	rows := regretRows(res)
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a.Policy == b.Policy && a.Repeat == b.Repeat && (b.T != a.T+1 || b.CumulativeRegret < a.CumulativeRegret) {
			t.Fatalf("row %d: t %d cumulative %v after t %d cumulative %v", i, b.T, b.CumulativeRegret, a.T, a.CumulativeRegret)
		}
	}
}

// TestWorkersIdentical: the files of the small study are byte-identical
// on 1 and 3 workers.
func TestWorkersIdentical(t *testing.T) {
	one := small(t)
	three, err := Run(context.Background(), smallConfig(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	d1, d3 := t.TempDir(), t.TempDir()
	if err := WriteDir(d1, one); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(d3, three); err != nil {
		t.Fatal(err)
	}
	for _, f := range Files() {
		a, err := os.ReadFile(filepath.Join(d1, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(d3, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers", f)
		}
	}
	// Nothing is overwritten.
	if err := WriteDir(d1, one); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("second WriteDir into %s: %v, want an 'exists already' error", d1, err)
	}
	// regret.parquet reads back: the rows, in order.
	f, err := os.Open(filepath.Join(d1, RegretFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[RegretRow](f)
	got := make([]RegretRow, r.NumRows())
	if n, err := r.Read(got); n != len(got) || (err != nil && err != io.EOF) {
		t.Fatalf("read %d of %d rows: %v", n, len(got), err)
	}
	if want := regretRows(one); !slices.Equal(got, want) {
		t.Errorf("regret.parquet: %d rows differ from the result's %d", len(got), len(want))
	}
}

// TestGoldenSummary compares the small study's summary.md with
// testdata/small_summary.md (go test -update rewrites it).
func TestGoldenSummary(t *testing.T) {
	got := Markdown(small(t))
	golden := filepath.Join("testdata", "small_summary.md")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("summary differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

// TestWilson checks the Wilson score interval against Newcombe
// ("Two-sided confidence intervals for the single proportion",
// Statistics in Medicine 17, 1998, table I, method 3), to 4 decimals.
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
	}
	for _, tt := range tests {
		got := wilson(tt.k, tt.n)
		if math.Abs(got[0]-tt.lo) > 5e-5 || math.Abs(got[1]-tt.hi) > 5e-5 {
			t.Errorf("wilson(%d, %d) = [%.5f, %.5f], want [%.4f, %.4f]", tt.k, tt.n, got[0], got[1], tt.lo, tt.hi)
		}
	}
}

// TestSignalTable: the embedded table declares the three signals the
// contexts compute, and reads back from the signals.yaml WriteDir writes.
func TestSignalTable(t *testing.T) {
	specs := Signals()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if want := []string{SignalTimePressure, SignalGoalNear, SignalStallRisk}; !slices.Equal(names, want) {
		t.Errorf("signals %v, want %v", names, want)
	}
	back, err := online.ParseSignals(SignalsFile, online.FormatSignals(specs))
	if err != nil || !reflect.DeepEqual(back, specs) {
		t.Errorf("signals.yaml round trip: %v %+v", err, back)
	}
}
