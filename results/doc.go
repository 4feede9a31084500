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
//     size.
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
// Column names are snake_case and given by the parquet struct tags of the row
// types; integers keep their Go width and signedness (seed is an unsigned
// 64-bit integer). Pages are compressed with zstd; low-cardinality string
// columns (run, version, split, cause, ...) are dictionary encoded. Row groups hold at most
// [MaxRowsPerRowGroup] rows. Each file carries the key/value metadata
// "evolve.table" (episodes, candidates or generations) and
// "evolve.schema_version" ([SchemaVersion]). The files are read back with
// [ReadEpisodes], [ReadCandidates] and [ReadGenerations], and are readable
// by any Parquet reader (the tests read them with Apache Arrow's reader).
//
// # Missing values
//
// A value that does not apply is null, so that a reader cannot mistake it
// for a measurement (a sentinel such as 1.0 would read as a real p-value,
// and NaN passes silently through SQL aggregations). Three columns are
// optional (nullable): candidates.v (CandidateRow.V, a *float64), null when
// the acceptance test is not the signed-rank test; generations.accepted
// and generations.accepted_p, null when no candidate was accepted
// (GenerationRow.Accepted is "" and GenerationRow.AcceptedP nil). Statistics
// that apply but are undefined for the sample at hand (the standard
// deviation and CI of fewer than two scores, any statistic of an empty
// sample) are NaN, which Parquet readers preserve in a DOUBLE column.
package results
