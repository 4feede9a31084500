package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"evolve/store"

	"gopkg.in/yaml.v3"

	"evolve/envs"
	"evolve/internal/format"
	"evolve/prompt"
	"evolve/rundir"
	"evolve/stats"
	"evolve/trajectory"
)

// SummaryJSON is a stats.Summary for JSON: n, mean, sample standard
// deviation, median, interquartile mean, the Student t 95% CI of the
// mean, minimum and maximum (null when undefined, e.g. the CI of one
// value).
type SummaryJSON struct {
	N      int          `json:"n"`
	Mean   format.Float `json:"mean"`
	Std    format.Float `json:"std"`
	Median format.Float `json:"median"`
	IQM    format.Float `json:"iqm"`
	CILow  format.Float `json:"ci_low"`
	CIHigh format.Float `json:"ci_high"`
	Min    format.Float `json:"min"`
	Max    format.Float `json:"max"`
}

func summaryJSON(s stats.Summary) SummaryJSON {
	return SummaryJSON{s.N, format.Float(s.Mean), format.Float(s.Std), format.Float(s.Median), format.Float(s.IQM), format.Float(s.CILow), format.Float(s.CIHigh), format.Float(s.Min), format.Float(s.Max)}
}

// Lineage is a run's version graph (prompts/versions.json).
type Lineage struct {
	Versions []store.VersionInfo `json:"versions"`
	Edges    []store.Edge        `json:"edges"`
}

// readLineage reads dir/prompts/versions.json; none if it is missing.
func readLineage(dir string) (*Lineage, error) {
	data, err := os.ReadFile(filepath.Join(dir, "prompts", "versions.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &Lineage{}, nil
		}
		return nil, err
	}
	var l Lineage
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "prompts", "versions.json"), err)
	}
	return &l, nil
}

// RunJSON is the run page's data (/api/v1/runs/{id}): a run or an eval.
type RunJSON struct {
	Entry    EntryJSON    `json:"entry"`
	StopText string       `json:"stop_text"`
	Config   string       `json:"config"` // the resolved config, YAML
	Causes   []envs.Cause `json:"causes"`
	// Generations are generations.parquet's rows and Candidates
	// candidates.parquet's, each numbered from 0 as the tables, the CLI
	// and the report number them.
	Generations []GenerationJSON `json:"generations"`
	Candidates  []CandidateJSON  `json:"candidates"`
	Lineage     *Lineage         `json:"lineage"`
	Plots       []string         `json:"plots"` // plots/NAME.svg, served under /files/{id}/
	Files       []string         `json:"files"` // report.html, results.tex, ... that exist
	// AllFiles are every regular file under the directory (slash
	// separated, relative, sorted), each served read-only under
	// /files/{id}/.
	AllFiles   []FileJSON       `json:"all_files"`
	Summaries  []SummaryRowJSON `json:"summaries"`
	Verdict    *EvalVerdictJSON `json:"verdict,omitempty"`    // an eval's, as it reached it
	Trajectory map[string]int   `json:"trajectories"`         // archives by split
	Replicates *Replicates      `json:"replicates,omitempty"` // the group of replicates the run is in
	// Alpha is a run's acceptance.alpha and AlphaSpending its
	// acceptance.alpha_spending ("basel" or "none"); GenerationAlpha[k]
	// the level generation k (counted from 0, as the tables count) was
	// tested at: α·6/(π²(k+1)²) (stats.BaselAlpha(α, k+1): the formula
	// counts from 1, docs/sequential.md) under "basel", else α.
	Alpha           float64   `json:"alpha,omitempty"`
	AlphaSpending   string    `json:"alpha_spending,omitempty"`
	GenerationAlpha []float64 `json:"generation_alpha,omitempty"`
	// Comparisons are the comparisons of a run's base and final versions
	// on the splits both played (test, then val), for the run page's
	// links: never one on a split that was not played.
	Comparisons []LinkJSON `json:"comparisons"`
	// Failures is the failure analysis from episodes.parquet (cause ×
	// version tables, top killed_by texts, the mix around each accepted
	// mutation); nil before any episode is written.
	Failures *FailuresJSON `json:"failures,omitempty"`
	// Parameters is every version's policy parameters with its val mean;
	// nil when no version of the prompt store has a policy parameter.
	Parameters *ParametersJSON `json:"parameters,omitempty"`
	// Progress is a run's progress through its phases, read from
	// episodes.parquet and the checkpoint (see ProgressJSON).
	Progress *ProgressJSON `json:"progress,omitempty"`

	graph *graph // the lineage drawn (not in the JSON)
}

