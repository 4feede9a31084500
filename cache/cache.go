package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"evolve/envs"
	"evolve/internal/castore"
)

// Format is the version of the entry format written in every entry's
// "format" field; see the package documentation. Get also reads entries
// of format 1, which evolve wrote before the trajectory's format was
// kept.
const Format = 2

// keyTag starts the canonical encoding of a Key. Changing the key's fields
// or their encoding changes it, so that no entry of the old layout is
// ever read by a new build. A new entry format need not: Get tells the
// formats apart by their "format" field.
const keyTag = "evolve episode cache key v1\n"

// Errors returned by Get and Put that callers branch on.
var (
	// ErrErrorEpisode: Put was given an outcome with Cause envs.CauseError.
	// An episode that could not be played is retried, never cached.
	ErrErrorEpisode = errors.New("cache: an error episode is not cached")
	// ErrInvalidKey: the key's Env or Prompt is empty, so it cannot tell
	// two environments or two prompts apart.
	ErrInvalidKey = errors.New("cache: key with empty Env or Prompt")
)

// Key identifies one episode.
type Key struct {
	// Env is the environment's identity: its registry name and a hash of
	// its resolved configuration, computed by the caller. Not empty.
	Env string
	// Seed is the episode's seed (already derived for a repeat).
	Seed uint64
	// Prompt is the prompt version's content hash (prompt.ContentSHA256).
	// Not empty.
	Prompt string
	// Agent names the agent; "" for an environment that plays its own.
	Agent string
	// Semantics is evolve's episode semantics version, a constant the
	// caller passes; bumping it invalidates every entry.
	Semantics int
}

// Hash returns the key's hash: 64 lower-case hex digits of the SHA-256 of
// its canonical encoding, which is the UTF-8 text
//
//	evolve episode cache key v1\n
//	env <len(Env)>:<Env>\n
//	seed <Seed>\n
//	prompt <len(Prompt)>:<Prompt>\n
//	agent <len(Agent)>:<Agent>\n
//	semantics <Semantics>\n
//
// where each <len(...)> is the string's length in bytes and each number
// is written in decimal without leading zeros (Semantics with a leading
// "-" if negative). The length prefixes make the encoding injective: no
// two keys share it, whatever bytes their strings hold.
func (k Key) Hash() string {
	sum := sha256.Sum256(k.encode())
	return hex.EncodeToString(sum[:])
}

