// Package cache keeps episode outcomes in a content-addressed directory,
// so that an episode already played (by this process, an earlier one or a
// concurrent one) is not played again.
//
// An episode's outcome is a pure function of its [Key]: the environment and
// its resolved configuration, the episode seed, the prompt version's content
// hash, the agent, and evolve's episode semantics version. The cache maps
// [Key.Hash] to the outcome; it never decides whether two episodes are the
// same, the caller's key does.
//
// # Layout
//
// A cache directory holds one file per entry:
//
//	DIR/ab/abcdef0123...json
//
// named by the key's hash (64 lower-case hex digits) under a subdirectory
// named by its first two digits, so that no directory holds more than
// about 1/256 of the entries. (The name ends in .json, the layout of
// package castore, which the LLM response cache shares; an entry with a
// trajectory is JSON up to its first newline, see Entry format.) Files whose names start with "." and contain
// ".tmp-" are temporary files of a Put in progress, or left by a writer
// that was killed; readers never open them and [Cache.Clean] removes the
// stale ones. Every other file is ignored by readers except the exact path
// of the key they look up.
//
// # Entry format
//
// An entry (format 2, [Format]) is one line of JSON (UTF-8, ending in a
// newline) with the fields in this order, followed by the episode's
// trajectory, if it has one, exactly as the environment produced it:
//
//	{"format":2,
//	 "key":{"env":"nethack@1f3c…","seed":"42","prompt":"9ab0…","agent":"","semantics":1},
//	 "outcome_sha256":"<hex SHA-256 of the outcome value's bytes>",
//	 "outcome_hmac_sha256":"<hex HMAC-SHA256, keyed caches only>",
//	 "outcome":{"seed":"42","score":536.5,"end_reason":"killed","cause":"injury",
//	            "metrics":[3,1200,null,"jackal"],"error":"...","recorded":true,
//	            "trajectory":{"format":"asciicast-v2","bytes":46132,"sha256":"<hex>"}}}
//	{"version": 2, "width": 80, "height": 24, ...}
//	[0.0, "o", "\u001b[H\u001b[2J..."]
//	...
//
// (The line is shown wrapped: in the file it has no line break but its
// final newline. The trajectory follows as it is, with whatever line
// breaks it holds.) An episode whose LLM agent's transcript is kept
// beside the environment's recording (envs.Outcome.Transcript) has a
// "transcript" field beside "trajectory", of format "json" with its
// bytes and SHA-256, and the transcript's bytes follow the trajectory's
// directly.
//
//   - format is [Format]; see below for format 1. Any other value is a
//     corrupt entry. A format-2 entry starts with the bytes
//     {"format":2, (encoding/json writes no white space).
//   - key holds the [Key]'s fields; seed is a decimal string, because JSON
//     readers other than Go's lose the precision of integers above 2^53.
//   - outcome_sha256 is the hex SHA-256 of the bytes of the outcome value
//     exactly as they appear in the line, from its "{" to its "}". It
//     covers the trajectory through the trajectory's own SHA-256.
//   - outcome_hmac_sha256, written only by a keyed cache (see Trust
//     model), is the hex HMAC-SHA256 under the cache's secret of the
//     key's canonical encoding (see [Key.Hash]) followed by the outcome
//     value's bytes.
//   - outcome holds the envs.Outcome: seed (a decimal string, equal to the
//     key's seed); score (a JSON number); end_reason; cause (never
//     envs.CauseError: error episodes are not cached); metrics, omitted
//     when the outcome has none, else one element per envs.MetricValue in
//     order: null for a null value (its Num and Str are not stored), a JSON
//     string for a value whose Str is not empty, else a JSON number (Num;
//     so a string metric's "" is written 0 and read back as the same
//     MetricValue); error, omitted when empty; recorded ([Entry.Recorded]:
//     whether the entry holds all the trajectory the player recorded,
//     none included); trajectory, omitted when the outcome has none (nil
//     or empty), else the trajectory's format (envs.TrajectoryJSON,
//     which "" is stored as, or envs.TrajectoryAsciicast), its length in
//     bytes (at least 1) and its hex SHA-256.
//   - After the line come exactly trajectory.bytes bytes: the trajectory,
//     byte for byte as the player reported it (white space, escapes,
//     invalid UTF-8 in a JSON string and all), whatever its format. An
//     entry without a trajectory ends with its line.
//
// A trajectory is checked by its format's own rule, trajectory.Check:
// one JSON value for envs.TrajectoryJSON, and for an LLM agent's
// transcript (a JSON object of kind trajectory.LLMTranscriptKind) the
// transcript's shape; for envs.TrajectoryAsciicast a header line and
// one event per line. [Cache.Put] refuses a trajectory that fails it.
//
// Numbers are written by encoding/json, which writes the shortest decimal
// that parses back to the same float64 (strconv.FormatFloat with precision
// -1), so every finite float64, -0 included, round-trips exactly; NaN and
// ±Inf cannot be written and [Cache.Put] refuses them. The encoding is
// deterministic: the same key and entry give the same bytes in every
// process, which is what makes concurrent writers of one key harmless.
//
// # Format 1
//
// evolve wrote format 1 before the trajectory's format was kept, and
// Get still reads it (counting it in [Stats.OldFormat]): the whole entry
// is one line of JSON, {"format":1,...} with the fields above but no
// recorded, and the trajectory, which could only be JSON, spliced into
// the outcome as its last field, "trajectory", as the JSON value itself
// (white space around it trimmed; null meaning none). Its trajectory is
// read as envs.TrajectoryJSON, and the entry is recorded when it has one
// (format 1 did not say whether a missing trajectory was recorded). Both
// formats share one key encoding, so an entry of either format sits at
// the same path; the next [Cache.Put] of a key writes format 2. An
// evolve that reads only format 1 finds a format-2 entry corrupt, removes
// it and plays the episode again.
//
// # Reading
//
// [Cache.Get] reads the entry's file and decodes it strictly: unknown
// fields, trailing data, a format other than 1 or [Format], a stored key
// other than the one asked for, a checksum that does not match (the
// outcome's or the trajectory's), a trajectory of another length than
// declared, of an unknown format or failing its format's check, an
// outcome seed other than the key's, an error episode, or a metric that
// is neither null, a number nor a string make the entry corrupt. A
// corrupt entry is a miss: Get removes it (if the file at the path is
// still the one it read), counts it in [Stats.Corrupt] and logs it
// ([Cache.SetLogger]), and the caller replays the episode and puts it
// again. Only an I/O error other than "does not exist" is an error.
//
// # Writing, concurrency and crashes
//
// [Cache.Put] writes the entry to a new temporary file in the entry's
// subdirectory (created with O_EXCL under a random name, so writers never
// share one) and renames it over the entry's path. rename(2) within a
// directory is atomic, so a reader sees either no entry, the previous
// entry, or the complete new one, never a partial one; two processes
// putting the same key write identical bytes and the last rename wins.
// A writer killed before its rename leaves only its temporary file, which
// no reader opens; [Cache.Clean] removes temporary files older than a
// given age.
//
// Put does not fsync. A process crash (kill -9) loses nothing that was
// renamed, because the data is in the kernel's page cache; only an
// operating-system crash or power loss can leave a renamed entry truncated
// or empty on some file systems, and such an entry fails its checksum and
// is replayed. An fsync of the file and its directory would add two
// journal commits per episode to guard outcomes that are cheap to
// recompute: on a 2-core VM with ext4, BenchmarkPut takes about 38 µs per
// entry and BenchmarkPutSync 0.65 to 0.9 ms, where a dungeon episode plays
// in about 450 µs (play's BenchmarkEpisodes). A hit (BenchmarkGet)
// costs about 16 µs, most of it JSON decoding, whether the cache holds
// 1,000 entries or 100,000 (BenchmarkGet100k). A hit on a NetHack-shaped
// entry with a 52 KB asciicast trajectory (BenchmarkGetAsciicast) took
// 0.35 ms, 150 MB/s, most of it the trajectory's format check, under a
// load average of 20 that made BenchmarkGet 22 µs: a small part of the
// tenths of a second to seconds a NetHack episode takes to play.
//
// Each Put, just before its rename, and each removal of a corrupt entry by
// Get are write points of the fault-injection hook of
// evolve/internal/atomicfile (named by the entry's path), so crash tests can
// kill an eval in the middle of a cache write.
//
// # Trust model
//
// An outcome read from the cache is trusted like one just played: the
// SHA-256 of an entry catches damage (a torn write, a bad disk), not a
// forgery, since whoever can write the directory can recompute it. A
// cache shared between jobs must therefore be writable only by trusted
// jobs. Where it cannot be (caches shared between pipelines), a keyed
// cache ([Cache.SetHMACKey], with the key from the environment variable
// [HMACKeyEnv] in evolve eval) writes and demands outcome_hmac_sha256,
// an HMAC-SHA256 over the key's canonical encoding and the outcome's
// bytes (which hold the trajectory's SHA-256, so the trajectory is
// covered too), which only holders of the secret can compute; a keyed Get treats
// an entry without a valid one as corrupt.
//
// Whatever the key, Get reads only what it can afford to: the entry is
// opened with O_NOFOLLOW|O_NONBLOCK (a symbolic link is refused, a FIFO
// opens at once instead of waiting for a writer), its type and size are
// checked with fstat before any read, and an entry that is not a regular
// file or is over castore.DefaultMaxSize (64 MiB) bytes is a corrupt
// miss, removed, never read. The directories above the entries are
// trusted: a symbolic link among them is followed.
//
// # Invalidation
//
// Nothing is ever invalidated in place: a change of environment
// configuration, prompt, agent or semantics version changes the key, so
// old entries are simply never read again. A change of this package's
// key encoding changes the key encoding's version tag (see [Key.Hash]),
// with the same effect; a change of the entry format bumps [Format], and
// Get reads the formats before it or refuses them as corrupt (see Format
// 1). Removing the directory is always safe.
package cache
