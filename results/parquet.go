package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"evolve/envs"
	"evolve/internal/atomicfile"
)

// MaxRowsPerRowGroup is the most rows a Parquet row group holds. At 64Ki rows
// a typical run's 10^5 episodes span two row groups of a few MB each, which
// bounds the writer's buffers while keeping row groups large enough for
// efficient column scans.
const MaxRowsPerRowGroup = 1 << 16

// SchemaVersion is the newest version of the table schemas. Each table
// has its own version (TableSchemaVersion), stored in each file's
// "evolve.schema_version" key/value metadata; a table's version changes
// to SchemaVersion whenever one of its columns is added, removed, renamed
// or changes meaning, so that the other tables' files (and their bytes)
// stay as they were.
//
// Version 2 renamed episodes.end to end_reason (END is reserved in SQL) and
// made candidates.v (NaN before) and generations.accepted ("" before) null
// where they do not apply. Version 3 made the tables generic: episodes.score
// is a DOUBLE (an INT64 before), the dungeon's columns (depth ... turns_wait,
// INT32 and required before) became the environment's declared metrics,
// optional and typed by the declaration (metadata "evolve.metrics"), and
// the per-cause columns of generations.parquet are the environment's
// declared causes (metadata "evolve.causes"). Version 4 added
// summary.parquet's mean_bca_ci_low and mean_bca_ci_high (the mean's BCa
// interval) and comparisons.parquet's check, failure_method and family
// columns, with the failure-share checks as rows of their own; episodes,
// candidates and generations stayed at version 3. Version 5 added
// candidates.proposer (the proposer family, mutation.proposer) and
// generations.episodes_used (the cumulative train and val episodes).
const SchemaVersion = 5

// TableSchemaVersion is the schema version of table: 5 for
// TableCandidates, TableGenerations, TableAblation and TableAnytime
// (new at version 5), 4 for TableSummary and
// TableComparisons, 3 for every other table (the versions before 4 were
// shared by all tables).
func TableSchemaVersion(table string) int {
	switch table {
	case TableCandidates, TableGenerations, TableAblation, TableAnytime:
		return 5
	case TableSummary, TableComparisons:
		return 4
	}
	return 3
}

// Key/value metadata keys holding the declarations of the run-time
// columns, as JSON lists of envs.Metric and envs.Cause (the fields of
// their json tags: name, type, unit, description).
const (
	MetadataMetrics = "evolve.metrics" // in episodes.parquet
	MetadataCauses  = "evolve.causes"  // in generations.parquet
)

// Table names, stored in each file's "evolve.table" key/value metadata.
const (
	TableEpisodes    = "episodes"
	TableCandidates  = "candidates"
	TableGenerations = "generations"
)

// ErrInvalidRow is wrapped by the errors of the writers when a row cannot be
// written (an EpisodeRow whose Split is not "train", "val" or "test", or
// whose metrics do not fit their declaration; a GenerationRow whose
// CauseCounts do not fit the causes), and by those of the plot functions
// when the rows cannot be plotted together (rows of more than one run, or
// CauseCounts not aligned with the causes).
var ErrInvalidRow = errors.New("results: invalid row")

// ErrSchema is wrapped by the errors of the readers when a file's
// "evolve.table" or "evolve.schema_version" metadata is not the table read
// or not [SchemaVersion] (its columns would otherwise read as zero
// values), or when its declarations of metrics or causes are missing,
// invalid, or do not match its columns.
// A run directory written by an evolve with another schema is read by that
// evolve (or run again).
var ErrSchema = errors.New("results: table schema mismatch")

// zstdCodec is shared by all writers; the codec is safe for concurrent use.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedDefault}

// WriteEpisodes writes rows to the Parquet file path, sorted by
// [CompareEpisodes], replacing any existing file atomically. rows is not
// modified; nil or empty rows give a file with the schema and no rows.
//
// The columns are those of [EpisodeRow] followed by one optional column
// per metric, named by it, in the order of metrics: an Int metric is an
// INT64 column, a Float a DOUBLE, a Bool a BOOLEAN and a String a
// dictionary-encoded STRING; row.Metrics[i] is the value of metrics[i],
// null if Null is set or the row has fewer than i+1 metrics. metrics is
// stored as JSON in the key/value metadata [MetadataMetrics], for
// [ReadEpisodes].
//
// It returns an error if metrics fails [CheckMetrics]; an error wrapping
// [ErrInvalidRow] if a row's Split is not train, val or test, a row has
// more metrics than declared, or a metric's value does not fit its column
// (an Int that is not a whole number within int64's range, a Bool that is
// not 0 or 1); and an error naming path if the file cannot be written.
// Nothing is written then, and any previous file at path is left
// unchanged.
func WriteEpisodes(path string, metrics []envs.Metric, rows []EpisodeRow) error {
	if err := CheckMetrics(metrics); err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	t, err := prepareEpisodes(metrics, rows)
	if err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	defer t.release()
	if err := writeAtomic(path, t.encode); err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	return nil
}

