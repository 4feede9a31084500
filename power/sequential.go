package power

import (
	"fmt"

	"evolve/accept"
	"evolve/stats"
)

// Sequential returns the design of evolve run's group-sequential
// acceptance (acceptance.sequential; accept.Sequential): the one-sided
// test of a candidate better than its incumbent (the U test, or with
// paired the signed-rank test) at seq.Looks looks on the first
// n_k = ⌈k·n/K⌉ observations, stopping for efficacy when the standardised
// statistic (accept.Rule.Z) reaches the Lan-DeMets boundary
// (stats.SequentialBounds with seq.Spending at one-sided level alpha) and,
// before the last look, for futility below seq.Futility. A simulated
// experiment succeeds when it stops for efficacy (Jennison & Turnbull
// 2000, ch. 7). Its n is the maximum (last look) per side; the expected n
// is smaller. Noether's formula does not apply.
//
// The error wraps stats.ErrDesign for looks outside [1, 20] or an alpha
// outside (0, 1).
func Sequential(seq accept.Sequential, alpha float64, paired bool) (Design, error) {
	if seq.Looks < 1 || seq.Looks > 20 {
		return Design{}, fmt.Errorf("%w: looks must be in [1, 20], got %d", stats.ErrDesign, seq.Looks)
	}
	if _, err := seq.Design(alpha, 1, seq.Looks); err != nil {
		return Design{}, err
	}
	g := accept.Rule{Test: stats.TestMWU, Alpha: alpha}
	test := "U test"
	if paired {
		g.Test, test = stats.TestSignedRank, "signed-rank test"
	}
	name := fmt.Sprintf("sequential %s, %d looks, %s (H1: candidate better)", test, seq.Looks, seq.Spending)
	if seq.Futility != nil {
		name = fmt.Sprintf("sequential %s, %d looks, %s, futility z < %g (H1: candidate better)", test, seq.Looks, seq.Spending, *seq.Futility)
	}
	designs := map[int]accept.Design{} // by n: the boundaries depend on the looks' fractions only
	return Design{Name: name, Paired: paired, Decide: func(x, y []float64) (bool, error) {
		n := min(len(x), len(y))
		d, ok := designs[n]
		if !ok {
			var err error
			if d, err = seq.Design(alpha, 1, n); err != nil {
				return false, err
			}
			designs[n] = d
		}
		for k, nk := range d.N {
			z, err := g.Z(x[:nk], y[:nk])
			if err != nil {
				return false, err
			}
			switch d.Check(k, z) {
			case accept.StopEfficacy:
				return true, nil
			case accept.StopFutility, accept.StopFinal:
				return false, nil
			}
		}
		return false, nil
	}}, nil
}
