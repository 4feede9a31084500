package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"evolve/envs"
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
	oka, okb := isVersion(a), isVersion(b)
	switch {
	case oka && okb:
		// Compare number by number; allocation-free, as sorting 10^5
		// episodes calls this millions of times.
		x, y := strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")
		for x != "" && y != "" {
			var nx, ny string
			nx, x, _ = strings.Cut(x, ".")
			ny, y, _ = strings.Cut(y, ".")
			if c := compareDecimal(nx, ny); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(len(x), len(y)); c != 0 {
			return c // the version with numbers left is the greater one
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

// isVersion reports whether s is an optional "v" followed by dot-separated
// non-empty decimal numbers.
func isVersion(s string) bool {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && digits > 0:
			digits = 0
		default:
			return false
		}
	}
	return digits > 0
}

// compareDecimal compares two strings of decimal digits by their value,
// without overflow for any length.
func compareDecimal(x, y string) int {
	x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
	if c := cmp.Compare(len(x), len(y)); c != 0 {
		return c
	}
	return strings.Compare(x, y)
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
// (train < val < test), variant, version ([CompareVersions]), seed, repeat;
// rows equal in all
// of these are ordered by their remaining fields (score, cause, end_reason,
// then the metrics in order, a null before any value), so the order is
// total.
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
	if c := strings.Compare(a.Variant, b.Variant); c != 0 {
		return c
	}
	if c := CompareVersions(a.Version, b.Version); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seed, b.Seed); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Repeat, b.Repeat); c != 0 {
		return c
	}
	// Tie-break on everything else: duplicates of the key are a caller
	// bug, but must not make the output depend on input order.
	if c := compareFloat(a.Score, b.Score); c != 0 {
		return c
	}
	if c := strings.Compare(a.Cause, b.Cause); c != 0 {
		return c
	}
	if c := strings.Compare(a.EndReason, b.EndReason); c != 0 {
		return c
	}
	return slices.CompareFunc(a.Metrics, b.Metrics, compareMetric)
}

// compareMetric is a total order on metric values: nulls first, then by
// Num ([compareFloat]), then by Str.
func compareMetric(a, b envs.MetricValue) int {
	if c := compareBool(!a.Null, !b.Null); c != 0 {
		return c
	}
	if c := compareFloat(a.Num, b.Num); c != 0 {
		return c
	}
	return strings.Compare(a.Str, b.Str)
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
		strings.Compare(a.Test, b.Test),
		cmp.Compare(a.N, b.N),
		compareBool(a.Accepted, b.Accepted),
		compareFloatPtr(a.V, b.V),
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
			[]int32{a.NTrain, a.NVal, a.Failures, a.NCandidates},
			[]int32{b.NTrain, b.NVal, b.Failures, b.NCandidates},
		),
		slices.Compare(a.CauseCounts, b.CauseCounts),
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
func SortEpisodes(rows []EpisodeRow) { copy(rows, permute(rows, episodeOrder(rows))) }

