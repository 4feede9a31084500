package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"evolve/envs"
)

// encodeEpisodesByRows is the reference for encodeEpisodes: the rows
// sorted by CompareEpisodes with a comparison sort, and written row by
// row through parquet-go's own writer (encodeRows).
func encodeEpisodesByRows(t *testing.T, metrics []envs.Metric, eps []EpisodeRow) []byte {
	t.Helper()
	order := orderBy(eps, CompareEpisodes)
	cols := episodeSchema(metrics)
	meta := [][2]string{{MetadataMetrics, jsonMetadata(metrics)}}
	var b bytes.Buffer
	err := encodeRows(&b, TableEpisodes, cols, meta, len(order), func(i int, e *rowEncoder) {
		r := &eps[order[i]]
		e.put(stringValue(r.Run))
		e.put(parquet.Int32Value(r.Generation))
		e.put(stringValue(r.Version))
		e.put(stringValue(r.Split))
		e.put(stringValue(r.Variant))
		e.put(parquet.Int64Value(int64(r.Seed)))
		e.put(parquet.Int32Value(r.Repeat))
		e.put(parquet.DoubleValue(r.Score))
		e.put(stringValue(r.Cause))
		e.put(stringValue(r.EndReason))
		for k, m := range metrics {
			if k >= len(r.Metrics) || r.Metrics[k].Null {
				e.putOptional(parquet.Value{}, true)
				continue
			}
			e.putOptional(metricValue(m.Type, r.Metrics[k]), false)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// benchEpisodes is the table of BenchmarkWriteEpisodes: 100,000 rows of a
// fabricated run, shuffled.
func benchEpisodes() []EpisodeRow {
	eps, _, _ := sampleRun("run-bench", 10, 5, 1000, 1500, 1000, 4)
	return shuffled(eps[:100_000], 5)
}

// edgeEpisodes fabricates n rows whose values reach the corners of each
// column type: NaN, infinities and both zeros among the scores and a Float
// metric, seeds at both ends of uint64 (whose statistics are unsigned),
// negative generations and repeats, empty strings, nulls (a column of
// nulls only, rows without metrics), a Bool metric, Int metrics near
// ±2^62, and strings allocated row by row (equal strings at distinct
// addresses).
func edgeEpisodes(n int, seed uint64) ([]envs.Metric, []EpisodeRow) {
	metrics := []envs.Metric{
		{Name: "f", Type: envs.Float},
		{Name: "b", Type: envs.Bool},
		{Name: "i", Type: envs.Int},
		{Name: "s", Type: envs.String},
		{Name: "never", Type: envs.Int},
	}
	r := rand.New(rand.NewPCG(seed, 1))
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1.5, -2.25, math.MaxFloat64, math.SmallestNonzeroFloat64}
	seeds := []uint64{0, 1, 1 << 63, math.MaxUint64, math.MaxUint64 - 1, 12345}
	strs := []string{"", "a", "b", "zz", "é", strings.Repeat("x", 40)}
	eps := make([]EpisodeRow, n)
	for i := range eps {
		e := &eps[i]
		e.Run = strings.Clone([]string{"run-a", "run-b", ""}[r.IntN(3)])
		e.Generation = int32(r.IntN(7) - 2)
		e.Version = strings.Clone([]string{"v1.0.0", "v1.0.10", "v1.0.9", "x", ""}[r.IntN(5)])
		e.Split = []string{SplitTrain, SplitVal, SplitTest}[r.IntN(3)]
		e.Variant = strs[r.IntN(len(strs))]
		e.Seed = seeds[r.IntN(len(seeds))]
		if r.IntN(2) == 0 {
			e.Seed = r.Uint64()
		}
		e.Repeat = int32(r.IntN(5) - 1)
		e.Score = floats[r.IntN(len(floats))]
		e.Cause = strings.Clone(strs[r.IntN(len(strs))])
		e.EndReason = strs[r.IntN(len(strs))]
		if r.IntN(10) == 0 {
			continue // no metrics
		}
		m := []envs.MetricValue{
			{Num: floats[r.IntN(len(floats))]},
			{Num: float64(r.IntN(2))},
			{Num: float64(int64(r.IntN(5)-2) << 61)},
			{Str: strings.Clone(strs[r.IntN(len(strs))])},
			{Null: true},
		}
		for k := range m {
			if r.IntN(4) == 0 {
				m[k] = envs.MetricValue{Null: true}
			}
		}
		e.Metrics = m[:r.IntN(len(m)+1)]
	}
	return metrics, eps
}

// TestEncodeEpisodesMatchesRowWriter: encodeEpisodes (sort by radix,
// gather into columns, encodeColumnar) writes exactly the bytes of
// parquet-go's row writer fed the rows sorted by CompareEpisodes, for
// tables of every shape, whatever GOMAXPROCS is. (The table of the
// benchmark is TestEpisodesBenchTableGolden's, and TestEncodeColumnsMatchesRows
// has three row groups.)
func TestEncodeEpisodesMatchesRowWriter(t *testing.T) {
	edgeMetrics, edge := edgeEpisodes(MaxRowsPerRowGroup+3001, 7)
	// A dictionary of 20,000 values (indexes 15 bits wide), long strings
	// among them.
	manyMetrics := []envs.Metric{{Name: "tag", Type: envs.String}, {Name: "x", Type: envs.Float}}
	many := make([]EpisodeRow, 20_000)
	for i := range many {
		tag := fmt.Sprintf("tag-%06d", i)
		if i%1000 == 0 {
			tag = strings.Repeat(tag, 300)
		}
		many[i] = EpisodeRow{Run: "r", Version: "v1.0.0", Split: SplitVal, Seed: uint64(i), Score: float64(i % 97),
			Cause: "none", EndReason: "turn_limit", Metrics: []envs.MetricValue{{Str: tag}, {Num: float64(i) / 3}}}
	}
	// Equal keys (the tie-break on every column), packed in 64 bits or,
	// with seeds spread over 64 bits and many versions, wider and sorted
	// by comparison.
	ties := func(shift uint) []EpisodeRow {
		rows := make([]EpisodeRow, 3000)
		for i := range rows {
			rows[i] = EpisodeRow{Run: "r", Version: fmt.Sprintf("v1.%d.%d", i%300, i%7), Split: SplitTrain, Seed: uint64(i%10) << shift,
				Score: float64(i % 3), Cause: []string{"a", "b"}[i%2], EndReason: "e", Metrics: dungeonValues(1, int64(i%5), 0, 0, 1, "")}
		}
		return shuffled(rows, uint64(shift))
	}
	eps, _, _ := sampleRun("run-small", 2, 2, 40, 30, 20, 9)
	bare := shuffled(eps, 1)
	for i := range bare {
		bare[i].Metrics = nil
	}
	tests := []struct {
		name    string
		metrics []envs.Metric
		rows    []EpisodeRow
	}{
		{"empty", dungeonMetrics, nil},
		{"no metrics", nil, bare},
		{"one row", dungeonMetrics, eps[:1]},
		{"small run", dungeonMetrics, shuffled(eps, 2)},
		{"edge values", edgeMetrics, edge},
		{"many distinct strings", manyMetrics, shuffled(many, 3)},
		{"ties", dungeonMetrics, ties(0)},
		{"ties and wide keys", dungeonMetrics, ties(60)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := encodeEpisodesByRows(t, tc.metrics, tc.rows)
			for _, procs := range []int{1, 3} {
				prev := runtime.GOMAXPROCS(procs)
				var got bytes.Buffer
				err := encodeEpisodes(&got, tc.metrics, tc.rows)
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("GOMAXPROCS=%d: encodeEpisodes wrote %d bytes, the row writer %d: they differ at byte %d",
						procs, got.Len(), len(want), firstDifference(got.Bytes(), want))
				}
			}
		})
	}
}

// FuzzEncodeEpisodes: for tables of edgeEpisodes of any size up to 3,000
// rows and any seed, encodeEpisodes writes the bytes of the row writer.
func FuzzEncodeEpisodes(f *testing.F) {
	f.Add(uint64(1), uint16(0))
	f.Add(uint64(2), uint16(1))
	f.Add(uint64(3), uint16(2999))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		metrics, rows := edgeEpisodes(int(n)%3000, seed)
		want := encodeEpisodesByRows(t, metrics, rows)
		var got bytes.Buffer
		if err := encodeEpisodes(&got, metrics, rows); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d rows, seed %d: encodeEpisodes wrote %d bytes, the row writer %d: they differ at byte %d",
				len(rows), seed, got.Len(), len(want), firstDifference(got.Bytes(), want))
		}
	})
}

