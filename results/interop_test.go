package results

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"evolve/envs"
)

// TestArrowInterop reads the three files with Apache Arrow's Parquet reader,
// an implementation independent of the writer, and checks every column's
// name, Arrow type, nullability and every value against the rows written.
func TestArrowInterop(t *testing.T) {
	eps, cands, gens := sampleRun("run-arrow", 3, 3, 25, 20, 10, 6)
	cands[1].Std = math.NaN()
	gens[0].AcceptedP = nil
	pe, pc, pg := writeTables(t, t.TempDir(), shuffled(eps, 1), cands, gens)
	SortEpisodes(eps)
	SortCandidates(cands)
	SortGenerations(gens)
	t.Run("episodes", func(t *testing.T) {
		checkArrow(t, pe, TableEpisodes, len(eps), episodeArrowColumns(dungeonMetrics, eps))
	})
	t.Run("candidates", func(t *testing.T) { checkArrow(t, pc, TableCandidates, len(cands), structArrowColumns(cands)) })
	t.Run("generations", func(t *testing.T) {
		checkArrow(t, pg, TableGenerations, len(gens), generationArrowColumns(dungeonCauses, gens))
	})
}

// TestArrowInteropCustom reads the tables of a made-up environment, whose
// metrics of every type have nulls, with Apache Arrow's reader.
func TestArrowInteropCustom(t *testing.T) {
	eps, gens := customRun(40, 5, 3)
	dir := t.TempDir()
	pe, pg := filepath.Join(dir, "episodes.parquet"), filepath.Join(dir, "generations.parquet")
	if err := WriteEpisodes(pe, customMetrics, eps); err != nil {
		t.Fatal(err)
	}
	if err := WriteGenerations(pg, customCauses, gens); err != nil {
		t.Fatal(err)
	}
	SortEpisodes(eps)
	SortGenerations(gens)
	t.Run("episodes", func(t *testing.T) {
		checkArrow(t, pe, TableEpisodes, len(eps), episodeArrowColumns(customMetrics, eps))
	})
	t.Run("generations", func(t *testing.T) {
		checkArrow(t, pg, TableGenerations, len(gens), generationArrowColumns(customCauses, gens))
	})
}

// arrowColumn is a column as Arrow must read it: its name, type,
// nullability and values, one per row: nil for null, else a string,
// int64, uint64, float64 or bool.
type arrowColumn struct {
	name     string
	typ      arrow.DataType
	nullable bool
	values   []any
}

// arrowTypeOf is the Arrow type a Go field of kind k must read back as.
var arrowTypeOf = map[reflect.Kind]arrow.DataType{
	reflect.String:  arrow.BinaryTypes.String,
	reflect.Int32:   arrow.PrimitiveTypes.Int32,
	reflect.Int64:   arrow.PrimitiveTypes.Int64,
	reflect.Uint64:  arrow.PrimitiveTypes.Uint64,
	reflect.Float64: arrow.PrimitiveTypes.Float64,
	reflect.Bool:    arrow.FixedWidthTypes.Boolean,
}

// structArrowColumns returns the columns of rows of a struct type written
// by struct tags: one per field, named by the tag; a pointer field, or one
// tagged optional (whose zero value is written as null), is nullable.
func structArrowColumns[T any](rows []T) []arrowColumn {
	rt := reflect.TypeFor[T]()
	var cols []arrowColumn
	for i := range rt.NumField() {
		sf := rt.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("parquet"), ",")
		optional := slices.Contains(strings.Split(opts, ","), "optional")
		kind, nullable := sf.Type.Kind(), optional
		if kind == reflect.Pointer {
			kind, nullable = sf.Type.Elem().Kind(), true
		}
		c := arrowColumn{name: name, typ: arrowTypeOf[kind], nullable: nullable}
		for _, r := range rows {
			f := reflect.ValueOf(r).Field(i)
			switch {
			case f.Kind() == reflect.Pointer && f.IsNil(), optional && f.IsZero():
				c.values = append(c.values, nil)
			case f.Kind() == reflect.Pointer:
				c.values = append(c.values, f.Elem().Interface())
			default:
				c.values = append(c.values, f.Interface())
			}
		}
		cols = append(cols, c)
	}
	return cols
}

// episodeArrowColumns returns the columns of episodes.parquet for rows.
func episodeArrowColumns(metrics []envs.Metric, rows []EpisodeRow) []arrowColumn {
	str, i32, u64, f64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Float64
	cols := []arrowColumn{{"run", str, false, nil}, {"generation", i32, false, nil}, {"version", str, false, nil},
		{"split", str, false, nil}, {"variant", str, false, nil}, {"seed", u64, false, nil}, {"repeat", i32, false, nil}, {"score", f64, false, nil}, {"cause", str, false, nil},
		{"end_reason", str, false, nil}}
	for _, m := range metrics {
		typ := map[envs.MetricType]arrow.DataType{envs.Int: arrow.PrimitiveTypes.Int64, envs.Float: f64,
			envs.Bool: arrow.FixedWidthTypes.Boolean, envs.String: str}[m.Type]
		cols = append(cols, arrowColumn{name: m.Name, typ: typ, nullable: true})
	}
	for _, r := range rows {
		vals := []any{r.Run, r.Generation, r.Version, r.Split, r.Variant, r.Seed, r.Repeat, r.Score, r.Cause, r.EndReason}
		for k, m := range metrics {
			var v any
			if k < len(r.Metrics) && !r.Metrics[k].Null {
				x := r.Metrics[k]
				switch m.Type {
				case envs.Int:
					v = int64(x.Num)
				case envs.Float:
					v = x.Num
				case envs.Bool:
					v = x.Num == 1
				case envs.String:
					v = x.Str
				}
			}
			vals = append(vals, v)
		}
		for i := range cols {
			cols[i].values = append(cols[i].values, vals[i])
		}
	}
	return cols
}

