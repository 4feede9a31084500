package llm

import (
	"evolve/internal/castore"

	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// Mode says how a Client uses its Cache.
type Mode int

// The cache modes.
const (
	// ModeOff: no cache; every Complete call goes to the server.
	ModeOff Mode = iota
	// ModeRead: replay only. A hit is returned; a miss (a corrupt entry
	// included) is an error wrapping ErrNotCached, and no request is ever
	// sent, so an offline replay is guaranteed to make no calls.
	ModeRead
	// ModeReadWrite: a hit is returned; a miss is fetched from the server
	// and stored.
	ModeReadWrite
)

var modeNames = [...]string{ModeOff: "off", ModeRead: "read", ModeReadWrite: "readwrite"}

// String returns "off", "read" or "readwrite".
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode parses "off", "read" or "readwrite"; the error quotes s.
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("cache mode %q: want off, read or readwrite", s)
}

// UnmarshalText parses the mode as ParseMode does.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// MarshalText writes the mode's String.
func (m Mode) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(modeNames) {
		return nil, fmt.Errorf("invalid cache mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// CacheFormat is the version of the entry format written in every cache
// entry's "format" field; see the package documentation.
const CacheFormat = 1

// CacheStats counts a Cache's operations since OpenCache, in this process.
type CacheStats struct {
	// Hits counts Gets that returned a reply.
	Hits int64
	// Misses counts Gets that returned none, corrupt entries included.
	Misses int64
	// Corrupt counts the corrupt entries Get found (and removed); each is
	// also a miss.
	Corrupt int64
	// Puts counts entries written.
	Puts int64
	// Bytes sums the sizes of the entry files written (compressed), so
	// that Bytes/Puts is the disk cost of an entry.
	Bytes int64
}

// Cache is an on-disk response cache in one directory, content-addressed
// by Request.Hash (see the package documentation for its layout, entry
// format and guarantees). It is safe for concurrent use by goroutines,
// and several processes may share a directory.
type Cache struct {
	dir string

	hits, misses, corrupt, puts, bytes atomic.Int64
}

// DefaultCacheDir returns os.UserCacheDir()/evolve/llm (on Linux
// $XDG_CACHE_HOME/evolve/llm or ~/.cache/evolve/llm). It returns
// os.UserCacheDir's error, wrapped, when neither variable is set.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("default llm cache directory: %w", err)
	}
	return filepath.Join(d, "evolve", "llm"), nil
}

// OpenCache returns the cache in dir, creating the directory (and its
// parents, mode 0755 before umask) if it does not exist. The error names
// dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("opening llm cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening llm cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's directory, as given to OpenCache.
func (c *Cache) Dir() string { return c.dir }

// Stats returns the counts of the cache's operations so far.
func (c *Cache) Stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load(), Puts: c.puts.Load(), Bytes: c.bytes.Load()}
}

func (c *Cache) path(h string) string { return c.store().Path(h) }

// Path returns the path of req's entry file (which may not exist).
func (c *Cache) Path(req Request) string { return c.path(req.Hash()) }

// store is the entry files' layout (package castore).
func (c *Cache) store() castore.Store { return castore.Store{Dir: c.dir, What: "llm cache"} }

// Get returns the reply stored for req, with Cached true, Request set to
// req's hash, Latency and Requests 0, and true; or false on a miss. A
// missing entry is a miss; so is a corrupt one, which Get removes and
// counts in Stats().Corrupt. The error is an I/O error other than "does
// not exist" reading or removing the entry, naming its path; it is not
// counted as a miss.
func (c *Cache) Get(req Request) (Reply, bool, error) {
	return c.get(req, req.Hash())
}

func (c *Cache) get(req Request, h string) (Reply, bool, error) {
	data, fi, err := c.store().Read(h)
	if errors.Is(err, fs.ErrNotExist) {
		c.misses.Add(1)
		return Reply{}, false, nil
	}
	if err != nil {
		return Reply{}, false, err
	}
	plain, err := gunzipEntry(data)
	var r Reply
	if err == nil {
		r, err = decodeEntry(plain, req)
	}
	if err == nil {
		c.hits.Add(1)
		r.Cached, r.Request = true, h
		return r, true, nil
	}
	c.corrupt.Add(1)
	c.misses.Add(1)
	return Reply{}, false, c.store().RemoveIfSame(h, fi)
}

// Put stores r's Content, FinishReason and token counts as the reply to
// req, replacing any entry req has; the entry appears atomically (see the
// package documentation). It returns an error, storing nothing, if
// r.Content is empty or a token count is negative, and an error naming
// the path if the file system fails.
func (c *Cache) Put(req Request, r Reply) error {
	_, err := c.put(req, req.Hash(), r)
	return err
}

