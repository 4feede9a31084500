package view

import (
	"fmt"
	"math"
	"net/http"
	"sort"

	"evolve/gate"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
)

// Side is one side of a comparison: a version of a run or eval on a
// split.
type Side struct {
	ID      string      `json:"id"` // URL id
	Key     string      `json:"key"`
	Kind    rundir.Kind `json:"kind"`
	Version string      `json:"version"`
	Split   string      `json:"split"`
	Variant string      `json:"variant"`
	Summary SummaryJSON `json:"summary"`
	Hist    []int       `json:"hist"` // counts per bin of CompareJSON.Bins
}

// Pair is one (seed, repeat) both sides played.
type Pair struct {
	Seed   uint64 `json:"seed,string"`
	Repeat int    `json:"repeat"`
	A, B   num
	Diff   num    `json:"diff"` // B - A, score units
	LinkA  string `json:"link_a"`
	LinkB  string `json:"link_b"`
}

// CompareJSON is /api/compare.
type CompareJSON struct {
	A, B Side
	// Bins are the edges of the score histogram shared by A.Hist and
	// B.Hist (len(Hist)+1 values).
	Bins []num `json:"bins"`
	// Worse is the regression gate's check of B against A as baseline
	// (one-sided: B worse than A); Better the check of A against B (B
	// better than A). Tests, corrections and effect sizes are gate's
	// defaults (gate.DefaultConfig: paired signed-rank when every seed
	// pairs, else Mann-Whitney U).
	Worse, Better *CheckJSON
	// Paired counts the (seed, repeat) both played; Diffs summarises
	// their differences B − A.
	Paired int         `json:"paired"`
	Diffs  SummaryJSON `json:"diffs"`
	// Top are the pairs that differ most (by |B − A|), at most 20.
	Top  []Pair `json:"top"`
	Note string `json:"note,omitempty"`
}

// side resolves one side's run, version and split and returns its
// episodes; the caller gets r.mu held through the returned unlock.
func (s *Server) side(w http.ResponseWriter, id, version, other, split, variant string, second bool) (*Side, []results.EpisodeRow, bool) {
	run := s.lookup(w, id)
	if run == nil {
		return nil, nil, false
	}
	defer run.mu.Unlock()
	e := run.entry
	if version == "" {
		switch {
		case e.Kind == rundir.KindEval && len(e.Versions) > 1 && second:
			version = e.Versions[1]
		case e.Kind == rundir.KindEval && len(e.Versions) > 0:
			version = e.Versions[0]
		case second && e.Final != "":
			version = e.Final
		case !second && other == id && e.Base != "":
			version = e.Base // a run against itself: base against final
		default:
			version = e.Final
		}
	}
	sd := &Side{ID: id, Key: e.Key, Kind: e.Kind, Version: version, Variant: variant}
	splits := []string{split}
	if split == "" {
		splits = []string{"test", "val", "train"}
	}
	for _, sp := range splits {
		var eps []results.EpisodeRow
		for i := range run.episodes {
			ep := &run.episodes[i]
			if ep.Version == version && ep.Split == sp && ep.Variant == variant {
				eps = append(eps, *ep)
			}
		}
		if len(eps) > 0 {
			sd.Split = sp
			return sd, dedupe(eps), true
		}
	}
	httpError(w, fmt.Errorf("%s has no episodes of version %q (split %q, variant %q)", e.Key, version, split, variant), http.StatusNotFound)
	return nil, nil, false
}

