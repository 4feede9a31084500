package results

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/plot/plotter"

	"evolve/envs"
)

// customMetrics and customCauses are the declarations of a made-up
// environment, not the dungeon: a metric of every type and three causes.
var (
	customMetrics = []envs.Metric{
		{Name: "steps", Type: envs.Int, Unit: "steps", Description: "actions taken"},
		{Name: "reward", Type: envs.Float, Unit: "points"},
		{Name: "solved", Type: envs.Bool},
		{Name: "level", Type: envs.String, Description: "the task's level"},
	}
	customCauses = []envs.Cause{
		{Name: "timeout", Description: "ran out of steps"},
		{Name: "crash"},
		{Name: "wrong_answer", Description: "answered, wrongly"},
	}
)

// customRun fabricates nEps episodes and nGen generation rows of the
// made-up environment from seed: fractional scores, every metric null in
// some rows, error episodes with no metrics and rows with fewer metrics
// than declared, generations with and without cause counts.
func customRun(nEps, nGen int, seed uint64) ([]EpisodeRow, []GenerationRow) {
	r := rand.New(rand.NewPCG(seed, 0xc05))
	causes := []string{"timeout", "crash", "wrong_answer", envs.CauseNone, envs.CauseError}
	levels := []string{"easy", "medium", "hard", ""}
	splits := []string{SplitTrain, SplitVal, SplitTest}
	var eps []EpisodeRow
	for i := range nEps {
		e := EpisodeRow{
			Run: "run-custom", Generation: int32(r.IntN(nGen)), Version: fmt.Sprintf("v1.0.%d", r.IntN(12)),
			Split: splits[r.IntN(3)], Seed: uint64(i) * 0x9e3779b97f4a7c15, Score: math.Round(r.NormFloat64()*1e3) / 8,
			Cause: causes[r.IntN(len(causes))], EndReason: "done",
		}
		if e.Cause == envs.CauseError {
			e.EndReason = envs.EndError
			eps = append(eps, e) // no metrics at all
			continue
		}
		steps := []float64{0, -5, 1 << 53, float64(r.IntN(500))}[r.IntN(4)]
		e.Metrics = []envs.MetricValue{{Num: steps}, {Num: r.NormFloat64()}, {Num: float64(r.IntN(2))}, {Str: levels[r.IntN(len(levels))]}}
		for k := range e.Metrics {
			if r.IntN(5) == 0 {
				e.Metrics[k] = envs.MetricValue{Null: true}
			}
		}
		if r.IntN(6) == 0 {
			e.Metrics = e.Metrics[:r.IntN(len(e.Metrics))] // the rest are null
		}
		eps = append(eps, e)
	}
	var gens []GenerationRow
	for g := range nGen {
		row := GenerationRow{Run: "run-custom", Generation: int32(g), Incumbent: "v1.0.0", NTrain: 20, NVal: 10,
			TrainMean: r.Float64(), ValMean: r.Float64(), ValMedian: r.Float64(), ValIQM: r.Float64(),
			ValCILow: math.NaN(), ValCIHigh: math.NaN(), NCandidates: 2, NextIncumbent: "v1.0.0"}
		if g%3 != 2 {
			row.CauseCounts = []int32{int32(r.IntN(5)), int32(r.IntN(5)), int32(r.IntN(5))}
		}
		for _, n := range row.CauseCounts {
			row.Failures += n
		}
		row.Failures += int32(r.IntN(2)) // error episodes
		if g%2 == 1 {
			p := r.Float64()
			row.Accepted, row.AcceptedP, row.NextIncumbent = "v1.0.1", &p, "v1.0.1"
		}
		gens = append(gens, row)
	}
	return eps, gens
}

