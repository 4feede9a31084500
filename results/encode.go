package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// This file holds the column encoder of episodes.parquet: it writes a
// table held as typed columns (colData) straight into Parquet pages, in
// exactly the bytes that parquet-go v0.32.0's row writer gives for the
// same rows with the options of writerOptions (encodeRows; the tests
// compare the two over several row groups, with nulls, every column type,
// NaN and empty strings). It does what parquet-go does, without building a
// parquet.Value per cell:
//
//   - row groups of MaxRowsPerRowGroup rows; in each, every column is cut
//     into pages as parquet-go's ColumnWriter cuts them: rows are added 64
//     at a time (columnChunk) and a page is flushed once the column
//     buffer's size estimate reaches 98% of the 256 KiB page buffer
//     (parquet.DefaultPageBufferSize), and at the end of the row group;
//   - data pages v2: definition levels (RLE, bit width 1) uncompressed,
//     values PLAIN (RLE_DICTIONARY for dictionary columns, whose
//     dictionary lists the distinct values in order of first appearance
//     in the row group) compressed with zstdCodec, a CRC-32 of both, and
//     statistics (min, max, null count) in the header;
//   - per column chunk: the dictionary page, then the data pages; the
//     chunk statistics, encoding statistics and size statistics; a column
//     index (parquet-go's own ColumnIndexer, so truncation and boundary
//     order are its) and an offset index written after the last row
//     group, then the footer.
//
// The parts parquet-go exports are used as they are: the RLE encoders, the
// column indexers, the types' comparison, the Thrift encoding of headers
// and footer, and the footer of the empty file (schema, key/value
// metadata, created_by and column orders), which a parquet-go Writer
// writes for the table and encodeColumnar extends with the row groups.
//
// Each column chunk is encoded and compressed as a task of its own, on up
// to GOMAXPROCS goroutines, and the chunks are written in order, so that
// the bytes do not depend on the number of goroutines.

// pageBufferSize is the size estimate at which parquet-go's ColumnWriter
// flushes a page: int32(float64(DefaultPageBufferSize) * 0.98), 256,901
// bytes (a variable, so that the product is truncated as at run time).
var pageBufferSize = int64(float64(parquet.DefaultPageBufferSize) * pageBufferFraction)

// pageBufferFraction is the fraction of the page buffer size that
// parquet-go's ColumnWriter fills before it flushes a page.
var pageBufferFraction = 0.98

// columnIndexSizeLimit is parquet-go's default truncation of the min and
// max values of a column index.
const columnIndexSizeLimit = parquet.DefaultColumnIndexSizeLimit

// colData holds one column of a table, a value per row: the slice of the
// column's type (i32 for colInt32, i64 for colInt64 and colUint64, the
// latter's bits, f64 for colDouble, b for colBool as 0 or 1, strs for
// colString), and def, the definition level of each row (1 value, 0
// null), nil for a required column. The value of a null row is ignored.
type colData struct {
	i32  []int32
	i64  []int64
	f64  []float64
	b    []byte
	strs []string
	def  []byte
}

// encodeColumnar writes the n rows of data, a column per element of cols, as
// Parquet to w with the schema of cols and the table's metadata plus meta
// (key, value pairs), in the bytes of encodeRows for the same values.
// Every string column of cols must be dictionary encoded.
func encodeColumnar(w io.Writer, table string, cols []column, meta [][2]string, data []colData, n int) error {
	for _, c := range cols {
		if c.typ == colString && !c.dict {
			return fmt.Errorf("results: column %s: a string column must be dictionary encoded", c.name)
		}
	}
	empty, err := emptyFile(table, cols, meta)
	if err != nil {
		return err
	}
	if n == 0 {
		_, err := w.Write(empty)
		return err
	}
	var fmd format.FileMetaData
	footerLen := int(binary.LittleEndian.Uint32(empty[len(empty)-8:]))
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), empty[len(empty)-8-footerLen:len(empty)-8], &fmd); err != nil {
		return fmt.Errorf("results: reading the footer of an empty table: %w", err)
	}
	schema := buildSchema(cols)

	nGroups := (n + MaxRowsPerRowGroup - 1) / MaxRowsPerRowGroup
	st := columnarPool.Get().(*columnarState)
	defer columnarPool.Put(st)
	chunks, err := st.encodeChunks(cols, schema.Fields(), data, n, nGroups)
	if err != nil {
		return err
	}
	return st.writeFile(w, empty, &fmd, chunks, len(cols), n, nGroups)
}

