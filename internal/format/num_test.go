package format

import (
	"fmt"
	"math"
	"testing"
)

var (
	nan  = math.NaN()
	pinf = math.Inf(1)
	ninf = math.Inf(-1)
)

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1234.5, "1234"}, // round half to even in FormatFloat: 1234.5 → 1234
		{1234.51, "1235"},
		{29.8, "29.8"},
		{-29.82, "-29.82"},
		{536.4333, "536.4"},
		{0.012345, "0.01235"}, // 0.012345 is stored a little above
		{0.001, "0.001"},
		{0.000999, "0.000999"},
		{1e-5, "1e-05"},
		{9999999, "9999999"},
		{1e7, "1e+07"},
		{12345678, "1.235e+07"},
		{-0.00001, "-1e-05"},
		{-0.0001234, "-0.0001234"},
		{1, "1"},
		{100, "100"},
		{-0.00049, "-0.00049"},
		{nan, "NaN"},
		{pinf, "+Inf"},
		{ninf, "-Inf"},
	} {
		if got := Plain.Score(tc.v); got != tc.want {
			t.Errorf("Plain.Score(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := NA.Score(nan); got != "n/a" {
		t.Errorf("NA.Score(NaN) = %q, want n/a", got)
	}
	if got := NA.Score(ninf); got != "n/a" {
		t.Errorf("NA.Score(-Inf) = %q, want n/a", got)
	}
}

// TestStyles checks each Style method against fmt's verb it documents
// (for finite values), and the missing text of each style.
func TestStyles(t *testing.T) {
	type method struct {
		name string
		f    func(Style, float64) string
		verb string // fmt's equivalent for finite values and Plain
	}
	methods := []method{
		{"Fixed1", func(s Style, v float64) string { return s.Fixed(v, 1) }, "%.1f"},
		{"Fixed3", func(s Style, v float64) string { return s.Fixed(v, 3) }, "%.3f"},
		{"Signed1", func(s Style, v float64) string { return s.Signed(v, 1) }, "%+.1f"},
		{"Sig4", func(s Style, v float64) string { return s.Sig(v, 4) }, "%.4g"},
		{"P", func(s Style, v float64) string { return s.P(v) }, "%.2g"},
		{"Exact", func(s Style, v float64) string { return s.Exact(v) }, "%v"},
	}
	for _, m := range methods {
		for _, v := range []float64{0, 1, -1, 0.05, 0.03125, 6.9e-7, 4.9e-324, 1e-300, 536.4333, -29.82, 1e21, 12345678.9, nan, pinf, ninf} {
			want := fmt.Sprintf(m.verb, v)
			if got := m.f(Plain, v); got != want {
				t.Errorf("Plain.%s(%v) = %q, want %q (fmt %s)", m.name, v, got, want, m.verb)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				for _, s := range []Style{Dash, NA, TeXDash} {
					if got := m.f(s, v); got != s.Missing {
						t.Errorf("%+v.%s(%v) = %q, want %q", s, m.name, v, got, s.Missing)
					}
				}
			} else if got := m.f(Dash, v); got != want {
				t.Errorf("Dash.%s(%v) = %q, want %q", m.name, v, got, want)
			}
		}
	}
}

func TestP(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want string
	}{
		{0.03125, "0.031"},
		{0.027, "0.027"},
		{0.97, "0.97"},
		{1, "1"},
		{0, "0"},
		{6.9e-7, "6.9e-07"},
		{7.2e-14, "7.2e-14"},
		{1e-300, "1e-300"},
		{4.9e-324, "4.9e-324"}, // the smallest positive double: no "< 1e-300" bound
		{0.0549, "0.055"},
	} {
		if got := Dash.P(tc.p); got != tc.want {
			t.Errorf("P(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := Dash.P(nan); got != "–" {
		t.Errorf("Dash.P(NaN) = %q, want –", got)
	}
	if got := Plain.P(nan); got != "NaN" {
		t.Errorf("Plain.P(NaN) = %q, want NaN", got)
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		s    Style
		x    float64
		dec  int
		want string
	}{
		{Plain, 0.1234, 1, "12.3%"},
		{Plain, 0, 1, "0.0%"},
		{Plain, 1, 0, "100%"},
		{Plain, nan, 1, "NaN%"}, // as fmt's %.1f%%
		{Dash, nan, 1, "–"},
	} {
		if got := tc.s.Percent(tc.x, tc.dec); got != tc.want {
			t.Errorf("%+v.Percent(%v, %d) = %q, want %q", tc.s, tc.x, tc.dec, got, tc.want)
		}
	}
}

func TestInterval(t *testing.T) {
	for _, tc := range []struct {
		s               Style
		x, lo, hi       float64
		interval, withX string
	}{
		{Dash, 536.43, 495.34, 577.56, "[495.3, 577.6]", "536.4 [495.3, 577.6]"},
		{Dash, 5, nan, 7, "", "5.0"},
		{Dash, 5, 4, nan, "", "5.0"},
		{Dash, 5, ninf, 7, "[–, 7.0]", "5.0 [–, 7.0]"},
		{TeXDash, -1, -2, 0, "[-2.0, 0.0]", "-1.0 [-2.0, 0.0]"},
		{Plain, nan, 1, 2, "[1.0, 2.0]", "NaN [1.0, 2.0]"},
	} {
		if got := tc.s.Interval(tc.lo, tc.hi, 1); got != tc.interval {
			t.Errorf("%+v.Interval(%v, %v, 1) = %q, want %q", tc.s, tc.lo, tc.hi, got, tc.interval)
		}
		if got := tc.s.WithInterval(tc.x, tc.lo, tc.hi, 1); got != tc.withX {
			t.Errorf("%+v.WithInterval(%v, %v, %v, 1) = %q, want %q", tc.s, tc.x, tc.lo, tc.hi, got, tc.withX)
		}
	}
}

func ExampleStyle_Score() {
	fmt.Println(Plain.Score(536.4333), Plain.Score(-0.012345), Plain.Score(12345678), Plain.Score(math.NaN()), NA.Score(math.NaN()))
	// Output: 536.4 -0.01235 1.235e+07 NaN n/a
}
