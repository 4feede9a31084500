package view

import (
	"encoding/json"
	"errors"
	"evolve/store"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"evolve/agent"
	"evolve/envs"
	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
	"evolve/stats"
	"evolve/trajectory"
)

// num is a float for JSON: null when NaN or infinite.
type num float64

// MarshalJSON writes null for NaN and ±Inf (JSON has neither).
func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// SummaryJSON is a stats.Summary for JSON.
type SummaryJSON struct {
	N                  int `json:"n"`
	Mean, Std, Median  num
	IQM, CILow, CIHigh num
	Min, Max           num
}

func summaryJSON(s stats.Summary) SummaryJSON {
	return SummaryJSON{s.N, num(s.Mean), num(s.Std), num(s.Median), num(s.IQM), num(s.CILow), num(s.CIHigh), num(s.Min), num(s.Max)}
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

// RunJSON is /api/runs/{id}.
type RunJSON struct {
	Entry       EntryJSON               `json:"entry"`
	StopText    string                  `json:"stop_text"`
	Config      string                  `json:"config"` // the resolved config, YAML
	Causes      []envs.Cause            `json:"causes"`
	Generations []results.GenerationRow `json:"generations"`
	Candidates  []results.CandidateRow  `json:"candidates"`
	Lineage     *Lineage                `json:"lineage"`
	Plots       []string                `json:"plots"` // plots/NAME.svg, served under /files/{id}/
	Files       []string                `json:"files"` // report.html, results.tex, ... that exist
	// AllFiles are every regular file under the directory (slash
	// separated, relative, sorted), each served read-only under
	// /files/{id}/.
	AllFiles   []FileJSON       `json:"all_files"`
	Summaries  []SummaryRowJSON `json:"summaries,omitempty"`
	Verdict    *EvalVerdictJSON `json:"verdict,omitempty"`    // an eval's, as it reached it
	Trajectory map[string]int   `json:"trajectories"`         // archives by split
	Replicates *Replicates      `json:"replicates,omitempty"` // the group of replicates the run is in
	// Alpha is a run's acceptance.alpha and AlphaSpending its
	// acceptance.alpha_spending ("basel" or "none"); GenerationAlpha[g]
	// the level generation g of generations.parquet (counted from 0
	// there, shown as g+1) was tested at: α·6/(π²(g+1)²)
	// (stats.BaselAlpha) under "basel", else α.
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

// SummaryRowJSON is a results.SummaryRow for JSON.
type SummaryRowJSON struct {
	Variant, Version, Split string
	N                       int32
	Mean, Std, Median, IQM  num
	CILow, CIHigh           num
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	run := s.lookup(w, id)
	if run == nil {
		return
	}
	defer run.mu.Unlock()
	e := run.entry
	out := RunJSON{Entry: EntryJSON{Entry: e, URLID: id}, Causes: run.causes, Generations: run.generations,
		Candidates: run.candidates, Trajectory: map[string]int{}}
	var ck struct {
		Config string `json:"config"`
	}
	if data, err := os.ReadFile(filepath.Join(e.Dir, "checkpoint.json")); err == nil {
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
		httpError(w, err, http.StatusInternalServerError)
		return
	}
	out.Lineage = l
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
	for _, f := range []string{"report.html", "report.md", "results.tex", "manifest.yaml"} {
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
		out.Summaries = append(out.Summaries, SummaryRowJSON{sr.Variant, sr.Version, sr.Split, sr.N, num(sr.Mean), num(sr.Std),
			num(sr.Median), num(sr.IQM), num(sr.CILow), num(sr.CIHigh)})
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
	writeJSON(w, out)
}

// EpisodeDetail is /api/runs/{id}/episodes/{split}/{version}/{seed}.
type EpisodeDetail struct {
	Episode EpisodeJSON `json:"episode"`
	// Trajectory is nil when none is stored.
	Trajectory *TrajectoryJSON `json:"trajectory"`
	// Note says why there is no trajectory.
	Note string `json:"note,omitempty"`
	// TrajectoryError is the error reading a stored trajectory (a
	// damaged archive), "" when it was read or none is stored.
	TrajectoryError string `json:"trajectory_error,omitempty"`
}

// TrajectoryJSON is a stored trajectory as the replay reads it. Kind
// says which of the other fields is set: "dungeon" (Dungeon: the
// expanded steps), "transcript" (Transcript: an LLM agent's turns),
// "asciicast" (Cast: the recording's text) or "json" (Raw: any other
// JSON, as stored).
type TrajectoryJSON struct {
	Kind       string               `json:"kind"`
	Format     string               `json:"format"`
	Bytes      int                  `json:"bytes"` // stored size, uncompressed
	Dungeon    *agent.DungeonReplay `json:"dungeon,omitempty"`
	Transcript *agent.Transcript    `json:"transcript,omitempty"`
	Cast       string               `json:"cast,omitempty"`
	Raw        json.RawMessage      `json:"raw,omitempty"`
}

// Decode turns a stored trajectory into what the replay shows.
func Decode(e trajectory.Entry) (*TrajectoryJSON, error) {
	t := &TrajectoryJSON{Format: e.Format, Bytes: len(e.Data)}
	if e.Format == envs.TrajectoryAsciicast {
		t.Kind, t.Cast = "asciicast", string(e.Data)
		return t, nil
	}
	var head struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.Data, &head)
	switch head.Kind {
	case agent.DungeonRecordKind:
		rp, err := agent.ExpandDungeon(e.Data)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Dungeon = "dungeon", rp
	case agent.TranscriptKind:
		var tr agent.Transcript
		if err := json.Unmarshal(e.Data, &tr); err != nil {
			return nil, fmt.Errorf("LLM transcript: %w", err)
		}
		t.Kind, t.Transcript = "transcript", &tr
	default:
		if !json.Valid(e.Data) {
			return nil, fmt.Errorf("the stored trajectory is not JSON")
		}
		t.Kind, t.Raw = "json", e.Data
	}
	return t, nil
}

func (s *Server) apiEpisode(w http.ResponseWriter, r *http.Request) {
	seed, err := parseSeed(r.PathValue("seed"))
	if err != nil {
		httpError(w, err, http.StatusBadRequest)
		return
	}
	split, version := r.PathValue("split"), r.PathValue("version")
	variant := r.URL.Query().Get("variant")
	repeat := 0
	if s := r.URL.Query().Get("repeat"); s != "" {
		if repeat, err = strconv.Atoi(s); err != nil || repeat < 0 {
			httpError(w, fmt.Errorf("repeat: %q is not an integer >= 0", s), http.StatusBadRequest)
			return
		}
	}
	run := s.lookup(w, r.PathValue("id"))
	if run == nil {
		return
	}
	defer run.mu.Unlock()
	q := Query{Split: split, Version: version, Variant: variant, Seed: &seed, Size: MaxPageSize}
	p, err := run.Episodes(q)
	if err != nil {
		httpError(w, err, http.StatusBadRequest)
		return
	}
	var d EpisodeDetail
	found := false
	for _, ep := range p.Episodes {
		if int(ep.Repeat) == repeat {
			d.Episode, found = ep, true
			break
		}
	}
	if !found {
		httpError(w, fmt.Errorf("no episode %s/%s/%d (variant %q, repeat %d) in %s", split, version, seed, variant, repeat, run.entry.Key), http.StatusNotFound)
		return
	}
	te, err := trajectory.Read(run.entry.Dir, trajectory.Phase{Split: split, Version: version, Variant: variant}, seed, repeat)
	switch {
	case errors.Is(err, trajectory.ErrNotFound):
		d.Note = "no trajectory is stored for this episode (the run's trajectories policy keeps failed episodes by default; see trajectories: in the config)"
	case errors.Is(err, trajectory.ErrTooLarge):
		d.TrajectoryError = err.Error()
		d.Note = "the stored trajectory cannot be shown: " + err.Error()
	case err != nil: // a damaged archive: the episode is still shown, with the error
		d.TrajectoryError = err.Error()
		d.Note = "the stored trajectory cannot be read: " + err.Error()
	default:
		if d.Trajectory, err = Decode(te); err != nil {
			d.Note = "the stored trajectory cannot be shown: " + err.Error()
		}
	}
	writeJSON(w, d)
}

// VersionJSON is /api/runs/{id}/versions/{version}.
type VersionJSON struct {
	Info     store.VersionInfo       `json:"info"`
	Rendered string                  `json:"rendered"` // the prompt as text (Prompt.Render)
	Sections []prompt.Section        `json:"sections"`
	Params   string                  `json:"params"` // the policy parameters, one "name: value" a line
	History  []prompt.MutationRecord `json:"history"`
	Parent   string                  `json:"parent,omitempty"`
	Changes  []prompt.Change         `json:"changes,omitempty"` // against the parent
	TextDiff string                  `json:"text_diff,omitempty"`
	Edges    []store.Edge            `json:"edges"`
}

func (s *Server) apiVersion(w http.ResponseWriter, r *http.Request) {
	run := s.lookup(w, r.PathValue("id"))
	if run == nil {
		return
	}
	dir := run.entry.Dir
	run.mu.Unlock()
	l, err := readLineage(dir)
	if err != nil {
		httpError(w, err, http.StatusInternalServerError)
		return
	}
	want, slug := r.PathValue("version"), r.URL.Query().Get("slug")
	if i := strings.LastIndexByte(want, '@'); i >= 0 { // an eval's SLUG@vX.Y.Z label
		slug, want = want[:i], want[i+1:]
	}
	load := func(vi store.VersionInfo) (*prompt.Prompt, error) { return loadVersion(dir, vi) }
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
		httpError(w, fmt.Errorf("no version %q in %s's prompt store", r.PathValue("version"), run.entry.Key), http.StatusNotFound)
		return
	}
	p, err := load(vi)
	if err != nil {
		httpError(w, err, http.StatusInternalServerError)
		return
	}
	out := VersionJSON{Info: vi, Rendered: p.Render(), Sections: p.Sections, History: p.MutationHistory, Edges: []store.Edge{}}
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
			if parent, err := load(pvi); err == nil {
				out.Parent = pvi.Version.String()
				out.Changes = prompt.Diff(parent, p)
				out.TextDiff = prompt.TextDiff(parent.Render(), p.Render())
			}
		}
	}
	writeJSON(w, out)
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
			g.Members = append(g.Members, EntryJSON{Entry: e, URLID: ID(e.Key)})
			if e.TestFinal != nil && e.TestBase != nil {
				fin, base = append(fin, *e.TestFinal), append(base, *e.TestBase)
			}
		}
		g.Final, g.Base = summaryJSON(stats.Summarize(fin)), summaryJSON(stats.Summarize(base))
		out = append(out, g)
	}
	return out
}
