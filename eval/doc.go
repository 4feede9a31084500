// Package eval is evolve's batch evaluation runner: it plays fixed prompt
// versions on a split of a seed set (or a seed file), optionally several
// times per seed and on several environment variants, with the run's
// parallel deterministic runner, an outcome cache, checkpoints and resume,
// and writes an eval directory that CI regression gates read.
//
// The steps of an eval, in order:
//  1. resolve each PROMPT (a prompt file, a store ref, RUN_DIR:VERSION) to
//     a version with its content hash (ResolvePrompt);
//  2. build the environment variants (experiment.Config.EnvVariants), give
//     each the config's agent (for a language model, one client with its
//     response cache: experiment.Config.NewLLMClient, AttachAgent), and
//     check every version's parameters against the environment's schema;
//  3. check the baseline (Gate.Baseline: an earlier eval's directory or
//     episodes.parquet) against this eval: the same variants and
//     environment configurations, split, seeds, repeats and agent, and an
//     episode of the baseline version for every (seed, repeat) to play;
//     all before anything is played;
//  4. for each variant and version (a phase), look every (seed, repeat) up
//     in the cache (keyed by environment, seed, prompt content and agent),
//     play the misses and the hits without the trajectory the
//     trajectories policy keeps, store their outcomes with the
//     trajectories the policy keeps; write the phase's trajectory
//     archive; checkpoint;
//  5. write summary.parquet (n, mean, std, median, IQM and CIs per version
//     and variant);
//  6. compare each version with the baseline (package gate's one-sided
//     regression test, and the improvement test with the roles swapped):
//     the Verdict;
//  7. write the outputs: report.md, plots/scores.{png,svg,pdf},
//     report.html, comparisons.parquet, results.tex, manifest.yaml;
//  8. only then mark the checkpoint finished, with the verdict and the
//     gate, so that a kill at any write leaves an eval that Resume
//     completes, and a Resume of a finished eval returns its verdict (the
//     command re-emits the JUnit file and step summary and exits with the
//     verdict's status).
//
// An eval directory holds manifest.yaml, checkpoint.json, prompts/ (each
// version's prompt file), episodes.parquet (a run's schema: run is the
// eval's ID, with variant and repeat), summary.parquet,
// comparisons.parquet, report.md, report.html, results.tex, plots/, and,
// with on_episode_panic: record, episode_errors.jsonl and
// process-<w>.log.
package eval
