package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"evolve/internal/atomicfile"
)

// Errors of the store that callers branch on.
var (
	// ErrVersionExists: a version is written once and never overwritten.
	ErrVersionExists = errors.New("version already exists")
	// ErrNoVersion: the store has no such version.
	ErrNoVersion = errors.New("no such version")
	// ErrNoParent: a rollback without a target from a version that has no
	// parent.
	ErrNoParent = errors.New("version has no parent to roll back to")
)

// IndexSchema is the schema number of versions.json written by this code.
// Schema 1 holds one linear lineage of versions; later schemas may add
// slugs, branches and graph edges in new fields, which schema-1 readers
// ignore.
const IndexSchema = 1

// VersionInfo is one version's entry in the store index.
type VersionInfo struct {
	Version     Version   `json:"version"`               // the version
	File        string    `json:"file"`                  // file name in the store, e.g. "prompt_v1.0.1.yaml"
	SHA256      string    `json:"sha256"`                // hex SHA-256 of the file's bytes
	Parent      *Version  `json:"parent,omitempty"`      // the version it was derived from; nil for a root
	Created     time.Time `json:"created"`               // the prompt's timestamp
	Operator    string    `json:"operator,omitempty"`    // mutation operator that made it
	Description string    `json:"description,omitempty"` // mutation description
}

// index is versions.json.
type index struct {
	Schema   int           `json:"schema"`
	Current  *Version      `json:"current,omitempty"`
	Versions []VersionInfo `json:"versions"`
}

// Store is a directory of immutable prompt versions: one canonical YAML
// file per version (prompt_v1.0.0.yaml, ...), and versions.json, the index
// of versions, their hashes and parents, and the current version. Writes
// are atomic (temporary file, fsync, rename) and the index is guarded by
// an advisory lock (flock on versions.lock), so concurrent processes
// neither corrupt it nor write one version twice. A Store value is safe
// for use by one goroutine at a time.
type Store struct {
	dir string
}

// OpenStore opens the store in dir, creating the directory and an empty
// index if needed. It returns an error if an existing index cannot be read
// or has a newer schema.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening prompt store %s: %w", dir, err)
	}
	s := &Store{dir: dir}
	err := s.locked(func(ix *index) (bool, error) { return ix.Schema == 0, nil })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// FileName returns the file name of version v: "prompt_v1.0.0.yaml".
func FileName(v Version) string { return "prompt_" + v.String() + ".yaml" }

