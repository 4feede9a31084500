package view

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"evolve/envs"
	"evolve/internal/format"
	"evolve/params"
	"evolve/prompt"
	"evolve/results"
	"evolve/store"
)

// KilledByMetric is the string metric whose texts the run page ranks:
// the game's death text (NetHack's xlogfile death, the dungeon's
// monster that dealt the final blow). An environment without it shows
// no ranking.
const KilledByMetric = "killed_by"

var nan = math.NaN()

// topKilledBy is how many killed_by texts the run page lists per split.
const topKilledBy = 10

// FailuresJSON is a run's or eval's failure analysis, computed from
// episodes.parquet: cause × version tables per split, the top killed_by
// texts and the mix before and after each accepted mutation. Every
// count links to the episodes it counts.
type FailuresJSON struct {
	// Causes are the table's columns: the environment's declared causes
	// in declaration order, then any other cause present ("error"), then
	// "none" (no failure) last.
	Causes []string `json:"causes"`
	// Tables are the cause × version tables, one per split played
	// (train, val, test order).
	Tables []CauseTableJSON `json:"tables"`
	// KilledBy are the most frequent non-empty killed_by texts per split
	// (at most 10 a split, most frequent first, ties by text); nil when
	// the environment declares no killed_by string metric.
	KilledBy []KilledByJSON `json:"killed_by,omitempty"`
	// Shifts are the mixes before and after each accepted mutation of a
	// run, in generation order; empty for an eval.
	Shifts []MixShiftJSON `json:"shifts"`
}

// CauseTableJSON is the cause × version table of one split.
type CauseTableJSON struct {
	Split string       `json:"split"`
	Rows  []MixRowJSON `json:"rows"`
}

// MixRowJSON is one version's (or variant's) cause mix on one split.
// Counts, Shares and URLs are indexed like FailuresJSON.Causes.
type MixRowJSON struct {
	Version string `json:"version"`
	Variant string `json:"variant,omitempty"`
	// Generation, when present, restricts the mix to the episodes of
	// that generation, counted from 0 as generations.parquet counts;
	// absent (null in Go) for all generations.
	Generation *int `json:"generation,omitempty"`
	// N is the number of episodes counted, Failures those whose cause
	// is not "none".
	N        int   `json:"n"`
	Failures int   `json:"failures"`
	Counts   []int `json:"counts"`
	// Shares are Counts[i]/N, in [0, 1]; null when N is 0.
	Shares []format.Float `json:"shares"`
	// URLs open the episodes page filtered to each cell's episodes.
	URLs []string `json:"urls"`
}

// KilledByJSON is one killed_by text of one split and how many of the
// split's episodes ended with it.
type KilledByJSON struct {
	Split string `json:"split"`
	Text  string `json:"text"`
	Count int    `json:"count"`
	// Share is Count over the split's episodes with a non-empty
	// killed_by, in (0, 1].
	Share format.Float `json:"share"`
	URL   string       `json:"url"` // the episodes page filtered to these
}

// MixShiftJSON is the cause mix before and after the mutation accepted
// in one generation: Train compares the incumbent's train episodes in
// generation g with the new incumbent's in generation g+1 (nil when the
// run stopped before g+1 played train); Val compares the old
// incumbent's val episodes with the accepted candidate's, both of
// generation g.
type MixShiftJSON struct {
	// Generation counts from 0, as generations.parquet does.
	Generation  int         `json:"generation"`
	Parent      string      `json:"parent"`
	Accepted    string      `json:"accepted"`
	Mutation    string      `json:"mutation"` // operator: description
	TrainBefore *MixRowJSON `json:"train_before,omitempty"`
	TrainAfter  *MixRowJSON `json:"train_after,omitempty"`
	ValBefore   *MixRowJSON `json:"val_before,omitempty"`
	ValAfter    *MixRowJSON `json:"val_after,omitempty"`
}

// episodesURL is the episodes page of run id filtered by the non-empty
// values of kv (name, value pairs).
func episodesURL(id string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return "/runs/" + url.PathEscape(id) + "/episodes?" + q.Encode()
}