// dedupe keeps the first episode of each (seed, repeat): a run plays its
// incumbent's train seeds in every generation, with equal outcomes.
func dedupe(eps []results.EpisodeRow) []results.EpisodeRow {
	seen := map[[2]uint64]bool{}
	out := eps[:0]
	for _, e := range eps {
		k := [2]uint64{e.Seed, uint64(e.Repeat)}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func (s *Server) apiCompare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, b := q.Get("a"), q.Get("b")
	if a == "" {
		httpError(w, fmt.Errorf("a: give the run or eval to compare (a=ID&b=ID, with av= and bv= for versions)"), http.StatusBadRequest)
		return
	}
	if b == "" {
		b = a
	}
	split, variant := q.Get("split"), q.Get("variant")
	sa, ea, ok := s.side(w, a, q.Get("av"), b, split, variant, false)
	if !ok {
		return
	}
	if split == "" {
		split = sa.Split
	}
	sb, eb, ok := s.side(w, b, q.Get("bv"), a, split, variant, true)
	if !ok {
		return
	}
	writeJSON(w, compare(sa, sb, ea, eb))
}

// compare builds the comparison of two sides' episodes.
func compare(sa, sb *Side, ea, eb []results.EpisodeRow) *CompareJSON {
	out := &CompareJSON{A: *sa, B: *sb, Top: []Pair{}}
	sample := func(sd *Side, eps []results.EpisodeRow) gate.Sample {
		g := gate.Sample{Version: sd.Version, Variant: ""}
		for _, e := range eps {
			g.Seeds, g.Repeats, g.Scores = append(g.Seeds, e.Seed), append(g.Repeats, int(e.Repeat)), append(g.Scores, e.Score)
		}
		return g
	}
	ga, gb := sample(sa, ea), sample(sb, eb)
	out.A.Summary, out.B.Summary = summaryJSON(stats.Summarize(ga.Scores)), summaryJSON(stats.Summarize(gb.Scores))
	if c, err := gate.Compare([]gate.Sample{ga}, []gate.Sample{gb}, gate.DefaultConfig()); err == nil {
		x := checkJSON(c[0])
		out.Worse = &x
	} else {
		out.Note = err.Error()
	}
	if c, err := gate.Compare([]gate.Sample{gb}, []gate.Sample{ga}, gate.DefaultConfig()); err == nil {
		x := checkJSON(c[0])
		out.Better = &x
	}
	// A shared histogram of 20 bins.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range append(append([]float64(nil), ga.Scores...), gb.Scores...) {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	const nb = 20
	if hi <= lo {
		hi = lo + 1
	}
	for i := 0; i <= nb; i++ {
		out.Bins = append(out.Bins, num(lo+(hi-lo)*float64(i)/nb))
	}
	hist := func(x []float64) []int {
		h := make([]int, nb)
		for _, v := range x {
			k := int((v - lo) / (hi - lo) * nb)
			h[min(max(k, 0), nb-1)]++
		}
		return h
	}
	out.A.Hist, out.B.Hist = hist(ga.Scores), hist(gb.Scores)
	// Pairs by (seed, repeat).
	byKey := map[[2]uint64]float64{}
	for _, e := range ea {
		byKey[[2]uint64{e.Seed, uint64(e.Repeat)}] = e.Score
	}
	var pairs []Pair
	var diffs []float64
	for _, e := range eb {
		x, ok := byKey[[2]uint64{e.Seed, uint64(e.Repeat)}]
		if !ok {
			continue
		}
		d := e.Score - x
		diffs = append(diffs, d)
		pairs = append(pairs, Pair{Seed: e.Seed, Repeat: int(e.Repeat), A: num(x), B: num(e.Score), Diff: num(d),
			LinkA: linkTo(sa.ID, sa.Split, sa.Version, e.Seed), LinkB: linkTo(sb.ID, sb.Split, sb.Version, e.Seed)})
	}
	out.Paired, out.Diffs = len(pairs), summaryJSON(stats.Summarize(diffs))
	sort.SliceStable(pairs, func(i, j int) bool {
		di, dj := math.Abs(float64(pairs[i].Diff)), math.Abs(float64(pairs[j].Diff))
		if di != dj {
			return di > dj
		}
		return pairs[i].Seed < pairs[j].Seed
	})
	if len(pairs) > 20 {
		pairs = pairs[:20]
	}
	out.Top = append(out.Top, pairs...)
	return out
}
