package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"evolve/prompt"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"evolve/guard"
	"evolve/internal/atomicfile"
	"evolve/internal/flock"
)

// Errors of the store that callers branch on. Returned errors wrap them
// and name the store, slug, branch and version involved.
var (
	// ErrVersionExists: a version is written once and never overwritten.
	ErrVersionExists = errors.New("version already exists")
	// ErrNoVersion: the store has no such version (or no such slug).
	ErrNoVersion = errors.New("no such version")
	// ErrNoBranch: the slug has no such branch.
	ErrNoBranch = errors.New("no such branch")
	// ErrBranchExists: a branch is created once.
	ErrBranchExists = errors.New("branch already exists")
	// ErrNoParent: a rollback without a target from a HEAD that superseded
	// nothing (the first version of its branch).
	ErrNoParent = errors.New("no previous version to roll back to")
)

// IndexSchema is the schema number of versions.json written by this code.
// Schema 1 (one linear lineage and a "current" version) is read and
// upgraded: its versions get slug DefaultSlug on branch main, and the
// parent chain from its current version becomes supersedes edges.
const IndexSchema = 2

// EdgeKind is the kind of a relation between versions in the store's
// graph.
type EdgeKind string

// The edges of the version graph (from the graph prompt design).
const (
	// Supersedes: From became HEAD of Branch in place of To, the previous
	// HEAD. The supersedes edges of a branch form its linear chain.
	Supersedes EdgeKind = "supersedes"
	// BranchedFrom: From, the first version of Branch, was forked from To
	// (a version of another branch), and became the branch's HEAD.
	BranchedFrom EdgeKind = "branched_from"
	// InheritsFrom: From names To as its parent (To is pinned or a branch
	// HEAD, as the prompt's inherits_from says); it moves no HEAD.
	InheritsFrom EdgeKind = "inherits_from"
	// RolledBack: HEAD of Branch moved back from From to To, a version
	// that was HEAD before; Reason says why.
	RolledBack EdgeKind = "rolled_back"
)

// VersionInfo is one version's entry in the store index.
type VersionInfo struct {
	Seq         int64           `json:"seq"`                   // when it was written: position in the store's history, from 1
	Slug        string          `json:"slug"`                  // the prompt's slug
	Branch      string          `json:"branch"`                // the branch it belongs to
	Version     prompt.Version  `json:"version"`               // the version, unique per slug
	Type        string          `json:"type"`                  // the prompt type
	Tags        []string        `json:"tags,omitempty"`        // the prompt's tags
	File        string          `json:"file"`                  // path in the store, '/'-separated, e.g. "dungeon-agent/v1.0.1.yaml"
	SHA256      string          `json:"sha256"`                // hex SHA-256 of the file's bytes
	Parent      *prompt.Version `json:"parent,omitempty"`      // the version it was derived from (its last mutation's prev_version); nil for a root
	Created     time.Time       `json:"created"`               // the prompt's timestamp
	Operator    string          `json:"operator,omitempty"`    // operator of its last mutation record
	Description string          `json:"description,omitempty"` // description of its last mutation record
}

// Ref returns the pinned reference of the version: "slug@vX.Y.Z".
func (vi VersionInfo) Ref() prompt.Ref { return prompt.Ref{Slug: vi.Slug, Version: vi.Version} }

// Edge is one relation of the version graph.
type Edge struct {
	Seq    int64      `json:"seq"`              // position in the store's history, shared with VersionInfo.Seq
	Kind   EdgeKind   `json:"kind"`             // the relation
	From   prompt.Ref `json:"from"`             // a pinned version
	To     prompt.Ref `json:"to"`               // a pinned version, or (inherits_from) a branch HEAD
	Branch string     `json:"branch,omitempty"` // the branch whose HEAD the edge moved; "" for inherits_from
	Time   time.Time  `json:"time"`             // when it was recorded (UTC)
	Reason string     `json:"reason,omitempty"` // rolled_back: why
	// Evidence is an automatic rolled_back edge's statistical evidence
	// (see Store.Observe); nil for every other edge.
	Evidence *RollbackEvidence `json:"evidence,omitempty"`
}

// index is versions.json.
type index struct {
	Schema   int           `json:"schema"`
	Seq      int64         `json:"seq"`      // the last sequence number used
	Versions []VersionInfo `json:"versions"` // in Seq order
	Edges    []Edge        `json:"edges"`    // in Seq order
	// Current is schema 1's current version, read for the upgrade only.
	Current *prompt.Version `json:"current,omitempty"`
}