// encodeChunks encodes the nGroups*len(cols) column chunks of the n rows
// of data (chunk g*len(cols)+j is column j of row group g), each a task of
// its own on up to GOMAXPROCS goroutines; the chunks are st's buffers.
func (st *columnarState) encodeChunks(cols []column, fields []parquet.Field, data []colData, n, nGroups int) ([]chunkOut, error) {
	// One task per column chunk, the largest first so that the
	// goroutines finish together.
	chunks := grow(&st.chunks, nGroups*len(cols))
	clear(chunks)
	pageBufs := grow(&st.pages, len(chunks))
	order := grow(&st.order, len(chunks))
	for t := range order {
		order[t] = int32(t)
	}
	width := func(t int32) int {
		c := cols[int(t)%len(cols)]
		w := 8
		switch {
		case c.dict || c.typ == colInt32:
			w = 2
		case c.typ == colBool:
			w = 1
		}
		rows := min(n-int(t)/len(cols)*MaxRowsPerRowGroup, MaxRowsPerRowGroup)
		return w * rows
	}
	slices.SortStableFunc(order, func(a, b int32) int { return width(b) - width(a) })
	next := make(chan int32, len(chunks))
	for _, t := range order {
		next <- t
	}
	close(next)
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	for len(st.encoders) < workers {
		st.encoders = append(st.encoders, newChunkEncoder())
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := st.encoders[k]
			for t := range next {
				g, j := int(t)/len(cols), int(t)%len(cols)
				lo := g * MaxRowsPerRowGroup
				hi := min(n, lo+MaxRowsPerRowGroup)
				chunks[t] = enc.encode(cols[j], fields[j].Type(), &data[j], lo, hi, pageBufs[t][:0])
				pageBufs[t] = chunks[t].pages
			}
		}()
	}
	wg.Wait()
	for _, e := range st.encoders {
		if e.dict != nil {
			e.dict.reset() // the rows' strings are not kept
		}
	}
	for t := range chunks {
		if chunks[t].err != nil {
			return nil, chunks[t].err
		}
	}
	return chunks, nil
}

