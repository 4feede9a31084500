package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"evolve/internal/atomicfile"
)

// MaxRowsPerRowGroup is the most rows a Parquet row group holds. At 64Ki rows
// a typical run's 10^5 episodes span two row groups of a few MB each, which
// bounds the writer's buffers while keeping row groups large enough for
// efficient column scans.
const MaxRowsPerRowGroup = 1 << 16

// SchemaVersion is the version of the table schemas, stored in each file's
// "evolve.schema_version" key/value metadata. It changes whenever a column
// is added, removed, renamed or changes meaning.
//
// Version 2 renamed episodes.end to end_reason (END is reserved in SQL) and
// made candidates.v (NaN before) and generations.accepted ("" before) null
// where they do not apply.
const SchemaVersion = 2

// Table names, stored in each file's "evolve.table" key/value metadata.
const (
	TableEpisodes    = "episodes"
	TableCandidates  = "candidates"
	TableGenerations = "generations"
)

// ErrInvalidRow is wrapped by the errors of the writers when a row cannot be
// written (an EpisodeRow whose Split is not "train", "val" or "test"), and
// by those of the plot functions when the rows cannot be plotted together
// (rows of more than one run).
var ErrInvalidRow = errors.New("results: invalid row")

// ErrSchema is wrapped by the errors of the readers when a file's
// "evolve.table" or "evolve.schema_version" metadata is not the table read
// or not [SchemaVersion]: its columns would otherwise read as zero values.
// A run directory written by an evolve with another schema is read by that
// evolve (or run again).
var ErrSchema = errors.New("results: table schema mismatch")

// zstdCodec is shared by all writers; the codec is safe for concurrent use.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedDefault}

// WriteEpisodes writes rows to the Parquet file path, sorted by
// [CompareEpisodes], replacing any existing file atomically. rows is not
// modified; nil or empty rows give a file with the schema and no rows. It
// returns an error wrapping [ErrInvalidRow] if a row's Split is not train,
// val or test, and an error naming path if the file cannot be written (in
// which case any previous file at path is left unchanged).
func WriteEpisodes(path string, rows []EpisodeRow) error {
	if err := checkSplits(rows); err != nil {
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	return writeTable(path, TableEpisodes, rows, episodeOrder(rows))
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
// modified; nil or empty rows give a file with the schema and no rows. It
// returns an error naming path if the file cannot be written (in which case
// any previous file at path is left unchanged).
func WriteGenerations(path string, rows []GenerationRow) error {
	recs := make([]generationRecord, len(rows))
	for i := range rows {
		recs[i] = rows[i].record()
	}
	return writeTable(path, TableGenerations, recs, orderBy(rows, CompareGenerations))
}

// ReadEpisodes reads all rows of an episodes Parquet file written by
// [WriteEpisodes], in file order. Columns missing from the file read as zero
// values; extra columns are ignored. It returns an error wrapping
// [ErrSchema] if the file's metadata names another table or schema version
// (a file without that metadata, written by another tool, is read as it
// is). Errors name path.
func ReadEpisodes(path string) ([]EpisodeRow, error) {
	return readTable[EpisodeRow](path, TableEpisodes)
}

// ReadCandidates reads all rows of a candidates Parquet file written by
// [WriteCandidates], in file order. Columns missing from the file read as
// zero values; extra columns are ignored. The error names path.
func ReadCandidates(path string) ([]CandidateRow, error) {
	return readTable[CandidateRow](path, TableCandidates)
}

// ReadGenerations reads all rows of a generations Parquet file written by
// [WriteGenerations], in file order. Columns missing from the file read as
// zero values; extra columns are ignored. The error names path.
func ReadGenerations(path string) ([]GenerationRow, error) {
	recs, err := readTable[generationRecord](path, TableGenerations)
	if err != nil {
		return nil, err
	}
	rows := make([]GenerationRow, len(recs))
	for i := range recs {
		rows[i] = recs[i].row()
	}
	return rows, nil
}

// writerOptions are the options of every table's writer.
func writerOptions(table string) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
		parquet.KeyValueMetadata("evolve.table", table),
		parquet.KeyValueMetadata("evolve.schema_version", strconv.Itoa(SchemaVersion)),
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

// writeAtomic creates path with the bytes write produces, atomically and
// durably (see internal/atomicfile); on error any previous file at path is
// untouched. The new file has mode 0644.
func writeAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, 0o644, func(f *os.File) error { return write(f) })
}

// readTable reads every row of the Parquet file path, which must be the
// table named table of schema SchemaVersion if its metadata says.
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
	if got, ok := pf.Lookup("evolve.table"); ok && got != table {
		return nil, fmt.Errorf("%w: metadata evolve.table is %q, want %q", ErrSchema, got, table)
	}
	if got, ok := pf.Lookup("evolve.schema_version"); ok && got != strconv.Itoa(SchemaVersion) {
		return nil, fmt.Errorf("%w: metadata evolve.schema_version is %q, this evolve reads %d (written by another evolve version: read it with that version or run again)", ErrSchema, got, SchemaVersion)
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