// failures computes r's failure analysis. The caller holds r.mu and has
// loaded r. It reads each episode once per table: O(episodes).
func (r *run) failures(id string) *FailuresJSON {
	out := &FailuresJSON{Tables: []CauseTableJSON{}, Shifts: []MixShiftJSON{}, Causes: r.failureCauses()}
	cc := r.countCauses(id, out.Causes)
	for _, sp := range orderedSplits(r.facet("split")) {
		t := CauseTableJSON{Split: sp, Rows: []MixRowJSON{}}
		for _, vk := range cc.order {
			if row := cc.mix(sp, vk.variant, vk.version, -1); row != nil {
				t.Rows = append(t.Rows, *row)
			}
		}
		out.Tables = append(out.Tables, t)
	}
	if cc.killed != nil {
		out.KilledBy = cc.topKilledBy(id, orderedSplits(r.facet("split")))
	}
	mutation := map[string]string{}
	for _, c := range r.candidates {
		mutation[c.Version] = c.Operator + ": " + c.Mutation
	}
	for i, g := range r.generations {
		if g.Accepted == "" {
			continue
		}
		s := MixShiftJSON{Generation: int(g.Generation), Parent: g.Incumbent, Accepted: g.Accepted, Mutation: mutation[g.Accepted]}
		s.TrainBefore = cc.mix("train", "", g.Incumbent, int(g.Generation))
		if i+1 < len(r.generations) {
			s.TrainAfter = cc.mix("train", "", g.Accepted, int(r.generations[i+1].Generation))
		}
		s.ValBefore = cc.mix("val", "", g.Incumbent, int(g.Generation))
		s.ValAfter = cc.mix("val", "", g.Accepted, int(g.Generation))
		out.Shifts = append(out.Shifts, s)
	}
	return out
}

// failureCauses returns the causes of r's tables: the declared causes
// other than "none", then any other cause its episodes hold, then "none".
func (r *run) failureCauses() []string {
	var causes []string
	seen := map[string]bool{}
	for _, c := range r.causes {
		if c.Name != "none" && !seen[c.Name] {
			causes, seen[c.Name] = append(causes, c.Name), true
		}
	}
	for _, c := range r.facet("cause") {
		if c != "none" && !seen[c] {
			causes, seen[c] = append(causes, c), true
		}
	}
	return append(causes, "none")
}

// causeKey is the cell of causeCounts: the episodes of one split,
// variant, version and generation.
type causeKey struct {
	split, variant, version string
	gen                     int32
}

// versionKey is a version of one variant.
type versionKey struct{ variant, version string }

// causeCounts holds the counts of a run's episodes by cause, per cell, and
// its killed_by texts per split.
type causeCounts struct {
	id      string // the run, for the links
	causes  []string
	counts  map[causeKey][]int        // indexed as causes
	order   []versionKey              // versions in order of first appearance
	killed  map[string]map[string]int // split -> text -> count; nil without a killed_by metric
	killedN map[string]int            // split -> episodes with a killed_by text
}

// countCauses counts r's episodes by cell and cause (one pass), and by
// killed_by text when r has that metric.
func (r *run) countCauses(id string, causes []string) *causeCounts {
	cc := &causeCounts{id: id, causes: causes, counts: map[causeKey][]int{}}
	col := map[string]int{}
	for i, c := range causes {
		col[c] = i
	}
	kb := -1
	for i, m := range r.metrics {
		if m.Name == KilledByMetric && m.Type == envs.String {
			kb = i
		}
	}
	if kb >= 0 {
		cc.killed, cc.killedN = map[string]map[string]int{}, map[string]int{}
	}
	inOrder := map[versionKey]bool{}
	for i := range r.episodes {
		e := &r.episodes[i]
		k := causeKey{e.Split, e.Variant, e.Version, e.Generation}
		c := cc.counts[k]
		if c == nil {
			c = make([]int, len(causes))
			cc.counts[k] = c
		}
		c[col[e.Cause]]++
		if vk := (versionKey{e.Variant, e.Version}); !inOrder[vk] {
			inOrder[vk] = true
			cc.order = append(cc.order, vk)
		}
		if kb >= 0 {
			if mv := metricAt(e, kb); !mv.Null && mv.Str != "" {
				if cc.killed[e.Split] == nil {
					cc.killed[e.Split] = map[string]int{}
				}
				cc.killed[e.Split][mv.Str]++
				cc.killedN[e.Split]++
			}
		}
	}
	return cc
}

