package view

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"evolve/envs"
	"evolve/results"
	"evolve/rundir"
	"evolve/trajectory"
)

// run is what the server keeps of one run or eval directory: its tables,
// read when first asked for and again when episodes.parquet changes.
type run struct {
	mu          sync.Mutex
	used        time.Time // when last looked up (under Server.mu)
	entry       rundir.Entry
	stamp       time.Time // episodes.parquet's modification time when read
	episodes    []results.EpisodeRow
	metrics     []envs.Metric
	generations []results.GenerationRow
	causes      []envs.Cause
	candidates  []results.CandidateRow
	summaries   []results.SummaryRow
	// stored holds, per phase archive (split, variant, version), the
	// episodes with a stored trajectory, read on first use.
	stored map[trajectory.Phase]map[[2]uint64]bool
	// facets are the values of split, version, cause and variant present,
	// sorted (computed at load); lastKey and lastIdx the last query's
	// filter and order and its episodes, so that paging through one
	// query reads only its page.
	facets  map[string][]string
	lastKey string
	lastIdx []int32
	// fails is the failure analysis of the tables read (run.failures),
	// computed on first use after each load: O(episodes), so a polling
	// page does not pay it every 2 s.
	fails *FailuresJSON
}

// ID returns the URL form of a directory key: '/' written as '~'.
func ID(key string) string { return strings.ReplaceAll(key, "/", "~") }

// load reads the run's tables if episodes.parquet changed since the last
// read (or was never read). A missing table is empty; a table that
// cannot be read is an error naming it.
func (r *run) load() error {
	dir := r.entry.Dir
	fi, err := os.Stat(filepath.Join(dir, rundir.EpisodesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.ModTime().Equal(r.stamp) && r.episodes != nil {
		return nil
	}
	eps, metrics, err := results.ReadEpisodes(filepath.Join(dir, rundir.EpisodesFile))
	if err != nil {
		return err
	}
	r.episodes, r.metrics, r.stamp = eps, metrics, fi.ModTime()
	r.stored = map[trajectory.Phase]map[[2]uint64]bool{}
	r.lastKey, r.lastIdx, r.fails = "", nil, nil
	vals := map[string]map[string]bool{"split": {}, "version": {}, "cause": {}, "variant": {}}
	for i := range eps {
		e := &eps[i]
		vals["split"][e.Split], vals["version"][e.Version], vals["cause"][e.Cause], vals["variant"][e.Variant] = true, true, true, true
	}
	r.facets = map[string][]string{}
	for k, m := range vals {
		out := make([]string, 0, len(m))
		for v := range m {
			out = append(out, v)
		}
		sort.Strings(out)
		r.facets[k] = out
	}
	if r.entry.Kind == rundir.KindRun {
		if gens, causes, err := results.ReadGenerations(filepath.Join(dir, rundir.GenerationsFile)); err == nil {
			r.generations, r.causes = gens, causes
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if cands, err := results.ReadCandidates(filepath.Join(dir, rundir.CandidatesFile)); err == nil {
			r.candidates = cands
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	} else if sums, err := results.ReadSummaries(filepath.Join(dir, rundir.SummaryFile)); err == nil {
		r.summaries = sums
	}
	return nil
}

// hasTrajectory reports whether the episode's trajectory is stored.
func (r *run) hasTrajectory(e *results.EpisodeRow) bool {
	ph := trajectory.Phase{Split: e.Split, Version: e.Version, Variant: e.Variant}
	set, ok := r.stored[ph]
	if !ok {
		set = map[[2]uint64]bool{}
		infos, _ := trajectory.List(r.entry.Dir, ph)
		for _, in := range infos {
			set[[2]uint64{in.Seed, uint64(in.Repeat)}] = true
		}
		r.stored[ph] = set
	}
	return set[[2]uint64{e.Seed, uint64(e.Repeat)}]
}

// Query selects, orders and pages a run's episodes; the zero Query is
// every episode in file order, first page of DefaultPageSize.
type Query struct {
	Split, Version, Variant, Cause string // exact matches; "" for any
	// Seed, if not nil, is the one seed wanted.
	Seed *uint64
	// Generation, if not nil, is the one generation wanted, counted from
	// 0 as episodes.parquet, the CLI and the report count them; nil (the
	// parameter absent or empty) for every generation.
	Generation *int32
	// Metric and MetricValue, when Metric is not "", keep the episodes
	// whose metric of that name, formatted as text (a string as is, a
	// number in its shortest form), equals MetricValue; a null metric
	// never matches. An unknown metric name is an error.
	Metric, MetricValue string
	// Min and Max bound the score (inclusive); nil for no bound.
	Min, Max *float64
	// Sort is a column to order by: "seed", "score", "version", "split",
	// "cause", "generation", "end_reason" or a metric's name; "" keeps
	// the file order. Desc reverses it. Ties keep the file order.
	Sort string
	Desc bool
	// Page counts from 0; Size is the episodes per page, in [1,
	// MaxPageSize] (0 means DefaultPageSize).
	Page, Size int
}

// Page sizes of Query.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// ParseQuery reads a Query from URL parameters split, version, variant,
// cause, seed, generation, metric, metric_value, min, max, sort, desc (1
// or true), page and size. Errors name the parameter and its value.
func ParseQuery(get func(string) string) (Query, error) {
	q := Query{Split: get("split"), Version: get("version"), Variant: get("variant"), Cause: get("cause"), Sort: get("sort"),
		Metric: get("metric"), MetricValue: get("metric_value")}
	if s := get("generation"); s != "" {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil || v < 0 {
			return q, fmt.Errorf("generation: %q is not an integer >= 0 (generations are counted from 0)", s)
		}
		g := int32(v)
		q.Generation = &g
	}
	q.Desc = get("desc") == "1" || get("desc") == "true"
	if s := get("seed"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return q, fmt.Errorf("seed: %q is not an unsigned integer", s)
		}
		q.Seed = &v
	}
	for _, b := range []struct {
		name string
		dst  **float64
	}{{"min", &q.Min}, {"max", &q.Max}} {
		if s := get(b.name); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return q, fmt.Errorf("%s: %q is not a number", b.name, s)
			}
			*b.dst = &v
		}
	}
	for _, b := range []struct {
		name string
		dst  *int
		lo   int
		hi   int
	}{{"page", &q.Page, 0, 1 << 30}, {"size", &q.Size, 1, MaxPageSize}} {
		if s := get(b.name); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < b.lo || v > b.hi {
				return q, fmt.Errorf("%s: %q is not an integer in [%d, %d]", b.name, s, b.lo, b.hi)
			}
			*b.dst = v
		}
	}
	return q, nil
}

