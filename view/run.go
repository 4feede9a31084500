package view

import (
	"math"
	"net/url"
	"sort"
	"strconv"

	"evolve/internal/format"
	"evolve/results"
	"evolve/rundir"
)

// decisions returns a run's generations and candidates numbered from 0
// as the tables, the CLI and the report number them, each candidate with
// its generation's α (alphas[g], the level stats.BaselAlpha gives for
// the formula's g+1) and why it was accepted or rejected.
func decisions(gens []results.GenerationRow, cands []results.CandidateRow, alphas []float64) ([]GenerationJSON, []CandidateJSON) {
	alpha := func(g int32) float64 {
		if int(g) < len(alphas) {
			return alphas[g]
		}
		return math.NaN()
	}
	og := make([]GenerationJSON, 0, len(gens))
	for _, g := range gens {
		og = append(og, GenerationJSON{Generation: int(g.Generation), Incumbent: g.Incumbent, NTrain: g.NTrain, NVal: g.NVal,
			TrainMean: format.Float(g.TrainMean), ValMean: format.Float(g.ValMean), ValCILow: format.Float(g.ValCILow), ValCIHigh: format.Float(g.ValCIHigh), Failures: g.Failures,
			NCandidates: g.NCandidates, Accepted: g.Accepted, Alpha: format.Float(alpha(g.Generation)), EpisodesUsed: g.EpisodesUsed})
	}
	accepted := map[int32]bool{}
	for _, c := range cands {
		if c.Accepted {
			accepted[c.Generation] = true
		}
	}
	oc := make([]CandidateJSON, 0, len(cands))
	for _, c := range cands {
		a := alpha(c.Generation)
		n := itoa(int(c.Generation))
		cj := CandidateJSON{Generation: int(c.Generation), Version: c.Version, Parent: c.Parent, Operator: c.Operator, Proposer: c.Proposer,
			Mutation: c.Mutation, N: c.N, Mean: format.Float(c.Mean), Test: c.Test, P: format.Float(c.P), PAdj: format.Float(c.PAdj), Alpha: format.Float(a), A12: format.Float(c.A12),
			Accepted: c.Accepted, Look: c.Look, Stop: c.Stop}
		switch {
		case c.Accepted:
			cj.Why = "accepted: p adj. " + fmtP(c.PAdj) + " < α_" + n + " = " + fmtP(a)
		case c.Stop == "futility" && c.Look != nil:
			cj.Why = "rejected: stopped for futility at look " + itoa(int(*c.Look))
		case !math.IsNaN(a) && c.PAdj >= a:
			cj.Why = "rejected: p adj. " + fmtP(c.PAdj) + " ≥ α_" + n + " = " + fmtP(a)
		case accepted[c.Generation]:
			cj.Why = "rejected: passed, but another candidate was accepted"
		default:
			cj.Why = "rejected"
		}
		if c.Look != nil {
			cj.Why += " (look " + itoa(int(*c.Look))
			if c.Stop != "" {
				cj.Why += ", " + c.Stop
			}
			cj.Why += ")"
		}
		oc = append(oc, cj)
	}
	return og, oc
}

// graph is a lineage drawn: nodes in columns by generation, edges
// coloured by kind.
type graph struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
}

type graphNode struct {
	X, Y    int
	Version string
	Title   string
	URL     string
}

type graphEdge struct {
	X1, Y1, X2, Y2 int
	Colour, Title  string
	Thick          bool
}

// edgeColours are the colours of the lineage's edge kinds.
var edgeColours = map[string]string{"supersedes": "#1a7f37", "branched_from": "#8250df", "inherits_from": "#0969da", "rolled_back": "#cf222e"}

