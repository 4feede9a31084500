package view

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"evolve/internal/format"
)

// This file holds the pages' template functions, funcs. Numbers,
// p-values and shares are written by package internal/format, as the
// CLI and the report write them, in its Dash style: a missing value
// (NaN, ±Inf, nil) is an en dash. Durations, times and byte counts,
// which internal/format does not write, are formatted here.

// funcs are the templates' functions.
var funcs = template.FuncMap{
	"num":    fmtNum,
	"num3":   func(x any) string { return format.Dash.Fixed(float(x), 3) },
	"pval":   fmtP,
	"pct":    fmtPct,
	"dur":    fmtDur,
	"when":   fmtWhen,
	"bytes":  fmtBytes,
	"g":      fmtG,
	"add":    func(a, b int) int { return a + b },
	"esc":    url.PathEscape,
	"join":   strings.Join,
	"dashed": func(s string) string { return strings.ReplaceAll(s, " ", "-") },
	"orDash": orDash,
	"runURL": func(id string) string { return "/runs/" + url.PathEscape(id) },
	"heat":   heat,
}

// float returns x as a float64 (format.Float, float64, float32, ints, a
// *float64), NaN for anything else or nil.
func float(x any) float64 {
	switch v := x.(type) {
	case format.Float:
		return float64(v)
	case float64:
		return v
	case float32:
		return float64(v)
	case int:
		return float64(v)
	case int32:
		return float64(v)
	case int64:
		return float64(v)
	case *float64:
		if v != nil {
			return *v
		}
	}
	return math.NaN()
}

// fmtNum formats a score with one decimal ("12.3"), format.Dash.Fixed;
// "–" for NaN, ±Inf or nil.
func fmtNum(x any) string { return format.Dash.Fixed(float(x), 1) }

// fmtG formats a number in its shortest exact form ("0.05", "25"),
// format.Dash.Exact.
func fmtG(x any) string { return format.Dash.Exact(float(x)) }

// fmtP formats a p-value or level with two significant digits ("0.034",
// "0.03", "4.3e-47"), format.Dash.P as the report writes it; "–" for
// NaN.
func fmtP(x any) string { return format.Dash.P(float(x)) }

// fmtPct formats a share in [0, 1] as a percentage, format.Dash.Percent:
// one decimal below 10% ("4.5%"), none above ("41%"); "–" for NaN.
func fmtPct(x any) string {
	f := float(x)
	if f > 0 && f < 0.1 {
		return format.Dash.Percent(f, 1)
	}
	return format.Dash.Percent(f, 0)
}

// fmtDur formats seconds as "42s", "6m05s" or "2h03m".
func fmtDur(x any) string {
	f := float(x)
	if math.IsNaN(f) || f < 0 {
		f = 0
	}
	s := int64(f)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

// fmtWhen formats a time as "2026-11-28 18:12" (UTC); "–" for the zero time.
func fmtWhen(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// fmtBytes writes a size with thousands separators ("1,234,567").
func fmtBytes(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// heat is the class of a failure cell's background: "heat1" (a share
// up to 1/6) to "heat6" (above 5/6), red growing with the share; "" for
// none. A class, not a style attribute: the pages' policy runs no inline
// style.
func heat(share format.Float) string {
	f := float64(share)
	if math.IsNaN(f) || f <= 0 {
		return ""
	}
	return "heat" + strconv.Itoa(min(6, 1+int(f*6)))
}
