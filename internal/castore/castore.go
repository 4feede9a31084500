// Package castore is the file layout shared by evolve's content-addressed
// caches (the episode-outcome cache, package cache, and the LLM response
// cache, package llm): one file per entry at DIR/ab/HASH.json (the first
// two hex digits of the hash as a subdirectory), written to a temporary
// file ".HASH.json.tmp-RANDOM" created with O_EXCL in the same
// subdirectory and renamed into place, so that readers in any process see
// no entry or a complete one and concurrent writers of one hash are
// harmless (the last rename wins). What an entry holds, and how it is
// verified, is the caller's.
package castore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"evolve/internal/atomicfile"
)

// Store is a directory of entries. What names the store in errors
// ("episode cache", "llm cache"): "reading episode cache entry PATH: ...".
// Sync, if set, fsyncs each entry and its directory (slower; see the
// callers' documentation for why they do not). MaxSize is the largest
// entry Read accepts, in bytes; 0 means DefaultMaxSize.
type Store struct {
	Dir     string
	What    string
	Sync    bool
	MaxSize int64
}

// DefaultMaxSize is the largest entry a Store reads by default: 64 MiB,
// far above any outcome or reply evolve writes, far below what would
// exhaust a CI runner's memory.
const DefaultMaxSize = 64 << 20

// ErrUnsafe is wrapped by Read's error for an entry that is a special
// file (a FIFO, a device, a socket), a symbolic link, or larger than the
// store's MaxSize (a directory is a plain error: nothing removes it). Read opens nothing that can
// block or stream without end, and reads nothing beyond MaxSize bytes;
// the caller treats such an entry as corrupt.
var ErrUnsafe = errors.New("not a regular file of a readable size")

// Path returns the entry file of hash h (64 hex digits).
func (s Store) Path(h string) string { return filepath.Join(s.Dir, h[:2], h+".json") }

// Read returns the bytes of h's entry and the file's info (for
// RemoveIfSame). A missing entry is an error wrapping fs.ErrNotExist. An
// entry that is a symbolic link, a special file (FIFO, device, socket),
// or over MaxSize bytes is an error wrapping ErrUnsafe, with the info of the path itself
// (Lstat) so that RemoveIfSame can remove it: the file is opened with
// O_NOFOLLOW and O_NONBLOCK (a FIFO opens at once instead of waiting
// for a writer), its type and size checked with fstat before any read,
// and at most MaxSize+1 bytes are read whatever it grows to. A directory
// and any other failure are errors naming the path.
func (s Store) Read(h string) ([]byte, fs.FileInfo, error) {
	p := s.Path(h)
	max := s.MaxSize
	if max <= 0 {
		max = DefaultMaxSize
	}
	unsafe := func(why string) ([]byte, fs.FileInfo, error) {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s entry %s: %w", s.What, p, err)
		}
		return nil, fi, fmt.Errorf("reading %s entry %s: %w: %s", s.What, p, ErrUnsafe, why)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		if isSymlinkErr(err) {
			return unsafe("a symbolic link")
		}
		return nil, nil, fmt.Errorf("reading %s entry %s: %w", s.What, p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s entry %s: %w", s.What, p, err)
	}
	if fi.IsDir() {
		return nil, nil, fmt.Errorf("reading %s entry %s: is a directory", s.What, p)
	}
	if !fi.Mode().IsRegular() {
		return unsafe("a " + fileKind(fi.Mode()))
	}
	if fi.Size() > max {
		return unsafe(fmt.Sprintf("%d bytes, over the limit of %d", fi.Size(), max))
	}
	// io.ReadAll, with a buffer of the file's size (one read for an
	// entry that does not change) and a stop past max.
	data := make([]byte, 0, fi.Size()+512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > max {
			return unsafe(fmt.Sprintf("grew over the limit of %d bytes while read", max))
		}
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s entry %s: %w", s.What, p, err)
		}
	}
}

// fileKind names a file type that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file (" + m.String() + ")"
}

// RemoveIfSame removes h's entry, found corrupt by its reader, unless a
// writer has renamed a new entry over it since it was read (fi, from
// Read). A symbolic link is removed, not its target. It is a write point of the atomicfile fault hook.
func (s Store) RemoveIfSame(h string, fi fs.FileInfo) error {
	p := s.Path(h)
	if now, err := os.Lstat(p); err == nil && os.SameFile(fi, now) {
		atomicfile.Point(p)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing corrupt %s entry %s: %w", s.What, p, err)
		}
	}
	return nil
}

// Write stores data as h's entry, replacing any: a temporary file in the
// entry's subdirectory (created if needed), then a rename, which is a
// write point of the atomicfile fault hook. Errors name the path; on
// error no temporary file is left.
func (s Store) Write(h string, data []byte) error {
	p := s.Path(h)
	dir := filepath.Dir(p)
	f, tmp, err := createTemp(dir, h)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("writing %s entry %s: %w", s.What, p, err)
		}
		f, tmp, err = createTemp(dir, h)
	}
	if err != nil {
		return fmt.Errorf("writing %s entry %s: %w", s.What, p, err)
	}
	if _, err = f.Write(data); err == nil && s.Sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s entry %s: %w", s.What, p, err)
	}
	atomicfile.Point(p)
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s entry %s: %w", s.What, p, err)
	}
	if s.Sync {
		return atomicfile.SyncDir(dir)
	}
	return nil
}

// createTemp creates a new temporary file for the entry with hash h in
// dir, mode 0644 before umask. Its random name only has to differ from
// other writers' (O_EXCL makes a collision a retry), so the global
// generator is fine here: it decides no result.
func createTemp(dir, h string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(dir, "."+h+".json.tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("creating a temporary file in %s: too many name collisions", dir)
}

// Clean removes the temporary files that killed writers left behind:
// those last modified more than olderThan ago (by the file system's
// clock). A Write holds its temporary file for well under a second, so an
// olderThan of a minute or more never removes a live one; olderThan 0
// removes every temporary file. It returns how many it removed; the error
// names the first path it could not list or remove (Clean goes on past
// it), or the negative olderThan. Entries are never removed.
func (s Store) Clean(olderThan time.Duration) (int, error) {
	if olderThan < 0 {
		return 0, fmt.Errorf("cleaning %s %s: negative age %v", s.What, s.Dir, olderThan)
	}
	cutoff := time.Now().Add(-olderThan)
	subs, err := os.ReadDir(s.Dir)
	if err != nil {
		return 0, fmt.Errorf("cleaning %s %s: %w", s.What, s.Dir, err)
	}
	removed := 0
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, sd := range subs {
		if !sd.IsDir() || len(sd.Name()) != 2 {
			continue
		}
		sub := filepath.Join(s.Dir, sd.Name())
		ents, err := os.ReadDir(sub)
		if err != nil {
			note(fmt.Errorf("cleaning %s %s: %w", s.What, sub, err))
			continue
		}
		for _, e := range ents {
			if e.IsDir() || !atomicfile.IsTemp(e.Name()) {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					note(fmt.Errorf("cleaning %s: %w", s.What, err))
				}
				continue
			}
			if fi.ModTime().After(cutoff) {
				continue
			}
			if err := os.Remove(filepath.Join(sub, e.Name())); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					note(fmt.Errorf("cleaning %s: %w", s.What, err))
				}
				continue
			}
			removed++
		}
	}
	return removed, first
}

// DecodeStrict decodes one JSON value from data into v: unknown fields
// and trailing data other than white space are errors.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the entry")
	}
	return nil
}
