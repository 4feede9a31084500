package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// splitRank orders the splits train < val < test; unknown splits get -1.
func splitRank(s string) int {
	switch s {
	case SplitTrain:
		return 0
	case SplitVal:
		return 1
	case SplitTest:
		return 2
	}
	return -1
}

// CompareVersions orders prompt versions semantically: "v1.0.9" < "v1.0.10"
// < "v1.1.0" < "v2.0.0". A version is an optional "v" followed by
// dot-separated decimal numbers, compared numerically from the left; a
// version that is a prefix of another sorts first ("v1.0" < "v1.0.0").
// Strings that are not of this form sort after all versions that are, in
// byte order, so the order is total. It returns -1, 0 or +1 like
// [cmp.Compare]; 0 only for equal strings.
func CompareVersions(a, b string) int {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	switch {
	case oka && okb:
		if c := slices.Compare(pa, pb); c != 0 {
			return c
		}
	case oka:
		return -1
	case okb:
		return +1
	}
	// Equal numbers ("v1.02" vs "v1.2", "1.2" vs "v1.2") or both
	// malformed: fall back to bytes so that only equal strings compare 0.
	return strings.Compare(a, b)
}

// parseVersion splits "v1.2.3" into [1 2 3]; ok is false if s is not an
// optional "v" followed by dot-separated decimal numbers.
func parseVersion(s string) (parts []uint64, ok bool) {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return nil, false
	}
	for f := range strings.SplitSeq(s, ".") {
		if f == "" || f[0] == '+' || f[0] == '-' {
			return nil, false
		}
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, false
		}
		parts = append(parts, n)
	}
	return parts, true
}

// compareFloat is a total order on float64 values: numeric order (NaN first,
// as in cmp.Compare), then bit pattern, so that -0 and 0, or NaNs with
// different payloads, are ordered and sorting never depends on input order.
func compareFloat(a, b float64) int {
	if c := cmp.Compare(a, b); c != 0 {
		return c
	}
	return cmp.Compare(math.Float64bits(a), math.Float64bits(b))
}

// compareFloatPtr orders nil before every value.
func compareFloatPtr(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return +1
	}
	return compareFloat(*a, *b)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return +1
}

// CompareEpisodes is the order of episodes.parquet: by run, generation, split
// (train < val < test), version ([CompareVersions]), seed; rows equal in all
// of these are ordered by their remaining columns, so the order is total.
func CompareEpisodes(a, b EpisodeRow) int {
	if c := strings.Compare(a.Run, b.Run); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Generation, b.Generation); c != 0 {
		return c
	}
	if c := cmp.Compare(splitRank(a.Split), splitRank(b.Split)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Split, b.Split); c != 0 {
		return c
	}
	if c := CompareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seed, b.Seed); c != 0 {
		return c
	}
	// Tie-break on everything else: duplicates of the key are a caller
	// bug, but must not make the output depend on input order.
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	if c := strings.Compare(a.Cause, b.Cause); c != 0 {
		return c
	}
	if c := strings.Compare(a.End, b.End); c != 0 {
		return c
	}
	if c := strings.Compare(a.KilledBy, b.KilledBy); c != 0 {
		return c
	}
	return slices.Compare(
		[]int32{a.Depth, a.Turns, a.Kills, a.Gold, a.XL, a.TurnsExplore, a.TurnsDescend, a.TurnsAttack, a.TurnsFlee, a.TurnsEat, a.TurnsQuaff, a.TurnsWait},
		[]int32{b.Depth, b.Turns, b.Kills, b.Gold, b.XL, b.TurnsExplore, b.TurnsDescend, b.TurnsAttack, b.TurnsFlee, b.TurnsEat, b.TurnsQuaff, b.TurnsWait},
	)
}

// CompareCandidates is the order of candidates.parquet: by run, generation,
// version ([CompareVersions], so v1.0.10 follows v1.0.9); rows equal in all
// of these are ordered by their remaining columns, so the order is total.
func CompareCandidates(a, b CandidateRow) int {
	if c := strings.Compare(a.Run, b.Run); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Generation, b.Generation); c != 0 {
		return c
	}
	if c := CompareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	for _, c := range [...]int{
		CompareVersions(a.Parent, b.Parent),
		strings.Compare(a.Operator, b.Operator),
		strings.Compare(a.Mutation, b.Mutation),
		cmp.Compare(a.N, b.N),
		compareBool(a.Accepted, b.Accepted),
	} {
		if c != 0 {
			return c
		}
	}
	return slices.CompareFunc(
		[]float64{a.Mean, a.Std, a.Median, a.IQM, a.CILow, a.CIHigh, a.U, a.P, a.PAdj, a.A12},
		[]float64{b.Mean, b.Std, b.Median, b.IQM, b.CILow, b.CIHigh, b.U, b.P, b.PAdj, b.A12},
		compareFloat,
	)
}

// CompareGenerations is the order of generations.parquet: by run, then
// generation; rows equal in both are ordered by their remaining columns, so
// the order is total.
func CompareGenerations(a, b GenerationRow) int {
	if c := strings.Compare(a.Run, b.Run); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Generation, b.Generation); c != 0 {
		return c
	}
	for _, c := range [...]int{
		CompareVersions(a.Incumbent, b.Incumbent),
		CompareVersions(a.Accepted, b.Accepted),
		CompareVersions(a.NextIncumbent, b.NextIncumbent),
		compareFloatPtr(a.AcceptedP, b.AcceptedP),
		slices.Compare(
			[]int32{a.NTrain, a.NVal, a.Failures, a.Injury, a.CombatLoss, a.Starvation, a.Entrapment, a.NCandidates},
			[]int32{b.NTrain, b.NVal, b.Failures, b.Injury, b.CombatLoss, b.Starvation, b.Entrapment, b.NCandidates},
		),
	} {
		if c != 0 {
			return c
		}
	}
	return slices.CompareFunc(
		[]float64{a.TrainMean, a.ValMean, a.ValMedian, a.ValIQM, a.ValCILow, a.ValCIHigh},
		[]float64{b.TrainMean, b.ValMean, b.ValMedian, b.ValIQM, b.ValCILow, b.ValCIHigh},
		compareFloat,
	)
}

// SortEpisodes sorts rows in place into the order of [CompareEpisodes].
func SortEpisodes(rows []EpisodeRow) { slices.SortFunc(rows, CompareEpisodes) }

// SortCandidates sorts rows in place into the order of [CompareCandidates].
func SortCandidates(rows []CandidateRow) { slices.SortFunc(rows, CompareCandidates) }

// SortGenerations sorts rows in place into the order of [CompareGenerations].
func SortGenerations(rows []GenerationRow) { slices.SortFunc(rows, CompareGenerations) }

// checkSplits returns an error wrapping ErrInvalidRow for the first row
// whose split is not train, val or test.
func checkSplits(rows []EpisodeRow) error {
	for i := range rows {
		if splitRank(rows[i].Split) < 0 {
			return fmt.Errorf("%w: episode row %d (run %q, version %q, seed %d): split %q is not %q, %q or %q",
				ErrInvalidRow, i, rows[i].Run, rows[i].Version, rows[i].Seed, rows[i].Split, SplitTrain, SplitVal, SplitTest)
		}
	}
	return nil
}