// drawLineage lays out a run's versions: one column per generation
// (the base in column 0), one row per version in its column.
func drawLineage(id string, l *Lineage, cands []results.CandidateRow) *graph {
	if l == nil || len(l.Versions) == 0 {
		return nil
	}
	gen := map[string]int{}
	for _, c := range cands {
		gen[c.Version] = int(c.Generation) + 1 // column 0 is the base
	}
	g := &graph{}
	rows := map[int]int{}
	pos := map[string][2]int{}
	cols := 0
	for _, v := range l.Versions {
		c := gen[v.Version.String()]
		rows[c]++
		cols = max(cols, c+1)
		x, y := 30+c*150, 20+(rows[c]-1)*34
		pos[v.Slug+"@"+v.Version.String()] = [2]int{x, y}
		title := "base"
		if v.Operator != "" {
			title = v.Operator + ": " + v.Description
		}
		g.Nodes = append(g.Nodes, graphNode{X: x, Y: y, Version: v.Version.String(), Title: title,
			URL: "/runs/" + url.PathEscape(id) + "/versions/" + url.PathEscape(v.Version.String())})
	}
	most := 0
	for _, n := range rows {
		most = max(most, n)
	}
	g.Width, g.Height = 60+150*cols, 40+34*most
	for _, v := range l.Versions {
		if v.Parent == nil {
			continue
		}
		a, ok1 := pos[v.Slug+"@"+v.Version.String()]
		b, ok2 := pos[v.Slug+"@"+v.Parent.String()]
		if ok1 && ok2 {
			g.Edges = append(g.Edges, graphEdge{X1: a[0], Y1: a[1], X2: b[0] + 60, Y2: b[1], Colour: "#afb8c1",
				Title: "derived from: " + v.Version.String() + " → " + v.Parent.String()})
		}
	}
	for _, e := range l.Edges {
		a, ok1 := pos[e.From.Slug+"@"+e.From.Version.String()]
		b, ok2 := pos[e.To.Slug+"@"+e.To.Version.String()]
		if !ok1 || !ok2 {
			continue
		}
		c := edgeColours[string(e.Kind)]
		if c == "" {
			c = "#afb8c1"
		}
		g.Edges = append(g.Edges, graphEdge{X1: a[0], Y1: a[1], X2: b[0] + 60, Y2: b[1], Colour: c, Thick: true,
			Title: string(e.Kind) + ": " + e.From.Version.String() + " → " + e.To.Version.String()})
	}
	return g
}

// EdgeKinds are the lineage legend's kinds and colours, sorted.
func (d *RunJSON) EdgeKinds() []FactJSON {
	var out []FactJSON
	for k, c := range edgeColours {
		out = append(out, FactJSON{Name: k, Value: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ProgressJSON is a run's progress by generations: episodes.parquet and
// generations.parquet are written at the end of each generation. The
// progress within the current phase (episodes done of the phase's total,
// its rate and ETA) is the entry's Phase, from the run's
// rundir.ProgressFile.
type ProgressJSON struct {
	// Episodes are the episodes written so far (all splits).
	Episodes int `json:"episodes"`
	// Generations done of at most MaxGenerations.
	Generations    int `json:"generations"`
	MaxGenerations int `json:"max_generations"`
	// Rate is Episodes over the elapsed seconds (episodes per second);
	// ETASeconds the time left to MaxGenerations at the finished
	// generations' mean pace, an upper bound (the run may stop sooner);
	// null when no generation has finished or the run is not running.
	Rate       format.Float `json:"rate"`
	ETASeconds format.Float `json:"eta_seconds"`
}

// HasETA reports whether ETASeconds is known.
func (p *ProgressJSON) HasETA() bool { return !math.IsNaN(float64(p.ETASeconds)) }

// progress is the run's ProgressJSON; nil for an eval. The caller holds
// r.mu and has loaded r.
func (r *run) progress() *ProgressJSON {
	e := r.entry
	if e.Kind != rundir.KindRun {
		return nil
	}
	p := &ProgressJSON{Episodes: len(r.episodes), Generations: e.Generations, MaxGenerations: e.MaxGenerations, Rate: format.Float(math.NaN()), ETASeconds: format.Float(math.NaN())}
	if e.Seconds > 0 {
		p.Rate = format.Float(float64(p.Episodes) / e.Seconds)
	}
	if e.Status == rundir.Running && e.Generations > 0 && e.MaxGenerations > e.Generations && e.Seconds > 0 {
		p.ETASeconds = format.Float(e.Seconds / float64(e.Generations) * float64(e.MaxGenerations-e.Generations))
	}
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }
