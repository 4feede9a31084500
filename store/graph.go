package store

import (
	"evolve/prompt"
	"slices"
	"sort"
)

// Graph is a snapshot of a store's version graph: every version and every
// edge, in the order they were recorded (by Seq). Its methods are pure
// functions of the snapshot.
type Graph struct {
	Versions []VersionInfo // in Seq order
	Edges    []Edge        // in Seq order
}

// Head returns the HEAD of (slug, branch) and whether the branch exists.
// HEAD is defined by the graph alone: it is the version named by the
// branch's most recent HEAD-moving edge (by Seq): the From of a
// supersedes or branched_from edge, the To of a rolled_back edge; a branch
// without such an edge (main before anything superseded its root) has as
// HEAD its first version. Each branch has exactly one HEAD.
func (g *Graph) Head(slug, branch string) (prompt.Version, bool) {
	var head prompt.Version
	ok := false
	for _, vi := range g.Versions {
		if vi.Slug == slug && vi.Branch == branch {
			head, ok = vi.Version, true
			break
		}
	}
	for _, e := range g.Edges {
		if e.From.Slug != slug || e.Branch != branch {
			continue
		}
		switch e.Kind {
		case Supersedes, BranchedFrom:
			head = e.From.Version
		case RolledBack:
			head = e.To.Version
		}
	}
	return head, ok
}

// HeadHistory returns the versions that were HEAD of (slug, branch), in
// the order they became HEAD (a version appears again when a rollback
// returns to it); nil if the branch does not exist.
func (g *Graph) HeadHistory(slug, branch string) []prompt.Version {
	var out []prompt.Version
	for _, vi := range g.Versions {
		if vi.Slug == slug && vi.Branch == branch {
			out = append(out, vi.Version)
			break
		}
	}
	if out == nil {
		return nil
	}
	for _, e := range g.Edges {
		if e.From.Slug != slug || e.Branch != branch {
			continue
		}
		switch e.Kind {
		case Supersedes:
			out = append(out, e.From.Version)
		case BranchedFrom:
			out = []prompt.Version{e.From.Version}
		case RolledBack:
			out = append(out, e.To.Version)
		}
	}
	return out
}

// WasHead reports whether version v has been HEAD of (slug, branch) at
// some time.
func (g *Graph) WasHead(slug, branch string, v prompt.Version) bool {
	return slices.Contains(g.HeadHistory(slug, branch), v)
}

// Chain returns the linear chain of (slug, branch) from HEAD back to the
// branch's first version, following supersedes edges: HEAD, the version
// it superseded, and so on. nil if the branch does not exist.
func (g *Graph) Chain(slug, branch string) []prompt.Version {
	v, ok := g.Head(slug, branch)
	if !ok {
		return nil
	}
	out := []prompt.Version{v}
	for {
		prev, ok := g.Previous(slug, v)
		if !ok || slices.Contains(out, prev) {
			return out
		}
		out = append(out, prev)
		v = prev
	}
}

// Previous returns the version that v superseded (the To of v's
// supersedes edge) and whether there is one.
func (g *Graph) Previous(slug string, v prompt.Version) (prompt.Version, bool) {
	for _, e := range g.Edges {
		if e.Kind == Supersedes && e.From.Slug == slug && e.From.Version == v {
			return e.To.Version, true
		}
	}
	return prompt.Version{}, false
}

// Find returns the index entry of version v of slug.
func (g *Graph) Find(slug string, v prompt.Version) (VersionInfo, bool) {
	for _, vi := range g.Versions {
		if vi.Slug == slug && vi.Version == v {
			return vi, true
		}
	}
	return VersionInfo{}, false
}

// Slugs returns the slugs in the store, sorted.
func (g *Graph) Slugs() []string {
	var out []string
	for _, vi := range g.Versions {
		if !slices.Contains(out, vi.Slug) {
			out = append(out, vi.Slug)
		}
	}
	sort.Strings(out)
	return out
}

// Branches returns the branches of slug: main first, then the others
// sorted; nil if the store has no such slug.
func (g *Graph) Branches(slug string) []string {
	var out []string
	for _, vi := range g.Versions {
		if vi.Slug == slug && !slices.Contains(out, vi.Branch) {
			out = append(out, vi.Branch)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == prompt.MainBranch) != (out[j] == prompt.MainBranch) {
			return out[i] == prompt.MainBranch
		}
		return out[i] < out[j]
	})
	return out
}

// VersionsOf returns the entries of slug's versions on branch ("" for
// every branch), in Seq order.
func (g *Graph) VersionsOf(slug, branch string) []VersionInfo {
	var out []VersionInfo
	for _, vi := range g.Versions {
		if vi.Slug == slug && (branch == "" || vi.Branch == branch) {
			out = append(out, vi)
		}
	}
	return out
}

// EdgesOf returns the edges from or to version v of slug, in Seq order.
func (g *Graph) EdgesOf(slug string, v prompt.Version) []Edge {
	var out []Edge
	pinned := prompt.Ref{Slug: slug, Version: v}
	for _, e := range g.Edges {
		if e.From == pinned || e.To == pinned {
			out = append(out, e)
		}
	}
	return out
}

// LogEntry is one version in a lineage (see Store.Log).
type LogEntry struct {
	VersionInfo
	// Head reports whether the version is HEAD of its branch.
	Head bool `json:"head"`
	// Record is the version's last mutation record (how it was made, with
	// the evidence of its evaluation); nil for a version without history.
	Record *prompt.MutationRecord `json:"record,omitempty"`
	// Edges are the graph edges from or to the version, in Seq order.
	Edges []Edge `json:"edges"`
	// Online is the version's online state (weight, observations,
	// detector, last alarm; see Store.Observe); nil if never observed.
	Online *VersionWeight `json:"online,omitempty"`
}

// Log returns the lineage of (slug, branch): its chain from HEAD back to
// its first version (see Graph.Chain), or, with all, every version of
// slug on every branch (rejected candidates too) in the order written.
// Each entry carries its index entry, its last mutation record read from
// its file, its edges and its online state (see Store.Weights). Errors:
// ErrNoBranch (or ErrNoVersion for an unknown slug); a file that does not
// verify; weights that do not read (ErrObservationLog).
func (s *Store) Log(slug, branch string, all bool) ([]LogEntry, error) {
	ix, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	if _, err := s.pin(ix, prompt.Ref{Slug: slug, Branch: branch}); err != nil {
		return nil, s.errorf("%w", err)
	}
	g := &Graph{Versions: ix.Versions, Edges: ix.Edges}
	weights, err := s.Weights()
	if err != nil {
		return nil, err
	}
	var versions []VersionInfo
	if all {
		versions = g.VersionsOf(slug, "")
	} else {
		for _, v := range g.Chain(slug, branch) {
			vi, _ := g.Find(slug, v)
			versions = append(versions, vi)
		}
	}
	out := make([]LogEntry, 0, len(versions))
	for _, vi := range versions {
		p, err := s.load(ix, slug, vi.Version)
		if err != nil {
			return nil, err
		}
		head, _ := g.Head(slug, vi.Branch)
		e := LogEntry{VersionInfo: vi, Head: head == vi.Version, Edges: g.EdgesOf(slug, vi.Version), Online: weights.Of(slug, vi.Version)}
		if n := len(p.MutationHistory); n > 0 && p.MutationHistory[n-1].Version == vi.Version {
			r := p.MutationHistory[n-1]
			e.Record = &r
		}
		out = append(out, e)
	}
	return out, nil
}
