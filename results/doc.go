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
//     by [PlotValByGeneration] and [PlotCandidates].
//
// # Determinism
//
// Every output is a pure function of its input rows: the writers sort a copy
// of the rows into a documented total order before writing ([SortEpisodes],
// [SortCandidates], [SortGenerations]), so the same multiset of rows gives a
// byte-identical Parquet file whatever the order the caller collected them in.
// PNG and SVG plots are byte-identical across runs for the same input. PDF
// output embeds a creation date and is therefore not byte-reproducible.
//
// # Atomicity
//
// Every file is written to a temporary file in the destination directory,
// fsynced, and renamed over the destination, so a reader (or a resumed run)
// sees either the previous file or the complete new one, never a partial
// file.
//
// # Parquet layout
//
// Column names are snake_case and given by the parquet struct tags of the row
// types. Pages are compressed with zstd; low-cardinality string columns (run,
// version, split, cause, ...) are dictionary encoded. Row groups hold at most
// [MaxRowsPerRowGroup] rows. Each file carries the key/value metadata
// "evolve.table" (episodes, candidates or generations) and
// "evolve.schema_version" ([SchemaVersion]). The files are read back with
// [ReadEpisodes], [ReadCandidates] and [ReadGenerations], and are readable
// by any Parquet reader (the tests read them with Apache Arrow's reader).
//
// # Missing values
//
// A value that does not exist is represented so that a reader cannot mistake
// it for a measurement: GenerationRow.AcceptedP is an optional (nullable)
// column, null when no candidate was accepted. Statistics that are undefined
// for the sample at hand (the standard deviation and CI of fewer than two
// scores, the statistics of an empty sample) are NaN, which every Parquet
// reader preserves in a DOUBLE column.
package results