// writeFile writes to w the Parquet file of the encoded chunks (nCols
// columns, nGroups row groups, n rows): the magic number, each row group's
// chunks, the column and offset indexes, and fmd, the footer of the empty
// file (empty) completed with the row groups.
func (st *columnarState) writeFile(w io.Writer, empty []byte, fmd *format.FileMetaData, chunks []chunkOut, nCols, n, nGroups int) error {
	size := len(empty)
	for t := range chunks {
		size += len(chunks[t].dict) + len(chunks[t].pages) + 64*len(chunks[t].offsets.PageLocations) + 256
	}
	if cap(st.out) < size {
		st.out = make([]byte, 0, size)
	}
	out := bytes.NewBuffer(st.out[:0])
	defer func() { st.out = out.Bytes()[:0] }()
	pos := func() int64 { return int64(out.Len()) }
	out.WriteString("PAR1")
	sortingColumns := []format.SortingColumn{}
	fmd.RowGroups = make([]format.RowGroup, nGroups)
	for g := range nGroups {
		rg := &fmd.RowGroups[g]
		rg.FileOffset = pos()
		rg.NumRows = int64(min(n, (g+1)*MaxRowsPerRowGroup) - g*MaxRowsPerRowGroup)
		rg.SortingColumns = sortingColumns
		rg.Ordinal = int16(g)
		rg.Columns = make([]format.ColumnChunk, nCols)
		for j := range nCols {
			c := &chunks[g*nCols+j]
			md := &c.meta
			if c.dict != nil {
				md.DictionaryPageOffset = pos()
				out.Write(c.dict)
			}
			md.DataPageOffset = pos()
			for k := range c.offsets.PageLocations {
				c.offsets.PageLocations[k].Offset += md.DataPageOffset
			}
			out.Write(c.pages)
			rg.TotalByteSize += md.TotalUncompressedSize
			rg.TotalCompressedSize += md.TotalCompressedSize
			rg.Columns[j].MetaData = *md
		}
	}
	enc := thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(out))
	for g := range nGroups {
		for j := range nCols {
			cc := &fmd.RowGroups[g].Columns[j]
			cc.ColumnIndexOffset = pos()
			if err := enc.Encode(&chunks[g*nCols+j].index); err != nil {
				return err
			}
			cc.ColumnIndexLength = int32(pos() - cc.ColumnIndexOffset)
		}
	}
	for g := range nGroups {
		for j := range nCols {
			cc := &fmd.RowGroups[g].Columns[j]
			cc.OffsetIndexOffset = pos()
			if err := enc.Encode(&chunks[g*nCols+j].offsets); err != nil {
				return err
			}
			cc.OffsetIndexLength = int32(pos() - cc.OffsetIndexOffset)
		}
	}
	fmd.NumRows = int64(n)
	start := pos()
	if err := enc.Encode(fmd); err != nil {
		return err
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(pos()-start))
	copy(tail[4:], "PAR1")
	out.Write(tail[:])
	_, err := w.Write(out.Bytes())
	return err
}

// emptyFile returns the bytes parquet-go writes for the table with no
// rows: the magic number and the footer whose schema, key/value metadata,
// created_by and column orders encodeColumnar keeps.
func emptyFile(table string, cols []column, meta [][2]string) ([]byte, error) {
	opts := append(writerOptions(table), buildSchema(cols))
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	var b bytes.Buffer
	if err := parquet.NewWriter(&b, opts...).Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// columnarState holds the buffers of encodeColumnar, kept from call to
// call in columnarPool so that writing a table allocates little.
type columnarState struct {
	chunks   []chunkOut
	pages    [][]byte
	order    []int32
	encoders []*chunkEncoder
	out      []byte
}

var columnarPool = sync.Pool{New: func() any { return new(columnarState) }}

// grow returns (*s)[:n], reallocating *s if its capacity is less than n;
// the elements are not cleared.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}

// chunkOut is one encoded column chunk: its dictionary page (header and
// body; nil without a dictionary), its data pages, and its metadata, the
// page locations relative to the first data page.
type chunkOut struct {
	dict    []byte
	pages   []byte
	meta    format.ColumnMetaData
	index   format.ColumnIndex
	offsets format.OffsetIndex
	err     error
}

// chunkEncoder encodes column chunks; its buffers are reused from chunk to
// chunk. It is used by one goroutine.
type chunkEncoder struct {
	header bytes.Buffer
	henc   *thrift.Encoder
	defs   []byte // encoded definition levels of a page
	plain  []byte // encoded values of a page, when copied
	body   []byte // encoded values of a page: plain, or a column's memory
	packed []int32
	tmp32  []int32
	tmp64  []int64
	tmpU   []uint64
	tmpF   []float64
	tmpB   []byte
	zbuf   []byte    // compressed page
	dict   *interner // the dictionary of a chunk
}

func newChunkEncoder() *chunkEncoder {
	e := new(chunkEncoder)
	e.henc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&e.header))
	return e
}

// chunkState is the state of one column chunk while encode cuts it into
// pages: the column, its Parquet type and data, the dictionary and the
// dictionary index of each non-null value (dictionary columns only), and
// what the chunk's metadata accumulates page after page.
type chunkState struct {
	c             column
	typ           parquet.Type
	kind          parquet.Kind
	d             *colData
	dict          []string
	idx           []int32
	valueEncoding format.Encoding

	indexer      parquet.ColumnIndexer
	defHist      []int64 // definition level histogram of the chunk (optional columns)
	pageDefHists []int64 // the same, per page, concatenated
	stats        format.Statistics
	haveBounds   bool
	chunkMin     parquet.Value
	chunkMax     parquet.Value
	numRows      int64
	encStats     []format.PageEncodingStats
	nv           int // non-null values before the next page
}

