package view

import (
	"encoding/json"
	"errors"
	"evolve/store"
	"fmt"
	"math"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"evolve/agent"
	"evolve/envs"
	"evolve/experiment"
	"evolve/gate"
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

// CheckJSON is a gate.Check for JSON.
type CheckJSON struct {
	Version, Variant         string
	N, NBaseline, NPaired    int
	Mean, BaselineMean, Diff num
	Test                     string
	Statistic, P, PAdj, A12  num
	HLShift, HLLow, HLHigh   num
	Regression               bool
	Message                  string
	Warnings                 []string
}

func checkJSON(c gate.Check) CheckJSON {
	return CheckJSON{c.Version, c.Variant, c.N, c.NBaseline, c.NPaired, num(c.Mean), num(c.BaselineMean), num(c.MeanDiff),
		c.Test, num(c.Statistic), num(c.P), num(c.PAdj), num(c.A12), num(c.HLShift), num(c.HLLow), num(c.HLHigh),
		c.Regression, c.Message, c.Warnings}
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
	Summaries   []SummaryRowJSON        `json:"summaries,omitempty"`
	Checks      []CheckJSON             `json:"checks,omitempty"`     // an eval's versions against its first, per variant
	Trajectory  map[string]int          `json:"trajectories"`         // archives by split
	Replicates  *Replicates             `json:"replicates,omitempty"` // the group of replicates the run is in
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
	}
	_ = yaml.Unmarshal([]byte(ck.Config), &cfg) // for display only: a bad config shows no stop text
	if e.StopReason != "" {
		out.StopText = experiment.StopText(e.StopReason, cfg.Patience, cfg.MaxGenerations)
		if e.StopHint != "" {
			out.StopText += " (" + e.StopHint + ")"
		}
	}
	l, err := readLineage(e.Dir)
	if err != nil {
		httpError(w, err, http.StatusInternalServerError)
		return
	}
	out.Lineage = l
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
	if e.Kind == rundir.KindEval && len(e.Versions) > 1 {
		out.Checks = evalChecks(run, e.Versions)
	}
	list, _, _ := s.entries()
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

// evalChecks compares each version of an eval with its first, per
// variant, by the regression gate's defaults (gate.DefaultConfig).
func evalChecks(run *run, versions []string) []CheckJSON {
	type key struct{ variant, version string }
	samples := map[key]*gate.Sample{}
	var variants []string
	for i := range run.episodes {
		ep := &run.episodes[i]
		k := key{ep.Variant, ep.Version}
		sm, ok := samples[k]
		if !ok {
			sm = &gate.Sample{Version: ep.Version, Variant: ep.Variant}
			samples[k] = sm
			if ep.Version == versions[0] {
				variants = append(variants, ep.Variant)
			}
		}
		sm.Seeds, sm.Repeats, sm.Scores = append(sm.Seeds, ep.Seed), append(sm.Repeats, int(ep.Repeat)), append(sm.Scores, ep.Score)
	}
	var base, cands []gate.Sample
	for _, v := range variants {
		if b, ok := samples[key{v, versions[0]}]; ok {
			base = append(base, *b)
		}
		for _, ver := range versions[1:] {
			if c, ok := samples[key{v, ver}]; ok {
				cands = append(cands, *c)
			}
		}
	}
	checks, err := gate.Compare(base, cands, gate.DefaultConfig())
	if err != nil {
		return []CheckJSON{{Message: err.Error()}}
	}
	out := make([]CheckJSON, len(checks))
	for i, c := range checks {
		out[i] = checkJSON(c)
	}
	return out
}

// EpisodeDetail is /api/runs/{id}/episodes/{split}/{version}/{seed}.
type EpisodeDetail struct {
	Episode EpisodeJSON `json:"episode"`
	// Trajectory is nil when none is stored.
	Trajectory *TrajectoryJSON `json:"trajectory"`
	// Note says why there is no trajectory.
	Note string `json:"note,omitempty"`
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
		d.Note = "the stored trajectory cannot be shown: " + err.Error()
	case err != nil:
		httpError(w, err, http.StatusInternalServerError)
		return
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
	load := func(vi store.VersionInfo) (*prompt.Prompt, error) {
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