func (k Key) encode() []byte {
	b := make([]byte, 0, len(keyTag)+64+len(k.Env)+len(k.Prompt)+len(k.Agent))
	b = append(b, keyTag...)
	str := func(name, s string) {
		b = append(b, name...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
		b = append(b, '\n')
	}
	str("env", k.Env)
	b = append(b, "seed "...)
	b = strconv.AppendUint(b, k.Seed, 10)
	b = append(b, '\n')
	str("prompt", k.Prompt)
	str("agent", k.Agent)
	b = append(b, "semantics "...)
	b = strconv.AppendInt(b, int64(k.Semantics), 10)
	b = append(b, '\n')
	return b
}

func (k Key) check() error {
	if k.Env == "" || k.Prompt == "" {
		return fmt.Errorf("%w (Env %q, Prompt %q)", ErrInvalidKey, k.Env, k.Prompt)
	}
	return nil
}

// Entry is what the cache holds for one key: the episode's outcome, and
// whether its trajectory was recorded.
type Entry struct {
	// Outcome is the episode's outcome. Its Trajectory is stored and
	// replayed byte for byte, with its TrajectoryFormat ("" is stored as
	// envs.TrajectoryJSON); it must pass trajectory.Check for its format.
	envs.Outcome
	// Recorded says that Outcome.Trajectory is all the trajectory the
	// player recorded: the episode was played with envs.Episode.Record,
	// and its trajectory, or the absence of one, kept. False means the
	// entry does not know the trajectory (not recorded, or dropped by a
	// trajectories policy), so a caller that needs it plays the episode
	// again. An entry with a trajectory is always recorded (Put sets it).
	// An entry of format 1 is recorded when it holds a trajectory.
	Recorded bool
}

// Stats counts a Cache's operations since Open, in this process.
type Stats struct {
	// Hits counts Gets that returned an outcome.
	Hits int64
	// OldFormat counts the hits on entries of format 1 (written by an
	// evolve from before Format 2); each is also a hit.
	OldFormat int64
	// Misses counts Gets that returned none, corrupt entries included.
	Misses int64
	// Corrupt counts the corrupt entries Get found (and removed); each is
	// also a miss.
	Corrupt int64
	// Puts counts entries written.
	Puts int64
}

// Cache is an episode-outcome cache in one directory. It is safe for
// concurrent use by several goroutines, and several processes may use the
// same directory at once (see the package documentation).
type Cache struct {
	dir     string
	sync    bool   // fsync each entry and its directory (benchmarks only)
	hmacKey []byte // nil: unkeyed (see SetHMACKey)
	log     *slog.Logger

	hits, old, misses, corrupt, puts atomic.Int64
}

// SetLogger makes c log each entry it refuses: a warning "episode cache
// entry refused" with the entry's path, the key's seed and the reason
// (a corrupt entry, one of an unknown format, a trajectory that fails
// its format's check, an unsafe file). The episode is then played again
// and its entry replaced. Call it before the first Get; nil (the
// default) logs nothing.
func (c *Cache) SetLogger(l *slog.Logger) { c.log = l }

// DefaultDir returns the default cache directory,
// os.UserCacheDir()/evolve/episodes (on Linux $XDG_CACHE_HOME/evolve/episodes
// or ~/.cache/evolve/episodes). It returns os.UserCacheDir's error, wrapped,
// when no cache directory is defined (neither variable set).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("default episode cache directory: %w", err)
	}
	return filepath.Join(d, "evolve", "episodes"), nil
}