// addEncStats counts one page of type pt with encoding enc.
func (s *chunkState) addEncStats(pt format.PageType, enc format.Encoding) {
	for i := range s.encStats {
		if s.encStats[i].PageType == pt && s.encStats[i].Encoding == enc {
			s.encStats[i].Count++
			return
		}
	}
	s.encStats = append(s.encStats, format.PageEncodingStats{PageType: pt, Encoding: enc, Count: 1})
}

// encode returns the column chunk of rows lo to hi-1 of column c, of
// parquet type typ, held in d; its data pages are appended to pages.
func (e *chunkEncoder) encode(c column, typ parquet.Type, d *colData, lo, hi int, pages []byte) (out chunkOut) {
	s := &chunkState{c: c, typ: typ, kind: typ.Kind(), d: d}
	out.meta = format.ColumnMetaData{
		Type:         format.Type(s.kind),
		PathInSchema: []string{c.name},
		Codec:        format.Zstd,
	}
	s.valueEncoding = format.Plain
	var encodings []format.Encoding
	if c.optional {
		encodings = append(encodings, format.RLE)
	}
	if c.dict {
		encodings = append(encodings, format.Plain)
		s.valueEncoding = format.RLEDictionary
	}
	if !slices.Contains(encodings, s.valueEncoding) {
		encodings = append(encodings, s.valueEncoding)
	}
	slices.Sort(encodings)
	out.meta.Encoding = encodings

	// The dictionary of the chunk, its distinct values in order of first
	// appearance, and the index of each non-null value in it.
	if c.dict {
		if e.dict == nil {
			e.dict = newInterner()
		}
		e.dict.reset()
		idx := e.packed[:0]
		for i := lo; i < hi; i++ {
			if d.def != nil && d.def[i] == 0 {
				continue
			}
			idx = append(idx, e.dict.id(d.strs[i]))
		}
		e.packed = idx
		s.idx = idx
		s.dict = e.dict.strs
	}

	s.indexer = typ.NewColumnIndexer(columnIndexSizeLimit)
	if c.optional {
		s.defHist = make([]int64, 2)
	}

	// Rows are added columnChunk at a time; a page is flushed when the
	// column buffer's size estimate reaches pageBufferSize.
	p0, m := lo, 0
	var err error
	for i := lo; i < hi; {
		k := min(columnChunk, hi-i)
		if d.def != nil {
			for _, l := range d.def[i : i+k] {
				m += int(l)
			}
		} else {
			m += k
		}
		i += k
		if bufferSize(c, s.kind, int64(i-p0), int64(m)) >= pageBufferSize {
			if pages, err = e.flushPage(s, &out, p0, i, pages); err != nil {
				out.err = err
				return out
			}
			p0, m = i, 0
		}
	}
	if p0 < hi {
		if pages, err = e.flushPage(s, &out, p0, hi, pages); err != nil {
			out.err = err
			return out
		}
	}
	if c.dict {
		if err := e.dictPage(s, &out); err != nil {
			out.err = err
			return out
		}
	}
	out.pages = pages
	out.meta.Statistics = s.stats
	slices.SortFunc(s.encStats, func(a, b format.PageEncodingStats) int {
		if a.PageType != b.PageType {
			return int(a.PageType) - int(b.PageType)
		}
		return int(a.Encoding) - int(b.Encoding)
	})
	out.meta.EncodingStats = s.encStats
	out.meta.SizeStatistics = format.SizeStatistics{DefinitionLevelHistogram: s.defHist}
	out.index = s.indexer.ColumnIndex()
	out.index.RepetitionLevelHistogram = out.index.RepetitionLevelHistogram[:0]
	out.index.DefinitionLevelHistogram = append(out.index.DefinitionLevelHistogram[:0], s.pageDefHists...)
	return out
}