func (d *RunJSON) title() string {
	if d.Entry.Kind == rundir.KindEval {
		return "Eval " + d.Entry.ID
	}
	return "Run " + d.Entry.ID
}
func (d *RunJSON) crumbs() []LinkJSON { return []LinkJSON{crumb("runs", "/"), crumb(d.Entry.ID, "")} }
func (d *RunJSON) live() bool         { return d.Entry.Status == rundir.Running }

// Graph is the lineage drawn as an SVG graph.
func (d *RunJSON) Graph() *graph { return d.graph }

// CandidatesOf returns the candidates of generation g (from 1).
func (d *RunJSON) CandidatesOf(g int) []CandidateJSON {
	var out []CandidateJSON
	for _, c := range d.Candidates {
		if c.Generation == g {
			out = append(out, c)
		}
	}
	return out
}

// GenerationJSON is one generation of a run (results.GenerationRow).
type GenerationJSON struct {
	// Generation counts from 0, as generations.parquet does.
	Generation int          `json:"generation"`
	Incumbent  string       `json:"incumbent"`
	NTrain     int32        `json:"n_train"`
	NVal       int32        `json:"n_val"`
	TrainMean  format.Float `json:"train_mean"`
	ValMean    format.Float `json:"val_mean"`
	ValCILow   format.Float `json:"val_ci_low"`
	ValCIHigh  format.Float `json:"val_ci_high"`
	// Failures counts the incumbent's failed train episodes.
	Failures    int32  `json:"failures"`
	NCandidates int32  `json:"n_candidates"`
	Accepted    string `json:"accepted"` // "" when none was
	// Alpha is the level the generation's candidates were tested at.
	Alpha format.Float `json:"alpha"`
	// EpisodesUsed is the run's cumulative train and val episodes.
	EpisodesUsed int64 `json:"episodes_used"`
}

// CandidateJSON is one candidate (results.CandidateRow) and why it was
// accepted or rejected.
type CandidateJSON struct {
	// Generation counts from 0, as candidates.parquet does.
	Generation int          `json:"generation"`
	Version    string       `json:"version"`
	Parent     string       `json:"parent"`
	Operator   string       `json:"operator"`
	Proposer   string       `json:"proposer"`
	Mutation   string       `json:"mutation"`
	N          int32        `json:"n"`
	Mean       format.Float `json:"mean"`
	Test       string       `json:"test"`
	P          format.Float `json:"p"`
	PAdj       format.Float `json:"p_adj"`
	// Alpha is its generation's level.
	Alpha    format.Float `json:"alpha"`
	A12      format.Float `json:"a12"`
	Accepted bool         `json:"accepted"`
	Look     *int32       `json:"look,omitempty"`
	Stop     string       `json:"stop,omitempty"`
	// Why says why it was accepted or rejected, e.g. "rejected: p adj.
	// 0.034 ≥ α_2 0.008".
	Why string `json:"why"`
}

// LinkJSON is a link the page offers: its text and URL.
type LinkJSON struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// FileJSON is one file of a run or eval directory.
type FileJSON struct {
	Name  string `json:"name"`  // relative, '/'-separated
	Bytes int64  `json:"bytes"` // size
	URL   string `json:"url"`   // /files/{id}/NAME
}

// SummaryRowJSON is a results.SummaryRow (an eval's version on a split).
type SummaryRowJSON struct {
	Variant string       `json:"variant"`
	Version string       `json:"version"`
	Split   string       `json:"split"`
	N       int32        `json:"n"`
	Mean    format.Float `json:"mean"`
	Std     format.Float `json:"std"`
	Median  format.Float `json:"median"`
	IQM     format.Float `json:"iqm"`
	CILow   format.Float `json:"ci_low"`
	CIHigh  format.Float `json:"ci_high"`
}