// Store is a directory of prompts: for each slug a directory of immutable
// versions, one canonical YAML file each (dungeon-agent/v1.0.1.yaml), and
// versions.json, the index of every version (slug, branch, file, SHA-256,
// parent) and the graph's edges. HEAD of a (slug, branch) is derived from
// the graph (see Graph.Head), never stored.
//
// Every text that enters the store is screened by TextPolicy; rejected
// text is never written. A written version is never changed: a new file
// appears atomically under its final name (hard link from a synced
// temporary file) and never replaces one, and the index is replaced
// atomically (write, fsync, rename). Writers hold an exclusive advisory
// lock (flock on versions.lock) for the whole read-modify-write, so
// concurrent processes neither corrupt the index nor write one version
// twice; readers need no lock. A Store value is safe for use by one
// goroutine at a time.
type Store struct {
	dir string
	// TextPolicy screens every text that enters the store; OpenStore sets
	// guard.Default() (8,000 characters per text, forbidden patterns).
	TextPolicy guard.Policy
	// Now stamps versions the store creates (Append, Branch, Migrate) and
	// edges; OpenStore sets the current time in whole seconds, UTC.
	Now func() time.Time
}

// OpenStore opens the store in dir, creating the directory if needed. It
// returns an error if an existing index cannot be read or has a newer
// schema.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("opening prompt store %s: %w", dir, err)
	}
	s := &Store{dir: dir, TextPolicy: guard.Default(), Now: func() time.Time { return time.Now().UTC().Truncate(time.Second) }}
	if _, err := s.readIndex(); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// FilePath returns the path of version v of slug in a store, relative to
// its directory and '/'-separated: "dungeon-agent/v1.0.1.yaml".
func FilePath(slug string, v prompt.Version) string { return slug + "/" + v.String() + ".yaml" }

func (s *Store) errorf(format string, args ...any) error {
	return fmt.Errorf("prompt store %s: "+format, append([]any{s.dir}, args...)...)
}

func (s *Store) readIndex() (*index, error) {
	path := filepath.Join(s.dir, "versions.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &index{Schema: IndexSchema, Versions: []VersionInfo{}, Edges: []Edge{}}, nil
	}
	if err != nil {
		return nil, err
	}
	ix := &index{}
	if err := json.Unmarshal(data, ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case ix.Schema > IndexSchema:
		return nil, fmt.Errorf("%s: schema %d is newer than this evolve understands (%d)", path, ix.Schema, IndexSchema)
	case ix.Schema == 1:
		ix.upgrade()
	case ix.Schema < 1:
		return nil, fmt.Errorf("%s: no schema number (not a prompt store index)", path)
	}
	if ix.Versions == nil {
		ix.Versions = []VersionInfo{}
	}
	if ix.Edges == nil {
		ix.Edges = []Edge{}
	}
	if err := ix.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}

// upgrade turns a schema-1 index (one lineage, a current version) into
// the graph: versions in version order on main of DefaultSlug, and
// supersedes edges along the parent chain from the root to current.
func (ix *index) upgrade() {
	slices.SortFunc(ix.Versions, func(a, b VersionInfo) int { return a.Version.Compare(b.Version) })
	for i := range ix.Versions {
		ix.Seq++
		vi := &ix.Versions[i]
		vi.Seq, vi.Slug, vi.Branch, vi.Type = ix.Seq, prompt.DefaultSlug, prompt.MainBranch, prompt.DefaultType
	}
	var chain []prompt.Version
	for v := ix.Current; v != nil; {
		chain = append(chain, *v)
		i := ix.find(prompt.DefaultSlug, *v)
		if i < 0 || len(chain) > len(ix.Versions) {
			break
		}
		v = ix.Versions[i].Parent
	}
	for i := len(chain) - 2; i >= 0; i-- {
		ix.Seq++
		from, to := ix.Versions[ix.find(prompt.DefaultSlug, chain[i])], chain[i+1]
		ix.Edges = append(ix.Edges, Edge{Seq: ix.Seq, Kind: Supersedes, From: from.Ref(), To: prompt.Ref{Slug: prompt.DefaultSlug, Version: to}, Branch: prompt.MainBranch, Time: from.Created})
	}
	ix.Schema, ix.Current = IndexSchema, nil
}