// flushPage appends to pages the data page of rows p0 to p1-1 of the chunk
// s (header, definition levels, compressed values) and records it in out's
// metadata and offset index and in s's statistics; it returns pages.
func (e *chunkEncoder) flushPage(s *chunkState, out *chunkOut, p0, p1 int, pages []byte) ([]byte, error) {
	c, d := s.c, s.d
	rows := p1 - p0
	var defs []byte
	m := rows
	if c.optional {
		m = 0
		for _, l := range d.def[p0:p1] {
			m += int(l)
		}
		var err error
		if e.defs, err = (&rle.Encoding{BitWidth: 1}).EncodeLevels(e.defs[:0], d.def[p0:p1]); err != nil {
			return pages, err
		}
		defs = e.defs
	}
	nulls := int64(rows - m)
	minV, maxV, ok, err := e.encodeValues(c, s.kind, d, s.dict, s.idx, p0, p1, s.nv, m)
	if err != nil {
		return pages, err
	}
	s.nv += m
	uncompressed := len(defs) + len(e.body)
	compressed, err := zstdCodec.Encode(e.zbuf[:0], e.body)
	if err != nil {
		return pages, fmt.Errorf("compressing parquet data page: %w", err)
	}
	e.zbuf = compressed
	crc := crc32.Update(crc32.Update(0, crc32.IEEETable, defs), crc32.IEEETable, compressed)
	minB, maxB := minV.Bytes(), maxV.Bytes()
	h := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(uncompressed),
		CompressedPageSize:   int32(len(defs) + len(compressed)),
		CRC:                  int32(crc),
	}
	h.DataPageHeaderV2.Valid = true
	h.DataPageHeaderV2.V = format.DataPageHeaderV2{
		NumValues:                  int32(rows),
		NumNulls:                   int32(nulls),
		NumRows:                    int32(rows),
		Encoding:                   s.valueEncoding,
		DefinitionLevelsByteLength: int32(len(defs)),
		IsCompressed:               thrift.New(true),
		Statistics:                 format.Statistics{Min: minB, Max: maxB, NullCount: nulls, MinValue: minB, MaxValue: maxB},
	}
	e.header.Reset()
	if err := e.henc.Encode(&h); err != nil {
		return pages, err
	}
	hl := int64(e.header.Len())
	pageStart := len(pages)
	pages = append(pages, e.header.Bytes()...)
	pages = append(pages, defs...)
	pages = append(pages, compressed...)

	// parquet-go's ColumnWriter.recordPageStats.
	s.indexer.IndexPage(int64(rows), nulls, minV, maxV)
	out.meta.NumValues += int64(rows)
	s.stats.NullCount += nulls
	if ok {
		if !s.haveBounds || s.typ.Compare(maxV, s.chunkMax) > 0 {
			s.chunkMax = maxV
			s.stats.MaxValue = maxV.AppendBytes(make([]byte, 0, len(maxB)))
		}
		if !s.haveBounds || s.typ.Compare(minV, s.chunkMin) < 0 {
			s.chunkMin = minV
			s.stats.MinValue = minV.AppendBytes(make([]byte, 0, len(minB)))
		}
		s.haveBounds = true
	}
	out.offsets.PageLocations = append(out.offsets.PageLocations, format.PageLocation{
		Offset:             out.meta.TotalCompressedSize,
		CompressedPageSize: int32(len(pages) - pageStart),
		FirstRowIndex:      s.numRows,
	})
	s.numRows += int64(rows)
	if c.optional {
		n1 := int64(m)
		s.defHist[0] += int64(rows) - n1
		s.defHist[1] += n1
		s.pageDefHists = append(s.pageDefHists, int64(rows)-n1, n1)
	}
	out.meta.TotalUncompressedSize += hl + int64(uncompressed)
	out.meta.TotalCompressedSize += int64(len(pages) - pageStart)
	s.addEncStats(format.DataPageV2, s.valueEncoding)
	return pages, nil
}