func (s *Server) runData(r *http.Request) (any, error) {
	id := r.PathValue("id")
	run, err := s.open(id)
	if err != nil {
		return nil, err
	}
	defer run.mu.Unlock()
	e := run.entry
	out := &RunJSON{Entry: entryJSON(e), Causes: run.causes, Trajectory: map[string]int{}, Generations: []GenerationJSON{},
		Candidates: []CandidateJSON{}, Summaries: []SummaryRowJSON{}, Plots: []string{}, Files: []string{}}
	if out.Causes == nil {
		out.Causes = []envs.Cause{}
	}
	var ck struct {
		Config string `json:"config"`
	}
	if data, err := os.ReadFile(filepath.Join(e.Dir, rundir.CheckpointFile)); err == nil {
		_ = json.Unmarshal(data, &ck)
	}
	out.Config = ck.Config
	var cfg struct {
		MaxGenerations int `yaml:"max_generations"`
		Patience       int `yaml:"patience"`
		Acceptance     struct {
			Alpha         *float64 `yaml:"alpha"`
			AlphaSpending string   `yaml:"alpha_spending"`
		} `yaml:"acceptance"`
	}
	_ = yaml.Unmarshal([]byte(ck.Config), &cfg) // for display only: a bad config shows no stop text
	if e.StopReason != "" {
		out.StopText = rundir.StopText(e.StopReason, cfg.Patience, cfg.MaxGenerations)
		if e.StopHint != "" {
			out.StopText += " (" + e.StopHint + ")"
		}
	}
	if e.Kind == rundir.KindRun {
		out.Alpha, out.AlphaSpending = 0.05, cfg.Acceptance.AlphaSpending // experiment's defaults
		if a := cfg.Acceptance.Alpha; a != nil {
			out.Alpha = *a
		}
		if out.AlphaSpending == "" {
			out.AlphaSpending = "basel"
		}
		for _, gr := range run.generations {
			for g := len(out.GenerationAlpha); g <= int(gr.Generation); g++ {
				a := out.Alpha
				if out.AlphaSpending != "none" {
					a = stats.BaselAlpha(out.Alpha, g+1)
				}
				out.GenerationAlpha = append(out.GenerationAlpha, a)
			}
		}
		out.Comparisons = run.baseFinalLinks(id)
		out.Generations, out.Candidates = decisions(run.generations, run.candidates, out.GenerationAlpha)
	}
	if out.Comparisons == nil {
		out.Comparisons = []LinkJSON{}
	}
	out.AllFiles = listFiles(e.Dir, id)
	if len(run.episodes) > 0 {
		if run.fails == nil {
			run.fails = run.failures(id)
		}
		out.Failures = run.fails
	}
	l, err := readLineage(e.Dir)
	if err != nil {
		return nil, err
	}
	out.Lineage = l
	out.graph = drawLineage(id, l, run.candidates)
	out.Progress = run.progress()
	if e.Kind == rundir.KindRun {
		out.Parameters = parameters(e.Dir, l, run.generations, run.candidates)
	}
	if ents, err := os.ReadDir(filepath.Join(e.Dir, "plots")); err == nil {
		for _, f := range ents {
			if strings.HasSuffix(f.Name(), ".svg") {
				out.Plots = append(out.Plots, "plots/"+f.Name())
			}
		}
	}
	for _, f := range []string{"report.html", "report.md", "results.tex", rundir.ManifestFile} {
		if _, err := os.Stat(filepath.Join(e.Dir, f)); err == nil {
			out.Files = append(out.Files, f)
		}
	}
	for _, sp := range []string{"train", "val", "test"} {
		if ents, err := os.ReadDir(filepath.Join(e.Dir, trajectory.Dir, sp)); err == nil {
			out.Trajectory[sp] = len(ents)
		}
	}
	for _, sr := range run.summaries {
		out.Summaries = append(out.Summaries, SummaryRowJSON{sr.Variant, sr.Version, sr.Split, sr.N, format.Float(sr.Mean), format.Float(sr.Std),
			format.Float(sr.Median), format.Float(sr.IQM), format.Float(sr.CILow), format.Float(sr.CIHigh)})
	}
	list, _, _ := s.entries()
	if e.Kind == rundir.KindEval {
		out.Verdict = evalVerdict(e, id, list)
	}
	for _, g := range GroupReplicates(list) {
		for _, m := range g.Members {
			if m.Key == e.Key {
				g := g
				out.Replicates = &g
			}
		}
	}
	return out, nil
}

// VersionJSON is the version page's data
// (/api/v1/runs/{id}/versions/{version}).
type VersionJSON struct {
	ID       string            `json:"id"`
	Info     store.VersionInfo `json:"info"`
	Rendered string            `json:"rendered"` // the prompt as text (Prompt.Render)
	Sections []SectionJSON     `json:"sections"`
	// Params are the policy parameters, one "name: value" a line.
	Params   string                  `json:"params"`
	History  []prompt.MutationRecord `json:"history"`
	Parent   string                  `json:"parent,omitempty"`
	Changes  []prompt.Change         `json:"changes"` // against the parent
	TextDiff string                  `json:"text_diff,omitempty"`
	Edges    []store.Edge            `json:"edges"`
}

// SectionJSON is one section of a prompt.
type SectionJSON struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

func (d *VersionJSON) title() string { return d.Info.Slug + " " + d.Info.Version.String() }
func (d *VersionJSON) crumbs() []LinkJSON {
	return []LinkJSON{crumb("runs", "/"), crumb(d.ID, "/runs/"+url.PathEscape(d.ID)), crumb("version "+d.Info.Version.String(), "")}
}
func (d *VersionJSON) live() bool { return false }