// encodeEpisodes writes rows, sorted, as episodes.parquet to w (see
// prepareEpisodes); metrics has passed CheckMetrics.
func encodeEpisodes(w io.Writer, metrics []envs.Metric, rows []EpisodeRow) error {
	t, err := prepareEpisodes(metrics, rows)
	if err != nil {
		return err
	}
	defer t.release()
	return t.encode(w)
}

// episodeTable is a table of episodes sorted and gathered into columns,
// ready for encodeColumnar.
type episodeTable struct {
	b    *episodeBuffers
	cols []column
	meta [][2]string
	data []colData
	n    int
}

// encode writes the table as episodes.parquet to w.
func (t *episodeTable) encode(w io.Writer) error {
	return encodeColumnar(w, TableEpisodes, t.cols, t.meta, t.data, t.n)
}

// release gives the table's buffers back for the next call, without the
// rows' strings.
func (t *episodeTable) release() {
	for j := range t.data {
		clear(t.data[j].strs)
	}
	episodePool.Put(t.b)
}

// prepareEpisodes sorts rows by CompareEpisodes and gathers them into the
// columns of episodes.parquet for metrics, which has passed CheckMetrics.
// The strings of the sort key are numbered once (an interner per column),
// the rows sorted on those numbers (sortEpisodes), and the sorted table
// gathered into typed columns (gatherEpisodes, which also checks the rows
// as checkEpisodes does, in the same pass); the buffers are kept for the
// next call. It returns checkEpisodes's error, wrapping ErrInvalidRow, if
// a row does not fit.
func prepareEpisodes(metrics []envs.Metric, rows []EpisodeRow) (*episodeTable, error) {
	b := episodePool.Get().(*episodeBuffers)
	n := len(rows)
	cols := episodeSchema(metrics)
	invalid := func() error {
		if err := checkEpisodes(metrics, rows); err != nil {
			return err
		}
		return fmt.Errorf("%w: a row does not fit the table", ErrInvalidRow) // not reached
	}

	// Number the keys' strings, in row order, and sort.
	keys := newEpisodeKeys(n, &b.keys)
	for i := range rows {
		keys.intern(i, &rows[i])
	}
	for _, s := range keys.splits.strs {
		if splitRank(s) < 0 {
			episodePool.Put(b)
			return nil, invalid()
		}
	}
	order := sortEpisodes(rows, keys, &b.sort)

	// Gather the sorted table into columns.
	data := grow(&b.data, len(cols))
	defs := grow(&b.defs, len(cols))
	for j, c := range cols {
		d := &data[j]
		switch c.typ {
		case colString:
			grow(&d.strs, n)
		case colInt32:
			grow(&d.i32, n)
		case colInt64, colUint64:
			grow(&d.i64, n)
		case colDouble:
			grow(&d.f64, n)
		case colBool:
			grow(&d.b, n)
		}
		d.def = nil
		if c.optional {
			d.def = grow(&defs[j], n)
			clear(d.def)
		}
	}
	var bad atomic.Bool
	parallelRange(n, func(a, b int) {
		if _, ok := gatherEpisodes(data, metrics, rows, order[a:b], a); !ok {
			bad.Store(true)
		}
	})
	t := &episodeTable{b: b, cols: cols, meta: [][2]string{{MetadataMetrics, jsonMetadata(metrics)}}, data: data, n: n}
	if bad.Load() {
		t.release()
		return nil, invalid()
	}
	return t, nil
}

// episodeBuffers holds the buffers of encodeEpisodes, kept from call to
// call in episodePool.
type episodeBuffers struct {
	keys episodeKeys
	sort sortScratch
	data []colData
	defs [][]byte
}

var episodePool = sync.Pool{New: func() any { return new(episodeBuffers) }}

