// Package ablate is evolve ablate: an ablation of the proposer. It runs
// every proposer of a config (mutation.proposer: failure, random, cmaes)
// on R replicate seed sets of every environment of the config, all at the
// same budget of train and val episodes, each (environment, replicate,
// proposer) as an ordinary run directory of package experiment, and
// reports the comparison with the statistics of rliable (Agarwal,
// Schwarzer, Castro, Courville and Bellemare, "Deep Reinforcement
// Learning at the Edge of the Statistical Precipice", NeurIPS 2021): the
// final test mean per proposer with its CI across replicates, the IQM
// with stratified bootstrap CIs, the probability of improvement per pair,
// performance profiles and anytime curves, per environment and across
// environments on min-max normalised scores.
//
// The flow: Load or Parse a Config; Open its directory (a lock, and the
// config it records); Run (seed sets, then the runs, Parallel at a time,
// each run or resumed); Write (ablation.parquet, anytime.parquet);
// WriteReport (report.md, report.html, results.tex, summary.json,
// plots/). Everything it writes is deterministic: the same config gives
// byte-identical tables and report whatever the parallelism, and a rerun
// after an interruption (even kill -9) continues the unfinished runs to
// the same outputs. See docs/ablation.md.
package ablate
