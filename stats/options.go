package stats

import (
	"fmt"
	"strings"
)

// Alternative is the alternative hypothesis of a test. The zero value is
// TwoSided.
type Alternative int

const (
	// TwoSided: the distributions of x and y differ in location.
	TwoSided Alternative = iota
	// Greater: x is stochastically greater than y (the candidate beats the
	// incumbent when higher is better). p = P(statistic >= observed).
	Greater
	// Less: x is stochastically less than y. p = P(statistic <= observed).
	Less
)

var alternativeNames = []string{"two-sided", "greater", "less"}

// String returns "two-sided", "greater" or "less".
func (a Alternative) String() string {
	if a < 0 || int(a) >= len(alternativeNames) {
		return fmt.Sprintf("Alternative(%d)", int(a))
	}
	return alternativeNames[a]
}

// ParseAlternative parses "two-sided" (also "two.sided", "two_sided",
// "twosided"), "greater" or "less", case-insensitively. An unknown name is an
// error wrapping ErrOption.
func ParseAlternative(s string) (Alternative, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "two-sided", "two.sided", "two_sided", "twosided":
		return TwoSided, nil
	case "greater":
		return Greater, nil
	case "less":
		return Less, nil
	}
	return 0, fmt.Errorf("%w: unknown alternative %q (want two-sided, greater or less)", ErrOption, s)
}

// MarshalText implements encoding.TextMarshaler.
func (a Alternative) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseAlternative.
func (a *Alternative) UnmarshalText(b []byte) error {
	v, err := ParseAlternative(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Method selects how a rank test computes its p-value. The zero value is Auto.
type Method int

const (
	// Auto picks Exact or Asymptotic by a documented size rule (see
	// MannWhitneyU and WilcoxonSignedRank). Results report the method
	// actually used, never Auto.
	Auto Method = iota
	// Exact: the permutation distribution of the statistic given the
	// observed tie pattern, computed exactly by dynamic programming.
	Exact
	// Asymptotic: the normal approximation with tie-corrected variance and
	// (unless switched off) a continuity correction.
	Asymptotic
)

var methodNames = []string{"auto", "exact", "asymptotic"}

// String returns "auto", "exact" or "asymptotic".
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod parses "auto", "exact" or "asymptotic" (also "approx",
// "normal"), case-insensitively. An unknown name is an error wrapping
// ErrOption.
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "exact":
		return Exact, nil
	case "asymptotic", "approx", "normal":
		return Asymptotic, nil
	}
	return 0, fmt.Errorf("%w: unknown method %q (want auto, exact or asymptotic)", ErrOption, s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseMethod.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// TwoSidedRule selects how an exact two-sided p-value is formed from the
// exact null distribution. It does not affect one-sided or asymptotic
// p-values. The zero value is DoubleTail.
type TwoSidedRule int

const (
	// DoubleTail: p = min(1, 2·min(P(S <= s), P(S >= s))), as R's
	// wilcox.test and scipy (the oracle's exact_conditional_doubled key).
	DoubleTail TwoSidedRule = iota
	// AbsDeviation: p = P(|S − E S| >= |s − E S|), as R's coin package
	// (the oracle's exact_conditional_abs / coin_exact keys). Without ties
	// the null distribution is symmetric and both rules agree; with an
	// asymmetric tie pattern they differ (AbsDeviation is never larger).
	AbsDeviation
)

// String returns "double-tail" or "abs-deviation".
func (r TwoSidedRule) String() string {
	switch r {
	case DoubleTail:
		return "double-tail"
	case AbsDeviation:
		return "abs-deviation"
	}
	return fmt.Sprintf("TwoSidedRule(%d)", int(r))
}

// ZeroMethod selects how WilcoxonSignedRank treats zero differences, as
// scipy.stats.wilcoxon's zero_method. The zero value is Wilcox.
type ZeroMethod int

const (
	// Wilcox drops zero differences before ranking (Wilcoxon 1945); the
	// default of R and scipy.
	Wilcox ZeroMethod = iota
	// Pratt ranks the zeros with the other |d| and then drops their ranks
	// (Pratt 1959); the normal approximation is adjusted as Cureton (1967).
	Pratt
	// ZSplit ranks the zeros and splits their rank sum equally between the
	// positive and negative sums.
	ZSplit
)

var zeroMethodNames = []string{"wilcox", "pratt", "zsplit"}

// String returns "wilcox", "pratt" or "zsplit".
func (z ZeroMethod) String() string {
	if z < 0 || int(z) >= len(zeroMethodNames) {
		return fmt.Sprintf("ZeroMethod(%d)", int(z))
	}
	return zeroMethodNames[z]
}

// ParseZeroMethod parses "wilcox", "pratt" or "zsplit", case-insensitively.
// An unknown name is an error wrapping ErrOption.
func ParseZeroMethod(s string) (ZeroMethod, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "wilcox", "":
		return Wilcox, nil
	case "pratt":
		return Pratt, nil
	case "zsplit":
		return ZSplit, nil
	}
	return 0, fmt.Errorf("%w: unknown zero method %q (want wilcox, pratt or zsplit)", ErrOption, s)
}

func checkAlternative(a Alternative) error {
	if a < TwoSided || a > Less {
		return fmt.Errorf("%w: alternative %d", ErrOption, int(a))
	}
	return nil
}

func checkMethod(m Method) error {
	if m < Auto || m > Asymptotic {
		return fmt.Errorf("%w: method %d", ErrOption, int(m))
	}
	return nil
}

func checkTwoSidedRule(r TwoSidedRule) error {
	if r != DoubleTail && r != AbsDeviation {
		return fmt.Errorf("%w: two-sided rule %d", ErrOption, int(r))
	}
	return nil
}
