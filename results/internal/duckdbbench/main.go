// Command duckdbbench times DuckDB's single-threaded COPY ... TO parquet of
// a table, the reference for evolve's episodes.parquet writer (make
// bench-duckdb). It is a module of its own so that evolve itself does not
// depend on DuckDB (cgo, a large static library).
//
// Usage:
//
//	duckdbbench [-n N] FILE.parquet
//
// It loads FILE into an in-memory table, then N times writes it with
// COPY t TO '...' (FORMAT parquet, COMPRESSION zstd) on one thread, and
// prints the median rows/s in Go benchmark format, so that benchstat reads
// it beside BenchmarkWriteEpisodes.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	n := flag.Int("n", 6, "number of timed COPY statements")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: duckdbbench [-n N] FILE.parquet")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *n); err != nil {
		fmt.Fprintln(os.Stderr, "duckdbbench:", err)
		os.Exit(1)
	}
}

func run(file string, n int) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var version string
	if err := db.QueryRow("SELECT version()").Scan(&version); err != nil {
		return err
	}
	for _, q := range []string{
		"SET threads = 1",
		fmt.Sprintf("CREATE TABLE t AS SELECT * FROM read_parquet('%s')", file),
	} {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	var rows int64
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&rows); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "duckdbbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "copy.parquet")
	var secs []float64
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := db.Exec(fmt.Sprintf("COPY t TO '%s' (FORMAT parquet, COMPRESSION zstd)", out)); err != nil {
			return err
		}
		secs = append(secs, time.Since(start).Seconds())
	}
	fmt.Printf("# DuckDB %s, %d rows, threads=1\n", version, rows)
	for _, s := range secs {
		fmt.Printf("BenchmarkDuckDBCopyParquet\t1\t%.0f ns/op\t%.0f rows/s\n", s*1e9, float64(rows)/s)
	}
	slices.Sort(secs)
	fmt.Fprintf(os.Stderr, "median: %.0f rows/s\n", float64(rows)/secs[len(secs)/2])
	return nil
}
