package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Correction is a multiple-comparison p-value adjustment method, as R's
// p.adjust. The zero value is None.
type Correction int

const (
	// None returns the p-values unchanged.
	None Correction = iota
	// Bonferroni: min(1, m·p_i). Controls the family-wise error rate.
	Bonferroni
	// Holm (1979) step-down: sorted ascending, cummax((m−i+1)·p_(i)),
	// capped at 1. Controls the FWER; uniformly more powerful than
	// Bonferroni.
	Holm
	// Hochberg (1988) step-up: sorted descending, cummin((m−i+1)·p_(i)),
	// capped at 1. Controls the FWER under independence or positive
	// dependence.
	Hochberg
	// BH: Benjamini and Hochberg (1995) step-up, cummin(m/i·p_(i)) from the
	// largest, capped at 1. Controls the false discovery rate under
	// independence or positive dependence. R's "BH" (alias "fdr").
	BH
	// BY: Benjamini and Yekutieli (2001): BH multiplied by Σ_{k=1..m} 1/k.
	// Controls the FDR under arbitrary dependence.
	BY
)

var correctionNames = []string{"none", "bonferroni", "holm", "hochberg", "bh", "by"}

// String returns the lower-case name: "none", "bonferroni", "holm",
// "hochberg", "bh" or "by".
func (c Correction) String() string {
	if c < 0 || int(c) >= len(correctionNames) {
		return fmt.Sprintf("Correction(%d)", int(c))
	}
	return correctionNames[c]
}

// ParseCorrection parses a correction name case-insensitively: "none",
// "bonferroni", "holm", "hochberg", "bh" (also "fdr", as R) or "by". An
// unknown name is an error wrapping ErrOption.
func ParseCorrection(s string) (Correction, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "fdr" {
		return BH, nil
	}
	for i, n := range correctionNames {
		if name == n {
			return Correction(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown correction %q (want one of %s)", ErrOption, s, strings.Join(correctionNames, ", "))
}

// MarshalText implements encoding.TextMarshaler.
func (c Correction) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler using ParseCorrection.
func (c *Correction) UnmarshalText(b []byte) error {
	v, err := ParseCorrection(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Adjust returns the p-values p adjusted for multiple comparisons by method
// m, in the same order as p (a new slice; p is not modified). The number of
// comparisons is len(p). The algorithms are those of R's
// p.adjust(p, method) (stats package, R 4.2.2), including its treatment of
// ties (order-independent) and the cap at 1; results are in [0, 1] and
// never smaller than the input.
//
// Errors: ErrNaN if a p-value is NaN (R would keep NA and shrink m; here
// missing values must be removed by the caller); ErrProbability if a
// p-value is outside [0, 1]; ErrOption for an unknown method. An empty p
// returns an empty slice.
func Adjust(p []float64, m Correction) ([]float64, error) {
	if m < None || m > BY {
		return nil, fmt.Errorf("%w: correction %d", ErrOption, int(m))
	}
	for i, v := range p {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%w: p[%d]", ErrNaN, i)
		}
		if v < 0 || v > 1 {
			return nil, fmt.Errorf("%w: p[%d] = %v", ErrProbability, i, v)
		}
	}
	n := len(p)
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	fn := float64(n)
	// order: indices sorted by p ascending (stable, as R's order()).
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	switch m {
	case None:
		copy(out, p)
	case Bonferroni:
		for i, v := range p {
			out[i] = min(1, fn*v)
		}
	case Holm:
		// Step-down from the smallest: (n − i + 1)·p_(i), i = 1..n, cummax.
		run := 0.0
		for i, idx := range order {
			run = max(run, (fn-float64(i))*p[idx])
			out[idx] = min(1, run)
		}
	case Hochberg, BH, BY:
		// Step-up from the largest: i = n..1 over p sorted descending, cummin.
		q := 1.0
		if m == BY {
			q = 0
			for k := 1; k <= n; k++ {
				q += 1 / float64(k)
			}
		}
		run := math.Inf(1)
		for r := n - 1; r >= 0; r-- {
			idx := order[r]
			i := float64(r + 1) // rank from the smallest
			var v float64
			switch m {
			case Hochberg:
				v = (fn + 1 - i) * p[idx]
			case BH:
				v = fn / i * p[idx]
			default:
				v = q * fn / i * p[idx]
			}
			run = min(run, v)
			out[idx] = min(1, run)
		}
	}
	return out, nil
}
