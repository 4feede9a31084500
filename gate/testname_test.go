package gate

import (
	"errors"
	"testing"

	"evolve/stats"
)

// chooseTest picks, from Config.Test and the margin, the test the
// registry describes: a named test of the margin's scale as named, else
// the test of the margin's scale for the design.
func TestChooseTest(t *testing.T) {
	for _, tc := range []struct {
		test      stats.TestName
		marginOn  string
		marginA12 float64
		paired    bool
		want      stats.TestName
	}{
		{TestAuto, MarginOnShift, 0, false, stats.TestMWU},
		{TestAuto, MarginOnShift, 0, true, stats.TestSignedRank},
		{stats.TestMWU, MarginOnShift, 0, false, stats.TestMWU},
		{stats.TestSignedRank, MarginOnShift, 0, true, stats.TestSignedRank},
		{TestAuto, MarginOnMean, 0, false, stats.TestWelchT},
		{TestAuto, MarginOnMean, 0, true, stats.TestPairedT},
		{stats.TestMWU, MarginOnMean, 0, false, stats.TestWelchT},
		{stats.TestSignedRank, MarginOnMean, 0, true, stats.TestPairedT},
		{stats.TestBootstrapT, MarginOnMean, 0, false, stats.TestBootstrapT},
		{stats.TestBootstrapT, MarginOnMean, 0, true, stats.TestBootstrapT},
		{TestAuto, MarginOnShift, 0.1, false, stats.TestBrunnerMunzelPermutation},
		{stats.TestSignedRank, MarginOnShift, 0.1, false, stats.TestBrunnerMunzelPermutation},
	} {
		cfg := Config{Test: tc.test, MarginOn: tc.marginOn, MarginA12: tc.marginA12}
		if got := chooseTest(cfg, tc.paired); got != tc.want {
			t.Errorf("chooseTest(%s, on %s, A12 margin %v, paired %v) = %s, want %s", tc.test, tc.marginOn, tc.marginA12, tc.paired, got, tc.want)
		}
	}
}

// Config.Test is validated against the registry: the error names the bad
// value and lists "auto" and the tests registered for the gate; a test
// of means needs the mean scale.
func TestConfigTestNames(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Test: "t-test"}, `gate: invalid config: unknown test "t-test" (want auto, mwu, signed-rank or bootstrap-t)`},
		{Config{Test: stats.TestWelchT}, `gate: invalid config: unknown test "welch-t" (want auto, mwu, signed-rank or bootstrap-t)`},
		{Config{Test: stats.TestBootstrapT}, `gate: invalid config: test "bootstrap-t" is a test of means; it needs margin scale "mean"`},
		{Config{Test: stats.TestBootstrapT, MarginOn: MarginOnMean}, ""},
		{Config{Test: stats.TestSignedRank}, ""},
		{Config{}, ""},
	} {
		err := tc.cfg.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.cfg, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err = %v, want %q wrapping ErrConfig", tc.cfg, err, tc.want)
		}
	}
}
