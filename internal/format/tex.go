package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// texEscaper escapes LaTeX's special characters in text mode.
var texEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`,
	"_", `\_`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)

// TeX escapes LaTeX's special characters (\ & % $ # _ { } ~ ^) in text,
// for a table cell or a caption: "a_b & 5%" → `a\_b \& 5\%`. Line breaks
// are kept (LaTeX reads one as a space).
func TeX(s string) string { return texEscaper.Replace(s) }

// TeXLabel keeps the characters LaTeX accepts in a \label (ASCII letters,
// digits, '-' and '.') and writes every other rune as '-'.
func TeXLabel(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, s)
}

// TeXP formats a p-value with two significant digits in math mode:
// "$0.031$", "$6.9{\times}10^{-7}$" (the braces drop the space around
// the operator, to keep a column narrow); "--" for NaN.
func TeXP(p float64) string {
	if math.IsNaN(p) {
		return "--"
	}
	s := Plain.P(p)
	if m, e, ok := strings.Cut(s, "e"); ok {
		exp, _ := strconv.Atoi(e)
		return fmt.Sprintf("$%s{\\times}10^{%d}$", m, exp)
	}
	return "$" + s + "$"
}

// TeXPM formats "$mean \pm half$", half the width of the interval [lo,
// hi] (a symmetric Student t CI), with dec decimals; the mean alone
// (TeXDash.Fixed) when a bound is NaN.
func TeXPM(mean, lo, hi float64, dec int) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return TeXDash.Fixed(mean, dec)
	}
	return fmt.Sprintf("$%s \\pm %s$", Dash.Fixed(mean, dec), Dash.Fixed((hi-lo)/2, dec))
}
