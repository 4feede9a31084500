package store

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"evolve/prompt"
)

// The text forms of the store's listings, as evolve prompt prints them
// (list, log, migrate); --json prints the values themselves.

// TimeLayout is how the text forms print a time: UTC, to the second.
const TimeLayout = "2006-01-02 15:04:05"

func fmtTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// WriteBranchHeads writes rows (Graph.BranchHeads) as a table aligned with
// spaces: a header line, then one line per branch with its slug, type,
// branch, HEAD, number of versions, parent ("-" for none) and tags
// (comma-separated). The only error is w's.
func WriteBranchHeads(w io.Writer, rows []BranchHead) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "slug\ttype\tbranch\thead\tversions\tinherits from\ttags")
	for _, r := range rows {
		inh := r.InheritsFrom
		if inh == "" {
			inh = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Slug, r.Type, r.Branch, r.Head, r.Versions, inh, strings.Join(r.Tags, ","))
	}
	return tw.Flush()
}

// Describe says what e is to the version self, one of its ends, in the
// words of a lineage ("supersedes v1.0.0", "superseded by v1.0.2",
// "branched from SLUG@vX.Y.Z into branch B", "forked into branch B as
// vX.Y.Z", "rolled back to vX.Y.Z", "HEAD rolled back here from vX.Y.Z",
// "inherits from REF", "inherited by SLUG@vX.Y.Z"), followed by how:
// an automatic rollback's evidence (the detector's window and baseline
// means, its threshold and the log event), or a reason in quotes. The
// edge's time is not part of it.
func (e Edge) Describe(self prompt.Ref) string {
	var line string
	switch {
	case e.Kind == Supersedes && e.From == self:
		line = "supersedes " + e.To.Version.String()
	case e.Kind == Supersedes:
		line = "superseded by " + e.From.Version.String()
	case e.Kind == BranchedFrom && e.From == self:
		line = "branched from " + e.To.String() + " into branch " + e.Branch
	case e.Kind == BranchedFrom:
		line = "forked into branch " + e.Branch + " as " + e.From.Version.String()
	case e.Kind == RolledBack && e.From == self:
		line = "rolled back to " + e.To.Version.String()
	case e.Kind == RolledBack:
		line = "HEAD rolled back here from " + e.From.Version.String()
	case e.Kind == InheritsFrom && e.From == self:
		line = "inherits from " + e.To.String()
	default:
		line = "inherited by " + e.From.String()
	}
	switch {
	case e.Evidence != nil:
		ev := e.Evidence
		line += fmt.Sprintf(" automatically: window of %d mean %.4f < baseline (%d) mean %.4f - %g sigma (%.4f) sqrt(1/%d + 1/%d) = %.4f, after %d observations (log event %d)",
			ev.Window, ev.RecentMean, ev.Baseline, ev.BaselineMean, ev.K, ev.Sigma, ev.Window, ev.Baseline, ev.Threshold, ev.Observations, ev.LogSeq)
	case e.Reason != "":
		line += fmt.Sprintf(" (%q)", e.Reason)
	}
	return line
}

// WriteLog writes the lineage entries of (slug, branch) that Store.Log
// returned (with all as given to it) as text: a header line "SLUG@BRANCH:
// HEAD vX.Y.Z, N versions on the chain" (with all: "N versions on M
// branches"), then per version a blank line, the version with its marks
// (HEAD; with all its branch and "never HEAD" for a candidate never
// made HEAD) and creation time, how it was made (mutation operator and
// description with the evidence of its evaluation, or the index's
// operator, or "root"), each edge (Edge.Describe and its time) and its
// online state (weight, observations, mean score, detector resets, the
// last alarm). g is the graph the entries were read from. The only error
// is w's.
func WriteLog(w io.Writer, g *Graph, slug, branch string, entries []LogEntry, all bool) error {
	bw := bufio.NewWriter(w)
	head, _ := g.Head(slug, branch)
	what := fmt.Sprintf("%d versions on the chain", len(entries))
	if all {
		what = fmt.Sprintf("%d versions on %d branches", len(entries), len(g.Branches(slug)))
	}
	fmt.Fprintf(bw, "%s@%s: HEAD %s, %s\n", slug, branch, head, what)
	for _, e := range entries {
		writeLogEntry(bw, g, e, all)
	}
	return bw.Flush()
}

