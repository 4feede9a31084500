package view

import (
	"math"
	"testing"
	"time"
)

// TestFormat: the pages' number formats, each case written out.
func TestFormat(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct{ got, want string }{
		{fmtNum(12.345), "12.3"}, {fmtNum(num(nan)), "–"}, {fmtNum(math.Inf(1)), "–"}, {fmtNum(nil), "–"}, {fmtNum(int32(7)), "7.0"},
		{fmtDigits(0.66666, 3), "0.667"},
		{fmtP(0.0304), "0.030"}, {fmtP(4.3e-47), "4.3e-47"}, {fmtP(0.00099), "9.9e-04"}, {fmtP(1), "1.000"}, {fmtP(0), "0.000"}, {fmtP(nan), "–"},
		{fmtPct(0.41), "41%"}, {fmtPct(0.045), "4.5%"}, {fmtPct(0), "0%"}, {fmtPct(1), "100%"}, {fmtPct(num(nan)), "–"},
		{fmtDur(42.9), "42s"}, {fmtDur(365), "6m05s"}, {fmtDur(7380), "2h03m"}, {fmtDur(-1), "0s"},
		{fmtWhen(time.Time{}), "–"}, {fmtWhen(time.Date(2026, 11, 28, 18, 12, 59, 0, time.UTC)), "2026-11-28 18:12"},
		{fmtBytes(1234567), "1,234,567"}, {fmtBytes(999), "999"}, {fmtBytes(1000), "1,000"},
		{fmtG(0.05), "0.05"}, {fmtG(25.0), "25"},
		{heat(0), ""}, {heat(num(nan)), ""}, {heat(0.1), "heat1"}, {heat(0.5), "heat4"}, {heat(1), "heat6"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