// normalEpisodes returns rows as ReadEpisodes returns them: len(metrics)
// metrics each, nulls as {Null: true}, only the field of the type set.
func normalEpisodes(metrics []envs.Metric, rows []EpisodeRow) []EpisodeRow {
	out := slices.Clone(rows)
	for i := range out {
		m := make([]envs.MetricValue, len(metrics))
		for k, d := range metrics {
			switch {
			case k >= len(rows[i].Metrics) || rows[i].Metrics[k].Null:
				m[k] = envs.MetricValue{Null: true}
			case d.Type == envs.String:
				m[k] = envs.MetricValue{Str: rows[i].Metrics[k].Str}
			default:
				m[k] = envs.MetricValue{Num: rows[i].Metrics[k].Num}
			}
		}
		out[i].Metrics = m
	}
	return out
}

// normalGenerations returns rows as ReadGenerations returns them: nil
// cause counts as zeros.
func normalGenerations(causes []envs.Cause, rows []GenerationRow) []GenerationRow {
	out := slices.Clone(rows)
	for i := range out {
		if out[i].CauseCounts == nil {
			out[i].CauseCounts = make([]int32, len(causes))
		}
	}
	return out
}

func writeCustom(t *testing.T, dir string, eps []EpisodeRow, gens []GenerationRow) (string, string) {
	t.Helper()
	pe, pg := filepath.Join(dir, "episodes.parquet"), filepath.Join(dir, "generations.parquet")
	if err := WriteEpisodes(pe, customMetrics, eps); err != nil {
		t.Fatal(err)
	}
	if err := WriteGenerations(pg, customCauses, gens); err != nil {
		t.Fatal(err)
	}
	return pe, pg
}