// put is Put of the request with hash h; it returns the entry's size in
// bytes.
func (c *Cache) put(req Request, h string, r Reply) (int, error) {
	data, err := encodeEntry(req, r)
	if err != nil {
		return 0, fmt.Errorf("llm request %s: %w", h[:12], err)
	}
	if data, err = gzipEntry(data); err != nil {
		return 0, fmt.Errorf("llm request %s: %w", h[:12], err)
	}
	if err := c.store().Write(h, data); err != nil {
		return 0, err
	}
	c.puts.Add(1)
	c.bytes.Add(int64(len(data)))
	return len(data), nil
}

// gzipMagic starts a gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// maxEntry bounds an entry's decompressed size.
const maxEntry = 64 << 20

// gzipEntry compresses an entry's JSON line with gzip (RFC 1952, best
// compression, no name and no modification time in the header), so the
// same entry gives the same bytes in every process of one build. An
// entry of the dungeon agent (a 1.5 KB system prompt, history, a turn)
// shrinks about threefold; zcat shows it.
func gzipEntry(line []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(line); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzipEntry returns an entry file's JSON line: the file decompressed
// if it is gzip, else as it is (entries written before compression).
// The error wraps errCorrupt.
func gunzipEntry(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, gzipMagic) {
		return data, nil
	}
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, corrupt("gzip: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxEntry+1))
	if err != nil {
		return nil, corrupt("gzip: %v", err)
	}
	if len(out) > maxEntry {
		return nil, corrupt("longer than %d bytes decompressed", maxEntry)
	}
	return out, nil
}

// Clean removes the temporary files that killed writers left behind:
// those last modified more than olderThan ago. A Put holds its temporary
// file for well under a second, so an olderThan of a minute or more never
// removes a live one. It returns how many files it removed; the error
// names the first path it could not list or remove (Clean goes on past
// it), or the negative olderThan. Entries are never removed.
func (c *Cache) Clean(olderThan time.Duration) (int, error) { return c.store().Clean(olderThan) }

// replyJSON is an entry's "reply" field.
type replyJSON struct {
	Content          string `json:"content"`
	FinishReason     string `json:"finish_reason,omitempty"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// entryJSON is a whole entry as decoded.
type entryJSON struct {
	Format      int             `json:"format"`
	Request     Request         `json:"request"`
	ReplySHA256 string          `json:"reply_sha256"`
	Reply       json.RawMessage `json:"reply"`
}

// marshal encodes v as JSON without HTML escaping (prompts are full of
// "<" and ">") and without the trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodeEntry returns the bytes of req's entry holding r.
func encodeEntry(req Request, r Reply) ([]byte, error) {
	if r.Content == "" {
		return nil, errors.New("caching an empty reply")
	}
	if r.PromptTokens < 0 || r.CompletionTokens < 0 {
		return nil, fmt.Errorf("caching a reply with negative token counts (%d, %d)", r.PromptTokens, r.CompletionTokens)
	}
	rb, err := marshal(replyJSON{Content: r.Content, FinishReason: r.FinishReason, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens})
	if err != nil {
		return nil, fmt.Errorf("caching a reply: %w", err)
	}
	qb, err := marshal(req)
	if err != nil {
		return nil, fmt.Errorf("caching a reply: %w", err)
	}
	sum := sha256.Sum256(rb)
	out := make([]byte, 0, len(qb)+len(rb)+128)
	out = append(out, `{"format":`...)
	out = strconv.AppendInt(out, CacheFormat, 10)
	out = append(out, `,"request":`...)
	out = append(out, qb...)
	out = append(out, `,"reply_sha256":"`...)
	out = hex.AppendEncode(out, sum[:])
	out = append(out, `","reply":`...)
	out = append(out, rb...)
	return append(out, "}\n"...), nil
}

// errCorrupt wraps every reason decodeEntry rejects an entry.
var errCorrupt = errors.New("corrupt llm cache entry")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// decodeEntry decodes an entry's bytes and checks them against want.
// Every error wraps errCorrupt.
func decodeEntry(data []byte, want Request) (Reply, error) {
	var e entryJSON
	if err := castore.DecodeStrict(data, &e); err != nil {
		return Reply{}, corrupt("%v", err)
	}
	if e.Format != CacheFormat {
		return Reply{}, corrupt("format %d, want %d", e.Format, CacheFormat)
	}
	if !e.Request.equal(want) {
		return Reply{}, corrupt("the stored request is not the one asked for")
	}
	if len(e.Reply) == 0 {
		return Reply{}, corrupt("no reply")
	}
	sum := sha256.Sum256(e.Reply)
	if hex.EncodeToString(sum[:]) != e.ReplySHA256 {
		return Reply{}, corrupt("reply checksum mismatch")
	}
	var rj replyJSON
	if err := castore.DecodeStrict(e.Reply, &rj); err != nil {
		return Reply{}, corrupt("reply: %v", err)
	}
	if rj.Content == "" || rj.PromptTokens < 0 || rj.CompletionTokens < 0 {
		return Reply{}, corrupt("reply with empty content or negative token counts")
	}
	return Reply{Content: rj.Content, FinishReason: rj.FinishReason, PromptTokens: rj.PromptTokens, CompletionTokens: rj.CompletionTokens}, nil
}
