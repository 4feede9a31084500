package gate

import (
	"math"
	"strconv"
	"strings"
)

// FormatScore formats a score-scale number as gate's tables do: about 4
// significant digits, without an exponent between 1e-3 and 1e7 (trailing
// zeros dropped, -0 as 0), and NaN, +Inf and -Inf as Go spells them.
func FormatScore(v float64) string { return num(v) }

// num formats a score-scale number with about 4 significant digits,
// without an exponent between 1e-3 and 1e7.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e7 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	dec := max(0, 3-int(math.Floor(math.Log10(a))))
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// pfmt formats a p-value with 2 significant digits, as the run tables.
func pfmt(p float64) string {
	return strconv.FormatFloat(p, 'g', 2, 64)
}