// firstDifference returns the index of the first byte where a and b
// differ, or the length of the shorter.
func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestEpisodesBenchTableGolden pins the SHA-256 of episodes.parquet for the
// table of BenchmarkWriteEpisodes (100,000 rows, two row groups), so that
// a change of bytes is caught even if it comes from parquet-go or the
// zstd encoder, which the comparison with the row writer would share.
func TestEpisodesBenchTableGolden(t *testing.T) {
	path := t.TempDir() + "/episodes.parquet"
	if err := WriteEpisodes(path, dungeonMetrics, benchEpisodes()); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(readBytes(t, path))
	checkGolden(t, "episodes_bench.sha256", []byte(hex.EncodeToString(sum[:])+"\n"))
}

// TestWriteEpisodesInvalidRowLate: a row that does not fit, deep in a
// table gathered on several goroutines, is reported as checkEpisodes
// reports it (the first such row in the caller's order), and the previous
// file is left as it was.
func TestWriteEpisodesInvalidRowLate(t *testing.T) {
	eps, _, _ := sampleRun("run-late", 2, 2, 3000, 3000, 1000, 1)
	eps = shuffled(eps, 6)
	path := t.TempDir() + "/episodes.parquet"
	if err := WriteEpisodes(path, dungeonMetrics, eps[:10]); err != nil {
		t.Fatal(err)
	}
	before := readBytes(t, path)
	bad := len(eps) - 3
	for _, i := range []int{bad, bad - 5000} {
		eps[i].Metrics = append([]envs.MetricValue(nil), eps[i].Metrics...)
		eps[i].Metrics[0].Num = 2.5 // depth is an Int
	}
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	err := WriteEpisodes(path, dungeonMetrics, eps)
	if want := fmt.Sprintf("episode row %d ", bad-5000); !errors.Is(err, ErrInvalidRow) || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want ErrInvalidRow naming %q", err, want)
	}
	if !bytes.Equal(readBytes(t, path), before) {
		t.Error("the previous file changed")
	}
}

// metricValue returns v as the Parquet value of a column of type t, for
// the row writer of the tests (encodeColumnar encodes metrics itself).
func metricValue(t envs.MetricType, v envs.MetricValue) parquet.Value {
	switch t {
	case envs.Int:
		return parquet.Int64Value(int64(v.Num))
	case envs.Float:
		return parquet.DoubleValue(v.Num)
	case envs.Bool:
		return parquet.BooleanValue(v.Num == 1)
	}
	return stringValue(v.Str)
}