// dictPage sets out.dict to the dictionary page of the chunk s (PLAIN
// values, compressed) and adds it to out's sizes and s's statistics.
func (e *chunkEncoder) dictPage(s *chunkState, out *chunkOut) error {
	e.plain = e.plain[:0]
	for _, v := range s.dict {
		e.plain = binary.LittleEndian.AppendUint32(e.plain, uint32(len(v)))
		e.plain = append(e.plain, v...)
	}
	compressed, err := zstdCodec.Encode(nil, e.plain)
	if err != nil {
		return fmt.Errorf("compressing parquet dictionary page: %w", err)
	}
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(e.plain)),
		CompressedPageSize:   int32(len(compressed)),
		CRC:                  int32(crc32.ChecksumIEEE(compressed)),
	}
	h.DictionaryPageHeader.Valid = true
	h.DictionaryPageHeader.V = format.DictionaryPageHeader{NumValues: int32(len(s.dict)), Encoding: format.Plain}
	e.header.Reset()
	if err := e.henc.Encode(&h); err != nil {
		return err
	}
	hl := int64(e.header.Len())
	out.dict = append(append(make([]byte, 0, int(hl)+len(compressed)), e.header.Bytes()...), compressed...)
	out.meta.TotalUncompressedSize += hl + int64(len(e.plain))
	out.meta.TotalCompressedSize += int64(len(out.dict))
	s.addEncStats(format.DictionaryPage, format.Plain)
	return nil
}

// bufferSize is parquet-go's size estimate of a column buffer holding rows
// rows, m of them not null (optionalColumnBuffer.Size over the Size of the
// buffer of the column's type).
func bufferSize(c column, kind parquet.Kind, rows, m int64) int64 {
	var base int64
	switch {
	case c.dict, kind == parquet.Int32:
		base = 4 * m
	case kind == parquet.Boolean:
		base = (m + 7) / 8
	default:
		base = 8 * m
	}
	if c.optional {
		return 4*rows + rows + base
	}
	return base
}

// encodeValues sets e.body to the encoding of the m non-null values of
// rows p0 to p1-1 (the first being the nv-th non-null value of the chunk,
// idx holding the indexes into dict of a dictionary column), and returns
// their min and max as parquet-go's pages compute them; ok is false if m
// is 0.
func (e *chunkEncoder) encodeValues(c column, kind parquet.Kind, d *colData, dict []string, idx []int32, p0, p1, nv, m int) (minV, maxV parquet.Value, ok bool, err error) {
	e.plain = e.plain[:0]
	e.body = nil
	defer func() {
		if e.body == nil {
			e.body = e.plain
		}
	}()
	ok = m > 0
	var def []byte
	if d.def != nil {
		def = d.def[p0:p1]
	}
	switch {
	case c.dict:
		page := idx[nv : nv+m]
		if e.plain, err = (&rle.DictionaryEncoding{}).EncodeInt32(e.plain, page); err != nil {
			return
		}
		if ok {
			// byteArrayDictionary.Bounds: from the first value, by
			// strict comparisons, each distinct index compared once.
			lo := dict[page[0]]
			hi := lo
			last := page[0]
			for _, k := range page[1:] {
				if k == last {
					continue
				}
				last = k
				s := dict[k]
				switch {
				case s < lo:
					lo = s
				case s > hi:
					hi = s
				}
			}
			minV, maxV = parquet.ByteArrayValue(nonNilBytes(lo)), parquet.ByteArrayValue(nonNilBytes(hi))
		}
	case kind == parquet.Int32:
		vals, lo, hi := compactBounds(&e.tmp32, d.i32[p0:p1], def)
		e.body = e.plainOf(vals)
		if ok {
			minV, maxV = parquet.Int32Value(lo), parquet.Int32Value(hi)
		}
	case kind == parquet.Int64 && c.typ == colUint64:
		// The bits of uint64 values, ordered as unsigned.
		col := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(d.i64))), len(d.i64))
		vals, lo, hi := compactBounds(&e.tmpU, col[p0:p1], def)
		e.body = e.plainOf(unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)))
		if ok {
			minV, maxV = parquet.Int64Value(int64(lo)), parquet.Int64Value(int64(hi))
		}
	case kind == parquet.Int64:
		vals, lo, hi := compactBounds(&e.tmp64, d.i64[p0:p1], def)
		e.body = e.plainOf(vals)
		if ok {
			minV, maxV = parquet.Int64Value(lo), parquet.Int64Value(hi)
		}
	case kind == parquet.Double:
		vals := compact(&e.tmpF, d.f64[p0:p1], def)
		e.body = e.plainOf(vals)
		if ok {
			lo, hi := doubleBounds(vals)
			minV, maxV = parquet.DoubleValue(lo), parquet.DoubleValue(hi)
		}
	case kind == parquet.Boolean:
		vals := compact(&e.tmpB, d.b[p0:p1], def)
		hasFalse, hasTrue := false, false
		for k := 0; k < len(vals); k += 8 {
			var b byte
			for i, v := range vals[k:min(k+8, len(vals))] {
				b |= (v & 1) << i
				hasTrue = hasTrue || v&1 != 0
				hasFalse = hasFalse || v&1 == 0
			}
			e.plain = append(e.plain, b)
		}
		if ok {
			minV, maxV = parquet.BooleanValue(!hasFalse), parquet.BooleanValue(hasTrue)
		}
	default:
		err = errors.New("results: column type not supported by the column encoder")
	}
	return
}