// mix sums the counts of (split, variant, version) over generation gen
// (-1 for all), with each cause's share and the link to its episodes; nil
// when no episode matches.
func (cc *causeCounts) mix(split, variant, version string, gen int) *MixRowJSON {
	row := &MixRowJSON{Version: version, Variant: variant, Counts: make([]int, len(cc.causes))}
	if gen >= 0 {
		row.Generation = &gen
	}
	found := false
	for k, c := range cc.counts {
		if k.split != split || k.variant != variant || k.version != version || (gen >= 0 && int(k.gen) != gen) {
			continue
		}
		found = true
		for i, n := range c {
			row.Counts[i] += n
		}
	}
	if !found {
		return nil
	}
	g := ""
	if gen >= 0 {
		g = strconv.Itoa(gen)
	}
	for i, n := range row.Counts {
		row.N += n
		if cc.causes[i] != "none" {
			row.Failures += n
		}
		row.URLs = append(row.URLs, episodesURL(cc.id, "split", split, "version", version, "variant", variant, "generation", g, "cause", cc.causes[i]))
	}
	for _, n := range row.Counts {
		row.Shares = append(row.Shares, format.Float(float64(n)/float64(row.N)))
	}
	return row
}

// topKilledBy returns, per split in splits, the topKilledBy most frequent
// killed_by texts (ties by text), each with its share and link.
func (cc *causeCounts) topKilledBy(id string, splits []string) []KilledByJSON {
	out := []KilledByJSON{}
	for _, sp := range splits {
		var texts []string
		for t := range cc.killed[sp] {
			texts = append(texts, t)
		}
		sort.Slice(texts, func(i, j int) bool {
			a, b := cc.killed[sp][texts[i]], cc.killed[sp][texts[j]]
			return a > b || a == b && texts[i] < texts[j]
		})
		if len(texts) > topKilledBy {
			texts = texts[:topKilledBy]
		}
		for _, t := range texts {
			n := cc.killed[sp][t]
			out = append(out, KilledByJSON{Split: sp, Text: t, Count: n, Share: format.Float(float64(n) / float64(cc.killedN[sp])),
				URL: episodesURL(id, "split", sp, "metric", KilledByMetric, "metric_value", t)})
		}
	}
	return out
}

// orderedSplits puts train, val and test first, in that order, then any
// other split sorted.
func orderedSplits(present []string) []string {
	rank := map[string]int{"train": 0, "val": 1, "test": 2}
	out := append([]string(nil), present...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, ok := rank[out[i]]
		if !ok {
			ri = 3
		}
		rj, ok := rank[out[j]]
		if !ok {
			rj = 3
		}
		return ri < rj
	})
	return out
}

// ParametersJSON is every version's policy parameters in one table.
type ParametersJSON struct {
	// Names are the columns: every parameter name, in the order of
	// first appearance (the base version's document order first).
	Names []string `json:"names"`
	// Numeric[i] reports whether Names[i] is a number or integer in
	// every version that has it (a slice plot is drawn for it).
	Numeric []bool         `json:"numeric"`
	Rows    []ParamRowJSON `json:"rows"`
}

// ParamRowJSON is one version's parameters. Values, Nums and Changed
// are indexed like ParametersJSON.Names.
type ParamRowJSON struct {
	Slug    string `json:"slug,omitempty"`
	Version string `json:"version"`
	Parent  string `json:"parent,omitempty"`
	// Values are as written in a description ("0.3", "melee",
	// "[a b c]"); "" where the version lacks the parameter.
	Values []string `json:"values"`
	// Nums are the numeric values; null where not numeric or absent.
	Nums []format.Float `json:"nums"`
	// Changed is true where the value differs from the parent's (a
	// parameter the parent lacks counts as changed); all false for a
	// version without a parent in the store.
	Changed []bool `json:"changed"`
	// ValMean is the version's val mean: a candidate's from
	// candidates.parquet, else (the base, an incumbent) its mean as
	// incumbent in the first generation that played it
	// (generations.parquet); null when it played no val episode.
	ValMean format.Float `json:"val_mean"`
	// Error says why the version's prompt could not be read ("" if it was).
	Error string `json:"error,omitempty"`
}

