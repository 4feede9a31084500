// Command duckdbbench times DuckDB's single-threaded COPY ... TO parquet of
// a table, the reference for evolve's episodes.parquet writer (make
// bench-duckdb). It is a module of its own so that evolve itself does not
// depend on DuckDB (cgo, a large static library).
//
// Usage:
//
//	duckdbbench [-n N] [-warmup W] FILE.parquet
//
// It loads FILE into an in-memory table, writes it W times untimed (to
// warm DuckDB's allocator and caches, as a Go benchmark warms up before
// it times), then N times with COPY t TO '...' (FORMAT parquet,
// COMPRESSION zstd) on one thread, and prints each time in Go benchmark
// format, so that benchstat reads it beside BenchmarkWriteEpisodes; the
// median rows/s goes to stderr. make bench-duckdb runs it once per round,
// between runs of the Go benchmarks, so that the load of the machine
// falls on both alike.
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
	warmup := flag.Int("warmup", 1, "number of untimed COPY statements before them")
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "usage: duckdbbench [-n N >= 1] [-warmup W >= 0] FILE.parquet")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *n, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "duckdbbench:", err)
		os.Exit(1)
	}
}

func run(file string, n, warmup int) error {
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
	for i := 0; i < warmup+n; i++ {
		start := time.Now()
		if _, err := db.Exec(fmt.Sprintf("COPY t TO '%s' (FORMAT parquet, COMPRESSION zstd)", out)); err != nil {
			return err
		}
		if i >= warmup {
			secs = append(secs, time.Since(start).Seconds())
		}
	}
	fmt.Printf("# DuckDB %s, %d rows, threads=1\n", version, rows)
	for _, s := range secs {
		fmt.Printf("BenchmarkDuckDBCopyParquet\t1\t%.0f ns/op\t%.0f rows/s\n", s*1e9, float64(rows)/s)
	}
	slices.Sort(secs)
	fmt.Fprintf(os.Stderr, "median: %.0f rows/s\n", float64(rows)/secs[len(secs)/2])
	return nil
}
