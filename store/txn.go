package store

import (
	"crypto/sha256"
	"encoding/hex"
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
)

// txn is one read-modify-write of a store under its lock: the index being
// changed, the files created so far (removed if it fails), and the
// prompts loaded or written (by pinned reference). A dry txn writes no
// file, so that a dry run takes exactly the path of the real one.
type txn struct {
	s       *Store
	ix      *index
	now     time.Time
	dry     bool
	changed bool
	created []string
	cache   map[prompt.Ref]*prompt.Prompt
}

// writeOpts say how a written version relates to its branch.
type writeOpts struct {
	advance bool        // make it HEAD of its existing branch (a supersedes edge)
	fork    *prompt.Ref // it is the first version of a new branch, forked from this pinned version
	// operator and description go to the index entry of a version
	// without history (a root), which has no record to take them from.
	operator, description string
	// adopt, if set, decides whether an existing version at p's ref (in
	// the index, or a file on disk the index does not list) may stand for
	// p: if it returns true for that version, the write keeps it as it is
	// (listing an unlisted file) and p becomes it.
	adopt func(existing *prompt.Prompt) bool
}

func (tx *txn) graph() *Graph { return &Graph{Versions: tx.ix.Versions, Edges: tx.ix.Edges} }

func (tx *txn) nextSeq() int64 {
	tx.ix.Seq++
	tx.changed = true
	return tx.ix.Seq
}

// abort removes the files the txn created.
func (tx *txn) abort() {
	for _, f := range tx.created {
		os.Remove(f)
	}
	tx.created = nil
}

// lookup returns the prompt r names as the txn sees the store.
func (tx *txn) lookup(r prompt.Ref) (*prompt.Prompt, error) {
	v, err := tx.s.pin(tx.ix, r)
	if err != nil {
		return nil, err
	}
	key := prompt.Ref{Slug: r.Slug, Version: v}
	if p, ok := tx.cache[key]; ok {
		return p, nil
	}
	p, err := tx.s.load(tx.ix, r.Slug, v)
	if err != nil {
		return nil, err
	}
	tx.cache[key] = p
	return p, nil
}