// TestCustomEnvironment round-trips the tables of a made-up environment:
// its declarations, every value, and a null exactly where the row has none.
func TestCustomEnvironment(t *testing.T) {
	eps, gens := customRun(200, 6, 1)
	pe, pg := writeCustom(t, t.TempDir(), shuffled(eps, 4), shuffled(gens, 5))
	SortEpisodes(eps)
	SortGenerations(gens)

	gotE, metrics, err := ReadEpisodes(pe)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(metrics, customMetrics) {
		t.Errorf("metrics\n got %+v\nwant %+v", metrics, customMetrics)
	}
	checkSameRows(t, gotE, normalEpisodes(customMetrics, eps))
	gotG, causes, err := ReadGenerations(pg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(causes, customCauses) {
		t.Errorf("causes\n got %+v\nwant %+v", causes, customCauses)
	}
	checkSameRows(t, gotG, normalGenerations(customCauses, gens))

	// At the Parquet level: each metric column is optional, of its type,
	// and null exactly where the row has no value.
	f, pf := openParquet(t, pe)
	defer f.Close()
	rows := make([]parquet.Row, len(eps))
	rd := parquet.NewReader(pf)
	defer rd.Close()
	if n, _ := rd.ReadRows(rows); n != len(eps) {
		t.Fatalf("read %d rows, want %d", n, len(eps))
	}
	kinds := map[envs.MetricType]parquet.Kind{envs.Int: parquet.Int64, envs.Float: parquet.Double, envs.Bool: parquet.Boolean, envs.String: parquet.ByteArray}
	nulls := 0
	for k, m := range customMetrics {
		col, ok := pf.Schema().Lookup(m.Name)
		if !ok {
			t.Fatalf("no column %s", m.Name)
		}
		if !col.Node.Optional() || col.Node.Type().Kind() != kinds[m.Type] {
			t.Errorf("column %s: optional=%v kind %v, want optional %v", m.Name, col.Node.Optional(), col.Node.Type().Kind(), kinds[m.Type])
		}
		for i, row := range rows {
			v := row[col.ColumnIndex]
			want := k >= len(eps[i].Metrics) || eps[i].Metrics[k].Null
			if v.IsNull() != want {
				t.Errorf("column %s row %d: null=%v, want %v (row %+v)", m.Name, i, v.IsNull(), want, eps[i].Metrics)
			}
			if want {
				nulls++
			}
		}
	}
	if nulls == 0 || nulls == len(eps)*len(customMetrics) {
		t.Errorf("%d nulls: the sample does not test nulls", nulls)
	}
}

// TestCustomSchemaGolden pins the layout of a made-up environment's files:
// the metric and cause columns, their types, and the declarations in the
// metadata.
func TestCustomSchemaGolden(t *testing.T) {
	eps, gens := customRun(12, 3, 2)
	pe, pg := writeCustom(t, t.TempDir(), eps, gens)
	checkGolden(t, "custom_episodes.schema.golden", dumpParquet(t, pe))
	checkGolden(t, "custom_generations.schema.golden", dumpParquet(t, pg))
}

// TestCustomDeterministic checks that the made-up environment's files are
// byte-identical whatever the order of the rows, also for rows equal in
// the sort key that differ in their metrics only.
func TestCustomDeterministic(t *testing.T) {
	eps, gens := customRun(300, 5, 3)
	dup := eps[1]
	dup.Metrics = slices.Clone(dup.Metrics)
	if len(dup.Metrics) == 0 {
		dup.Metrics = []envs.MetricValue{{Num: 1}}
	} else {
		dup.Metrics[0] = envs.MetricValue{Null: true}
	}
	eps = append(eps, dup, eps[2]) // a near and an exact duplicate
	var first [2][]byte
	for i := range 4 {
		pe, pg := writeCustom(t, t.TempDir(), shuffled(eps, uint64(40+i)), shuffled(gens, uint64(50+i)))
		var b [2][]byte
		for j, p := range []string{pe, pg} {
			var err error
			if b[j], err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 {
			first = b
			continue
		}
		for j, name := range []string{"episodes", "generations"} {
			if !bytes.Equal(first[j], b[j]) {
				t.Errorf("%s: shuffled input %d gives different bytes", name, i)
			}
		}
	}
}

// TestWriteInvalid checks that bad declarations and rows that do not fit
// them are refused before anything is written.
func TestWriteInvalid(t *testing.T) {
	row := func(m ...envs.MetricValue) []EpisodeRow {
		return []EpisodeRow{{Run: "r", Split: SplitVal, Version: "v1.0.0", Seed: 9, Metrics: m}}
	}
	tests := []struct {
		name    string
		metrics []envs.Metric
		rows    []EpisodeRow
		invalid bool   // wraps ErrInvalidRow
		want    string // in the message
	}{
		{"reserved name", []envs.Metric{{Name: "score", Type: envs.Int}}, nil, false, `"score"`},
		{"table column", []envs.Metric{{Name: "end_reason", Type: envs.Int}}, nil, false, `"end_reason"`},
		{"repeated name", []envs.Metric{{Name: "a", Type: envs.Int}, {Name: "a", Type: envs.Float}}, nil, false, `"a" is declared twice`},
		{"bad name", []envs.Metric{{Name: "Steps", Type: envs.Int}}, nil, false, `"Steps"`},
		{"bad type", []envs.Metric{{Name: "a", Type: "int32"}}, nil, false, `"int32"`},
		{"too many metrics", customMetrics[:1], row(envs.MetricValue{Num: 1}, envs.MetricValue{Num: 2}), true, "2 metrics, 1 declared"},
		{"fraction in an int", customMetrics, row(envs.MetricValue{Num: 2.5}), true, "metric steps (int): 2.5 is not a whole number"},
		{"NaN in an int", customMetrics, row(envs.MetricValue{Num: math.NaN()}), true, "NaN is not a whole number"},
		{"int out of range", customMetrics, row(envs.MetricValue{Num: 1 << 63}), true, "is not a whole number in the range"},
		{"bool 2", customMetrics, row(envs.MetricValue{}, envs.MetricValue{}, envs.MetricValue{Num: 2}), true, "metric solved (bool): 2 is not 0 or 1"},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "episodes.parquet")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteEpisodes(path, tt.metrics, tt.rows)
			if err == nil || errors.Is(err, ErrInvalidRow) != tt.invalid || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want an error naming %s and %q (ErrInvalidRow: %v)", err, path, tt.want, tt.invalid)
			}
		})
	}
	// A null of any type, whatever its fields hold, is fine.
	if err := WriteEpisodes(path, customMetrics, row(envs.MetricValue{Null: true, Num: 0.5}, envs.MetricValue{Null: true}, envs.MetricValue{Null: true, Num: 7})); err != nil {
		t.Errorf("nulls: %v", err)
	}

	gpath := filepath.Join(dir, "generations.parquet")
	for _, tt := range []struct {
		name    string
		causes  []envs.Cause
		rows    []GenerationRow
		invalid bool
		want    string
	}{
		{"table column", []envs.Cause{{Name: "failures"}}, nil, false, `"failures" is a column of the table already`},
		{"reserved", []envs.Cause{{Name: "none"}}, nil, false, `"none" is reserved`},
		{"repeated", []envs.Cause{{Name: "crash"}, {Name: "crash"}}, nil, false, "declared twice"},
		{"misaligned", customCauses, []GenerationRow{{Run: "r", Generation: 4, CauseCounts: []int32{1, 2}}}, true, "generation 4): 2 cause counts, 3 causes declared"},
		{"negative", customCauses, []GenerationRow{{Run: "r", CauseCounts: []int32{1, -2, 0}}}, true, "cause crash: count -2 < 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteGenerations(gpath, tt.causes, tt.rows)
			if err == nil || errors.Is(err, ErrInvalidRow) != tt.invalid || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), gpath) {
				t.Errorf("err = %v, want an error naming %s and %q (ErrInvalidRow: %v)", err, gpath, tt.want, tt.invalid)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory has %d entries after failed writes, want 1 (the episodes of nulls)", len(ents))
	}
	// The plot refuses misaligned counts too.
	_, err := FailureCausesFigure([]GenerationRow{{Run: "r", CauseCounts: []int32{1}}}, customCauses)
	if !errors.Is(err, ErrInvalidRow) {
		t.Errorf("FailureCausesFigure(misaligned) = %v, want ErrInvalidRow", err)
	}
}

