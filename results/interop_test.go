package results

import (
	"context"
	"math"
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
	t.Run("episodes", func(t *testing.T) { checkArrow(t, pe, TableEpisodes, eps) })
	t.Run("candidates", func(t *testing.T) { checkArrow(t, pc, TableCandidates, cands) })
	t.Run("generations", func(t *testing.T) { checkArrow(t, pg, TableGenerations, gens) })
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

func checkArrow[T any](t *testing.T, path, table string, want []T) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kv := r.MetaData().KeyValueMetadata()
	if v := kv.FindValue("evolve.table"); v == nil || *v != table {
		t.Errorf("evolve.table = %v, want %q", v, table)
	}
	if v := kv.FindValue("evolve.schema_version"); v == nil || *v != strconv.Itoa(SchemaVersion) {
		t.Errorf("evolve.schema_version = %v, want %d", v, SchemaVersion)
	}
	if n := r.NumRows(); n != int64(len(want)) {
		t.Fatalf("%d rows, want %d", n, len(want))
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

	rt := reflect.TypeFor[T]()
	schema := tbl.Schema()
	if schema.NumFields() != rt.NumField() {
		t.Fatalf("%d columns, want %d (one per field of %s)", schema.NumFields(), rt.NumField(), rt.Name())
	}
	for i := range rt.NumField() {
		sf := rt.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("parquet"), ",")
		field := schema.Field(i)
		// A pointer field, or one tagged optional (whose zero value is
		// written as null), is a nullable column.
		optional := slices.Contains(strings.Split(opts, ","), "optional")
		kind, nullable := sf.Type.Kind(), optional
		if kind == reflect.Pointer {
			kind, nullable = sf.Type.Elem().Kind(), true
		}
		if field.Name != name || !arrow.TypeEqual(field.Type, arrowTypeOf[kind]) || field.Nullable != nullable {
			t.Errorf("column %d: %s %s nullable=%v, want %s %s nullable=%v",
				i, field.Name, field.Type, field.Nullable, name, arrowTypeOf[kind], nullable)
			continue
		}
		// Compare every value, chunk by chunk.
		row := 0
		for _, chunk := range tbl.Column(i).Data().Chunks() {
			for j := range chunk.Len() {
				w := reflect.ValueOf(want[row]).Field(i)
				if !sameArrowValue(chunk, j, w, optional) {
					t.Fatalf("column %s row %d: arrow has %v, want %v", name, row, chunk.ValueStr(j), w)
				}
				row++
			}
		}
		if row != len(want) {
			t.Errorf("column %s: %d values, want %d", name, row, len(want))
		}
	}
}

// sameArrowValue reports whether element j of a equals the Go value w
// (NaN equals NaN; a nil pointer equals null). A non-pointer field tagged
// optional is stored null for its zero value and only then.
func sameArrowValue(a arrow.Array, j int, w reflect.Value, optional bool) bool {
	switch {
	case w.Kind() == reflect.Pointer:
		if w.IsNil() || a.IsNull(j) {
			return w.IsNil() && a.IsNull(j)
		}
		w = w.Elem()
	case optional && (w.IsZero() || a.IsNull(j)):
		return w.IsZero() && a.IsNull(j)
	case a.IsNull(j):
		return false
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(j) == w.String()
	case *array.Int32:
		return int64(a.Value(j)) == w.Int()
	case *array.Int64:
		return a.Value(j) == w.Int()
	case *array.Uint64:
		return a.Value(j) == w.Uint()
	case *array.Float64:
		v := a.Value(j)
		return v == w.Float() || math.IsNaN(v) && math.IsNaN(w.Float())
	case *array.Boolean:
		return a.Value(j) == w.Bool()
	}
	return false
}