// existing returns every version of slug in the index and on disk (files
// a crashed writer left behind are never reused).
func (tx *txn) existing(slug string) []prompt.Version {
	var out []prompt.Version
	for _, vi := range tx.ix.Versions {
		if vi.Slug == slug {
			out = append(out, vi.Version)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(tx.s.dir, slug))
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		if v, err := prompt.ParseVersion(name); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// fill sets the defaults of a prompt about to be written.
func (tx *txn) fill(p *prompt.Prompt) {
	p.SetDefaults()
	if p.Timestamp.IsZero() {
		p.Timestamp = tx.now
	}
}

// write writes p (defaults filled) as a new version related to its branch
// as o says.
func (tx *txn) write(p *prompt.Prompt, o writeOpts) error {
	s := tx.s
	tx.fill(p)
	ref := p.Ref()
	data, err := prompt.Encode(p)
	if err != nil {
		return s.errorf("writing %s on branch %s: %w", ref, p.Branch, err)
	}
	if err := s.TextPolicy.Error(p.Texts()...); err != nil {
		return s.errorf("writing %s on branch %s: %w", ref, p.Branch, err)
	}
	if tx.ix.find(p.Slug, p.Version) >= 0 {
		if o.adopt != nil {
			old, err := tx.lookup(ref)
			if err != nil {
				return s.errorf("writing %s: %w (and reading it back: %v)", ref, ErrVersionExists, err)
			}
			if o.adopt(old) {
				*p = *old.Clone()
				return nil
			}
		}
		return s.errorf("writing %s: %w", ref, ErrVersionExists)
	}
	g := tx.graph()
	head, hasHead := g.Head(p.Slug, p.Branch)
	switch {
	case o.fork != nil && hasHead:
		return s.errorf("creating branch %s of %s: %w (HEAD %s)", p.Branch, p.Slug, ErrBranchExists, head)
	case o.fork == nil && !hasHead && p.Branch != prompt.MainBranch:
		return s.errorf("writing %s: %s@%s: %w; create it with evolve prompt branch %s %s", ref, p.Slug, p.Branch, ErrNoBranch, p.Slug, p.Branch)
	}
	if p.InheritsFrom != nil {
		if _, err := tx.lookup(*p.InheritsFrom); err != nil {
			return s.errorf("writing %s: inherits_from: %w", ref, err)
		}
	}
	file := FilePath(p.Slug, p.Version)
	if !tx.dry {
		path := filepath.Join(s.dir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return s.errorf("writing %s: %w", ref, err)
		}
		switch err := writeNew(path, data); {
		case errors.Is(err, errOrphan) && o.adopt != nil:
			old, oldData, lerr := readOrphan(path, ref, p.Branch)
			if lerr != nil {
				return s.errorf("writing %s: %w (and reading it back: %v)", ref, err, lerr)
			}
			if !o.adopt(old) {
				return s.errorf("writing %s: %w with other content", ref, err)
			}
			*p, data = *old, oldData // adopted: listed below, never removed by abort
		case err != nil:
			return s.errorf("writing %s: %w", ref, err)
		default:
			tx.created = append(tx.created, path)
		}
	}
	sum := sha256.Sum256(data)
	info := VersionInfo{Seq: tx.nextSeq(), Slug: p.Slug, Branch: p.Branch, Version: p.Version, Type: p.Type,
		Tags: slices.Clone(p.Tags), File: file, SHA256: hex.EncodeToString(sum[:]), Created: p.Timestamp.UTC()}
	if n := len(p.MutationHistory); n > 0 {
		last := p.MutationHistory[n-1]
		parent := last.PrevVersion
		info.Parent, info.Operator, info.Description = &parent, last.Operator, last.Description
	} else {
		info.Operator, info.Description = o.operator, o.description
	}
	tx.ix.Versions = append(tx.ix.Versions, info)
	tx.cache[ref] = p.Clone()
	if p.InheritsFrom != nil {
		tx.edge(Edge{Kind: InheritsFrom, From: ref, To: *p.InheritsFrom})
	}
	switch {
	case o.fork != nil:
		tx.edge(Edge{Kind: BranchedFrom, From: ref, To: *o.fork, Branch: p.Branch})
	case o.advance && hasHead:
		tx.edge(Edge{Kind: Supersedes, From: ref, To: prompt.Ref{Slug: p.Slug, Version: head}, Branch: p.Branch})
	}
	return tx.checkInheritance(fmt.Sprintf("writing %s", ref), ref)
}

func (tx *txn) edge(e Edge) {
	e.Seq, e.Time = tx.nextSeq(), tx.now
	tx.ix.Edges = append(tx.ix.Edges, e)
}

// checkInheritance resolves every version that inherits, as the txn now
// sees the store: a write or a HEAD move that would leave one of them
// unresolvable (a cycle) is refused.
// The version written or moved to, changed, is resolved first, so that an
// error names the cycle from it.
func (tx *txn) checkInheritance(doing string, changed prompt.Ref) error {
	p, err := tx.lookup(changed)
	if err != nil {
		return tx.s.errorf("%s: %w", doing, err)
	}
	if _, err := prompt.Resolve(p, tx.lookup); err != nil {
		return tx.s.errorf("%s: %w", doing, err)
	}
	for _, e := range tx.ix.Edges {
		if e.Kind != InheritsFrom || e.From == changed {
			continue
		}
		p, err := tx.lookup(e.From)
		if err != nil {
			return tx.s.errorf("%s: %w", doing, err)
		}
		if _, err := prompt.Resolve(p, tx.lookup); err != nil {
			return tx.s.errorf("%s would leave %s unresolvable: %w", doing, e.From, err)
		}
	}
	return nil
}

// errOrphan marks ErrVersionExists for a version file on disk that the
// index does not list: a writer crashed between the file and the index.
var errOrphan = errors.New("a file the index does not list; it is left as it is")

// newSuffix is the suffix of the staging file of a version being written
// (see writeNew); only a crash leaves one behind.
const newSuffix = ".new"

// writeNew creates path with data atomically, failing with
// ErrVersionExists (and errOrphan) if path exists. The data is staged in
// path+".new" and hard-linked into place, so path appears whole or not at
// all and an existing file is never replaced.
func writeNew(path string, data []byte) error {
	tmp := path + newSuffix
	if err := atomicfile.WriteFile(tmp, data, 0o444); err != nil {
		return err
	}
	defer os.Remove(tmp)
	atomicfile.Point(path)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w (%w)", path, ErrVersionExists, errOrphan)
		}
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// readOrphan reads the unlisted version file path, which must verify (its
// content_sha256) and hold ref on branch.
func readOrphan(path string, ref prompt.Ref, branch string) (*prompt.Prompt, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	p, err := prompt.Decode(path, data)
	if err != nil {
		return nil, nil, err
	}
	if p.ContentSHA256 == "" {
		return nil, nil, fmt.Errorf("%s: no content_sha256 (not written by a store)", path)
	}
	if p.Ref() != ref || p.BranchOrMain() != branch {
		return nil, nil, fmt.Errorf("%s: holds %s on branch %s, not %s on branch %s", path, p.Ref(), p.BranchOrMain(), ref, branch)
	}
	return p, data, nil
}

// append allocates p's version from its branch HEAD and writes it as the
// new HEAD; p is changed only on success.
func (tx *txn) append(p *prompt.Prompt, operator, description string) error {
	q := p.Clone()
	tx.fill(q)
	q.Timestamp = tx.now
	q.ContentSHA256 = ""
	g := tx.graph()
	existing := tx.existing(q.Slug)
	head, ok := g.Head(q.Slug, q.Branch)
	switch {
	case ok:
		hp, err := tx.lookup(prompt.Ref{Slug: q.Slug, Version: head})
		if err != nil {
			return tx.s.errorf("appending to %s@%s: %w", q.Slug, q.Branch, err)
		}
		q.Version = prompt.NextVersion(head, prompt.BumpFor(hp, q), existing)
		q.MutationHistory = append(q.MutationHistory, prompt.MutationRecord{Version: q.Version, PrevVersion: head,
			Operator: operator, Description: description, Timestamp: tx.now})
	case q.Branch != prompt.MainBranch:
		return tx.s.errorf("appending to %s@%s: %w; create it with evolve prompt branch %s %s", q.Slug, q.Branch, ErrNoBranch, q.Slug, q.Branch)
	case len(existing) == 0:
		q.Version = prompt.Version{Major: 1, Minor: 0, Patch: 0}
	default: // only orphan files on disk: start past them
		q.Version = prompt.NextVersion(prompt.Version{}, prompt.BumpMajor, existing)
	}
	if err := tx.write(q, writeOpts{advance: true, operator: operator, description: description}); err != nil {
		return err
	}
	*p = *q
	return nil
}

func (tx *txn) supersede(slug string, v prompt.Version) error {
	g := tx.graph()
	vi, ok := g.Find(slug, v)
	if !ok {
		return tx.s.errorf("%s@%s: %w", slug, v, ErrNoVersion)
	}
	head, _ := g.Head(slug, vi.Branch)
	if g.WasHead(slug, vi.Branch, v) {
		return tx.s.errorf("%s@%s was HEAD of branch %s before (HEAD is %s); use rollback to return to it", slug, v, vi.Branch, head)
	}
	tx.edge(Edge{Kind: Supersedes, From: vi.Ref(), To: prompt.Ref{Slug: slug, Version: head}, Branch: vi.Branch})
	return tx.checkInheritance(fmt.Sprintf("making %s@%s HEAD of branch %s", slug, v, vi.Branch), vi.Ref())
}

func (tx *txn) branch(from prompt.Ref, name string) (prompt.Version, error) {
	if err := prompt.ValidateBranch(name); err != nil {
		return prompt.Version{}, tx.s.errorf("branching %s: %w", from, err)
	}
	v, err := tx.s.pin(tx.ix, from)
	if err != nil {
		return prompt.Version{}, tx.s.errorf("branching %s: %w", from, err)
	}
	pinned := prompt.Ref{Slug: from.Slug, Version: v}
	src, err := tx.lookup(pinned)
	if err != nil {
		return prompt.Version{}, err
	}
	q := src.Clone()
	q.Branch, q.Timestamp, q.ContentSHA256 = name, tx.now, ""
	q.Version = prompt.NextVersion(v, prompt.BumpPatch, tx.existing(from.Slug))
	q.MutationHistory = append(q.MutationHistory, prompt.MutationRecord{Version: q.Version, PrevVersion: v, Operator: "branch",
		Description: fmt.Sprintf("Branched %s (branch %s) into branch %s", pinned, src.BranchOrMain(), name), Timestamp: tx.now})
	if err := tx.write(q, writeOpts{fork: &pinned}); err != nil {
		return prompt.Version{}, err
	}
	return q.Version, nil
}

func (tx *txn) rollback(slug, branch string, to prompt.Version, reason string) (prompt.Version, error) {
	s := tx.s
	g := tx.graph()
	head, ok := g.Head(slug, branch)
	if !ok {
		return prompt.Version{}, s.errorf("rollback of %s@%s: %w", slug, branch, ErrNoBranch)
	}
	if to.IsZero() {
		prev, ok := g.Previous(slug, head)
		if !ok {
			return prompt.Version{}, s.errorf("rollback of %s@%s: HEAD %s is the branch's first version: %w", slug, branch, head, ErrNoParent)
		}
		to = prev
	}
	vi, ok := g.Find(slug, to)
	switch {
	case !ok:
		return prompt.Version{}, s.errorf("rollback of %s@%s to %s: %w", slug, branch, to, ErrNoVersion)
	case vi.Branch != branch:
		return prompt.Version{}, s.errorf("rollback of %s@%s to %s: that version is on branch %s", slug, branch, to, vi.Branch)
	case to == head:
		return prompt.Version{}, s.errorf("rollback of %s@%s to %s: it is HEAD already", slug, branch, to)
	case !g.WasHead(slug, branch, to):
		return prompt.Version{}, s.errorf("rollback of %s@%s to %s: it was never HEAD of the branch (a candidate that was not accepted); rollback returns only to a former HEAD", slug, branch, to)
	}
	if err := s.TextPolicy.Error(guard.Text{Field: "reason", Text: reason}); err != nil {
		return prompt.Version{}, s.errorf("rollback of %s@%s: %w", slug, branch, err)
	}
	tx.edge(Edge{Kind: RolledBack, From: prompt.Ref{Slug: slug, Version: head}, To: vi.Ref(), Branch: branch, Reason: reason})
	return to, tx.checkInheritance(fmt.Sprintf("rolling %s@%s back to %s", slug, branch, to), vi.Ref())
}
