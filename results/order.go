package results

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
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

// episodeKeys holds the interned strings of the sort key of each row of a
// table of episodes: ids by row, and the interners that number them.
type episodeKeys struct {
	run, split, version, variant     []int32
	runs, splits, versions, variants *interner
	gen, repeat                      []int32 // copied from the rows
	seed                             []uint64
}

// internEpisodeKeys numbers the runs, splits, versions and variants of rows.
func internEpisodeKeys(rows []EpisodeRow) episodeKeys {
	k := newEpisodeKeys(len(rows), nil)
	for i := range rows {
		k.intern(i, &rows[i])
	}
	return k
}

// newEpisodeKeys returns the keys of n rows, to be interned, their slices
// taken from the capacity of reuse's where it suffices.
func newEpisodeKeys(n int, reuse *episodeKeys) episodeKeys {
	if reuse == nil {
		reuse = new(episodeKeys)
	}
	return episodeKeys{
		run: grow(&reuse.run, n), split: grow(&reuse.split, n), version: grow(&reuse.version, n), variant: grow(&reuse.variant, n),
		runs: newInterner(), splits: newInterner(), versions: newInterner(), variants: newInterner(),
		gen: grow(&reuse.gen, n), repeat: grow(&reuse.repeat, n), seed: grow(&reuse.seed, n),
	}
}

// intern numbers the keys of row i, e, and copies its numeric keys.
func (k *episodeKeys) intern(i int, e *EpisodeRow) {
	k.run[i] = k.runs.id(e.Run)
	k.split[i] = k.splits.id(e.Split)
	k.version[i] = k.versions.id(e.Version)
	k.variant[i] = k.variants.id(e.Variant)
	k.gen[i], k.seed[i], k.repeat[i] = e.Generation, e.Seed, e.Repeat
}

// episodeOrder returns the permutation that sorts rows by CompareEpisodes:
// rows[order[0]] is the first row (see sortEpisodes).
func episodeOrder(rows []EpisodeRow) []int32 {
	return sortEpisodes(rows, internEpisodeKeys(rows), nil)
}

// sortEpisodes returns the permutation that sorts rows by CompareEpisodes,
// k holding their interned keys. Sorting 10^5 rows of 200 bytes by
// CompareEpisodes directly spends most of its time comparing versions and
// missing the cache, so this ranks the distinct runs, splits, variants and
// versions once, and packs each row's key (run, generation, split,
// variant, version, seed, repeat) into 64 bits when the ranges of the
// fields allow, as they do for any real run: those keys are sorted by an
// LSD radix sort (Knuth, TAOCP vol. 3, 5.2.5), else compact keys by
// comparison. Rows equal in the key, which a run never has, are ordered
// by CompareEpisodes; rows equal by it are equal in every column, so the
// file does not depend on how their tie is broken.
//
// The slices are taken from the capacity of scratch's where it suffices
// (nil: allocated); the order returned is one of them.
func sortEpisodes(rows []EpisodeRow, k episodeKeys, scratch *sortScratch) []int32 {
	if scratch == nil {
		scratch = new(sortScratch)
	}
	runs := rankIDs(k.runs, strings.Compare)
	splits := rankIDs(k.splits, func(a, b string) int {
		if c := cmp.Compare(splitRank(a), splitRank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	versions := rankIDs(k.versions, CompareVersions)
	variants := rankIDs(k.variants, strings.Compare)
	n := len(rows)
	if n == 0 {
		return []int32{}
	}
	gmin, gmax := slices.Min(k.gen), slices.Max(k.gen)
	smin, smax := slices.Min(k.seed), slices.Max(k.seed)
	rmin, rmax := slices.Min(k.repeat), slices.Max(k.repeat)
	widthOf := func(distinct int) int { return bits.Len(uint(distinct - 1)) }
	wRun, wSplit, wVariant, wVersion := widthOf(len(runs)), widthOf(len(splits)), widthOf(len(variants)), widthOf(len(versions))
	wGen := bits.Len64(uint64(int64(gmax) - int64(gmin)))
	wSeed := bits.Len64(smax - smin)
	wRepeat := bits.Len64(uint64(int64(rmax) - int64(rmin)))
	width := wRun + wGen + wSplit + wVariant + wVersion + wSeed + wRepeat
	if width > 64 {
		return sortEpisodesByComparison(rows, k, runs, splits, versions, variants)
	}
	keys := grow(&scratch.keys, n)
	for i := range keys {
		key := uint64(runs[k.run[i]])
		key = key<<wGen | uint64(int64(k.gen[i])-int64(gmin))
		key = key<<wSplit | uint64(splits[k.split[i]])
		key = key<<wVariant | uint64(variants[k.variant[i]])
		key = key<<wVersion | uint64(versions[k.version[i]])
		key = key<<wSeed | (k.seed[i] - smin)
		key = key<<wRepeat | uint64(int64(k.repeat[i])-int64(rmin))
		keys[i] = key
	}
	order, sorted := radixSort(keys, width, scratch)
	for i := 0; i < n; {
		j := i + 1
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], func(a, b int32) int { return CompareEpisodes(rows[a], rows[b]) })
		}
		i = j
	}
	return order
}

