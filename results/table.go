package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"evolve/envs"
)

// This file holds the tables whose schema is known only at run time:
// episodes.parquet (a column per declared metric) and generations.parquet
// (a column per declared failure cause). Their rows are read as
// parquet.Row values, and generations.parquet is written as such
// (encodeRows), so that a null is written exactly where asked for:
// parquet-go v0.32.0 does not reliably write the zero value of a
// non-pointer optional string field as null (on amd64, a "" following a
// non-empty value in one batch was written as ""), which the struct-tag
// writers of schema 2 had to work around. episodes.parquet, 10^5 rows and
// more, is written from typed columns by encodeColumnar (encode.go) in the
// bytes encodeRows would give.

// colType is the type of a column of a run-time schema.
type colType uint8

const (
	colString colType = iota // BYTE_ARRAY (STRING)
	colInt32                 // INT32 (INT(32,true))
	colInt64                 // INT64 (INT(64,true))
	colUint64                // INT64 (INT(64,false))
	colDouble                // DOUBLE
	colBool                  // BOOLEAN
)

// goType is the Go type whose parquet-go schema is the column's.
func (t colType) goType() reflect.Type {
	switch t {
	case colString:
		return reflect.TypeFor[string]()
	case colInt32:
		return reflect.TypeFor[int32]()
	case colInt64:
		return reflect.TypeFor[int64]()
	case colUint64:
		return reflect.TypeFor[uint64]()
	case colDouble:
		return reflect.TypeFor[float64]()
	}
	return reflect.TypeFor[bool]()
}

// reads reports whether a column of type t can be read from a column of
// physical type k: the type it is written as, or, for files written by
// other tools, any type that converts without loss of meaning.
func (t colType) reads(k parquet.Kind) bool {
	switch t {
	case colString:
		return k == parquet.ByteArray || k == parquet.FixedLenByteArray
	case colInt32, colInt64, colUint64:
		return k == parquet.Int32 || k == parquet.Int64
	case colDouble:
		return k == parquet.Double || k == parquet.Float || k == parquet.Int32 || k == parquet.Int64
	}
	return k == parquet.Boolean
}

// column is one column of a run-time schema.
type column struct {
	name     string
	typ      colType
	optional bool // nullable
	dict     bool // dictionary encoded
}

// The fixed columns of the two run-time tables.
var (
	// episodeColumns come before the metric columns.
	episodeColumns = []column{
		{name: "run", typ: colString, dict: true},
		{name: "generation", typ: colInt32},
		{name: "version", typ: colString, dict: true},
		{name: "split", typ: colString, dict: true},
		{name: "variant", typ: colString, dict: true},
		{name: "seed", typ: colUint64},
		{name: "repeat", typ: colInt32},
		{name: "score", typ: colDouble},
		{name: "cause", typ: colString, dict: true},
		{name: "end_reason", typ: colString, dict: true},
	}
	// generationHead come before the cause columns, generationTail after.
	generationHead = []column{
		{name: "run", typ: colString, dict: true},
		{name: "generation", typ: colInt32},
		{name: "incumbent", typ: colString, dict: true},
		{name: "n_train", typ: colInt32},
		{name: "n_val", typ: colInt32},
		{name: "train_mean", typ: colDouble},
		{name: "val_mean", typ: colDouble},
		{name: "val_median", typ: colDouble},
		{name: "val_iqm", typ: colDouble},
		{name: "val_ci_low", typ: colDouble},
		{name: "val_ci_high", typ: colDouble},
		{name: "failures", typ: colInt32},
	}
	generationTail = []column{
		{name: "n_candidates", typ: colInt32},
		{name: "accepted", typ: colString, optional: true, dict: true},
		{name: "accepted_p", typ: colDouble, optional: true},
		{name: "next_incumbent", typ: colString, dict: true},
		{name: "episodes_used", typ: colInt64},
	}
)

// metricColumn is the column of a declared metric: optional, typed by the
// declaration, strings dictionary encoded.
func metricColumn(m envs.Metric) column {
	c := column{name: m.Name, optional: true}
	switch m.Type {
	case envs.Int:
		c.typ = colInt64
	case envs.Float:
		c.typ = colDouble
	case envs.Bool:
		c.typ = colBool
	default:
		c.typ, c.dict = colString, true
	}
	return c
}

// causeColumn is the column of a declared failure cause.
func causeColumn(c envs.Cause) column { return column{name: c.Name, typ: colInt32} }

