package view

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"evolve/eval"
	"evolve/gate"
	"evolve/internal/format"
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
	Seed   uint64       `json:"seed,string"`
	Repeat int          `json:"repeat"`
	A      format.Float `json:"a"`
	B      format.Float `json:"b"`
	Diff   format.Float `json:"diff"` // B - A, score units
	LinkA  string       `json:"link_a"`
	LinkB  string       `json:"link_b"`
}

// CompareJSON is the compare page's data (/api/v1/compare): side B (the
// candidate) against side A (the baseline).
type CompareJSON struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Bins are the edges of the score histogram shared by A.Hist and
	// B.Hist (len(Hist)+1 values).
	Bins []format.Float `json:"bins"`
	// Gate is the settings of the tests below: the gate of the eval B
	// (or else A) belongs to, or the gate's defaults when neither side
	// is an eval with a recorded gate.
	Gate GateJSON `json:"gate"`
	// Stored reports that Worse and the improvement test are the ones
	// the eval of side B stored for B against A, its baseline: what
	// evolve eval printed.
	Stored bool `json:"stored"`
	// Worse is the gate's one-sided check of B (candidate) against A
	// (baseline): "B is worse" (by more than the margin), or under the
	// non-inferiority hypothesis "B is worse by less than the margin";
	// nil when the test could not run (Note says why).
	Worse *gate.Check `json:"worse"`
	// BetterP and BetterPAdj are the improvement test's p-values, "B is
	// better than A" (eval.PBetter; adjusted across the eval's versions
	// when Stored); Better reports BetterPAdj < α with no failed check.
	BetterP    format.Float `json:"better_p"`
	BetterPAdj format.Float `json:"better_p_adj"`
	Better     bool         `json:"better"`
	// WorseText, BetterText and PowerText state the two directions and
	// the power in words.
	WorseText  string `json:"worse_text"`
	BetterText string `json:"better_text"`
	PowerText  string `json:"power_text"`
	// Paired counts the (seed, repeat) both played; Diffs summarises
	// their differences B − A.
	Paired int         `json:"paired"`
	Diffs  SummaryJSON `json:"diffs"`
	// Top are the pairs that differ most (by |B − A|), at most 20.
	Top []Pair `json:"top"`
	// Curves are the val mean by generation of each side that is a run
	// (at most 8 runs: the compare page's overlay), A first.
	Curves []CurveJSON `json:"curves"`
	// Note says what the page should know: the split chosen when none
	// was asked for, or why a test could not run.
	Note string `json:"note,omitempty"`
}

// compareSide is one side's run or eval: its entry, its episodes of the
// version by split, and its eval state.
type compareSide struct {
	side    *Side
	dir     string
	bySplit map[string][]results.EpisodeRow
	state   evalState
}

