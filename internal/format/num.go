package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Style writes numbers for one kind of output. Missing is written in
// place of a value that is NaN or infinite; the empty Missing writes such
// a value as Go spells it ("NaN", "+Inf", "-Inf").
type Style struct {
	Missing string
}

// The styles of evolve's outputs.
var (
	// Plain writes NaN, +Inf and -Inf as Go does: the gate's Markdown,
	// JUnit and messages, and the summary rows of an eval's report.
	Plain = Style{}
	// Dash writes a missing value as an en dash: the run report.
	Dash = Style{Missing: "–"}
	// NA writes a missing value as "n/a": an eval's comparisons.
	NA = Style{Missing: "n/a"}
	// TeXDash writes a missing value as "--" (an en dash in LaTeX):
	// results.tex.
	TeXDash = Style{Missing: "--"}
)

// missing reports whether v is NaN or infinite, and the text to write
// for it then.
func (s Style) missing(v float64) (string, bool) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		return "", false
	}
	if s.Missing != "" {
		return s.Missing, true
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true
}

// Score formats a score-scale number with about 4 significant digits,
// without an exponent for 1e-3 <= |v| < 1e7: the decimals that leave 4
// digits before the dot or after the leading zeros, trailing zeros and a
// trailing dot dropped, -0 as "0" (1234.5 → "1234", 0.012345 →
// "0.01235", 29.8 → "29.8"); outside that range strconv's 'g' with 4
// digits ("1.235e+07", "1e-05").
func (s Style) Score(v float64) string {
	if m, ok := s.missing(v); ok {
		return m
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e7 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	dec := max(0, 3-int(math.Floor(math.Log10(a))))
	out := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	if out == "-0" {
		out = "0"
	}
	return out
}

// Fixed formats v with dec decimals (dec >= 0), as fmt's %.*f: 3.14159
// with 1 → "3.1".
func (s Style) Fixed(v float64, dec int) string {
	if m, ok := s.missing(v); ok {
		return m
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// Signed formats v with dec decimals and a sign always, as fmt's %+.*f:
// 2.5 → "+2.5", -0.04 with 1 → "-0.0". Under Plain a NaN is "+NaN", as
// fmt writes it.
func (s Style) Signed(v float64, dec int) string {
	if m, ok := s.missing(v); ok && s.Missing != "" {
		return m
	}
	return fmt.Sprintf("%+.*f", dec, v)
}

// Percent formats the share x (1 = 100%) as a percentage with dec
// decimals, as fmt's %.*f%%: 0.1234 with 1 → "12.3%". Under Plain a NaN
// is "NaN%".
func (s Style) Percent(x float64, dec int) string {
	if m, ok := s.missing(x); ok && s.Missing != "" {
		return m
	}
	return strconv.FormatFloat(100*x, 'f', dec, 64) + "%"
}

// Sig formats v with digits significant digits (digits >= 1), as fmt's
// %.*g: 0.0123456 with 3 → "0.0123", 1234567 → "1.23e+06".
func (s Style) Sig(v float64, digits int) string {
	if m, ok := s.missing(v); ok {
		return m
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// P formats a p-value with 2 significant digits, the precision every
// table of evolve gives p: 0.03125 → "0.031", 6.9e-7 → "6.9e-07", 1 → "1",
// 0 → "0", and the smallest p a double holds as "4.9e-324" (no p-value is
// rounded to a bound such as "< 1e-300").
func (s Style) P(p float64) string { return s.Sig(p, 2) }

// Exact formats v in the shortest form that reads back as v, as
// strconv's 'g' with precision -1: a statistic or a level as given (U =
// 55.5, α = 0.05).
func (s Style) Exact(v float64) string {
	if m, ok := s.missing(v); ok {
		return m
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Interval formats the interval [lo, hi] with dec decimals per bound as
// "[lo, hi]" (an infinite bound written as Missing), or returns "" when a
// bound is NaN: the interval is undefined (fewer than two scores).
func (s Style) Interval(lo, hi float64, dec int) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return "[" + s.Fixed(lo, dec) + ", " + s.Fixed(hi, dec) + "]"
}

// WithInterval formats an estimate with its interval as "x [lo, hi]"
// (Fixed and Interval, dec decimals), or x alone when the interval is
// undefined.
func (s Style) WithInterval(x, lo, hi float64, dec int) string {
	if ci := s.Interval(lo, hi, dec); ci != "" {
		return s.Fixed(x, dec) + " " + ci
	}
	return s.Fixed(x, dec)
}
