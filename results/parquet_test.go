package results

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"evolve/envs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update if the change is intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// tables writes the three tables of a run into dir and returns their paths.
func writeTables(t testing.TB, dir string, eps []EpisodeRow, cands []CandidateRow, gens []GenerationRow) (string, string, string) {
	t.Helper()
	pe, pc, pg := filepath.Join(dir, "episodes.parquet"), filepath.Join(dir, "candidates.parquet"), filepath.Join(dir, "generations.parquet")
	if err := WriteEpisodes(pe, dungeonMetrics, eps); err != nil {
		t.Fatal(err)
	}
	if err := WriteCandidates(pc, cands); err != nil {
		t.Fatal(err)
	}
	if err := WriteGenerations(pg, dungeonCauses, gens); err != nil {
		t.Fatal(err)
	}
	return pe, pc, pg
}

func TestRoundTrip(t *testing.T) {
	eps, cands, gens := sampleRun("run-rt", 3, 3, 20, 15, 10, 1)
	// Undefined statistics are NaN and must survive the round trip.
	cands[0].Std, cands[0].CILow, cands[0].CIHigh = math.NaN(), math.NaN(), math.NaN()
	gens[1].ValCILow = math.Inf(-1)
	pe, pc, pg := writeTables(t, t.TempDir(), shuffled(eps, 1), shuffled(cands, 2), shuffled(gens, 3))

	SortEpisodes(eps)
	SortCandidates(cands)
	SortGenerations(gens)
	gotE, metrics, err := ReadEpisodes(pe)
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, gotE, eps)
	if !reflect.DeepEqual(metrics, dungeonMetrics) {
		t.Errorf("metrics read back\n got %+v\nwant %+v", metrics, dungeonMetrics)
	}
	gotC, err := ReadCandidates(pc)
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, gotC, cands)
	gotG, causes, err := ReadGenerations(pg)
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, gotG, gens)
	if !reflect.DeepEqual(causes, dungeonCauses) {
		t.Errorf("causes read back\n got %+v\nwant %+v", causes, dungeonCauses)
	}
	if gotG[0].AcceptedP != nil && gens[0].AcceptedP == nil {
		t.Error("nil AcceptedP read back as a value")
	}
}

func TestEmptyTables(t *testing.T) {
	pe, pc, pg := writeTables(t, t.TempDir(), nil, []CandidateRow{}, nil)
	if rows, metrics, err := ReadEpisodes(pe); err != nil || len(rows) != 0 || !reflect.DeepEqual(metrics, dungeonMetrics) {
		t.Errorf("ReadEpisodes = %d rows, %v, %v; want 0, the dungeon's metrics, nil", len(rows), metrics, err)
	}
	if rows, err := ReadCandidates(pc); err != nil || len(rows) != 0 {
		t.Errorf("ReadCandidates = %d rows, %v; want 0, nil", len(rows), err)
	}
	if rows, causes, err := ReadGenerations(pg); err != nil || len(rows) != 0 || !reflect.DeepEqual(causes, dungeonCauses) {
		t.Errorf("ReadGenerations = %d rows, %v, %v; want 0, the dungeon's causes, nil", len(rows), causes, err)
	}
}

