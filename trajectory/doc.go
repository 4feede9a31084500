// Package trajectory stores the trajectories of a run's or an eval's
// episodes under its directory, by a policy, and reads them back.
//
// A trajectory is what envs.Outcome.Trajectory holds when a player was
// asked to record (envs.Episode.Record): one JSON value
// (envs.TrajectoryJSON: the built-in dungeon's compact action record, a
// process environment's trajectory as given, an LLM agent's transcript) or
// an asciicast v2 recording (envs.TrajectoryAsciicast, a terminal
// environment such as real NetHack). Check checks a trajectory by its
// format's own rule (an LLM agent's transcript, a JSON object of kind
// LLMTranscriptKind, by the transcript's), as evolve eval's outcome cache
// does before it keeps one and again when it replays one.
//
// The Policy (the config key trajectories: failed|all|none, default
// failed) says which episodes keep theirs. The trajectories of one phase
// (a version on a split, and for an eval a variant) are written together,
// in seed order, as one ZIP archive
//
//	DIR/trajectories/SPLIT/VERSION.zip          a run's phase
//	DIR/trajectories/SPLIT/VARIANT/VERSION.zip  an eval's phase on a variant
//
// whose entries are named SEED.json or SEED.cast (SEED-rREPEAT.EXT for an
// eval's repeat r > 0), DEFLATE-compressed, with a fixed modification time
// and no extra fields: the archive's bytes are a function of the
// trajectories alone, whatever the number of workers that played them
// (byte-identical within one Go release, whose compress/flate is fixed).
// Any unzip reads them (unzip -p DIR/trajectories/val/v1.0.0.zip 42.json).
// An archive is written atomically once; a phase replayed with the same
// version and seeds (the incumbent's train episodes in every generation)
// keeps the archive already written.
package trajectory