// loadVersion reads one version's prompt from dir's prompt store,
// refusing a file named outside the store.
func loadVersion(dir string, vi store.VersionInfo) (*prompt.Prompt, error) {
	f := path.Clean(vi.File)
	if f != vi.File || strings.HasPrefix(f, "../") || strings.HasPrefix(f, "/") || f == ".." {
		return nil, fmt.Errorf("versions.json names the file %q outside the store", vi.File)
	}
	name := filepath.Join(dir, "prompts", filepath.FromSlash(f))
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return prompt.Decode(name, data)
}

// parameters builds the parameter table of the versions of l (a run's
// prompt store under dir) with their val means from gens and cands; nil
// when no version has a policy parameter.
func parameters(dir string, l *Lineage, gens []results.GenerationRow, cands []results.CandidateRow) *ParametersJSON {
	if l == nil || len(l.Versions) == 0 {
		return nil
	}
	valMean := map[string]float64{}
	for _, g := range gens {
		if _, ok := valMean[g.Incumbent]; !ok && g.NVal > 0 {
			valMean[g.Incumbent] = g.ValMean
		}
	}
	for _, c := range cands {
		if c.N > 0 {
			valMean[c.Version] = c.Mean
		}
	}
	out := &ParametersJSON{Names: []string{}, Rows: []ParamRowJSON{}}
	col := map[string]int{}
	sets := make([]params.Set, len(l.Versions))
	byRef := map[string]int{}
	for i, vi := range l.Versions {
		byRef[vi.Slug+"@"+vi.Version.String()] = i
		p, err := loadVersion(dir, vi)
		row := ParamRowJSON{Slug: vi.Slug, Version: vi.Version.String(), ValMean: format.Float(nan)}
		if vi.Parent != nil {
			row.Parent = vi.Parent.String()
		}
		if m, ok := valMean[row.Version]; ok {
			row.ValMean = format.Float(m)
		}
		if err != nil {
			row.Error = err.Error()
		} else {
			sets[i] = p.PolicyParameters
			for _, pp := range p.PolicyParameters {
				if _, ok := col[pp.Name]; !ok {
					col[pp.Name] = len(out.Names)
					out.Names = append(out.Names, pp.Name)
					out.Numeric = append(out.Numeric, true)
				}
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if len(out.Names) == 0 {
		return nil
	}
	for i := range out.Rows {
		row := &out.Rows[i]
		row.Values, row.Nums, row.Changed = make([]string, len(out.Names)), make([]format.Float, len(out.Names)), make([]bool, len(out.Names))
		var parent params.Set
		hasParent := false
		if row.Parent != "" {
			if j, ok := byRef[row.Slug+"@"+row.Parent]; ok && sets[j] != nil {
				parent, hasParent = sets[j], true
			}
		}
		for k, name := range out.Names {
			row.Nums[k] = format.Float(nan)
			v, ok := sets[i].Get(name)
			if !ok {
				continue
			}
			row.Values[k] = v.String()
			if v.Kind == params.Number || v.Kind == params.Integer {
				row.Nums[k] = format.Float(v.Num)
			} else {
				out.Numeric[k] = false
			}
			if hasParent {
				pv, ok := parent.Get(name)
				row.Changed[k] = !ok || !pv.Equal(v)
			}
		}
	}
	return out
}

// DefaultTable is the index of the cause table shown first: train's,
// else the first.
func (fa *FailuresJSON) DefaultTable() int {
	for i, t := range fa.Tables {
		if t.Split == "train" {
			return i
		}
	}
	return 0
}

// KilledByOn returns the killed_by texts of one split.
func (fa *FailuresJSON) KilledByOn(split string) []KilledByJSON {
	var out []KilledByJSON
	for _, k := range fa.KilledBy {
		if k.Split == split {
			out = append(out, k)
		}
	}
	return out
}

// mixCell is one cause's share before and after a mutation, drawn.
type mixCell struct {
	OK    bool
	A, B  cellSide
	Class string // "better", "worse" or ""
	Title string
}

type cellSide struct {
	Count int
	Share format.Float
	URL   string
}

// Shift returns cause k's cell of a mix shift from a to b: green when
// a failure share fell (or the no-failure share rose), red otherwise.
func (fa *FailuresJSON) Shift(a, b *MixRowJSON, k int) mixCell {
	if a == nil || b == nil {
		return mixCell{}
	}
	c := mixCell{OK: true, A: cellSide{a.Counts[k], a.Shares[k], a.URLs[k]}, B: cellSide{b.Counts[k], b.Shares[k], b.URLs[k]},
		Title: fmt.Sprintf("%d of %d → %d of %d", a.Counts[k], a.N, b.Counts[k], b.N)}
	d := float64(b.Shares[k]) - float64(a.Shares[k])
	worse := d > 0
	if fa.Causes[k] == "none" {
		worse = d < 0
	}
	if math.Abs(d) > 1e-9 {
		c.Class = "better"
		if worse {
			c.Class = "worse"
		}
	}
	return c
}

// paramsView is the parameters section's data: the run's URL id and
// its table.
type paramsView struct {
	ID string
	P  *ParametersJSON
}

// Was is the tooltip of a changed value: the parent's value.
func (pt *ParametersJSON) Was(r ParamRowJSON, k int) string {
	for _, p := range pt.Rows {
		if p.Slug == r.Slug && p.Version == r.Parent {
			v := p.Values[k]
			if v == "" {
				v = "(absent)"
			}
			return "was " + v + " in " + r.Parent
		}
	}
	return ""
}

// slicePlot is one parameter's slice plot drawn in a 220×160 SVG.
type slicePlot struct {
	Name           string
	X0, X1, Y0, Y1 string
	Points         []slicePoint
}

type slicePoint struct {
	CX, CY string
	Title  string
}

// Constant are the numeric parameters with one value across the
// versions with a val mean (no plot for them).
func (pt *ParametersJSON) Constant() []string {
	_, c := pt.slices()
	return c
}

// Slices are the slice plots of the numeric parameters that vary.
func (pt *ParametersJSON) Slices() []slicePlot {
	p, _ := pt.slices()
	return p
}

func (pt *ParametersJSON) slices() ([]slicePlot, []string) {
	var plots []slicePlot
	var constant []string
	const W, H, L, R, T, B = 220.0, 160.0, 44.0, 8.0, 18.0, 28.0
	for k, name := range pt.Names {
		if !pt.Numeric[k] {
			continue
		}
		type pt3 struct {
			x, y float64
			v    string
		}
		var pts []pt3
		distinct := map[float64]bool{}
		for _, r := range pt.Rows {
			if r.Nums == nil {
				continue
			}
			x, y := float64(r.Nums[k]), float64(r.ValMean)
			if math.IsNaN(x) || math.IsNaN(y) {
				continue
			}
			pts = append(pts, pt3{x, y, r.Version})
			distinct[x] = true
		}
		if len(distinct) < 2 {
			constant = append(constant, name)
			continue
		}
		x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			x0, x1, y0, y1 = math.Min(x0, p.x), math.Max(x1, p.x), math.Min(y0, p.y), math.Max(y1, p.y)
		}
		if y0 == y1 {
			y0, y1 = y0-1e-9-math.Abs(y0)*0.05, y1+1e-9+math.Abs(y1)*0.05
		}
		sp := slicePlot{Name: name, X0: short(x0), X1: short(x1), Y0: short(y0), Y1: short(y1)}
		for _, p := range pts {
			cx := L + (p.x-x0)/(x1-x0)*(W-L-R)
			cy := H - B - (p.y-y0)/(y1-y0)*(H-T-B)
			sp.Points = append(sp.Points, slicePoint{CX: strconv.FormatFloat(cx, 'f', 1, 64), CY: strconv.FormatFloat(cy, 'f', 1, 64),
				Title: fmt.Sprintf("%s: %s %s, val mean %s", p.v, name, strconv.FormatFloat(p.x, 'g', -1, 64), fmtNum(p.y))})
		}
		plots = append(plots, sp)
	}
	return plots, constant
}

// short writes a number with three significant digits.
func short(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