// locked runs f on the index under the store's lock; if f reports a
// change, the index is written back atomically.
func (s *Store) locked(f func(ix *index) (bool, error)) error {
	lock, err := os.OpenFile(filepath.Join(s.dir, "versions.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("prompt store %s: %w", s.dir, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("prompt store %s: locking: %w", s.dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	ix, err := s.readIndex()
	if err != nil {
		return err
	}
	changed, err := f(ix)
	if err != nil || !changed {
		return err
	}
	ix.Schema = IndexSchema
	sort.Slice(ix.Versions, func(i, j int) bool { return ix.Versions[i].Version.Less(ix.Versions[j].Version) })
	data, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(s.dir, "versions.json"), append(data, '\n'), 0o644)
}

func (s *Store) readIndex() (*index, error) {
	path := filepath.Join(s.dir, "versions.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &index{}, nil
	}
	if err != nil {
		return nil, err
	}
	ix := &index{}
	if err := json.Unmarshal(data, ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ix.Schema > IndexSchema {
		return nil, fmt.Errorf("%s: schema %d is newer than this evolve understands (%d)", path, ix.Schema, IndexSchema)
	}
	return ix, nil
}

func (ix *index) find(v Version) int {
	for i := range ix.Versions {
		if ix.Versions[i].Version == v {
			return i
		}
	}
	return -1
}

// Write encodes p canonically and writes it as a new version. It never
// replaces a file: an existing version (in the index or on disk) is
// ErrVersionExists, and the file appears atomically under its final name
// (hard link from a synced temporary file). The parent recorded in the
// index is the last mutation's prev_version.
func (s *Store) Write(p *Prompt) error {
	data, err := Encode(p)
	if err != nil {
		return err
	}
	name := FileName(p.Version)
	path := filepath.Join(s.dir, name)
	return s.locked(func(ix *index) (bool, error) {
		if ix.find(p.Version) >= 0 {
			return false, fmt.Errorf("prompt store %s: writing %s: %w", s.dir, name, ErrVersionExists)
		}
		if err := writeNew(path, data); err != nil {
			return false, err
		}
		sum := sha256.Sum256(data)
		info := VersionInfo{Version: p.Version, File: name, SHA256: hex.EncodeToString(sum[:]), Created: p.Timestamp.UTC()}
		if n := len(p.MutationHistory); n > 0 {
			last := p.MutationHistory[n-1]
			parent := last.PrevVersion
			info.Parent, info.Operator, info.Description = &parent, last.Operator, last.Description
		}
		ix.Versions = append(ix.Versions, info)
		return true, nil
	})
}

// writeNew creates path with data atomically, failing with
// ErrVersionExists if path exists.
func writeNew(path string, data []byte) error {
	tmp := path + ".new"
	if err := atomicfile.WriteFile(tmp, data, 0o444); err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing %s: %w", path, ErrVersionExists)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// Load reads version v and verifies it: the file's SHA-256 must match the
// index and its content_sha256 its content (ErrHashMismatch otherwise).
func (s *Store) Load(v Version) (*Prompt, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	i := ix.find(v)
	if i < 0 {
		return nil, fmt.Errorf("prompt store %s: %s: %w", s.dir, v, ErrNoVersion)
	}
	info := ix.Versions[i]
	path := filepath.Join(s.dir, info.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != info.SHA256 {
		return nil, fmt.Errorf("%s: %w: versions.json records sha256 %s, the file hashes to %s (versions are immutable)",
			path, ErrHashMismatch, info.SHA256, got)
	}
	p, err := Decode(path, data)
	if err != nil {
		return nil, err
	}
	if p.Version != v {
		return nil, fmt.Errorf("%s: holds version %s, not %s", path, p.Version, v)
	}
	if p.ContentSHA256 == "" {
		return nil, fmt.Errorf("%s: no content_sha256 (not written by a store)", path)
	}
	return p, nil
}

// List returns the index entries in version order.
func (s *Store) List() ([]VersionInfo, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	return ix.Versions, nil
}

// Current returns the current version, or ErrNoVersion if none was set.
func (s *Store) Current() (Version, error) {
	ix, err := s.readIndex()
	if err != nil {
		return Version{}, err
	}
	if ix.Current == nil {
		return Version{}, fmt.Errorf("prompt store %s: no current version: %w", s.dir, ErrNoVersion)
	}
	return *ix.Current, nil
}

// SetCurrent makes v, which must exist, the current version.
func (s *Store) SetCurrent(v Version) error {
	return s.locked(func(ix *index) (bool, error) {
		if ix.find(v) < 0 {
			return false, fmt.Errorf("prompt store %s: setting current to %s: %w", s.dir, v, ErrNoVersion)
		}
		ix.Current = &v
		return true, nil
	})
}

// Rollback moves the current version to *to, or, if to is nil, to the
// current version's parent. Nothing is deleted. It returns the new current
// version; ErrNoParent when rolling back from a root without a target.
func (s *Store) Rollback(to *Version) (Version, error) {
	var target Version
	err := s.locked(func(ix *index) (bool, error) {
		if to != nil {
			target = *to
		} else {
			if ix.Current == nil {
				return false, fmt.Errorf("prompt store %s: rollback: no current version: %w", s.dir, ErrNoVersion)
			}
			info := ix.Versions[ix.find(*ix.Current)]
			if info.Parent == nil {
				return false, fmt.Errorf("prompt store %s: rollback from %s: %w", s.dir, info.Version, ErrNoParent)
			}
			target = *info.Parent
		}
		if ix.find(target) < 0 {
			return false, fmt.Errorf("prompt store %s: rollback to %s: %w", s.dir, target, ErrNoVersion)
		}
		ix.Current = &target
		return true, nil
	})
	return target, err
}

// Next returns the next free version from base for bump b: patch gives
// vX.Y.(largest patch of vX.Y.* + 1), minor vX.(largest minor of vX.* +
// 1).0, major v(largest major + 1).0.0. Versions derived one after another
// from one incumbent are thus distinct and deterministic (from v1.0.0:
// v1.0.1, v1.0.2, v1.1.0, ...).
func (s *Store) Next(base Version, b Bump) (Version, error) {
	ix, err := s.readIndex()
	if err != nil {
		return Version{}, err
	}
	next := base
	switch b {
	case BumpPatch:
		next.Patch = base.Patch + 1
		for _, vi := range ix.Versions {
			v := vi.Version
			if v.Major == base.Major && v.Minor == base.Minor && v.Patch >= next.Patch {
				next.Patch = v.Patch + 1
			}
		}
	case BumpMinor:
		next = Version{base.Major, base.Minor + 1, 0}
		for _, vi := range ix.Versions {
			v := vi.Version
			if v.Major == base.Major && v.Minor >= next.Minor {
				next.Minor = v.Minor + 1
			}
		}
	case BumpMajor:
		next = Version{base.Major + 1, 0, 0}
		for _, vi := range ix.Versions {
			if vi.Version.Major >= next.Major {
				next.Major = vi.Version.Major + 1
			}
		}
	default:
		return Version{}, fmt.Errorf("unknown bump %v", b)
	}
	return next, nil
}