// EpisodeJSON is one episode as the API gives it.
type EpisodeJSON struct {
	// Generation counts from 0, as episodes.parquet does.
	Generation    int32          `json:"generation"`
	Version       string         `json:"version"`
	Split         string         `json:"split"`
	Variant       string         `json:"variant,omitempty"`
	Seed          uint64         `json:"seed,string"`
	Repeat        int32          `json:"repeat"`
	Score         float64        `json:"score"`
	Cause         string         `json:"cause"`
	EndReason     string         `json:"end_reason"`
	Metrics       map[string]any `json:"metrics"`
	HasTrajectory bool           `json:"has_trajectory"`
}

// EpisodePage is the episodes page's data: a page of episodes and what
// the filters can take.
type EpisodePage struct {
	// ID is the run's URL id; Filters the query parameters given (name
	// to value).
	ID       string            `json:"id"`
	Filters  map[string]string `json:"filters"`
	query    url.Values
	Total    int           `json:"total"` // episodes matching the filters
	Page     int           `json:"page"`
	Size     int           `json:"size"`
	Episodes []EpisodeJSON `json:"episodes"`
	Metrics  []envs.Metric `json:"metric_columns"`
	Splits   []string      `json:"splits"`   // the values present, sorted
	Versions []string      `json:"versions"` // the values present, sorted
	Causes   []string      `json:"causes"`   // the values present, sorted
	Variants []string      `json:"variants"` // the values present, sorted
}