// side resolves one side's run and version and returns its episodes of
// every split; it writes a 404 and returns false when there are none.
func (s *Server) side(id, version, other, variant string, second bool) (*compareSide, error) {
	run, err := s.open(id)
	if err != nil {
		return nil, err
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
	cs := &compareSide{side: &Side{ID: id, Key: e.Key, Kind: e.Kind, Version: version, Variant: variant}, dir: e.Dir,
		bySplit: map[string][]results.EpisodeRow{}}
	for i := range run.episodes {
		ep := &run.episodes[i]
		if ep.Version == version && ep.Variant == variant {
			cs.bySplit[ep.Split] = append(cs.bySplit[ep.Split], *ep)
		}
	}
	if len(cs.bySplit) == 0 {
		return nil, failWith(http.StatusNotFound, fmt.Errorf("%s has no episodes of version %q (variant %q)", e.Key, version, variant))
	}
	if e.Kind == rundir.KindEval {
		cs.state = readEvalState(e.Dir)
	}
	return cs, nil
}

// splitsOf lists a side's splits in the order test, val, train.
func (c *compareSide) splits() []string {
	var out []string
	for _, sp := range []string{"test", "val", "train"} {
		if len(c.bySplit[sp]) > 0 {
			out = append(out, sp)
		}
	}
	return out
}

// dedupe keeps the first episode of each (seed, repeat): a run plays its
// incumbent's train seeds in every generation, with equal outcomes.
func dedupe(eps []results.EpisodeRow) []results.EpisodeRow {
	seen := map[[2]uint64]bool{}
	out := make([]results.EpisodeRow, 0, len(eps))
	for _, e := range eps {
		k := [2]uint64{e.Seed, uint64(e.Repeat)}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func (s *Server) compareData(r *http.Request) (any, error) {
	q := r.URL.Query()
	a, b := q.Get("a"), q.Get("b")
	if a == "" {
		return nil, failWith(http.StatusBadRequest, fmt.Errorf("a: give the run or eval to compare (a=ID&b=ID, with av= and bv= for versions)"))
	}
	if b == "" {
		b = a
	}
	split, variant := q.Get("split"), q.Get("variant")
	ca, err := s.side(a, q.Get("av"), b, variant, false)
	if err != nil {
		return nil, err
	}
	cb, err := s.side(b, q.Get("bv"), a, variant, true)
	if err != nil {
		return nil, err
	}
	note := ""
	if split == "" { // the first split both played; say so when it is not test
		for _, sp := range ca.splits() {
			if len(cb.bySplit[sp]) > 0 {
				split = sp
				break
			}
		}
		if split == "" {
			return nil, failWith(http.StatusNotFound, fmt.Errorf("%s %s played %v and %s %s played %v: no split in common to compare on", ca.side.Key, ca.side.Version,
				ca.splits(), cb.side.Key, cb.side.Version, cb.splits()))
		}
		if split != "test" {
			note = fmt.Sprintf("Compared on %s: the test split was not played by both (A played %s, B played %s).", split,
				strings.Join(ca.splits(), ", "), strings.Join(cb.splits(), ", "))
		}
	}
	for _, c := range []*compareSide{ca, cb} {
		if len(c.bySplit[split]) == 0 {
			return nil, failWith(http.StatusNotFound, fmt.Errorf("%s played no %s episode of version %q (it played %s): no comparison on %s", c.side.Key, split, c.side.Version,
				strings.Join(c.splits(), ", "), split))
		}
		c.side.Split = split
	}
	out := compare(ca, cb, dedupe(ca.bySplit[split]), dedupe(cb.bySplit[split]))
	if note != "" {
		out.Note = strings.TrimSpace(note + " " + out.Note)
	}
	out.Curves = s.curves(append([]string{a, b}, q["c"]...))
	return out, nil
}

// compare builds the comparison of two sides' episodes: the stored
// verdict when side B's eval has one for B against A, else the tests
// run under the gate of B's (or A's) eval, else under the defaults.
func compare(ca, cb *compareSide, ea, eb []results.EpisodeRow) *CompareJSON {
	sa, sb := ca.side, cb.side
	out := &CompareJSON{A: *sa, B: *sb, Top: []Pair{}}
	sample := func(sd *Side, eps []results.EpisodeRow) gate.Sample {
		g := gate.Sample{Version: sd.Version, Variant: sd.Variant}
		for _, e := range eps {
			g.Seeds, g.Repeats, g.Scores = append(g.Seeds, e.Seed), append(g.Repeats, int(e.Repeat)), append(g.Scores, e.Score)
		}
		return g
	}
	ga, gb := sample(sa, ea), sample(sb, eb)
	out.A.Summary, out.B.Summary = summaryJSON(stats.Summarize(ga.Scores)), summaryJSON(stats.Summarize(gb.Scores))
	cfg := gate.DefaultConfig()
	out.Gate = gateJSON(cfg, "the gate's defaults: neither side is an eval with a recorded gate")
	switch {
	case cb.state.Gate != nil:
		cfg, out.Gate = cb.state.Gate.Config, gateJSON(cb.state.Gate.Config, "the gate of eval "+sb.Key)
	case ca.state.Gate != nil:
		cfg, out.Gate = ca.state.Gate.Config, gateJSON(ca.state.Gate.Config, "the gate of eval "+sa.Key)
	}
	adjusted := false
	if st, ok := storedComparison(cb.state, sa, sb, ca.dir, cb.dir); ok {
		c := st.Check
		out.Worse, out.Stored = &c, true
		out.BetterP, out.BetterPAdj, out.Better = format.Float(st.PBetter), format.Float(st.PBetterAdj), st.Improvement
		adjusted = c.Correction != gate.CorrectionNone
	} else {
		// One comparison: the gate's correction over a family of one
		// leaves p as it is.
		if c, err := gate.Compare([]gate.Sample{ga}, []gate.Sample{gb}, cfg); err == nil {
			out.Worse = &c[0]
		} else {
			out.Note = "The gate's test could not run: " + err.Error()
		}
		p := eval.PBetter(ga, gb, cfg)
		out.BetterP, out.BetterPAdj = format.Float(p), format.Float(p)
		out.Better = p < out.Gate.Alpha && (out.Worse == nil || !out.Worse.Failed)
	}
	if out.Worse != nil {
		out.WorseText, out.PowerText = worseText(*out.Worse), powerText(*out.Worse)
	}
	out.BetterText = betterText(float64(out.BetterPAdj), out.Gate.Alpha, adjusted, out.Better)
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
		out.Bins = append(out.Bins, format.Float(lo+(hi-lo)*float64(i)/nb))
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
		pairs = append(pairs, Pair{Seed: e.Seed, Repeat: int(e.Repeat), A: format.Float(x), B: format.Float(e.Score), Diff: format.Float(d),
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

func (d *CompareJSON) title() string { return "Compare" }
func (d *CompareJSON) crumbs() []LinkJSON {
	return []LinkJSON{crumb("runs", "/"), crumb("compare", "")}
}
func (d *CompareJSON) live() bool { return false }

// WorseFailed reports that the check showed B worse (the line is red).
func (d *CompareJSON) WorseFailed() bool { return d.Worse != nil && d.Worse.Failed }

// bar is one bar of the histogram drawn.
type bar struct {
	X, Y, H int
	Title   string
}

// Bars draws the histograms: A's bars grey, then B's blue, on shared
// bins, in a 520×170 SVG.
func (d *CompareJSON) Bars() (a, b []bar) {
	top := 1
	for i := range d.A.Hist {
		top = max(top, d.A.Hist[i], d.B.Hist[i])
	}
	for i := range d.A.Hist {
		h := 120 * d.A.Hist[i] / top
		a = append(a, bar{X: 20 + i*24, Y: 140 - h, H: h, Title: "A: " + strconv.Itoa(d.A.Hist[i])})
		h = 120 * d.B.Hist[i] / top
		b = append(b, bar{X: 31 + i*24, Y: 140 - h, H: h, Title: "B: " + strconv.Itoa(d.B.Hist[i])})
	}
	return a, b
}

// BarsA is Bars's first half (A's bars), for the template.
func (d *CompareJSON) BarsA() []bar { a, _ := d.Bars(); return a }

// BarsB is Bars's second half (B's bars), for the template.
func (d *CompareJSON) BarsB() []bar { _, b := d.Bars(); return b }

// First is the histogram's lower edge.
func (d *CompareJSON) First() format.Float { return d.Bins[0] }

// Last is the histogram's upper edge.
func (d *CompareJSON) Last() format.Float { return d.Bins[len(d.Bins)-1] }

// CurveJSON is a run's val mean by generation: Values[k] is the
// incumbent's val mean in generation k (counted from 0, as the tables
// count; null where it played none).
type CurveJSON struct {
	ID     string         `json:"id"`
	Key    string         `json:"key"`
	Values []format.Float `json:"values"`
}

// MaxCurves bounds the runs the compare page overlays.
const MaxCurves = 8

// curves reads the val curves of the runs among ids (the compare page's
// a, b and c parameters), at most MaxCurves, in order, once each.
func (s *Server) curves(ids []string) []CurveJSON {
	out := []CurveJSON{}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] || len(out) == MaxCurves {
			continue
		}
		seen[id] = true
		run, err := s.open(id)
		if err != nil {
			continue
		}
		if run.entry.Kind == rundir.KindRun && len(run.generations) > 0 {
			c := CurveJSON{ID: id, Key: run.entry.Key}
			for _, g := range run.generations {
				c.Values = append(c.Values, format.Float(g.ValMean))
			}
			out = append(out, c)
		}
		run.mu.Unlock()
	}
	return out
}

// curveColours colour the overlaid curves, A first.
var curveColours = []string{"#8c959f", "#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#e16f24", "#1b7c83"}

// plotLine is one curve drawn: its points in SVG coordinates.
type plotLine struct {
	Key, Colour, Points string
	Dots                []slicePoint
}

// plotCurves draws the curves in a 560×220 SVG: x the generation, y the
// val mean.
type plotCurves struct {
	Lines             []plotLine
	Y0, Y1, GensLabel string
}

// Plot draws the overlaid curves; nil without at least one.
func (d *CompareJSON) Plot() *plotCurves {
	if len(d.Curves) == 0 {
		return nil
	}
	const W, H, L, R, T, B = 560.0, 220.0, 50.0, 10.0, 10.0, 30.0
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, c := range d.Curves {
		n = max(n, len(c.Values))
		for _, v := range c.Values {
			if f := float64(v); !math.IsNaN(f) {
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return nil
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	p := &plotCurves{Y0: short(lo), Y1: short(hi), GensLabel: "generation 0 to " + strconv.Itoa(n-1)}
	for i, c := range d.Curves {
		l := plotLine{Key: c.Key, Colour: curveColours[i%len(curveColours)]}
		var pts []string
		for g, v := range c.Values {
			f := float64(v)
			if math.IsNaN(f) {
				continue
			}
			x := L + (W-L-R)*float64(g)/math.Max(1, float64(n-1))
			y := H - B - (f-lo)/(hi-lo)*(H-T-B)
			xs, ys := strconv.FormatFloat(x, 'f', 1, 64), strconv.FormatFloat(y, 'f', 1, 64)
			pts = append(pts, xs+","+ys)
			l.Dots = append(l.Dots, slicePoint{CX: xs, CY: ys, Title: fmt.Sprintf("%s generation %d: val mean %s", c.Key, g, fmtNum(f))})
		}
		l.Points = strings.Join(pts, " ")
		p.Lines = append(p.Lines, l)
	}
	return p
}
