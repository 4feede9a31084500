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
//  3. for each variant and version (a phase), look every (seed, repeat) up
//     in the cache (keyed by environment, seed, prompt content and agent),
//     play the misses, store their outcomes; checkpoint;
//  4. write summary.parquet (n, mean, std, median, IQM and CIs per version
//     and variant) and manifest.yaml.
//
// The regression gate (package gate) then compares each version with a
// baseline; the command evolve eval writes the report and CI outputs.
//
// An eval directory holds manifest.yaml, checkpoint.json, prompts/ (each
// version's prompt file), episodes.parquet (a run's schema: run is the
// eval's ID, with variant and repeat), summary.parquet, and, with
// on_episode_panic: record, episode_errors.jsonl and process-<w>.log.
package eval