// Open returns the cache in dir, creating the directory (and its parents,
// mode 0755 before umask) if it does not exist. The error names dir.
func Open(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("opening episode cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening episode cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
}

// MinHMACKeyLen is the fewest bytes of a key SetHMACKey takes: 32, the
// output size of SHA-256 (RFC 2104 section 3 recommends a key at least
// as long as the hash output).
const MinHMACKeyLen = 32

// HMACKeyEnv is the environment variable evolve reads a cache's HMAC key
// from (see SetHMACKey); the command line, not this package, reads it.
const HMACKeyEnv = "EVOLVE_CACHE_HMAC_KEY"

// ErrShortHMACKey is SetHMACKey's error for a key under MinHMACKeyLen
// bytes.
var ErrShortHMACKey = errors.New("cache: HMAC key too short")

// SetHMACKey makes c a keyed cache: every entry it writes carries
// outcome_hmac_sha256, the HMAC-SHA256 (RFC 2104) under key of the key's
// canonical encoding (see Key.Hash) followed by the outcome value's
// bytes, and every entry it reads must carry a matching one, or it is
// corrupt (a miss, removed). Whoever can write the directory but does
// not know key can then no longer forge an entry: a plain SHA-256 is
// only a check against damage, which anyone can recompute. Call it
// before the first Get or Put. The key is used as given (not copied); it
// must be at least MinHMACKeyLen bytes (ErrShortHMACKey otherwise).
// Unkeyed caches sharing the directory still read keyed entries (they
// check only the SHA-256); keyed ones replay unkeyed entries.
func (c *Cache) SetHMACKey(key []byte) error {
	if len(key) < MinHMACKeyLen {
		return fmt.Errorf("%w: %d bytes, want at least %d", ErrShortHMACKey, len(key), MinHMACKeyLen)
	}
	c.hmacKey = key
	return nil
}

// Dir returns the cache's directory, as given to Open.
func (c *Cache) Dir() string { return c.dir }

// Stats returns the counts of the cache's operations so far.
func (c *Cache) Stats() Stats {
	return Stats{Hits: c.hits.Load(), OldFormat: c.old.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load(), Puts: c.puts.Load()}
}

// Path returns the path of k's entry file (which may not exist).
func (c *Cache) Path(k Key) string { return c.store().Path(k.Hash()) }

// store is the entry files' layout (package castore).
func (c *Cache) store() castore.Store {
	return castore.Store{Dir: c.dir, What: "episode cache", Sync: c.sync}
}

// Get returns the entry stored for k and true, or false on a miss. A
// missing entry is a miss; so is a corrupt one (see the package
// documentation), which Get removes and counts in Stats.Corrupt; so is
// an entry that is not a regular file (a FIFO, a device, a symbolic
// link) or is over castore.DefaultMaxSize bytes, which Get never reads
// and removes the same way. Each refused entry is logged (SetLogger).
// The error is ErrInvalidKey for a key with an empty Env or Prompt, or
// an I/O error other than "does not exist" reading or removing the
// entry, naming its path; Get counts neither as a miss.
func (c *Cache) Get(k Key) (Entry, bool, error) {
	if err := k.check(); err != nil {
		return Entry{}, false, err
	}
	h := k.Hash()
	data, fi, err := c.store().Read(h)
	if errors.Is(err, fs.ErrNotExist) {
		c.misses.Add(1)
		return Entry{}, false, nil
	}
	if errors.Is(err, castore.ErrUnsafe) {
		return Entry{}, false, c.refuse(k, h, fi, err)
	}
	if err != nil {
		return Entry{}, false, err
	}
	e, format, err := decodeEntry(data, k, c.hmacKey)
	if err != nil {
		return Entry{}, false, c.refuse(k, h, fi, err)
	}
	c.hits.Add(1)
	if format != Format {
		c.old.Add(1)
	}
	return e, true, nil
}

// refuse counts, logs and removes k's entry (hash h, file info fi), which
// Get found corrupt or unsafe for why. It returns RemoveIfSame's error.
func (c *Cache) refuse(k Key, h string, fi fs.FileInfo, why error) error {
	c.corrupt.Add(1)
	c.misses.Add(1)
	if c.log != nil {
		c.log.Warn("episode cache entry refused; the episode is played again and its entry replaced",
			"path", c.store().Path(h), "seed", k.Seed, "reason", why.Error())
	}
	return c.store().RemoveIfSame(h, fi)
}

// Put stores e as the entry of k, replacing any entry k has. The entry
// appears atomically (see the package documentation): a concurrent Get, in
// this or another process, sees no entry or a complete one.
//
// Put returns ErrErrorEpisode, storing nothing, for an outcome with Cause
// envs.CauseError, and ErrInvalidKey for a key with an empty Env or
// Prompt. It returns an error, storing nothing, if e.Seed is not k.Seed,
// if the score or a metric's Num is NaN or infinite, if a non-null metric
// has both Num and Str set, or if the trajectory fails trajectory.Check
// for its format (wrapping trajectory.ErrFormat, naming the seed); and an
// error naming the path if the file system fails.
func (c *Cache) Put(k Key, e Entry) error {
	if err := k.check(); err != nil {
		return err
	}
	if e.Cause == envs.CauseError {
		return ErrErrorEpisode
	}
	data, err := encodeEntry(k, e, c.hmacKey)
	if err != nil {
		return err
	}
	if err := c.store().Write(k.Hash(), data); err != nil {
		return err
	}
	c.puts.Add(1)
	return nil
}

// Clean removes the temporary files that killed writers left behind: those
// last modified more than olderThan ago (by the file system's clock). A
// Put in progress holds its temporary file for well under a second, so
// any olderThan of a minute or more never removes a live one; olderThan 0
// removes every temporary file, and a concurrent Put whose file it removes
// fails. It returns how many files it removed; the error names the first
// path it could not list or remove (Clean goes on past it). Entries are
// never removed.
func (c *Cache) Clean(olderThan time.Duration) (int, error) { return c.store().Clean(olderThan) }
