package format

import (
	"math"
	"strings"
	"testing"
)

func TestTeX(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v1.0.0", "v1.0.0"},
		{"a_b & 5%", `a\_b \& 5\%`},
		{`$x^2 \in {a}~#`, `\$x\textasciicircum{}2 \textbackslash{}in \{a\}\textasciitilde{}\#`},
		{"two\nlines", "two\nlines"},
	} {
		if got := TeX(tc.in); got != tc.want {
			t.Errorf("TeX(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTeXLabel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"default-1275011f00", "default-1275011f00"},
		{"run 1/é_x", "run-1---x"},
		{"v1.0.0", "v1.0.0"},
	} {
		if got := TeXLabel(tc.in); got != tc.want {
			t.Errorf("TeXLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTeXNumbers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{TeXP(0.03125), "$0.031$"},
		{TeXP(6.9e-7), `$6.9{\times}10^{-7}$`},
		{TeXP(1e-300), `$1{\times}10^{-300}$`},
		{TeXP(1), "$1$"},
		{TeXP(math.NaN()), "--"},
		{TeXPM(536.43, 495.34, 577.56, 1), `$536.4 \pm 41.1$`},
		{TeXPM(536.43, math.NaN(), math.NaN(), 1), "536.4"},
		{TeXPM(math.NaN(), math.NaN(), math.NaN(), 1), "--"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// FuzzTeX checks that escaped text holds no unescaped special character:
// every one of & % $ # _ { } ~ ^ is preceded by a backslash or is part
// of a \text...{} command TeX wrote, and a backslash only starts one.
func FuzzTeX(f *testing.F) {
	for _, s := range []string{`a_b`, `\`, `{}`, "~^", "100%", `\textbackslash{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := TeX(s)
		rest := out
		for rest != "" {
			switch {
			case strings.HasPrefix(rest, `\textbackslash{}`):
				rest = rest[len(`\textbackslash{}`):]
			case strings.HasPrefix(rest, `\textasciitilde{}`):
				rest = rest[len(`\textasciitilde{}`):]
			case strings.HasPrefix(rest, `\textasciicircum{}`):
				rest = rest[len(`\textasciicircum{}`):]
			case rest[0] == '\\':
				if len(rest) < 2 || !strings.ContainsRune(`&%$#_{}`, rune(rest[1])) {
					t.Fatalf("TeX(%q) = %q has a stray backslash at %q", s, out, rest)
				}
				rest = rest[2:]
			case strings.ContainsRune(`&%$#_{}~^`, rune(rest[0])):
				t.Fatalf("TeX(%q) = %q has an unescaped %q", s, out, rest[0])
			default:
				rest = rest[1:]
			}
		}
	})
}