// gatherEpisodes sets rows a, a+1, ... of the columns data to the rows
// order[0], order[1], ... of rows; ok is false if one of those rows has
// more metrics than declared or a metric value that does not fit its
// column (checkMetricValue). The rows are visited in blocks, each touched
// in a first loop so that their cache misses overlap rather than follow
// one another; the sum of what the touch read is returned, so that the
// compiler keeps the loads.
func gatherEpisodes(data []colData, metrics []envs.Metric, rows []EpisodeRow, order []int32, a int) (touch int64, ok bool) {
	ok = true
	const block = 32
	nfixed := len(episodeColumns)
	var ms [block][]envs.MetricValue
	for b0 := 0; b0 < len(order); b0 += block {
		blk := order[b0:min(b0+block, len(order))]
		for _, o := range blk {
			r := &rows[o]
			touch += int64(len(r.Run)) + int64(r.Generation) + int64(r.Repeat) + int64(len(r.Metrics))
		}
		for x, o := range blk {
			i := a + b0 + x
			r := &rows[o]
			data[0].strs[i] = r.Run
			data[1].i32[i] = r.Generation
			data[2].strs[i] = r.Version
			data[3].strs[i] = r.Split
			data[4].strs[i] = r.Variant
			data[5].i64[i] = int64(r.Seed)
			data[6].i32[i] = r.Repeat
			data[7].f64[i] = r.Score
			data[8].strs[i] = r.Cause
			data[9].strs[i] = r.EndReason
			ms[x] = r.Metrics[:min(len(r.Metrics), len(metrics))]
			ok = ok && len(r.Metrics) <= len(metrics)
		}
		// Metric by metric, so that the type switch is per block.
		for k, m := range metrics {
			d := &data[nfixed+k]
			def := d.def[a+b0 : a+b0+len(blk)]
			switch m.Type {
			case envs.Int:
				out := d.i64[a+b0 : a+b0+len(blk)]
				for x := range def {
					if k < len(ms[x]) && !ms[x][k].Null {
						v := ms[x][k].Num
						def[x], out[x] = 1, int64(v)
						ok = ok && v == math.Trunc(v) && v >= -(1<<63) && v < 1<<63
					}
				}
			case envs.Float:
				out := d.f64[a+b0 : a+b0+len(blk)]
				for x := range def {
					if k < len(ms[x]) && !ms[x][k].Null {
						def[x], out[x] = 1, ms[x][k].Num
					}
				}
			case envs.Bool:
				out := d.b[a+b0 : a+b0+len(blk)]
				for x := range def {
					if k < len(ms[x]) && !ms[x][k].Null {
						def[x], out[x] = 1, 0
						switch ms[x][k].Num {
						case 1:
							out[x] = 1
						case 0:
						default:
							ok = false
						}
					}
				}
			default:
				out := d.strs[a+b0 : a+b0+len(blk)]
				for x := range def {
					if k < len(ms[x]) && !ms[x][k].Null {
						def[x], out[x] = 1, ms[x][k].Str
					}
				}
			}
		}
	}
	return touch, ok
}

// WriteCandidates writes rows to the Parquet file path, sorted by
// [CompareCandidates], replacing any existing file atomically. rows is not
// modified; nil or empty rows give a file with the schema and no rows. It
// returns an error naming path if the file cannot be written (in which case
// any previous file at path is left unchanged).
func WriteCandidates(path string, rows []CandidateRow) error {
	return writeTable(path, TableCandidates, rows, orderBy(rows, CompareCandidates))
}

// WriteGenerations writes rows to the Parquet file path, sorted by
// [CompareGenerations], replacing any existing file atomically. rows is not
// modified; nil or empty rows give a file with the schema and no rows.
//
// The columns are those of [GenerationRow], CauseCounts being one
// required INT32 column per cause, named by it, in the order of causes,
// between failures and n_candidates (for the dungeon: injury,
// combat_loss, starvation, entrapment). causes is stored as JSON in the
// key/value metadata [MetadataCauses], for [ReadGenerations].
//
// It returns an error if causes fails [CheckCauses]; an error wrapping
// [ErrInvalidRow] if a row's CauseCounts is neither nil nor of
// len(causes) entries, or has a negative count; and an error naming path
// if the file cannot be written. Nothing is written then, and any
// previous file at path is left unchanged.
func WriteGenerations(path string, causes []envs.Cause, rows []GenerationRow) error {
	if err := CheckCauses(causes); err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	if err := checkGenerations(causes, rows); err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	order := orderBy(rows, CompareGenerations)
	cols := generationSchema(causes)
	meta := [][2]string{{MetadataCauses, jsonMetadata(causes)}}
	return writeRows(path, TableGenerations, cols, meta, len(order), func(i int, e *rowEncoder) {
		g := &rows[order[i]]
		e.put(stringValue(g.Run))
		e.put(parquet.Int32Value(g.Generation))
		e.put(stringValue(g.Incumbent))
		e.put(parquet.Int32Value(g.NTrain))
		e.put(parquet.Int32Value(g.NVal))
		for _, x := range [...]float64{g.TrainMean, g.ValMean, g.ValMedian, g.ValIQM, g.ValCILow, g.ValCIHigh} {
			e.put(parquet.DoubleValue(x))
		}
		e.put(parquet.Int32Value(g.Failures))
		for k := range causes {
			var n int32
			if g.CauseCounts != nil {
				n = g.CauseCounts[k]
			}
			e.put(parquet.Int32Value(n))
		}
		e.put(parquet.Int32Value(g.NCandidates))
		e.putOptional(stringValue(g.Accepted), g.Accepted == "")
		var p float64
		if g.AcceptedP != nil {
			p = *g.AcceptedP
		}
		e.putOptional(parquet.DoubleValue(p), g.AcceptedP == nil)
		e.put(stringValue(g.NextIncumbent))
		e.put(parquet.Int64Value(g.EpisodesUsed))
	})
}