// TestReadBadDeclarations checks that an evolve file whose declarations
// are missing, garbled or do not match its columns is refused.
func TestReadBadDeclarations(t *testing.T) {
	type file struct {
		Run   string `parquet:"run"`
		Steps string `parquet:"steps"`
	}
	dir := t.TempDir()
	write := func(name string, meta ...string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		opts := []parquet.WriterOption{parquet.KeyValueMetadata("evolve.table", TableEpisodes), parquet.KeyValueMetadata("evolve.schema_version", strconv.Itoa(TableSchemaVersion(TableEpisodes)))}
		for i := 0; i < len(meta); i += 2 {
			opts = append(opts, parquet.KeyValueMetadata(meta[i], meta[i+1]))
		}
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[file](&buf, opts...)
		if _, err := w.Write([]file{{Run: "r", Steps: "x"}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, path, want string
	}{
		{"no declarations", write("a.parquet"), "no metadata evolve.metrics"},
		{"garbled", write("b.parquet", MetadataMetrics, `[{"name":"steps"`), "metadata evolve.metrics"},
		{"unknown field", write("c.parquet", MetadataMetrics, `[{"name":"steps","type":"string","colour":"red"}]`), `unknown field "colour"`},
		{"invalid", write("d.parquet", MetadataMetrics, `[{"name":"steps","type":"complex"}]`), `"complex"`},
		{"missing column", write("e.parquet", MetadataMetrics, `[{"name":"turns","type":"int"}]`), "no column turns"},
		{"wrong type", write("f.parquet", MetadataMetrics, `[{"name":"steps","type":"int"}]`), "column steps is BYTE_ARRAY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadEpisodes(tt.path)
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("err = %v, want ErrSchema naming the path and %q", err, tt.want)
			}
		})
	}
	ok := write("g.parquet", MetadataMetrics, `[{"name":"steps","type":"string"}]`)
	rows, metrics, err := ReadEpisodes(ok)
	if err != nil || len(rows) != 1 || len(metrics) != 1 || rows[0].Metrics[0].Str != "x" {
		t.Errorf("ReadEpisodes(valid) = %+v, %v, %v", rows, metrics, err)
	}
}