// check verifies what the rest of the code relies on: unique versions per
// slug, safe file paths, edges between known versions, increasing Seq.
func (ix *index) check() error {
	seen := map[prompt.Ref]bool{}
	var last int64
	for _, vi := range ix.Versions {
		if err := prompt.ValidateSlug(vi.Slug); err != nil {
			return err
		}
		if err := prompt.ValidateBranch(vi.Branch); err != nil {
			return err
		}
		if vi.Seq <= last || vi.Seq > ix.Seq {
			return fmt.Errorf("version %s: seq %d out of order", vi.Ref(), vi.Seq)
		}
		last = vi.Seq
		if seen[vi.Ref()] {
			return fmt.Errorf("version %s listed twice", vi.Ref())
		}
		seen[vi.Ref()] = true
		if !filepath.IsLocal(filepath.FromSlash(vi.File)) {
			return fmt.Errorf("version %s: file %q is outside the store", vi.Ref(), vi.File)
		}
	}
	last = 0
	for _, e := range ix.Edges {
		if e.Seq <= last || e.Seq > ix.Seq {
			return fmt.Errorf("%s edge %s → %s: seq %d out of order", e.Kind, e.From, e.To, e.Seq)
		}
		last = e.Seq
		if !seen[e.From] || (e.To.Pinned() && !seen[e.To]) {
			return fmt.Errorf("%s edge %s → %s names a version the index does not list", e.Kind, e.From, e.To)
		}
	}
	return nil
}

func (ix *index) find(slug string, v prompt.Version) int {
	for i := range ix.Versions {
		if ix.Versions[i].Version == v && ix.Versions[i].Slug == slug {
			return i
		}
	}
	return -1
}

// Graph returns a snapshot of the store's version graph.
func (s *Store) Graph() (*Graph, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	return &Graph{Versions: ix.Versions, Edges: ix.Edges}, nil
}

// List returns the index entries of every version, in the order they were
// written.
func (s *Store) List() ([]VersionInfo, error) {
	g, err := s.Graph()
	if err != nil {
		return nil, err
	}
	return g.Versions, nil
}

// Head returns the HEAD of (slug, branch) (see Graph.Head); the error
// wraps ErrNoBranch if the slug has no such branch (or no versions).
func (s *Store) Head(slug, branch string) (prompt.Version, error) {
	g, err := s.Graph()
	if err != nil {
		return prompt.Version{}, err
	}
	v, ok := g.Head(slug, branch)
	if !ok {
		return prompt.Version{}, s.errorf("%s@%s: %w", slug, branch, ErrNoBranch)
	}
	return v, nil
}

// Load reads version v of slug and verifies it: the file's SHA-256 must
// match the index and its content_sha256 its content (ErrHashMismatch
// otherwise), and it must hold that slug and version.
func (s *Store) Load(slug string, v prompt.Version) (*prompt.Prompt, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	return s.load(ix, slug, v)
}

func (s *Store) load(ix *index, slug string, v prompt.Version) (*prompt.Prompt, error) {
	p, _, err := s.loadFile(ix, slug, v)
	return p, err
}

// loadFile is load that also returns the file's bytes.
func (s *Store) loadFile(ix *index, slug string, v prompt.Version) (*prompt.Prompt, []byte, error) {
	i := ix.find(slug, v)
	if i < 0 {
		return nil, nil, s.errorf("%s@%s: %w", slug, v, ErrNoVersion)
	}
	info := ix.Versions[i]
	path := filepath.Join(s.dir, filepath.FromSlash(info.File))
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != info.SHA256 {
		return nil, nil, fmt.Errorf("%s: %w: versions.json records sha256 %s, the file hashes to %s (versions are immutable)",
			path, prompt.ErrHashMismatch, info.SHA256, got)
	}
	p, err := prompt.Decode(path, data)
	if err != nil {
		return nil, nil, err
	}
	if p.Version != v || p.SlugOrDefault() != slug || p.BranchOrMain() != info.Branch {
		return nil, nil, fmt.Errorf("%s: holds %s on branch %s, the index says %s@%s on branch %s", path, p.Ref(), p.BranchOrMain(), slug, v, info.Branch)
	}
	if p.ContentSHA256 == "" {
		return nil, nil, fmt.Errorf("%s: no content_sha256 (not written by a store)", path)
	}
	return p, data, nil
}