// DiffLines are TextDiff's lines with their kind: "add", "del" or "".
func (d *VersionJSON) DiffLines() []FactJSON {
	var out []FactJSON
	for _, l := range strings.Split(d.TextDiff, "\n") {
		k := ""
		switch {
		case strings.HasPrefix(l, "+ "):
			k = "add"
		case strings.HasPrefix(l, "- "):
			k = "del"
		}
		out = append(out, FactJSON{Name: k, Value: l})
	}
	return out
}

func (s *Server) versionData(r *http.Request) (any, error) {
	id := r.PathValue("id")
	run, err := s.open(id)
	if err != nil {
		return nil, err
	}
	dir, key := run.entry.Dir, run.entry.Key
	run.mu.Unlock()
	l, err := readLineage(dir)
	if err != nil {
		return nil, err
	}
	want, slug := r.PathValue("version"), r.URL.Query().Get("slug")
	if i := strings.LastIndexByte(want, '@'); i >= 0 { // an eval's SLUG@vX.Y.Z label
		slug, want = want[:i], want[i+1:]
	}
	find := func(slug, v string) (store.VersionInfo, bool) {
		for _, vi := range l.Versions {
			if vi.Version.String() == v && (slug == "" || vi.Slug == slug) {
				return vi, true
			}
		}
		return store.VersionInfo{}, false
	}
	vi, ok := find(slug, want)
	if !ok {
		return nil, failWith(http.StatusNotFound, fmt.Errorf("no version %q in %s's prompt store", r.PathValue("version"), key))
	}
	p, err := loadVersion(dir, vi)
	if err != nil {
		return nil, err
	}
	out := &VersionJSON{ID: id, Info: vi, Rendered: p.Render(), Sections: []SectionJSON{}, History: p.MutationHistory, Edges: []store.Edge{},
		Changes: []prompt.Change{}}
	if out.History == nil {
		out.History = []prompt.MutationRecord{}
	}
	for _, sc := range p.Sections {
		out.Sections = append(out.Sections, SectionJSON{Name: sc.Name, Text: sc.Text})
	}
	var ps []string
	for _, pv := range p.PolicyParameters {
		ps = append(ps, fmt.Sprintf("%s: %v", pv.Name, pv.Value))
	}
	out.Params = strings.Join(ps, "\n")
	for _, e := range l.Edges {
		if (e.From.Slug == vi.Slug && e.From.Version == vi.Version) || (e.To.Slug == vi.Slug && e.To.Version == vi.Version) {
			out.Edges = append(out.Edges, e)
		}
	}
	if vi.Parent != nil {
		if pvi, ok := find(vi.Slug, vi.Parent.String()); ok {
			if parent, err := loadVersion(dir, pvi); err == nil {
				out.Parent = pvi.Version.String()
				for _, c := range prompt.Diff(parent, p) {
					if !c.Text {
						out.Changes = append(out.Changes, c)
					}
				}
				out.TextDiff = prompt.TextDiff(parent.Render(), p.Render())
			}
		}
	}
	return out, nil
}

// Replicates is a group of runs of one config (rundir.Entry.ConfigHash)
// on different seed sets, with the mean and Student t 95% CI across them
// of their final and base test means.
type Replicates struct {
	ConfigHash string      `json:"config_hash"`
	Name       string      `json:"name"`
	Members    []EntryJSON `json:"members"`
	Final      SummaryJSON `json:"final"` // of the members' final test means (finished members)
	Base       SummaryJSON `json:"base"`  // of their base test means
}

// GroupReplicates groups the runs of list that share a config and differ
// in their seed sets (at least two seed sets), in the order of their
// first member.
func GroupReplicates(list []rundir.Entry) []Replicates {
	byCfg := map[string][]rundir.Entry{}
	var order []string
	for _, e := range list {
		if e.Kind != rundir.KindRun || e.ConfigHash == "" {
			continue
		}
		if _, ok := byCfg[e.ConfigHash]; !ok {
			order = append(order, e.ConfigHash)
		}
		byCfg[e.ConfigHash] = append(byCfg[e.ConfigHash], e)
	}
	var out []Replicates
	for _, h := range order {
		es := byCfg[h]
		seedSets := map[string]bool{}
		for _, e := range es {
			seedSets[e.SeedHash] = true
		}
		if len(seedSets) < 2 {
			continue
		}
		g := Replicates{ConfigHash: h, Name: es[0].Name}
		var fin, base []float64
		for _, e := range es {
			g.Members = append(g.Members, entryJSON(e))
			if e.TestFinal != nil && e.TestBase != nil {
				fin, base = append(fin, *e.TestFinal), append(base, *e.TestBase)
			}
		}
		g.Final, g.Base = summaryJSON(stats.Summarize(fin)), summaryJSON(stats.Summarize(base))
		out = append(out, g)
	}
	return out
}