// doubleBounds is doublePage.Bounds of parquet-go: NaNs are skipped, by
// strict comparisons from the first other value; if all are NaN, the
// first value is both bounds. vals is not empty.
func doubleBounds(vals []float64) (lo, hi float64) {
	i := 0
	for i < len(vals) && math.IsNaN(vals[i]) {
		i++
	}
	if i == len(vals) {
		return vals[0], vals[0]
	}
	lo, hi = vals[i], vals[i]
	for _, v := range vals[i+1:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// compact returns the values of vals whose definition level in def is 1,
// in order: vals itself if def is nil, else a copy in *buf.
func compact[T any](buf *[]T, vals []T, def []byte) []T {
	if def == nil {
		return vals
	}
	out := (*buf)[:0]
	for i, l := range def {
		if l != 0 {
			out = append(out, vals[i])
		}
	}
	*buf = out
	return out
}

// compactBounds is compact, also returning the least and the greatest of
// the values kept (zero if none), in the same pass.
func compactBounds[T int32 | int64 | uint64](buf *[]T, vals []T, def []byte) (out []T, lo, hi T) {
	if def == nil {
		if len(vals) > 0 {
			lo, hi = vals[0], vals[0]
		}
		for _, v := range vals {
			lo, hi = min(lo, v), max(hi, v)
		}
		return vals, lo, hi
	}
	out = slices.Grow((*buf)[:0], len(vals))[:len(vals)]
	k := 0
	first := true
	for i, l := range def {
		if l == 0 {
			continue
		}
		v := vals[i]
		out[k] = v
		k++
		if first {
			lo, hi, first = v, v, false
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	out = out[:k]
	*buf = out
	return out, lo, hi
}

// nativeLittleEndian reports whether the machine stores integers least
// significant byte first, as Parquet's PLAIN encoding does.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// plainOf returns the PLAIN encoding of vals: their own memory if the
// machine is little endian (vals, a column's memory or a compacted copy,
// must then not change while the result is used), else a copy in e.plain.
func (e *chunkEncoder) plainOf(vals any) []byte {
	view := nativeLittleEndian
	switch v := vals.(type) {
	case []int32:
		if view {
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
		}
		e.plain = appendPlain(e.plain, v)
	case []int64:
		if view {
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))
		}
		e.plain = appendPlain(e.plain, v)
	case []float64:
		if view {
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))
		}
		e.plain = appendPlain(e.plain, v)
	}
	return e.plain
}