// LoadRef loads the version r names: r.Version if pinned, else the HEAD
// of r's branch (main if none).
func (s *Store) LoadRef(r prompt.Ref) (*prompt.Prompt, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	v, err := s.pin(ix, r)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	return s.load(ix, r.Slug, v)
}

// LoadFile is LoadRef that also returns the version's file as stored,
// byte for byte (the canonical YAML with its content_sha256), verified as
// Load verifies it. Errors are LoadRef's.
func (s *Store) LoadFile(r prompt.Ref) (*prompt.Prompt, []byte, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, nil, err
	}
	v, err := s.pin(ix, r)
	if err != nil {
		return nil, nil, s.errorf("%w", err)
	}
	return s.loadFile(ix, r.Slug, v)
}

// pin returns the version r names in ix.
func (s *Store) pin(ix *index, r prompt.Ref) (prompt.Version, error) {
	g := Graph{Versions: ix.Versions, Edges: ix.Edges}
	if len(g.Branches(r.Slug)) == 0 {
		return prompt.Version{}, fmt.Errorf("%s: no prompt with slug %q: %w", r, r.Slug, ErrNoVersion)
	}
	if r.Pinned() {
		if ix.find(r.Slug, r.Version) < 0 {
			return prompt.Version{}, fmt.Errorf("%s: %w", r, ErrNoVersion)
		}
		return r.Version, nil
	}
	v, ok := g.Head(r.Slug, r.BranchOrMain())
	if !ok {
		return prompt.Version{}, fmt.Errorf("%s: %w (branches: %s)", prompt.Ref{Slug: r.Slug, Branch: r.BranchOrMain()}, ErrNoBranch, strings.Join(g.Branches(r.Slug), ", "))
	}
	return v, nil
}

// Resolve loads the version r names and applies its inheritance (see
// Resolve), reading parents from the store.
func (s *Store) Resolve(r prompt.Ref) (*prompt.Resolution, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	tx := &txn{s: s, ix: ix, cache: map[prompt.Ref]*prompt.Prompt{}}
	p, err := tx.lookup(r)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	res, err := prompt.Resolve(p, tx.lookup)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	return res, nil
}

// Write writes p as a new version at p.Version, without moving any HEAD
// unless p is the first version of its slug (the root of main, which is
// HEAD until an edge moves it). It fills an empty Slug, Branch and Type
// with DefaultSlug, MainBranch and DefaultType and sets ContentSHA256.
// Errors: p invalid; a text rejected by TextPolicy (a *guard.Error,
// guard.ErrRejected); ErrVersionExists if the slug has p.Version (in the
// index or as a file on disk, which is never overwritten); ErrNoBranch if
// p's branch does not exist and is not main of a new slug; an
// inherits_from naming a missing prompt or closing a cycle (ErrCycle).
func (s *Store) Write(p *prompt.Prompt) error {
	return s.update(func(tx *txn) error { return tx.write(p, writeOpts{}) })
}

// WriteOrAdopt writes p like Write, except where p's version exists
// already: in the index, or as a file on disk that the index does not
// list (left by a writer that crashed between the file and the index).
// If that version verifies (Load's checks) and same(existing) is true,
// it is kept byte for byte (an unlisted file is listed in the index) and
// *p becomes it; so a process that replays work a crash cut short ends
// with the files of a run never interrupted. If same is false the error
// wraps ErrVersionExists; other errors as Write.
func (s *Store) WriteOrAdopt(p *prompt.Prompt, same func(existing *prompt.Prompt) bool) error {
	return s.update(func(tx *txn) error { return tx.write(p, writeOpts{adopt: same}) })
}

// Recover removes what a writer that crashed inside this store can leave
// behind: staging files of version files ("vX.Y.Z.yaml.new") and the
// temporary files of atomic writes (".NAME.tmp-RANDOM"), in the store's
// directory and each slug's. It holds the store's lock, so it never
// touches the files of a live writer. It returns the paths it removed
// (nil if none). Orphan version files (written, not yet listed) are kept:
// WriteOrAdopt adopts them, and version allocation skips them.
func (s *Store) Recover() ([]string, error) {
	var removed []string
	err := s.update(func(tx *txn) error {
		dirs := []string{s.dir}
		top, err := os.ReadDir(s.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s.errorf("%w", err)
		}
		for _, e := range top {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(s.dir, e.Name()))
			}
		}
		for _, d := range dirs {
			ents, err := os.ReadDir(d)
			if err != nil {
				return s.errorf("%w", err)
			}
			for _, e := range ents {
				name := e.Name()
				if e.IsDir() || !(strings.HasSuffix(name, ".yaml"+newSuffix) || atomicfile.IsTemp(name)) {
					continue
				}
				path := filepath.Join(d, name)
				if err := os.Remove(path); err != nil {
					return s.errorf("removing a crashed writer's leftover: %w", err)
				}
				removed = append(removed, path)
			}
		}
		return nil
	})
	return removed, err
}

