package gate

import (
	"fmt"

	"evolve/stats"
)

// adjustFamily adjusts the P of checks as one family under correction
// (Config.Correction: across every check, or with
// CorrectionNonePerVariant Holm within each variant), sets each check's
// PAdj and Family (familyDesc, passed through name when not nil), then
// calls decide with the check and its adjusted p-value. The error is
// stats.Adjust's.
func adjustFamily(checks []Check, correction string, name func(desc string) string, decide func(c *Check, adj float64)) error {
	byVariant := map[string][]int{}
	var order []string // variants in first-appearance order
	versions := map[string]bool{}
	for i, c := range checks {
		if _, ok := byVariant[c.Variant]; !ok {
			order = append(order, c.Variant)
		}
		byVariant[c.Variant] = append(byVariant[c.Variant], i)
		versions[c.Version] = true
	}
	var groups [][]int
	corr := stats.Holm
	switch correction {
	case CorrectionNonePerVariant:
		for _, v := range order {
			groups = append(groups, byVariant[v])
		}
	default:
		all := make([]int, len(checks))
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
		switch correction {
		case CorrectionHochberg:
			corr = stats.Hochberg
		case CorrectionBonferroni:
			corr = stats.Bonferroni
		case CorrectionNone:
			corr = stats.None
		}
	}
	desc := familyDesc(correction, len(checks), len(order), len(versions))
	if name != nil {
		desc = name(desc)
	}
	for _, idx := range groups {
		p := make([]float64, len(idx))
		for k, i := range idx {
			p[k] = checks[i].P
		}
		adj, err := stats.Adjust(p, corr)
		if err != nil {
			return err
		}
		for k, i := range idx {
			c := &checks[i]
			c.PAdj, c.Family = adj[k], desc
			decide(c, adj[k])
		}
	}
	return nil
}

// familyDesc describes the family of a Compare call for Check.Family.
func familyDesc(corr string, checks, variants, versions int) string {
	plural := func(n int, s string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, s)
		}
		return fmt.Sprintf("%d %ss", n, s)
	}
	shape := fmt.Sprintf("%s (%s × %s)", plural(checks, "check"), plural(variants, "variant"), plural(versions, "version"))
	switch corr {
	case CorrectionHolm:
		return shape + ", Holm"
	case CorrectionHochberg:
		return shape + ", Hochberg"
	case CorrectionBonferroni:
		return shape + ", Bonferroni"
	case CorrectionNonePerVariant:
		return shape + ", Holm within each variant only (no correction across variants)"
	}
	return shape + ", no correction"
}