// radixSort returns the permutation that sorts keys, whose values are
// below 2^width, stably (equal keys keep their order), and the sorted keys.
// Each pass sorts on a byte, from the least significant; a pass whose byte
// is the same in every key is skipped.
//
// The slices are taken from scratch, keys's contents being overwritten.
func radixSort(keys []uint64, width int, scratch *sortScratch) (order []int32, sorted []uint64) {
	n := len(keys)
	passes := (width + 7) / 8
	var counts [8][256]int
	for _, key := range keys {
		for p := range passes {
			counts[p][byte(key>>(8*p))]++
		}
	}
	order = grow(&scratch.order, n)
	for i := range order {
		order[i] = int32(i)
	}
	src, srcOrder := keys, order
	dst, dstOrder := grow(&scratch.keys2, n), grow(&scratch.order2, n)
	for p := range passes {
		shift := 8 * p
		if counts[p][byte(src[0]>>shift)] == n {
			continue
		}
		var next [256]int
		sum := 0
		for d, c := range counts[p] {
			next[d] = sum
			sum += c
		}
		for i, key := range src {
			d := byte(key >> shift)
			dst[next[d]] = key
			dstOrder[next[d]] = srcOrder[i]
			next[d]++
		}
		src, dst = dst, src
		srcOrder, dstOrder = dstOrder, srcOrder
	}
	return srcOrder, src
}

// sortScratch holds the slices of sortEpisodes, for reuse.
type sortScratch struct {
	keys, keys2   []uint64
	order, order2 []int32
}

// sortEpisodesByComparison is sortEpisodes for keys wider than 64 bits:
// compact keys sorted by comparison.
func sortEpisodesByComparison(rows []EpisodeRow, k episodeKeys, runs, splits, versions, variants []int32) []int32 {
	type sortKey struct {
		seed                              uint64
		run, gen, version, split, variant int32
		repeat                            int32
		row                               int32
	}
	keys := make([]sortKey, len(rows))
	for i := range rows {
		e := &rows[i]
		keys[i] = sortKey{seed: e.Seed, run: runs[k.run[i]], gen: e.Generation, version: versions[k.version[i]], split: splits[k.split[i]],
			variant: variants[k.variant[i]], repeat: e.Repeat, row: int32(i)}
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

// rankIDs returns the rank of each of t's strings, by id, in the order of
// compare, from 0; equal ranks mean equal strings.
func rankIDs(t *interner, compare func(a, b string) int) []int32 {
	byRank := make([]int32, len(t.strs))
	for i := range byRank {
		byRank[i] = int32(i)
	}
	slices.SortFunc(byRank, func(a, b int32) int { return compare(t.strs[a], t.strs[b]) })
	rank := make([]int32, len(t.strs))
	for r, id := range byRank {
		rank[id] = int32(r)
	}
	return rank
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