// episodeSchema returns the columns of episodes.parquet for metrics.
func episodeSchema(metrics []envs.Metric) []column {
	cols := slices.Clip(episodeColumns)
	for _, m := range metrics {
		cols = append(cols, metricColumn(m))
	}
	return cols
}

// generationSchema returns the columns of generations.parquet for causes.
func generationSchema(causes []envs.Cause) []column {
	cols := slices.Clip(generationHead)
	for _, c := range causes {
		cols = append(cols, causeColumn(c))
	}
	return append(cols, generationTail...)
}

// CheckMetrics returns an error naming the first metric that cannot be a
// column of episodes.parquet: an invalid or repeated name, an unknown type
// (the rules of envs.Info.Check), or the name of one of the table's own
// columns. [WriteEpisodes] checks its metrics with it; a runner can call it
// before playing the first episode.
func CheckMetrics(metrics []envs.Metric) error {
	if err := (&envs.Info{Metrics: metrics}).Check(); err != nil {
		return err
	}
	return checkNames("metrics", metrics, func(m envs.Metric) string { return m.Name }, episodeColumns)
}

// CheckCauses returns an error naming the first failure cause that cannot
// be a column of generations.parquet: an invalid, reserved or repeated
// name (the rules of envs.Info.Check), or the name of one of the table's
// own columns ("failures", "accepted", ...). [WriteGenerations] checks its
// causes with it; a runner can call it before the first generation.
func CheckCauses(causes []envs.Cause) error {
	if err := (&envs.Info{Causes: causes}).Check(); err != nil {
		return err
	}
	return checkNames("causes", causes, func(c envs.Cause) string { return c.Name }, generationHead, generationTail)
}

// checkNames returns an error for the first name that is a fixed column.
func checkNames[T any](what string, decls []T, name func(T) string, fixed ...[]column) error {
	for i, d := range decls {
		for _, cols := range fixed {
			for _, c := range cols {
				if name(d) == c.name {
					return fmt.Errorf("%s[%d]: %q is a column of the table already", what, i, c.name)
				}
			}
		}
	}
	return nil
}

// buildSchema returns the Parquet schema of cols, in order. parquet.Group
// sorts its fields by name, so the schema is that of a struct type made
// for it, tagged as a row type would be.
func buildSchema(cols []column) *parquet.Schema {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		t, tag := c.typ.goType(), c.name
		if c.optional {
			t, tag = reflect.PointerTo(t), tag+",optional"
		}
		if c.dict {
			tag += ",dict"
		}
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	return parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface())
}

// rowEncoder builds one parquet.Row, a value per column in schema order.
type rowEncoder struct{ row parquet.Row }

// put appends a value of a required column.
func (e *rowEncoder) put(v parquet.Value) { e.row = append(e.row, v.Level(0, 0, len(e.row))) }

// putOptional appends a value of an optional column, null if null.
func (e *rowEncoder) putOptional(v parquet.Value, null bool) {
	if null {
		e.row = append(e.row, parquet.NullValue().Level(0, 0, len(e.row)))
		return
	}
	e.row = append(e.row, v.Level(0, 1, len(e.row)))
}

// encodeRows writes n rows as Parquet to w with the schema of cols and the
// table's metadata plus meta (key, value pairs); fill(i, e) appends the
// values of the i-th row to write. The rows are gathered in batches so that
// the table is never copied whole.
func encodeRows(w io.Writer, table string, cols []column, meta [][2]string, n int, fill func(i int, e *rowEncoder)) error {
	opts := append(writerOptions(table), buildSchema(cols))
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	pw := parquet.NewWriter(w, opts...)
	batch := make([]parquet.Row, min(n, writeBatch))
	values := make([]parquet.Value, len(batch)*len(cols))
	for j := range batch {
		batch[j] = values[j*len(cols) : j*len(cols) : (j+1)*len(cols)]
	}
	e := new(rowEncoder) // one for all rows: fill's argument escapes
	for i := 0; i < n; {
		k := min(n-i, writeBatch)
		for j := range batch[:k] {
			e.row = batch[j][:0]
			fill(i+j, e)
			batch[j] = e.row
		}
		if _, err := pw.WriteRows(batch[:k]); err != nil {
			return err
		}
		i += k
	}
	return pw.Close()
}

// columnChunk is the number of rows added to each column at a time:
// parquet-go's row writer splits rows into chunks of 64
// (ConcurrentRowGroupWriter.writeRows) and flushes a page only between
// chunks, so encodeColumnar cuts pages between the same chunks.
const columnChunk = 64

