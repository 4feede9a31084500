// Package results writes what an evolution run produced: the episode,
// candidate and generation tables as Parquet files, and the plots drawn from
// them.
//
// A run directory receives, in this order:
//
//  1. episodes.parquet: one [EpisodeRow] per episode played (train episodes of
//     each generation's incumbent, val episodes of the incumbent and of every
//     candidate, test episodes of the final version), written by
//     [WriteEpisodes];
//  2. candidates.parquet: one [CandidateRow] per candidate per generation,
//     with its val statistics and the acceptance test against the incumbent,
//     written by [WriteCandidates];
//  3. generations.parquet: one [GenerationRow] per generation, written by
//     [WriteGenerations];
//  4. plots/val_by_generation.{png,svg} and plots/candidates.{png,svg}, drawn
//     by [PlotValByGeneration] and [PlotCandidates] (which also write .pdf
//     when asked to). [ValByGenerationFigure] and [CandidatesFigure] return
//     the same plots as a [Figure] for a report to save at another path or
//     size. [FailureCausesFigure] (its bars and legend are the
//     environment's declared causes) and [LineageFigure] draw a report's
//     further figures.
//
// # Determinism
//
// Every output is a pure function of its input rows: the writers write the
// rows in a documented total order ([CompareEpisodes], [CompareCandidates],
// [CompareGenerations]), leaving the caller's slice as it was, so the same
// multiset of rows gives a byte-identical Parquet file whatever the order the
// caller collected them in (for one build: the file records the parquet-go
// version that wrote it). PNG, SVG and PDF plots are byte-identical across
// runs for the same rows in any order: a PDF's creation and modification
// dates are the SOURCE_DATE_EPOCH environment variable (Unix seconds) if
// set, else the Unix epoch, as reproducible-builds.org recommends.
//
// # Atomicity
//
// Every file is written to a temporary file in the destination directory,
// fsynced, and renamed over the destination (then the directory is fsynced),
// so a reader or a resumed run sees either the previous file or the
// complete new one, never a partial file. Errors name the path.
//
// # Parquet layout
//
// Column names are snake_case; integers keep their Go width and signedness
// (seed is an unsigned 64-bit integer). Pages are compressed with zstd;
// low-cardinality string columns (run, version, split, cause, ...) are
// dictionary encoded. Row groups hold at most [MaxRowsPerRowGroup] rows.
// Each file carries the key/value metadata "evolve.table" (episodes,
// candidates or generations) and "evolve.schema_version"
// ([TableSchemaVersion]).
//
// [WriteEpisodes] encodes episodes.parquet itself, column by column: the
// sorted rows are gathered into typed columns, cut into pages, their
// dictionaries built per row group, and each column chunk compressed as a
// task of its own on up to GOMAXPROCS goroutines, in exactly the bytes
// that parquet-go's row writer gives for the same rows (the tests compare
// the two), so the file is the same whatever GOMAXPROCS is. make
// bench-duckdb times it against DuckDB's COPY ... TO parquet of the same
// 100,000 rows.
//
// Two tables have columns that the environment declares, so their schema
// is built when they are written:
//
//   - episodes.parquet: run, generation, version, split, seed, score
//     (DOUBLE), cause, end_reason, then one column per declared metric
//     (envs.Metric), in declared order and named by it: INT64 for an int
//     metric, DOUBLE for float, BOOLEAN for bool, dictionary-encoded
//     STRING for string. The declarations are stored as JSON under
//     [MetadataMetrics]. For the dungeon the metric columns are depth,
//     turns, kills, gold, xl, killed_by and turns_explore ... turns_wait.
//   - generations.parquet: one INT32 column per declared failure cause
//     (envs.Cause), in declared order and named by it, between failures and
//     n_candidates; the causes are stored as JSON under [MetadataCauses].
//     For the dungeon: injury, combat_loss, starvation, entrapment.
//
// candidates.parquet has the fixed columns of [CandidateRow]'s parquet
// struct tags. The files are read back with [ReadEpisodes] (rows and
// metric declarations), [ReadCandidates] and [ReadGenerations] (rows and
// causes), and are readable by any Parquet reader (the tests read them
// with Apache Arrow's reader); in SQL a metric is a column like any other
// (SELECT version, avg(turns) FROM 'episodes.parquet' GROUP BY version).
//
// # Missing values
//
// A value that does not apply is null, so that a reader cannot mistake it
// for a measurement (a sentinel such as 1.0 would read as a real p-value,
// and NaN passes silently through SQL aggregations). The optional
// (nullable) columns are: every metric column of episodes.parquet, null
// where the episode reported no value (EpisodeRow.Metrics shorter than
// the declaration, as for an episode that could not be played, or an
// entry with Null set); candidates.v (CandidateRow.V, a *float64), null
// when the acceptance test is not the signed-rank test; generations.accepted
// and generations.accepted_p, null when no candidate was accepted
// (GenerationRow.Accepted is "" and GenerationRow.AcceptedP nil). Statistics
// that apply but are undefined for the sample at hand (the standard
// deviation and CI of fewer than two scores, any statistic of an empty
// sample) are NaN, which Parquet readers preserve in a DOUBLE column.
package results