// TestCauseColors checks that the dungeon's causes keep their colours and
// that many causes get distinct, deterministic ones.
func TestCauseColors(t *testing.T) {
	seen := map[string]int{}
	for k := range 40 {
		c := fmt.Sprint(causeColor(k))
		if j, dup := seen[c]; dup {
			t.Errorf("causes %d and %d have the same colour %s", j, k, c)
		}
		seen[c] = k
		if c != fmt.Sprint(causeColor(k)) {
			t.Errorf("cause %d: colour not deterministic", k)
		}
	}
	// The colours of schema 2's dungeon plot, in its cause order.
	want := []string{"{213 94 0 255}", "{204 121 167 255}", "{230 159 0 255}", "{86 180 233 255}"}
	for k, w := range want {
		if got := fmt.Sprint(causeColor(k)); got != w {
			t.Errorf("cause %d (%s): colour %s, want %s", k, dungeonCauses[k].Name, got, w)
		}
	}
}

// TestFailureCausesOther checks that failures of no declared cause are
// stacked as "other" only when there are some.
func TestFailureCausesOther(t *testing.T) {
	gens := []GenerationRow{{Run: "r", Failures: 5, CauseCounts: []int32{1, 2, 0}}, {Run: "r", Generation: 1, Failures: 4, CauseCounts: []int32{1, 2, 1}}}
	legend := func(gens []GenerationRow, causes []envs.Cause) []string {
		names, counts, _ := failureSeries(gens, causes)
		if len(counts) != len(names) {
			t.Fatalf("%d series of counts for %d names", len(counts), len(names))
		}
		return names
	}
	if got, want := legend(gens, customCauses), []string{"timeout", "crash", "wrong_answer", "other"}; !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
	gens[0].Failures = 3
	if got, want := legend(gens, customCauses), []string{"timeout", "crash", "wrong_answer"}; !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
	names, counts, total := failureSeries(gens, customCauses)
	if want := []plotter.Values{{1, 1}, {2, 2}, {0, 1}}; !reflect.DeepEqual(counts, want) || total != 4 || len(names) != 3 {
		t.Errorf("series %v %v (max total %v), want %v (4)", names, counts, total, want)
	}
	// No declared causes: all failures are "other".
	if got, want := legend([]GenerationRow{{Run: "r", Failures: 2}}, nil), []string{"other"}; !slices.Equal(got, want) {
		t.Errorf("legend %q, want %q", got, want)
	}
}

// FuzzMetadata checks that any text under evolve.metrics or evolve.causes
// is either a valid declaration list or an ErrSchema, never a panic.
func FuzzMetadata(f *testing.F) {
	f.Add(jsonMetadata(customMetrics))
	f.Add(jsonMetadata(customCauses))
	f.Add(`[{"name":"a","type":"int"}] x`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, text string) {
		if m, err := parseMetadata[envs.Metric](MetadataMetrics, text); err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Errorf("metrics %q: %v does not wrap ErrSchema", text, err)
			}
		} else if m == nil {
			t.Errorf("metrics %q: nil list without an error", text)
		} else if CheckMetrics(m) == nil {
			// A valid list survives the round trip.
			again, err := parseMetadata[envs.Metric](MetadataMetrics, jsonMetadata(m))
			if err != nil || !reflect.DeepEqual(again, m) {
				t.Errorf("metrics %q: round trip gives %+v, %v", text, again, err)
			}
		}
		if c, err := parseMetadata[envs.Cause](MetadataCauses, text); err != nil && !errors.Is(err, ErrSchema) {
			t.Errorf("causes %q: %v does not wrap ErrSchema", text, err)
		} else if err == nil && c == nil {
			t.Errorf("causes %q: nil list without an error", text)
		}
	})
}