// stringValue returns s as a BYTE_ARRAY value that references s's bytes
// without copying or allocating (parquet.ValueOf(s) allocates to box s):
// the writer copies the bytes of the values it is given and never
// modifies them.
func stringValue(s string) parquet.Value {
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// jsonMetadata encodes a declaration list for the key/value metadata; nil
// is written as [].
func jsonMetadata[T any](decls []T) string {
	if decls == nil {
		decls = []T{}
	}
	b, err := json.Marshal(decls)
	if err != nil {
		panic("results: encoding declarations: " + err.Error()) // plain structs of strings
	}
	return string(b)
}

// parseMetadata decodes a declaration list written by jsonMetadata,
// strictly (unknown fields are errors).
func parseMetadata[T any](key, text string) ([]T, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	var decls []T
	if err := dec.Decode(&decls); err != nil {
		return nil, fmt.Errorf("%w: metadata %s: %v", ErrSchema, key, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: metadata %s: text after the list", ErrSchema, key)
	}
	if decls == nil {
		decls = []T{}
	}
	return decls, nil
}

// tableFile is an open Parquet file of one of the tables.
type tableFile struct {
	f  *os.File
	pf *parquet.File
	// evolve reports whether the file carries evolve's evolve.table
	// metadata; a file without it was written by another tool and its
	// columns are read by name as they are.
	evolve bool
}

// openTable opens path, which must be the table named table of schema
// TableSchemaVersion if its metadata says. The caller closes f.
func openTable(path, table string) (*tableFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := checkTableMetadata(pf, table); err != nil {
		f.Close()
		return nil, err
	}
	_, evolve := pf.Lookup("evolve.table")
	return &tableFile{f: f, pf: pf, evolve: evolve}, nil
}

// checkTableMetadata returns an error wrapping ErrSchema if pf's metadata
// names another table or schema version.
func checkTableMetadata(pf *parquet.File, table string) error {
	if got, ok := pf.Lookup("evolve.table"); ok && got != table {
		return fmt.Errorf("%w: metadata evolve.table is %q, want %q", ErrSchema, got, table)
	}
	if got, ok := pf.Lookup("evolve.schema_version"); ok && got != strconv.Itoa(TableSchemaVersion(table)) {
		return fmt.Errorf("%w: metadata evolve.schema_version is %q, this evolve reads %s version %d (written by another evolve version: read it with that version or run again)", ErrSchema, got, table, TableSchemaVersion(table))
	}
	return nil
}

// declarations returns the declaration list stored under key, or, in a file
// of another tool, one made by infer from the columns that are not in
// fixed.
func declarations[T any](t *tableFile, key string, infer func(name string, k parquet.Kind) (T, bool), fixed ...[]column) ([]T, error) {
	if t.evolve {
		text, ok := t.pf.Lookup(key)
		if !ok {
			return nil, fmt.Errorf("%w: no metadata %s", ErrSchema, key)
		}
		return parseMetadata[T](key, text)
	}
	decls := []T{}
	for _, path := range t.pf.Schema().Columns() {
		if len(path) != 1 || slices.ContainsFunc(fixed, func(cols []column) bool {
			return slices.ContainsFunc(cols, func(c column) bool { return c.name == path[0] })
		}) {
			continue
		}
		leaf, ok := t.pf.Schema().Lookup(path[0])
		if !ok || leaf.MaxRepetitionLevel > 0 {
			continue
		}
		if d, ok := infer(path[0], leaf.Node.Type().Kind()); ok {
			decls = append(decls, d)
		}
	}
	return decls, nil
}

// inferMetric is the metric of a column of kind k in another tool's file.
func inferMetric(name string, k parquet.Kind) (envs.Metric, bool) {
	switch k {
	case parquet.Int32, parquet.Int64:
		return envs.Metric{Name: name, Type: envs.Int}, true
	case parquet.Float, parquet.Double:
		return envs.Metric{Name: name, Type: envs.Float}, true
	case parquet.Boolean:
		return envs.Metric{Name: name, Type: envs.Bool}, true
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return envs.Metric{Name: name, Type: envs.String}, true
	}
	return envs.Metric{}, false
}

// inferCause is the cause of an integer column in another tool's file.
func inferCause(name string, k parquet.Kind) (envs.Cause, bool) {
	return envs.Cause{Name: name}, k == parquet.Int32 || k == parquet.Int64
}

// columnIndexes returns the file's column index of each of cols, -1 for a
// column the file lacks. A column of a type that cannot be read as the
// column's (or a repeated one) is an error wrapping ErrSchema; so is a
// missing column that must be there (a declared metric or cause of an
// evolve file).
func (t *tableFile) columnIndexes(cols []column, required func(i int) bool) ([]int, error) {
	idx := make([]int, len(cols))
	for i, c := range cols {
		leaf, ok := t.pf.Schema().Lookup(c.name)
		if !ok {
			if required(i) {
				return nil, fmt.Errorf("%w: no column %s, which the metadata declares", ErrSchema, c.name)
			}
			idx[i] = -1
			continue
		}
		if k := leaf.Node.Type().Kind(); !c.typ.reads(k) || leaf.MaxRepetitionLevel > 0 {
			return nil, fmt.Errorf("%w: column %s is %v, want %v", ErrSchema, c.name, k, c.typ.goType())
		}
		idx[i] = leaf.ColumnIndex
	}
	return idx, nil
}

// eachRow calls fn with every row of the file in order, its values indexed
// by column (a missing or null value is the null value). The values are
// valid only during the call.
func (t *tableFile) eachRow(fn func(vals []parquet.Value)) error {
	vals := make([]parquet.Value, len(t.pf.Schema().Columns()))
	buf := make([]parquet.Row, 256)
	for _, rg := range t.pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				clear(vals)
				for _, v := range r {
					if c := v.Column(); c >= 0 && c < len(vals) {
						vals[c] = v
					}
				}
				fn(vals)
			}
			if err == io.EOF || err == nil && n == 0 {
				break
			}
			if err != nil {
				rows.Close()
				return err
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// rowDecoder reads the values of one row by schema position.
type rowDecoder struct {
	vals []parquet.Value
	idx  []int // file column of each schema column, -1 if missing
}

// value returns the value of schema column i, null if the file lacks it.
func (d *rowDecoder) value(i int) parquet.Value {
	if d.idx[i] < 0 {
		return parquet.NullValue()
	}
	return d.vals[d.idx[i]]
}

// str returns column i as a string (a copy), "" for null.
func (d *rowDecoder) str(i int) string {
	v := d.value(i)
	if v.IsNull() {
		return ""
	}
	return string(v.ByteArray())
}

// int returns column i as an int64, 0 for null.
func (d *rowDecoder) int(i int) int64 {
	switch v := d.value(i); v.Kind() {
	case parquet.Int32:
		if !v.IsNull() {
			return int64(v.Int32())
		}
	case parquet.Int64:
		if !v.IsNull() {
			return v.Int64()
		}
	}
	return 0
}

// float returns column i as a float64, 0 for null.
func (d *rowDecoder) float(i int) float64 {
	v := d.value(i)
	if v.IsNull() {
		return 0
	}
	switch v.Kind() {
	case parquet.Double:
		return v.Double()
	case parquet.Float:
		return float64(v.Float())
	}
	return float64(d.int(i))
}

// floatPtr returns column i as a *float64, nil for null.
func (d *rowDecoder) floatPtr(i int) *float64 {
	if d.value(i).IsNull() {
		return nil
	}
	x := d.float(i)
	return &x
}

// metric returns column i as a metric value of type t.
func (d *rowDecoder) metric(i int, t envs.MetricType) envs.MetricValue {
	v := d.value(i)
	switch {
	case v.IsNull():
		return envs.MetricValue{Null: true}
	case t == envs.String:
		return envs.MetricValue{Str: d.str(i)}
	case t == envs.Bool:
		if v.Boolean() {
			return envs.MetricValue{Num: 1}
		}
		return envs.MetricValue{}
	case t == envs.Int:
		return envs.MetricValue{Num: float64(d.int(i))}
	}
	return envs.MetricValue{Num: d.float(i)}
}

// checkMetricValue returns an error describing why v cannot be stored in
// a column of type t: an Int that is not a whole number in int64's range,
// a Bool that is not 0 or 1.
func checkMetricValue(t envs.MetricType, v envs.MetricValue) error {
	if v.Null {
		return nil
	}
	switch t {
	case envs.Int:
		if v.Num != math.Trunc(v.Num) || v.Num < -(1<<63) || v.Num >= 1<<63 {
			return fmt.Errorf("%v is not a whole number in the range of a 64-bit integer", v.Num)
		}
	case envs.Bool:
		if v.Num != 0 && v.Num != 1 {
			return fmt.Errorf("%v is not 0 or 1", v.Num)
		}
	}
	return nil
}