// TestDeterministic checks that the bytes of each file depend on the rows
// only, not on their order, and that the input is not modified.
func TestDeterministic(t *testing.T) {
	eps, cands, gens := sampleRun("run-det", 4, 4, 30, 20, 10, 2)
	// Duplicate keys with different content must still sort the same way.
	dup := eps[0]
	dup.Score++
	eps = append(eps, dup)
	dupC := cands[0]
	dupC.Mean = math.Copysign(0, -1)
	cands = append(cands, dupC)

	var files [][3][]byte
	for i := range 4 {
		e, c, g := shuffled(eps, uint64(10+i)), shuffled(cands, uint64(20+i)), shuffled(gens, uint64(30+i))
		e0, c0, g0 := slices.Clone(e), slices.Clone(c), slices.Clone(g)
		pe, pc, pg := writeTables(t, t.TempDir(), e, c, g)
		if !slices.Equal(rowStrings(e), rowStrings(e0)) || !slices.Equal(rowStrings(c), rowStrings(c0)) || !slices.Equal(rowStrings(g), rowStrings(g0)) {
			t.Fatal("a writer modified its input slice")
		}
		var b [3][]byte
		for j, p := range []string{pe, pc, pg} {
			var err error
			if b[j], err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		files = append(files, b)
	}
	for i := 1; i < len(files); i++ {
		for j, name := range []string{"episodes", "candidates", "generations"} {
			if !bytes.Equal(files[0][j], files[i][j]) {
				t.Errorf("%s: shuffled input %d gives different bytes (%d vs %d)", name, i, len(files[i][j]), len(files[0][j]))
			}
		}
	}
}

func TestCompareVersions(t *testing.T) {
	// Each version sorts strictly before the next one.
	ordered := []string{"v0.9", "v1.0", "v1.0.0", "v1.0.2", "v1.0.9", "1.0.10", "v1.0.10", "v1.0.11", "v1.1.0", "v2.0.0", "v10.0.0", "", "v", "v1.x", "zzz"}
	for i := range ordered {
		for j := range ordered {
			got := CompareVersions(ordered[i], ordered[j])
			if want := compareInts(i, j); got != want {
				t.Errorf("CompareVersions(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSortOrders(t *testing.T) {
	eps := []EpisodeRow{
		{Run: "b", Generation: 0, Split: SplitTrain, Version: "v1.0.0", Seed: 1},
		{Run: "a", Generation: 1, Split: SplitTrain, Version: "v1.0.0", Seed: 1},
		{Run: "a", Generation: 0, Split: SplitTest, Version: "v1.0.0", Seed: 1},
		{Run: "a", Generation: 0, Split: SplitVal, Version: "v1.0.10", Seed: 1},
		{Run: "a", Generation: 0, Split: SplitVal, Version: "v1.0.9", Seed: 2},
		{Run: "a", Generation: 0, Split: SplitVal, Version: "v1.0.9", Seed: 1},
		{Run: "a", Generation: 0, Split: SplitTrain, Version: "v1.0.0", Seed: 7},
	}
	SortEpisodes(eps)
	var got []string
	for _, e := range eps {
		got = append(got, fmt.Sprintf("%s/%d/%s/%s/%d", e.Run, e.Generation, e.Split, e.Version, e.Seed))
	}
	want := []string{
		"a/0/train/v1.0.0/7", "a/0/val/v1.0.9/1", "a/0/val/v1.0.9/2", "a/0/val/v1.0.10/1",
		"a/0/test/v1.0.0/1", "a/1/train/v1.0.0/1", "b/0/train/v1.0.0/1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("episode order\n got %q\nwant %q", got, want)
	}

	cands := []CandidateRow{{Generation: 1, Version: "v1.0.3"}, {Generation: 0, Version: "v1.0.10"}, {Generation: 0, Version: "v1.0.2"}}
	SortCandidates(cands)
	got = nil
	for _, c := range cands {
		got = append(got, fmt.Sprintf("%d/%s", c.Generation, c.Version))
	}
	if want := []string{"0/v1.0.2", "0/v1.0.10", "1/v1.0.3"}; !slices.Equal(got, want) {
		t.Errorf("candidate order\n got %q\nwant %q", got, want)
	}

	gens := []GenerationRow{{Generation: 10}, {Generation: 2}, {Generation: 0}}
	SortGenerations(gens)
	if gens[0].Generation != 0 || gens[1].Generation != 2 || gens[2].Generation != 10 {
		t.Errorf("generation order %d %d %d, want 0 2 10", gens[0].Generation, gens[1].Generation, gens[2].Generation)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "episodes.parquet")
	good := []EpisodeRow{{Run: "r", Split: SplitTrain, Version: "v1.0.0"}}
	if err := WriteEpisodes(path, nil, good); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)

	// An invalid split is rejected before anything is written.
	err := WriteEpisodes(path, nil, []EpisodeRow{{Run: "r", Split: "Val", Version: "v1.0.1", Seed: 3}})
	if !errors.Is(err, ErrInvalidRow) {
		t.Fatalf("split %q: err = %v, want ErrInvalidRow", "Val", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"Val"`) {
		t.Errorf("error %q should name the path and the bad split", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a failed write changed the existing file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory has %d entries after failed writes, want 1 (no temporaries)", len(ents))
	}

	// Unwritable destinations name the path.
	for _, p := range []string{filepath.Join(dir, "missing", "x.parquet"), dir} {
		if err := WriteGenerations(p, nil, nil); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("WriteGenerations(%q) = %v, want an error naming the path", p, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory has %d entries after failed writes, want 1 (no temporaries)", len(ents))
	}

	// Reading a missing or non-Parquet file names the path.
	for _, p := range []string{filepath.Join(dir, "nope.parquet"), writeText(t, dir, "junk.parquet", "not parquet")} {
		if _, _, err := ReadEpisodes(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadEpisodes(%q) = %v, want an error naming the path", p, err)
		}
	}
}

func writeText(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRowGroups(t *testing.T) {
	rows := make([]EpisodeRow, MaxRowsPerRowGroup+100)
	for i := range rows {
		rows[i] = EpisodeRow{Run: "r", Version: "v1.0.0", Split: SplitVal, Seed: uint64(i), Score: float64(i % 1000)}
	}
	path := filepath.Join(t.TempDir(), "episodes.parquet")
	if err := WriteEpisodes(path, nil, rows); err != nil {
		t.Fatal(err)
	}
	f, pf := openParquet(t, path)
	defer f.Close()
	groups := pf.RowGroups()
	if len(groups) != 2 || groups[0].NumRows() != MaxRowsPerRowGroup || groups[1].NumRows() != 100 {
		var n []int64
		for _, g := range groups {
			n = append(n, g.NumRows())
		}
		t.Errorf("row groups of %v rows, want [%d 100]", n, MaxRowsPerRowGroup)
	}
}

func openParquet(t *testing.T, path string) (*os.File, *parquet.File) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return f, pf
}

// dumpParquet describes a Parquet file's layout: key/value metadata, schema,
// and per column of each row group its type, codec, encodings and number of
// values. Byte sizes and the writer's version are left out so that the dump
// only changes when the layout does.
func dumpParquet(t *testing.T, path string) []byte {
	t.Helper()
	f, pf := openParquet(t, path)
	defer f.Close()
	var b bytes.Buffer
	md := pf.Metadata()
	fmt.Fprintf(&b, "rows: %d\nrow groups: %d\n", md.NumRows, len(md.RowGroups))
	for _, kv := range md.KeyValueMetadata {
		fmt.Fprintf(&b, "metadata %s = %s\n", kv.Key, kv.Value)
	}
	if err := parquet.PrintSchema(&b, "schema", pf.Schema()); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	for i, rg := range md.RowGroups {
		fmt.Fprintf(&b, "row group %d: %d rows\n", i, rg.NumRows)
		for _, c := range rg.Columns {
			m := c.MetaData
			var enc []string
			for _, e := range m.Encoding {
				enc = append(enc, e.String())
			}
			fmt.Fprintf(&b, "  %-14s %-10s %-5s %-22s %d values\n", strings.Join(m.PathInSchema, "."), m.Type, m.Codec, strings.Join(enc, ","), m.NumValues)
		}
	}
	return b.Bytes()
}

// TestSchemaGolden pins the layout of the three files for a small fixed run.
func TestSchemaGolden(t *testing.T) {
	eps, cands, gens := sampleRun("run-golden", 2, 2, 4, 3, 2, 3)
	pe, pc, pg := writeTables(t, t.TempDir(), eps, cands, gens)
	checkGolden(t, "episodes.schema.golden", dumpParquet(t, pe))
	checkGolden(t, "candidates.schema.golden", dumpParquet(t, pc))
	checkGolden(t, "generations.schema.golden", dumpParquet(t, pg))
}

func BenchmarkWriteEpisodes(b *testing.B) {
	eps, _, _ := sampleRun("run-bench", 10, 5, 1000, 1500, 1000, 4)
	eps = eps[:min(len(eps), 100_000)]
	if len(eps) != 100_000 {
		b.Fatalf("fabricated %d episodes, want 100000", len(eps))
	}
	eps = shuffled(eps, 5)
	path := filepath.Join(b.TempDir(), "episodes.parquet")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteEpisodes(path, dungeonMetrics, eps); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	// make bench-duckdb times DuckDB's COPY of the same table.
	if keep := os.Getenv("EVOLVE_BENCH_PARQUET"); keep != "" {
		data, err := os.ReadFile(path)
		if err == nil {
			err = os.WriteFile(keep, data, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(eps))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(st.Size()), "file-bytes")
}

// BenchmarkEncodeEpisodes is BenchmarkWriteEpisodes without the file: the
// table sorted, encoded and compressed into memory, so that the writer's
// CPU cost is measured apart from the disk (WriteEpisodes fsyncs the file
// and its directory).
func BenchmarkEncodeEpisodes(b *testing.B) {
	eps, _, _ := sampleRun("run-bench", 10, 5, 1000, 1500, 1000, 4)
	eps = shuffled(eps[:100_000], 5)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := encodeEpisodes(&buf, dungeonMetrics, eps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(eps))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestNulls checks that what does not apply is stored as null, not as a
// value a query would aggregate: candidates.v for a candidate not tested
// paired (V = 0 is a value), generations.accepted for a generation that
// accepted nothing; and that nulls read back as nil and "".
func TestNulls(t *testing.T) {
	zero, seven := 0.0, 7.0
	cands := []CandidateRow{
		{Run: "r", Version: "v1.0.1", Test: "mwu"},
		{Run: "r", Version: "v1.0.2", Test: "signed-rank", V: &zero},
		{Run: "r", Version: "v1.0.3", Test: "signed-rank", V: &seven},
	}
	p := 0.01
	gens := []GenerationRow{
		{Run: "r", Generation: 0, Incumbent: "v1.0.0", NextIncumbent: "v1.0.0"},
		{Run: "r", Generation: 1, Incumbent: "v1.0.0", Accepted: "v1.0.3", AcceptedP: &p, NextIncumbent: "v1.0.3"},
		{Run: "r", Generation: 2, Incumbent: "v1.0.3", NextIncumbent: "v1.0.3"},
		{Run: "r", Generation: 3, Incumbent: "v1.0.3", NextIncumbent: "v1.0.3"},
	}
	_, pc, pg := writeTables(t, t.TempDir(), nil, cands, gens)
	for _, tc := range []struct {
		path, column string
		want         []string // each value as parquet-go prints it
	}{
		{pc, "v", []string{"<null>", "0", "7"}},
		{pg, "accepted", []string{"<null>", "v1.0.3", "<null>", "<null>"}},
		{pg, "accepted_p", []string{"<null>", "0.01", "<null>", "<null>"}},
	} {
		t.Run(tc.column, func(t *testing.T) {
			f, pf := openParquet(t, tc.path)
			defer f.Close()
			col, ok := pf.Schema().Lookup(tc.column)
			if !ok {
				t.Fatalf("no column %s", tc.column)
			}
			if !col.Node.Optional() {
				t.Errorf("column %s is not optional", tc.column)
			}
			r := parquet.NewReader(pf)
			defer r.Close()
			rows := make([]parquet.Row, 16)
			n, _ := r.ReadRows(rows)
			var got []string
			for _, row := range rows[:n] {
				got = append(got, row[col.ColumnIndex].String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("column %s = %q, want %q", tc.column, got, tc.want)
			}
		})
	}
	gotC, err := ReadCandidates(pc)
	if err != nil {
		t.Fatal(err)
	}
	checkSameRows(t, gotC, cands)
	gotG, _, err := ReadGenerations(pg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gens {
		gens[i].CauseCounts = make([]int32, len(dungeonCauses)) // nil is read back as zeros
	}
	checkSameRows(t, gotG, gens)
}

// TestReadSchemaMismatch checks that a file of another table or schema
// version is refused rather than read as zero values.
func TestReadSchemaMismatch(t *testing.T) {
	dir := t.TempDir()
	pe, _, _ := writeTables(t, dir, []EpisodeRow{{Run: "r", Split: SplitVal, Version: "v1.0.0"}}, nil, nil)
	if _, err := ReadCandidates(pe); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), pe) || !strings.Contains(err.Error(), `"episodes"`) {
		t.Errorf("ReadCandidates(episodes file) = %v, want ErrSchema naming the path and the table", err)
	}
	// A file of schema version 1 (the column was "end").
	type oldEpisode struct {
		Run string `parquet:"run"`
		End string `parquet:"end"`
	}
	old := filepath.Join(dir, "old.parquet")
	f, err := os.Create(old)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[oldEpisode](f, parquet.KeyValueMetadata("evolve.table", TableEpisodes), parquet.KeyValueMetadata("evolve.schema_version", "1"))
	if _, err := w.Write([]oldEpisode{{Run: "r", End: "killed"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := ReadEpisodes(old); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), `"1"`) {
		t.Errorf("ReadEpisodes(schema 1) = %v, want ErrSchema naming version \"1\"", err)
	}
	// A file of schema version 2 (dungeon columns, an INT64 score).
	type v2Episode struct {
		Run   string `parquet:"run"`
		Score int64  `parquet:"score"`
		Depth int32  `parquet:"depth"`
	}
	v2 := filepath.Join(dir, "v2.parquet")
	f, err = os.Create(v2)
	if err != nil {
		t.Fatal(err)
	}
	w2 := parquet.NewGenericWriter[v2Episode](f, parquet.KeyValueMetadata("evolve.table", TableEpisodes), parquet.KeyValueMetadata("evolve.schema_version", "2"))
	if _, err := w2.Write([]v2Episode{{Run: "r", Score: 3, Depth: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := ReadEpisodes(v2); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), `"2"`) || !strings.Contains(err.Error(), v2) {
		t.Errorf("ReadEpisodes(schema 2) = %v, want ErrSchema naming the path and version \"2\"", err)
	}
	// Without evolve's metadata (another tool's file) the file is read,
	// its other columns as metrics typed by their Parquet type.
	plain := filepath.Join(dir, "plain.parquet")
	if err := parquet.WriteFile(plain, []oldEpisode{{Run: "r", End: "killed"}}); err != nil {
		t.Fatal(err)
	}
	rows, metrics, err := ReadEpisodes(plain)
	wantM := []envs.Metric{{Name: "end", Type: envs.String}}
	if err != nil || len(rows) != 1 || rows[0].Run != "r" || !reflect.DeepEqual(metrics, wantM) || rows[0].Metrics[0].Str != "killed" {
		t.Errorf("ReadEpisodes(no metadata) = %+v, %v, %v; want one row of run r, metric end = killed", rows, metrics, err)
	}
}
