package store

import "evolve/prompt"

// keepForkFields gives p, the version an entry e makes on a branch other
// than main after fp (the fork point of a new branch, or the branch's
// HEAD), fp's tags, metadata and inherits_from (with its
// override_sections) where e leaves them out: a fork keeps what it does
// not change, as Store.Branch does, and a re-run of the same migration
// finds the branch unchanged.
func keepForkFields(p *prompt.Prompt, e *Entry, fp *prompt.Prompt) {
	if e.Tags == nil && fp.Tags != nil {
		p.Tags = append([]string(nil), fp.Tags...)
	}
	if e.Metadata == nil && fp.Metadata != nil {
		p.Metadata = fp.Metadata.Clone()
	}
	if e.InheritsFrom == nil && fp.InheritsFrom != nil {
		r := *fp.InheritsFrom
		p.InheritsFrom = &r
		if e.OverrideSections == nil {
			p.OverrideSections = append([]string(nil), fp.OverrideSections...)
		}
	}
}
