package store

// BranchHead is one branch of a prompt as a listing shows it (see
// Graph.BranchHeads); its JSON form is what evolve prompt list --json
// prints.
type BranchHead struct {
	Slug     string `json:"slug"`     // the prompt's slug
	Type     string `json:"type"`     // HEAD's prompt type
	Branch   string `json:"branch"`   // the branch
	Head     string `json:"head"`     // HEAD's version, "vX.Y.Z"
	Versions int    `json:"versions"` // how many versions the branch holds (>= 1)
	// InheritsFrom is HEAD's parent as its inherits_from edge names it
	// ("base-agent", "base-agent@v1.0.0"); "" if HEAD inherits nothing.
	InheritsFrom string `json:"inherits_from,omitempty"`
	// Tags are HEAD's tags; empty, never nil, so that JSON shows [].
	Tags []string `json:"tags"`
}

// BranchHeads returns one BranchHead per branch of every prompt: slugs
// sorted, and within a slug main first, then the other branches sorted
// (Graph.Branches). An empty graph gives an empty, non-nil slice.
func (g *Graph) BranchHeads() []BranchHead {
	rows := []BranchHead{}
	for _, slug := range g.Slugs() {
		for _, b := range g.Branches(slug) {
			head, _ := g.Head(slug, b)
			vi, _ := g.Find(slug, head)
			r := BranchHead{Slug: slug, Type: vi.Type, Branch: b, Head: head.String(), Versions: len(g.VersionsOf(slug, b)), Tags: vi.Tags}
			if r.Tags == nil {
				r.Tags = []string{}
			}
			for _, e := range g.EdgesOf(slug, head) {
				if e.Kind == InheritsFrom && e.From == vi.Ref() {
					r.InheritsFrom = e.To.String()
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}