// appendPlain appends the PLAIN encoding of vals (fixed-width little
// endian) to dst.
func appendPlain[T int32 | int64 | float64](dst []byte, vals []T) []byte {
	if nativeLittleEndian {
		var zero T
		size := int(unsafe.Sizeof(zero))
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), size*len(vals))...)
	}
	for _, v := range vals {
		switch x := any(v).(type) {
		case int32:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(x))
		case int64:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(x))
		case float64:
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
		}
	}
	return dst
}

// nonNilBytes returns the bytes of s, a non-nil slice even when s is
// empty: a dictionary's values are never nil, and Thrift writes an empty
// min or max but omits a nil one.
func nonNilBytes(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// interner numbers the distinct strings it is given from 0, in order of
// first appearance. Strings are looked up first by their data pointer and
// length, in a small open-addressing table (the strings of a table's rows
// mostly share a few backing arrays), then by content.
type interner struct {
	ids   map[string]int32
	strs  []string // by id
	slots []internSlot
	used  int
	empty int32 // id of "", -1 before it is seen
}

// internSlot maps a string's data pointer and length to its id; p is nil
// in an empty slot.
type internSlot struct {
	p  *byte
	n  int
	id int32
}

// maxInternSlots bounds the pointer table; beyond half of it, strings are
// looked up by content only.
const maxInternSlots = 1 << 14

func newInterner() *interner {
	return &interner{ids: make(map[string]int32), slots: make([]internSlot, 64), empty: -1}
}

// id returns the id of s.
func (t *interner) id(s string) int32 {
	if len(s) == 0 {
		if t.empty < 0 {
			t.empty = t.add(s)
		}
		return t.empty
	}
	p := unsafe.StringData(s)
	mask := len(t.slots) - 1
	h := slotHash(p, len(s)) & mask
	for {
		sl := &t.slots[h]
		if sl.p == p && sl.n == len(s) {
			return sl.id
		}
		if sl.p == nil {
			break
		}
		h = (h + 1) & mask
	}
	id, ok := t.ids[s]
	if !ok {
		id = t.add(s)
	}
	if 2*(t.used+1) > len(t.slots) {
		if 2*len(t.slots) > maxInternSlots {
			return id
		}
		t.grow()
		mask = len(t.slots) - 1
		h = slotHash(p, len(s)) & mask
		for t.slots[h].p != nil {
			h = (h + 1) & mask
		}
	}
	t.slots[h] = internSlot{p: p, n: len(s), id: id}
	t.used++
	return id
}

// reset forgets all strings, keeping the memory.
func (t *interner) reset() {
	clear(t.ids)
	clear(t.strs)
	t.strs = t.strs[:0]
	clear(t.slots)
	t.used = 0
	t.empty = -1
}

func (t *interner) add(s string) int32 {
	id := int32(len(t.strs))
	t.strs = append(t.strs, s)
	t.ids[s] = id
	return id
}

func (t *interner) grow() {
	old := t.slots
	t.slots = make([]internSlot, 2*len(old))
	mask := len(t.slots) - 1
	for _, sl := range old {
		if sl.p == nil {
			continue
		}
		h := slotHash(sl.p, sl.n) & mask
		for t.slots[h].p != nil {
			h = (h + 1) & mask
		}
		t.slots[h] = sl
	}
}

// slotHash is a multiplicative (Fibonacci) hash of a pointer and a length.
func slotHash(p *byte, n int) int {
	return int((uint64(uintptr(unsafe.Pointer(p))) ^ uint64(n)<<48) * 0x9E3779B97F4A7C15 >> 40)
}

// parallelRange calls fn(a, b) on up to GOMAXPROCS goroutines for
// consecutive ranges [a, b) covering [0, n), and waits for them.
func parallelRange(n int, fn func(a, b int)) {
	k := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	if k <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		a, b := i*n/k, (i+1)*n/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(a, b)
		}()
	}
	wg.Wait()
}