// Append writes p as the next version of its branch and makes it HEAD
// (a supersedes edge to the previous HEAD). The version is allocated
// under the store's lock from HEAD by BumpFor(HEAD, p) (NextVersion over
// every version of the slug, on disk too), so concurrent writers never
// get the same one; a new slug starts at v1.0.0 on main. p's history
// gains a record {operator, description} from HEAD to the new version,
// stamped with Now; p.Version, Timestamp, Slug, Branch, Type and
// ContentSHA256 are set. It returns the new version; errors as Write.
func (s *Store) Append(p *prompt.Prompt, operator, description string) (prompt.Version, error) {
	err := s.update(func(tx *txn) error { return tx.append(p, operator, description) })
	return p.Version, err
}

// Supersede makes version v of slug, a version of branch b that was never
// HEAD of it (a candidate), the HEAD of b, recording a supersedes edge to
// the previous HEAD. Errors name slug, branch and version: ErrNoVersion;
// a version that was HEAD before (use Rollback to return to it); an
// inheritance cycle the move would close (ErrCycle).
func (s *Store) Supersede(slug string, v prompt.Version) error {
	return s.update(func(tx *txn) error { return tx.supersede(slug, v) })
}

// Branch forks from (a pinned version, or a branch HEAD) into a new branch
// name of the same slug: its first version is a copy of from on branch
// name, allocated as a patch bump (see NextVersion) with a history record
// "branch", and a branched_from edge makes it the branch's HEAD. The two
// branches share nothing after the fork. It returns the new version.
// Errors: ErrBranchExists; ErrNoVersion / ErrNoBranch for from; an
// invalid name.
func (s *Store) Branch(from prompt.Ref, name string) (prompt.Version, error) {
	var v prompt.Version
	err := s.update(func(tx *txn) error {
		var err error
		v, err = tx.branch(from, name)
		return err
	})
	return v, err
}

// Rollback moves HEAD of (slug, branch) back to the version to, which
// must have been HEAD of that branch before, or, if to is zero, to the
// version HEAD superseded. It records a rolled_back edge from the old
// HEAD with reason (screened by TextPolicy; may be empty) and deletes
// nothing. It returns the new HEAD. Errors: ErrNoBranch; ErrNoVersion;
// ErrNoParent when HEAD superseded nothing; a target that is HEAD already
// or was never HEAD of the branch; an inheritance cycle (ErrCycle).
func (s *Store) Rollback(slug, branch string, to prompt.Version, reason string) (prompt.Version, error) {
	var v prompt.Version
	err := s.update(func(tx *txn) error {
		var err error
		v, err = tx.rollback(slug, branch, to, reason)
		return err
	})
	return v, err
}

// update runs f on the index under the store's exclusive lock. If f
// succeeds the index is written back atomically; if it fails, the files f
// created are removed and the index is left as it was.
func (s *Store) update(f func(tx *txn) error) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.updateLocked(f)
}

// lock takes the store's exclusive lock (flock on versions.lock) and
// returns its release.
func (s *Store) lock() (unlock func(), err error) {
	lock, err := os.OpenFile(filepath.Join(s.dir, "versions.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	if err := flock.Lock(lock); err != nil {
		lock.Close()
		return nil, s.errorf("locking: %w", err)
	}
	return func() {
		flock.Unlock(lock)
		lock.Close()
	}, nil
}

// updateLocked is update's read-modify-write; the caller holds the lock.
func (s *Store) updateLocked(f func(tx *txn) error) error {
	ix, err := s.readIndex()
	if err != nil {
		return err
	}
	tx := &txn{s: s, ix: ix, now: s.Now().UTC(), cache: map[prompt.Ref]*prompt.Prompt{}}
	if err := f(tx); err != nil {
		tx.abort()
		return err
	}
	if !tx.changed {
		return nil
	}
	data, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		tx.abort()
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, "versions.json"), append(data, '\n'), 0o644); err != nil {
		tx.abort()
		return err
	}
	return nil
}
