package gate

import (
	"fmt"
)

type obsKey struct {
	seed   uint64
	repeat int
}

// pairs is the result of pairing.
type pairs struct {
	// cand[k], base[k] index the k-th pair (in the candidate's order).
	cand, base []int
	// unmatched counts the candidate's observations not in the baseline.
	unmatched int
	// why is "" when the samples can be paired (some (seed, repeat)
	// shared, none repeated within a sample), else the reason they
	// cannot.
	why string
	// example names one unmatched (seed, repeat), for messages.
	example string
}

// pairing matches the candidate's observations with the baseline's by
// (seed, repeat).
func pairing(base, cand Sample) pairs {
	var pr pairs
	if base.Seeds == nil || cand.Seeds == nil {
		pr.why = "seeds not recorded"
		return pr
	}
	at := make(map[obsKey]int, len(base.Scores))
	for i := range base.Scores {
		k := obsKey{base.Seeds[i], repeatAt(base, i)}
		if _, dup := at[k]; dup && pr.why == "" {
			pr.why = fmt.Sprintf("seed %d, repeat %d occurs twice in the baseline", k.seed, k.repeat)
		}
		at[k] = i
	}
	mine := make(map[obsKey]bool, len(cand.Scores))
	for i := range cand.Scores {
		k := obsKey{cand.Seeds[i], repeatAt(cand, i)}
		if mine[k] && pr.why == "" {
			pr.why = fmt.Sprintf("seed %d, repeat %d occurs twice in the candidate", k.seed, k.repeat)
		}
		mine[k] = true
		j, ok := at[k]
		if !ok {
			pr.unmatched++
			if pr.example == "" {
				pr.example = fmt.Sprintf("seed %d, repeat %d of the candidate is not in the baseline", k.seed, k.repeat)
			}
			continue
		}
		pr.cand = append(pr.cand, i)
		pr.base = append(pr.base, j)
	}
	if pr.why == "" && len(pr.cand) == 0 {
		pr.why = "no (seed, repeat) is in both samples"
	}
	return pr
}