// episodeOrder returns the permutation that sorts rows by CompareEpisodes:
// rows[order[0]] is the first row. Sorting 10^5 rows of 200 bytes by
// CompareEpisodes directly spends most of its time comparing versions and
// missing the cache, so this ranks the distinct runs, splits and versions
// once, sorts compact keys (run, generation, split, version, seed and row
// index) and falls back to CompareEpisodes only for rows equal in the key.
func episodeOrder(rows []EpisodeRow) []int32 {
	type sortKey struct {
		seed                              uint64
		run, gen, version, split, variant int32
		repeat                            int32
		row                               int32
	}
	runs := ranks(rows, func(e *EpisodeRow) string { return e.Run }, strings.Compare)
	splits := ranks(rows, func(e *EpisodeRow) string { return e.Split }, func(a, b string) int {
		if c := cmp.Compare(splitRank(a), splitRank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	versions := ranks(rows, func(e *EpisodeRow) string { return e.Version }, CompareVersions)
	variants := ranks(rows, func(e *EpisodeRow) string { return e.Variant }, strings.Compare)
	keys := make([]sortKey, len(rows))
	for i := range rows {
		e := &rows[i]
		keys[i] = sortKey{seed: e.Seed, run: runs[e.Run], gen: e.Generation, version: versions[e.Version], split: splits[e.Split],
			variant: variants[e.Variant], repeat: e.Repeat, row: int32(i)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(a.run, b.run); c != 0 {
			return c
		}
		if c := cmp.Compare(a.gen, b.gen); c != 0 {
			return c
		}
		if c := cmp.Compare(a.split, b.split); c != 0 {
			return c
		}
		if c := cmp.Compare(a.variant, b.variant); c != 0 {
			return c
		}
		if c := cmp.Compare(a.version, b.version); c != 0 {
			return c
		}
		if c := cmp.Compare(a.seed, b.seed); c != 0 {
			return c
		}
		if c := cmp.Compare(a.repeat, b.repeat); c != 0 {
			return c
		}
		return CompareEpisodes(rows[a.row], rows[b.row])
	})
	order := make([]int32, len(rows))
	for i, k := range keys {
		order[i] = k.row
	}
	return order
}

// orderBy returns the permutation that sorts rows by compare.
func orderBy[T any](rows []T, compare func(a, b T) int) []int32 {
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return compare(rows[i], rows[j]) })
	return order
}

// permute returns the rows in the given order, a permutation of their
// indices.
func permute[T any](rows []T, order []int32) []T {
	out := make([]T, len(order))
	for i, r := range order {
		out[i] = rows[r]
	}
	return out
}

// ranks numbers the distinct strings field(&rows[i]) in the order of
// compare, from 0; equal ranks mean equal strings.
func ranks[T any](rows []T, field func(*T) string, compare func(a, b string) int) map[string]int32 {
	rank := make(map[string]int32)
	var distinct []string
	for i := range rows {
		s := field(&rows[i])
		if _, ok := rank[s]; !ok {
			rank[s] = 0
			distinct = append(distinct, s)
		}
	}
	slices.SortFunc(distinct, compare)
	for i, s := range distinct {
		rank[s] = int32(i)
	}
	return rank
}

// SortCandidates sorts rows in place into the order of [CompareCandidates].
func SortCandidates(rows []CandidateRow) { slices.SortFunc(rows, CompareCandidates) }

// SortGenerations sorts rows in place into the order of [CompareGenerations].
func SortGenerations(rows []GenerationRow) { slices.SortFunc(rows, CompareGenerations) }

// checkEpisodes returns an error wrapping ErrInvalidRow for the first row
// whose split is not train, val or test, that has more metrics than
// declared, or whose metric value does not fit its column.
func checkEpisodes(metrics []envs.Metric, rows []EpisodeRow) error {
	for i := range rows {
		r := &rows[i]
		where := func() string {
			return fmt.Sprintf("episode row %d (run %q, version %q, seed %d)", i, r.Run, r.Version, r.Seed)
		}
		if splitRank(r.Split) < 0 {
			return fmt.Errorf("%w: %s: split %q is not %q, %q or %q",
				ErrInvalidRow, where(), r.Split, SplitTrain, SplitVal, SplitTest)
		}
		if len(r.Metrics) > len(metrics) {
			return fmt.Errorf("%w: %s: %d metrics, %d declared", ErrInvalidRow, where(), len(r.Metrics), len(metrics))
		}
		for k, v := range r.Metrics {
			if err := checkMetricValue(metrics[k].Type, v); err != nil {
				return fmt.Errorf("%w: %s: metric %s (%s): %v", ErrInvalidRow, where(), metrics[k].Name, metrics[k].Type, err)
			}
		}
	}
	return nil
}

// checkGenerations returns an error wrapping ErrInvalidRow for the first
// row whose CauseCounts is neither nil nor aligned with causes, or has a
// negative count.
func checkGenerations(causes []envs.Cause, rows []GenerationRow) error {
	for i := range rows {
		g := &rows[i]
		if g.CauseCounts != nil && len(g.CauseCounts) != len(causes) {
			return fmt.Errorf("%w: generation row %d (run %q, generation %d): %d cause counts, %d causes declared",
				ErrInvalidRow, i, g.Run, g.Generation, len(g.CauseCounts), len(causes))
		}
		for k, n := range g.CauseCounts {
			if n < 0 {
				return fmt.Errorf("%w: generation row %d (run %q, generation %d): cause %s: count %d < 0",
					ErrInvalidRow, i, g.Run, g.Generation, causes[k].Name, n)
			}
		}
	}
	return nil
}