// ReadEpisodes reads all rows of an episodes Parquet file written by
// [WriteEpisodes], in file order, and the metric declarations stored with
// them; each row has len(metrics) metrics (see EpisodeRow.Metrics).
//
// It returns an error wrapping [ErrSchema] if the file's metadata names
// another table or schema version (files of schema 1 and 2 are refused),
// lacks or garbles [MetadataMetrics], or if a declared metric's column is
// missing or of another type. A file without evolve's metadata (written
// by another tool) is read as it is: columns named as EpisodeRow's are
// read by name (missing ones as zero values), and every other top-level
// column is a metric of the type its Parquet type suggests (integers Int,
// floating point Float, BOOLEAN Bool, byte arrays String). Errors name
// path.
func ReadEpisodes(path string) ([]EpisodeRow, []envs.Metric, error) {
	rows, metrics, err := readEpisodes(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results: reading %s: %w", path, err)
	}
	return rows, metrics, nil
}

func readEpisodes(path string) ([]EpisodeRow, []envs.Metric, error) {
	t, err := openTable(path, TableEpisodes)
	if err != nil {
		return nil, nil, err
	}
	defer t.f.Close()
	metrics, err := declarations(t, MetadataMetrics, inferMetric, episodeColumns)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckMetrics(metrics); err != nil {
		return nil, nil, fmt.Errorf("%w: metadata %s: %v", ErrSchema, MetadataMetrics, err)
	}
	cols := episodeSchema(metrics)
	nFixed := len(episodeColumns)
	idx, err := t.columnIndexes(cols, func(i int) bool { return t.evolve && i >= nFixed })
	if err != nil {
		return nil, nil, err
	}
	rows := make([]EpisodeRow, 0, t.pf.NumRows())
	d := rowDecoder{idx: idx}
	err = t.eachRow(func(vals []parquet.Value) {
		d.vals = vals
		r := EpisodeRow{
			Run: d.str(0), Generation: int32(d.int(1)), Version: d.str(2), Split: d.str(3), Variant: d.str(4),
			Seed: uint64(d.int(5)), Repeat: int32(d.int(6)), Score: d.float(7), Cause: d.str(8), EndReason: d.str(9),
			Metrics: make([]envs.MetricValue, len(metrics)),
		}
		for k, m := range metrics {
			r.Metrics[k] = d.metric(nFixed+k, m.Type)
		}
		rows = append(rows, r)
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, metrics, nil
}

// ReadCandidates reads all rows of a candidates Parquet file written by
// [WriteCandidates], in file order. Columns missing from the file read as
// zero values; extra columns are ignored. It returns an error wrapping
// [ErrSchema] if the file's metadata names another table or schema
// version. Errors name path.
func ReadCandidates(path string) ([]CandidateRow, error) {
	return readTable[CandidateRow](path, TableCandidates)
}

// ReadGenerations reads all rows of a generations Parquet file written by
// [WriteGenerations], in file order, and the failure causes stored with
// them; each row's CauseCounts has len(causes) entries.
//
// It returns an error wrapping [ErrSchema] if the file's metadata names
// another table or schema version, lacks or garbles [MetadataCauses], or
// if a declared cause's column is missing or not an integer. A file
// without evolve's metadata (written by another tool) is read as it is:
// columns named as GenerationRow's are read by name (missing ones as zero
// values), and every other top-level integer column is a cause. Errors
// name path.
func ReadGenerations(path string) ([]GenerationRow, []envs.Cause, error) {
	rows, causes, err := readGenerations(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results: reading %s: %w", path, err)
	}
	return rows, causes, nil
}

func readGenerations(path string) ([]GenerationRow, []envs.Cause, error) {
	t, err := openTable(path, TableGenerations)
	if err != nil {
		return nil, nil, err
	}
	defer t.f.Close()
	causes, err := declarations(t, MetadataCauses, inferCause, generationHead, generationTail)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckCauses(causes); err != nil {
		return nil, nil, fmt.Errorf("%w: metadata %s: %v", ErrSchema, MetadataCauses, err)
	}
	cols := generationSchema(causes)
	h, n := len(generationHead), len(causes)
	idx, err := t.columnIndexes(cols, func(i int) bool { return t.evolve && i >= h && i < h+n })
	if err != nil {
		return nil, nil, err
	}
	rows := make([]GenerationRow, 0, t.pf.NumRows())
	d := rowDecoder{idx: idx}
	err = t.eachRow(func(vals []parquet.Value) {
		d.vals = vals
		g := GenerationRow{
			Run: d.str(0), Generation: int32(d.int(1)), Incumbent: d.str(2), NTrain: int32(d.int(3)), NVal: int32(d.int(4)),
			TrainMean: d.float(5), ValMean: d.float(6), ValMedian: d.float(7), ValIQM: d.float(8),
			ValCILow: d.float(9), ValCIHigh: d.float(10), Failures: int32(d.int(11)),
			CauseCounts: make([]int32, n),
			NCandidates: int32(d.int(h + n)), Accepted: d.str(h + n + 1), AcceptedP: d.floatPtr(h + n + 2),
			NextIncumbent: d.str(h + n + 3), EpisodesUsed: d.int(h + n + 4),
		}
		for k := range n {
			g.CauseCounts[k] = int32(d.int(h + k))
		}
		rows = append(rows, g)
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, causes, nil
}

// writerOptions are the options of every table's writer.
func writerOptions(table string) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
		parquet.KeyValueMetadata("evolve.table", table),
		parquet.KeyValueMetadata("evolve.schema_version", strconv.Itoa(TableSchemaVersion(table))),
	}
}

// writeBatch is the number of rows handed to the Parquet writer at a time.
const writeBatch = 4096

// encodeTable writes rows[order[0]], rows[order[1]], ... as Parquet to w,
// gathering them in batches so that the sorted table is never copied
// whole.
func encodeTable[T any](w io.Writer, table string, rows []T, order []int32) error {
	pw := parquet.NewGenericWriter[T](w, writerOptions(table)...)
	batch := make([]T, 0, min(len(order), writeBatch))
	for len(order) > 0 {
		n := min(len(order), writeBatch)
		batch = batch[:0]
		for _, r := range order[:n] {
			batch = append(batch, rows[r])
		}
		if _, err := pw.Write(batch); err != nil {
			return err
		}
		order = order[n:]
	}
	return pw.Close()
}

// writeTable writes rows in the given order as Parquet to path atomically.
func writeTable[T any](path, table string, rows []T, order []int32) error {
	err := writeAtomic(path, func(w io.Writer) error { return encodeTable(w, table, rows, order) })
	if err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	return nil
}

// writeRows writes n rows of a run-time schema as Parquet to path
// atomically (see encodeRows).
func writeRows(path, table string, cols []column, meta [][2]string, n int, fill func(i int, e *rowEncoder)) error {
	err := writeAtomic(path, func(w io.Writer) error { return encodeRows(w, table, cols, meta, n, fill) })
	if err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	return nil
}

// writeAtomic creates path with the bytes write produces, atomically and
// durably (see internal/atomicfile); on error any previous file at path is
// untouched. The new file has mode 0644.
func writeAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, 0o644, func(f *os.File) error { return write(f) })
}

// readTable reads every row of the Parquet file path, which must be the
// table named table of its schema version (TableSchemaVersion) if its
// metadata says.
func readTable[T any](path, table string) ([]T, error) {
	rows, err := readFile[T](path, table)
	if err != nil {
		return nil, fmt.Errorf("results: reading %s: %w", path, err)
	}
	return rows, nil
}

func readFile[T any](path, table string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	if err := checkTableMetadata(pf, table); err != nil {
		return nil, err
	}
	rows := make([]T, pf.NumRows())
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	n, err := r.Read(rows)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return rows[:n], nil
}