// writeLogEntry writes one version of a lineage (see WriteLog).
func writeLogEntry(w io.Writer, g *Graph, e LogEntry, all bool) {
	var tags []string
	if e.Head {
		tags = append(tags, "HEAD")
	}
	if all {
		tags = append(tags, "branch "+e.Branch)
		if !g.WasHead(e.Slug, e.Branch, e.Version) {
			tags = append(tags, "never HEAD")
		}
	}
	label := ""
	if len(tags) > 0 {
		label = " (" + strings.Join(tags, ", ") + ")"
	}
	fmt.Fprintf(w, "\n%s%s  %s\n", e.Version, label, fmtTime(e.Created))
	switch {
	case e.Record != nil:
		fmt.Fprintf(w, "    %s: %s\n", e.Record.Operator, e.Record.Description)
		if ev := e.Record.Evidence; ev != nil {
			verdict := "rejected"
			if ev.Accepted {
				verdict = "accepted"
			}
			fmt.Fprintf(w, "    evidence: %s (%s), p %.3g, adjusted p %.3g (%s), A12 %.3f, val mean %.1f → %.1f (n %d, %d), generation %d, %s\n",
				ev.Test, ev.Alternative, ev.PValue, ev.AdjustedPValue, ev.Correction, ev.A12,
				ev.IncumbentValMean, ev.CandidateValMean, ev.NIncumbent, ev.NCandidate, ev.Generation, verdict)
		}
	case e.Operator != "":
		fmt.Fprintf(w, "    %s: %s\n", e.Operator, e.Description)
	default:
		fmt.Fprintf(w, "    root\n")
	}
	self := e.Ref()
	for _, ed := range e.Edges {
		fmt.Fprintf(w, "    %s  %s\n", ed.Describe(self), fmtTime(ed.Time))
	}
	if o := e.Online; o != nil {
		fmt.Fprintf(w, "    online: weight %.4f, %d observations, mean score %.4f", o.Weight, o.Observations, o.MeanScore())
		if o.Resets > 0 {
			fmt.Fprintf(w, ", detector reset %d times", o.Resets)
		}
		fmt.Fprintln(w)
		if a := o.Alarm; a != nil {
			what := a.Note
			if a.RolledBackTo != nil {
				what = "HEAD of " + a.Branch + " rolled back to " + a.RolledBackTo.String()
			}
			fmt.Fprintf(w, "    alarm at observation %d: window mean %.4f < %.4f: %s  %s\n", a.Evidence.Observations, a.Evidence.RecentMean, a.Evidence.Threshold, what, fmtTime(a.Time))
		}
	}
}

// Written returns how many versions the plan writes (or, in a dry run,
// would write): its entries with a version.
func (p *MigrationPlan) Written() int {
	n := 0
	for _, e := range p.Entries {
		if e.Version != nil {
			n++
		}
	}
	return n
}

// Details says what one planned entry does, for the plan's table: the
// number of problems of an invalid entry, the HEAD that already holds an
// unchanged entry's content, else the fork point or the superseded HEAD
// with the bump, the type, the parent and the section names, joined by
// "; ".
func (e PlannedEntry) Details() string {
	var details []string
	switch {
	case e.Action == ActionInvalid:
		details = append(details, fmt.Sprintf("%d problem(s), below", len(e.Problems)))
	case e.Action == ActionUnchanged:
		details = append(details, "HEAD "+e.Supersedes.String()+" holds this content")
	case e.BranchedFrom != nil:
		details = append(details, fmt.Sprintf("forked from %s (%s)", e.BranchedFrom, e.Bump))
	case e.Supersedes != nil:
		details = append(details, fmt.Sprintf("supersedes %s (%s)", e.Supersedes, e.Bump))
	}
	if e.Action != ActionInvalid && e.Action != ActionUnchanged {
		details = append(details, e.Type)
		if e.InheritsFrom != nil {
			details = append(details, "inherits "+e.InheritsFrom.String())
		}
		if len(e.Sections) > 0 {
			details = append(details, "sections "+strings.Join(e.Sections, ", "))
		}
	}
	return strings.Join(details, "; ")
}

// WriteText writes the plan as text: a summary line (entries, problems,
// and what was or would be written to the store in dir), a table with one
// line per entry (entry, line, action, SLUG@BRANCH, version, Details),
// and the problems, each prefixed with the file. The only error is w's.
func (p *MigrationPlan) WriteText(w io.Writer, dir string) error {
	bw := bufio.NewWriter(w)
	entries := plural(len(p.Entries), "entry", "entries")
	switch {
	case len(p.Problems) > 0 && p.DryRun:
		fmt.Fprintf(bw, "migration %s: %s, %s (dry run: nothing written)\n", p.File, entries, plural(len(p.Problems), "problem", "problems"))
	case len(p.Problems) > 0:
		fmt.Fprintf(bw, "migration %s: %s, %s: nothing was written\n", p.File, entries, plural(len(p.Problems), "problem", "problems"))
	case p.DryRun:
		fmt.Fprintf(bw, "migration %s: %s (dry run: would write %s to %s)\n", p.File, entries, plural(p.Written(), "version", "versions"), dir)
	default:
		fmt.Fprintf(bw, "migration %s: %s: wrote %s to %s\n", p.File, entries, plural(p.Written(), "version", "versions"), dir)
	}
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "entry\tline\taction\tprompt\tversion\tdetails")
	for _, e := range p.Entries {
		v := "-"
		if e.Version != nil {
			v = e.Version.String()
		}
		name := e.Slug + "@" + e.Branch
		if e.Slug == "" {
			name = "?"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", e.Entry, e.Line, e.Action, name, v, e.Details())
	}
	tw.Flush()
	if len(p.Problems) > 0 {
		fmt.Fprintln(bw, "\nproblems:")
		for _, pr := range p.Problems {
			fmt.Fprintf(bw, "    %s: %s\n", p.File, pr)
		}
	}
	return bw.Flush()
}