// Episodes returns the page of r's episodes that q selects. The caller
// holds r.mu and has loaded r. An unknown sort column is an error.
func (r *run) Episodes(q Query) (*EpisodePage, error) {
	size := q.Size
	if size == 0 {
		size = DefaultPageSize
	}
	eps := r.episodes
	metricIdx := -1
	switch q.Sort {
	case "", "seed", "score", "version", "split", "cause", "generation", "end_reason":
	default:
		for i, m := range r.metrics {
			if m.Name == q.Sort {
				metricIdx = i
			}
		}
		if metricIdx < 0 {
			return nil, fmt.Errorf("sort: %q is not a column (seed, score, version, split, cause, generation, end_reason or a metric)", q.Sort)
		}
	}
	filterIdx := -1
	if q.Metric != "" {
		for i, m := range r.metrics {
			if m.Name == q.Metric {
				filterIdx = i
			}
		}
		if filterIdx < 0 {
			return nil, fmt.Errorf("metric: %q is not a metric column of %s", q.Metric, r.entry.Key)
		}
	}
	gen := any(nil)
	if q.Generation != nil {
		gen = *q.Generation
	}
	key := fmt.Sprintf("%q %q %q %q %v %v %v %q %v %v %q %q", q.Split, q.Version, q.Variant, q.Cause, ptrU(q.Seed), ptrF(q.Min), ptrF(q.Max), q.Sort, q.Desc,
		gen, q.Metric, q.MetricValue)
	idx := r.lastIdx
	if key != r.lastKey || idx == nil {
		idx = r.selectEpisodes(q, metricIdx, filterIdx)
		r.lastKey, r.lastIdx = key, idx
	}
	p := &EpisodePage{Total: len(idx), Page: q.Page, Size: size, Metrics: r.metrics, Episodes: []EpisodeJSON{}}
	p.Splits, p.Versions, p.Causes, p.Variants = r.facet("split"), r.facet("version"), r.facet("cause"), r.facet("variant")
	from := q.Page * size
	for k := from; k < len(idx) && k < from+size; k++ {
		e := &eps[idx[k]]
		j := EpisodeJSON{Generation: e.Generation, Version: e.Version, Split: e.Split, Variant: e.Variant, Seed: e.Seed,
			Repeat: e.Repeat, Score: e.Score, Cause: e.Cause, EndReason: e.EndReason, Metrics: map[string]any{},
			HasTrajectory: r.hasTrajectory(e)}
		for m, mv := range e.Metrics {
			if m >= len(r.metrics) {
				break
			}
			switch {
			case mv.Null:
				j.Metrics[r.metrics[m].Name] = nil
			case r.metrics[m].Type == envs.String:
				j.Metrics[r.metrics[m].Name] = mv.Str
			default:
				j.Metrics[r.metrics[m].Name] = mv.Num
			}
		}
		p.Episodes = append(p.Episodes, j)
	}
	return p, nil
}

// selectEpisodes returns the indexes of the episodes q's filters keep, in
// q's order (file order when q.Sort is ""; ties keep file order).
func (r *run) selectEpisodes(q Query, metricIdx, filterIdx int) []int32 {
	eps := r.episodes
	idx := make([]int32, 0, len(eps))
	for i := range eps {
		e := &eps[i]
		switch {
		case q.Split != "" && e.Split != q.Split,
			q.Version != "" && e.Version != q.Version,
			q.Variant != "" && e.Variant != q.Variant,
			q.Cause != "" && e.Cause != q.Cause,
			q.Seed != nil && e.Seed != *q.Seed,
			q.Min != nil && e.Score < *q.Min,
			q.Max != nil && e.Score > *q.Max,
			q.Generation != nil && e.Generation != *q.Generation:
			continue
		}
		if filterIdx >= 0 {
			mv := metricAt(e, filterIdx)
			if mv.Null {
				continue
			}
			text := mv.Str
			if r.metrics[filterIdx].Type != envs.String {
				text = strconv.FormatFloat(mv.Num, 'g', -1, 64)
			}
			if text != q.MetricValue {
				continue
			}
		}
		idx = append(idx, int32(i))
	}
	if q.Sort != "" {
		less := lessFunc(eps, q.Sort, metricIdx)
		slices.SortFunc(idx, func(x, y int32) int { // pdqsort; ties by file order, so the order is total
			a, b := x, y
			if q.Desc {
				a, b = y, x
			}
			switch {
			case less(a, b):
				return -1
			case less(b, a):
				return 1
			}
			return int(x - y)
		})
	}
	return idx
}

// facet returns the sorted values of a column present, never nil.
func (r *run) facet(col string) []string {
	if v := r.facets[col]; v != nil {
		return v
	}
	return []string{}
}

func ptrU(p *uint64) any {
	if p == nil {
		return nil
	}
	return *p
}

func ptrF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// lessFunc orders episode indexes by a column.
func lessFunc(eps []results.EpisodeRow, col string, metric int) func(a, b int32) bool {
	switch col {
	case "seed":
		return func(a, b int32) bool { return eps[a].Seed < eps[b].Seed }
	case "score":
		return func(a, b int32) bool { return eps[a].Score < eps[b].Score }
	case "version":
		return func(a, b int32) bool { return eps[a].Version < eps[b].Version }
	case "split":
		return func(a, b int32) bool { return eps[a].Split < eps[b].Split }
	case "cause":
		return func(a, b int32) bool { return eps[a].Cause < eps[b].Cause }
	case "end_reason":
		return func(a, b int32) bool { return eps[a].EndReason < eps[b].EndReason }
	case "generation":
		return func(a, b int32) bool { return eps[a].Generation < eps[b].Generation }
	}
	return func(a, b int32) bool {
		x, y := metricAt(&eps[a], metric), metricAt(&eps[b], metric)
		if x.Null || y.Null {
			return !x.Null && y.Null // nulls last
		}
		if x.Str != y.Str {
			return x.Str < y.Str
		}
		return x.Num < y.Num
	}
}

func metricAt(e *results.EpisodeRow, i int) envs.MetricValue {
	if i < len(e.Metrics) {
		return e.Metrics[i]
	}
	return envs.MetricValue{Null: true}
}