// generationArrowColumns returns the columns of generations.parquet for
// rows.
func generationArrowColumns(causes []envs.Cause, rows []GenerationRow) []arrowColumn {
	str, i32, f64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64
	cols := []arrowColumn{{"run", str, false, nil}, {"generation", i32, false, nil}, {"incumbent", str, false, nil},
		{"n_train", i32, false, nil}, {"n_val", i32, false, nil}, {"train_mean", f64, false, nil},
		{"val_mean", f64, false, nil}, {"val_median", f64, false, nil}, {"val_iqm", f64, false, nil},
		{"val_ci_low", f64, false, nil}, {"val_ci_high", f64, false, nil}, {"failures", i32, false, nil}}
	for _, c := range causes {
		cols = append(cols, arrowColumn{name: c.Name, typ: i32})
	}
	cols = append(cols, arrowColumn{"n_candidates", i32, false, nil}, arrowColumn{"accepted", str, true, nil},
		arrowColumn{"accepted_p", f64, true, nil}, arrowColumn{"next_incumbent", str, false, nil},
		arrowColumn{"episodes_used", arrow.PrimitiveTypes.Int64, false, nil})
	for _, g := range rows {
		vals := []any{g.Run, g.Generation, g.Incumbent, g.NTrain, g.NVal, g.TrainMean, g.ValMean, g.ValMedian,
			g.ValIQM, g.ValCILow, g.ValCIHigh, g.Failures}
		for k := range causes {
			var n int32
			if g.CauseCounts != nil {
				n = g.CauseCounts[k]
			}
			vals = append(vals, n)
		}
		var acc, p any
		if g.Accepted != "" {
			acc = g.Accepted
		}
		if g.AcceptedP != nil {
			p = *g.AcceptedP
		}
		vals = append(vals, g.NCandidates, acc, p, g.NextIncumbent, g.EpisodesUsed)
		for i := range cols {
			cols[i].values = append(cols[i].values, vals[i])
		}
	}
	return cols
}

// checkArrow reads path with Arrow and compares its metadata, columns and
// values with want (n rows).
func checkArrow(t *testing.T, path, table string, n int, want []arrowColumn) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kv := r.MetaData().KeyValueMetadata()
	if v := kv.FindValue("evolve.table"); v == nil || *v != table {
		t.Errorf("evolve.table = %v, want %q", v, table)
	}
	if v := kv.FindValue("evolve.schema_version"); v == nil || *v != strconv.Itoa(TableSchemaVersion(table)) {
		t.Errorf("evolve.schema_version = %v, want %d", v, TableSchemaVersion(table))
	}
	if got := r.NumRows(); got != int64(n) {
		t.Fatalf("%d rows, want %d", got, n)
	}
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()

	schema := tbl.Schema()
	if schema.NumFields() != len(want) {
		t.Fatalf("%d columns, want %d", schema.NumFields(), len(want))
	}
	for i, w := range want {
		field := schema.Field(i)
		if field.Name != w.name || !arrow.TypeEqual(field.Type, w.typ) || field.Nullable != w.nullable {
			t.Errorf("column %d: %s %s nullable=%v, want %s %s nullable=%v",
				i, field.Name, field.Type, field.Nullable, w.name, w.typ, w.nullable)
			continue
		}
		// Compare every value, chunk by chunk.
		row := 0
		for _, chunk := range tbl.Column(i).Data().Chunks() {
			for j := range chunk.Len() {
				if !sameArrowValue(chunk, j, w.values[row]) {
					t.Fatalf("column %s row %d: arrow has %v, want %v", w.name, row, chunk.ValueStr(j), w.values[row])
				}
				row++
			}
		}
		if row != n {
			t.Errorf("column %s: %d values, want %d", w.name, row, n)
		}
	}
}

// sameArrowValue reports whether element j of a equals w (nil for null;
// NaN equals NaN).
func sameArrowValue(a arrow.Array, j int, w any) bool {
	if w == nil || a.IsNull(j) {
		return w == nil && a.IsNull(j)
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(j) == w
	case *array.Int32:
		return a.Value(j) == w
	case *array.Int64:
		return a.Value(j) == w
	case *array.Uint64:
		return a.Value(j) == w
	case *array.Float64:
		v, ok := w.(float64)
		return ok && (a.Value(j) == v || math.IsNaN(v) && math.IsNaN(a.Value(j)))
	case *array.Boolean:
		return a.Value(j) == w
	}
	return false
}
