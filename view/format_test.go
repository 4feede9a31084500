package view

import (
	"math"
	"testing"
	"time"

	"evolve/internal/format"
)

// TestFormat: the pages' number formats, each case written out.
func TestFormat(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct{ got, want string }{
		{fmtNum(12.345), "12.3"}, {fmtNum(format.Float(nan)), "–"}, {fmtNum(math.Inf(1)), "–"}, {fmtNum(nil), "–"}, {fmtNum(int32(7)), "7.0"},
		{funcs["num3"].(func(any) string)(0.66666), "0.667"}, {funcs["num3"].(func(any) string)(nil), "–"},
		// p-values and levels as the report writes them: two significant
		// digits (format.Dash.P).
		{fmtP(0.0304), "0.03"}, {fmtP(0.034), "0.034"}, {fmtP(4.3e-47), "4.3e-47"}, {fmtP(0.00099), "0.00099"}, {fmtP(1), "1"}, {fmtP(0), "0"}, {fmtP(nan), "–"}, {fmtP(format.Float(2.7e-21)), "2.7e-21"},
		{fmtPct(0.41), "41%"}, {fmtPct(0.045), "4.5%"}, {fmtPct(0), "0%"}, {fmtPct(1), "100%"}, {fmtPct(format.Float(nan)), "–"},
		{fmtDur(42.9), "42s"}, {fmtDur(365), "6m05s"}, {fmtDur(7380), "2h03m"}, {fmtDur(-1), "0s"},
		{fmtWhen(time.Time{}), "–"}, {fmtWhen(time.Date(2026, 11, 28, 18, 12, 59, 0, time.UTC)), "2026-11-28 18:12"},
		{fmtBytes(1234567), "1,234,567"}, {fmtBytes(999), "999"}, {fmtBytes(1000), "1,000"},
		{fmtG(0.05), "0.05"}, {fmtG(25.0), "25"},
		{heat(0), ""}, {heat(format.Float(nan)), ""}, {heat(0.1), "heat1"}, {heat(0.5), "heat4"}, {heat(1), "heat6"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