// baseFinalLinks returns the comparisons of the run's base and final
// versions the run page offers: one per split (test, then val) on
// which both played an episode, none when they are the same version.
// The caller holds r.mu and has loaded r.
func (r *run) baseFinalLinks(id string) []LinkJSON {
	base, final := r.entry.Base, r.entry.Final
	out := []LinkJSON{}
	if base == "" || final == "" || base == final {
		return out
	}
	played := map[[2]string]bool{}
	for i := range r.episodes {
		e := &r.episodes[i]
		if e.Version == base || e.Version == final {
			played[[2]string{e.Version, e.Split}] = true
		}
	}
	for _, sp := range []string{"test", "val"} {
		if played[[2]string{base, sp}] && played[[2]string{final, sp}] {
			q := url.Values{"a": {id}, "av": {base}, "b": {id}, "bv": {final}, "split": {sp}}
			out = append(out, LinkJSON{Text: fmt.Sprintf("Compare base %s with final %s on %s", base, final, sp), URL: "/compare?" + q.Encode()})
		}
	}
	return out
}

func (p *EpisodePage) title() string { return "Episodes of " + p.ID }
func (p *EpisodePage) crumbs() []LinkJSON {
	return []LinkJSON{crumb("runs", "/"), crumb(p.ID, "/runs/"+url.PathEscape(p.ID)), crumb("episodes", "")}
}
func (p *EpisodePage) live() bool { return false }

// URL returns the page's URL with the parameters kv (name, value pairs)
// set, an empty value deleting its parameter.
func (p *EpisodePage) URL(kv ...string) string {
	q := url.Values{}
	for k, v := range p.query {
		q[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	return "/runs/" + url.PathEscape(p.ID) + "/episodes?" + q.Encode()
}

// SortURL is the URL sorting by col: ascending, or descending when the
// page is sorted by col ascending already.
func (p *EpisodePage) SortURL(col string) string {
	desc := ""
	if p.query.Get("sort") == col && p.query.Get("desc") != "1" {
		desc = "1"
	}
	return p.URL("sort", col, "desc", desc, "page", "")
}

// SortMark is " ▲" or " ▼" for the sorted column, "" for the others.
func (p *EpisodePage) SortMark(col string) string {
	if p.query.Get("sort") != col {
		return ""
	}
	if p.query.Get("desc") == "1" {
		return " ▼"
	}
	return " ▲"
}

// Columns are the table's columns: the fixed ones, then the metrics.
func (p *EpisodePage) Columns() []string {
	cols := []string{"split", "version", "seed", "generation", "score", "cause", "end_reason"}
	for _, m := range p.Metrics {
		cols = append(cols, m.Name)
	}
	return cols
}

// Pages is the number of pages, at least 1.
func (p *EpisodePage) Pages() int { return max(1, (p.Total+p.Size-1)/p.Size) }

// Link is the episode's page URL.
func (e EpisodeJSON) Link(id string) string {
	u := linkTo(id, e.Split, e.Version, e.Seed)
	q := url.Values{}
	if e.Variant != "" {
		q.Set("variant", e.Variant)
	}
	if e.Repeat != 0 {
		q.Set("repeat", strconv.Itoa(int(e.Repeat)))
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// Cell is the text of the episode's column col.
func (e EpisodeJSON) Cell(col string) string {
	switch col {
	case "split":
		return e.Split
	case "version":
		return e.Version
	case "seed":
		return strconv.FormatUint(e.Seed, 10)
	case "generation":
		return strconv.Itoa(int(e.Generation))
	case "score":
		return fmtNum(e.Score)
	case "cause":
		return e.Cause
	case "end_reason":
		return e.EndReason
	}
	switch v := e.Metrics[col].(type) {
	case nil:
		return "–"
	case float64:
		return strconv.FormatFloat(v, 'g', 6, 64)
	case string:
		return v
	}
	return fmt.Sprint(e.Metrics[col])
}

// Extra are the filters the form has no field for (set by the run
// page's links), each with the URL that clears it.
func (p *EpisodePage) Extra() []LinkJSON {
	var out []LinkJSON
	if g := p.query.Get("generation"); g != "" {
		out = append(out, LinkJSON{Text: "generation " + g, URL: p.URL("generation", "", "page", "")})
	}
	if m := p.query.Get("metric"); m != "" {
		out = append(out, LinkJSON{Text: m + " = " + strconv.Quote(p.query.Get("metric_value")), URL: p.URL("metric", "", "metric_value", "", "page", "")})
	}
	return out
}

// Selected reports whether the filter name is set to v.
func (p *EpisodePage) Selected(name, v string) bool { return p.query.Get(name) == v }

// Param is the query parameter name's value.
func (p *EpisodePage) Param(name string) string { return p.query.Get(name) }
