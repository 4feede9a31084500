package view

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"

	"evolve/envs"
	"evolve/trajectory"
)

// FramesAPI is the pattern of a replay's further pages of frames:
// ?step=N answers the page holding step N (a Replay whose Frames, From
// and Log are that page's; Events are given once EventsComplete, else
// empty: the episode page has those found when it was drawn).
const FramesAPI = "/api/v1/runs/{id}/episodes/{split}/{version}/{seed}/frames"

// EpisodeDetail is the episode page's data
// (/api/v1/runs/{id}/episodes/{split}/{version}/{seed}).
type EpisodeDetail struct {
	ID      string      `json:"id"`
	Episode EpisodeJSON `json:"episode"`
	// Replay is the stored trajectory expanded, its frames paged (the
	// page holding ?step=N, the first without); nil when none is stored
	// or it cannot be read (Note says why).
	Replay *Replay `json:"replay"`
	// Step is the step asked for (?step=N, from 0), clamped.
	Step int `json:"step"`
	// Note says why there is no replay.
	Note string `json:"note,omitempty"`
	// TrajectoryError is the error reading a stored trajectory (a
	// damaged archive), "" when it was read or none is stored.
	TrajectoryError string `json:"trajectory_error,omitempty"`
	// Others are the same seed's episodes of the other versions on the
	// same split (and variant and repeat), each linked.
	Others []LinkJSON `json:"others"`
	// Facts are the episode's columns as the page shows them.
	Facts []FactJSON `json:"facts"`
}

// FactJSON is one named value of an episode.
type FactJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (d *EpisodeDetail) title() string {
	e := d.Episode
	return "Episode " + e.Split + " / " + e.Version + " / seed " + strconv.FormatUint(e.Seed, 10)
}
func (d *EpisodeDetail) crumbs() []LinkJSON {
	e := d.Episode
	return []LinkJSON{crumb("runs", "/"), crumb(d.ID, "/runs/"+url.PathEscape(d.ID)), crumb("episodes", "/runs/"+url.PathEscape(d.ID)+"/episodes"),
		crumb(e.Split+" "+e.Version+" "+strconv.FormatUint(e.Seed, 10), "")}
}
func (d *EpisodeDetail) live() bool { return false }

// replayCache keeps the last replays expanded (expanding a 16 MiB
// recording takes about a second), by directory, phase, seed and
// repeat, and the modification time of their archive.
type replayCache struct {
	mu   sync.Mutex
	keys []string
	m    map[string]*lazyReplay
}

// lazyReplay is a replay as the server keeps it: a recording is read a
// page at a time as pages are asked for, and to its end in the
// background, so that a long one's first page is drawn at once.
type lazyReplay struct {
	mu sync.Mutex
	rp *Replay
	c  *caster // nil once read to the end
}

// decodeLazy is Decode, reading a recording lazily.
func decodeLazy(e trajectory.Entry) (*lazyReplay, error) {
	if e.Format != envs.TrajectoryAsciicast {
		rp, err := Decode(e)
		if err != nil {
			return nil, err
		}
		return &lazyReplay{rp: rp}, nil
	}
	c, err := newCaster(e.Data)
	if err != nil {
		return nil, err
	}
	lr := &lazyReplay{c: c, rp: &Replay{Kind: "asciicast", Format: e.Format, Bytes: len(e.Data), PageSize: FramePage, Width: c.w, Height: c.h,
		Steps: countSteps(e.Data), Events: []EventJSON{}, Log: []EventJSON{}}}
	go lr.finish()
	return lr, nil
}

// readTo reads the recording up to the end of the page holding step.
// The caller holds lr.mu.
func (lr *lazyReplay) readTo(step int) {
	want := (step/FramePage + 1) * FramePage
	for lr.c != nil && len(lr.rp.full) < want {
		if !lr.c.next(lr.rp) {
			lr.rp.finishCast()
			lr.c = nil
		}
	}
}

// finish reads the rest of the recording, a few pages at a time so that
// the pages asked for meanwhile are answered.
func (lr *lazyReplay) finish() {
	for {
		lr.mu.Lock()
		if lr.c == nil {
			lr.mu.Unlock()
			return
		}
		lr.readTo(len(lr.rp.full) + 2*FramePage - 1)
		lr.mu.Unlock()
	}
}

// page returns the page of frames holding step.
func (lr *lazyReplay) page(step int) *Replay {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.readTo(step)
	return lr.rp.Page(step)
}

// maxCachedReplays is how many expanded replays the server keeps.
const maxCachedReplays = 4

func (c *replayCache) get(key string) *lazyReplay {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *replayCache) put(key string, rp *lazyReplay) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*lazyReplay{}
	}
	if _, ok := c.m[key]; !ok {
		c.keys = append(c.keys, key)
	}
	c.m[key] = rp
	for len(c.keys) > maxCachedReplays {
		delete(c.m, c.keys[0])
		c.keys = c.keys[1:]
	}
}

// episode finds the episode of the request's path and ?variant= and
// ?repeat=, and reads its trajectory (expanded once, then cached).
func (s *Server) episode(r *http.Request) (*EpisodeDetail, *lazyReplay, error) {
	seed, err := parseSeed(r.PathValue("seed"))
	if err != nil {
		return nil, nil, failWith(http.StatusBadRequest, err)
	}
	id, split, version := r.PathValue("id"), r.PathValue("split"), r.PathValue("version")
	q := r.URL.Query()
	variant := q.Get("variant")
	repeat := 0
	if s := q.Get("repeat"); s != "" {
		if repeat, err = strconv.Atoi(s); err != nil || repeat < 0 {
			return nil, nil, failWith(http.StatusBadRequest, fmt.Errorf("repeat: %q is not an integer >= 0", s))
		}
	}
	step := 0
	if s := q.Get("step"); s != "" {
		if step, err = strconv.Atoi(s); err != nil || step < 0 {
			return nil, nil, failWith(http.StatusBadRequest, fmt.Errorf("step: %q is not an integer >= 0", s))
		}
	}
	run, err := s.open(id)
	if err != nil {
		return nil, nil, err
	}
	defer run.mu.Unlock()
	p, err := run.Episodes(Query{Split: split, Version: version, Variant: variant, Seed: &seed, Size: MaxPageSize})
	if err != nil {
		return nil, nil, failWith(http.StatusBadRequest, err)
	}
	d := &EpisodeDetail{ID: id, Step: step, Others: []LinkJSON{}}
	found := false
	for _, ep := range p.Episodes {
		if int(ep.Repeat) == repeat {
			d.Episode, found = ep, true
			break
		}
	}
	if !found {
		return nil, nil, failWith(http.StatusNotFound, fmt.Errorf("no episode %s/%s/%d (variant %q, repeat %d) in %s", split, version, seed, variant, repeat, run.entry.Key))
	}
	e := d.Episode
	d.Facts = []FactJSON{{"split", e.Split}, {"version", e.Version}, {"seed", strconv.FormatUint(e.Seed, 10)}, {"generation", strconv.Itoa(int(e.Generation))},
		{"score", fmtNum(e.Score)}, {"cause", e.Cause}, {"end", e.EndReason}}
	if e.Variant != "" {
		d.Facts = append(d.Facts, FactJSON{"variant", e.Variant})
	}
	for _, m := range p.Metrics {
		d.Facts = append(d.Facts, FactJSON{m.Name, e.Cell(m.Name)})
	}
	// The same seed under the other versions.
	seen := map[string]bool{version: true}
	for i := range run.episodes {
		o := &run.episodes[i]
		if o.Seed == seed && o.Split == split && o.Variant == variant && int(o.Repeat) == repeat && !seen[o.Version] {
			seen[o.Version] = true
			oj := EpisodeJSON{Split: o.Split, Version: o.Version, Variant: o.Variant, Seed: o.Seed, Repeat: o.Repeat}
			d.Others = append(d.Others, LinkJSON{Text: o.Version + " (score " + fmtNum(o.Score) + ", " + o.Cause + ")", URL: oj.Link(id)})
		}
	}
	sort.Slice(d.Others, func(i, j int) bool { return d.Others[i].Text < d.Others[j].Text })

	ph := trajectory.Phase{Split: split, Version: version, Variant: variant}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%v", run.entry.Dir, split, version, variant, seed, repeat, run.stamp)
	if rp := s.replays.get(key); rp != nil {
		return d, rp, nil
	}
	te, err := trajectory.Read(run.entry.Dir, ph, seed, repeat)
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
		rp, err := decodeLazy(te)
		if err != nil {
			d.TrajectoryError = err.Error()
			d.Note = "the stored trajectory cannot be shown: " + err.Error()
			break
		}
		s.replays.put(key, rp)
		return d, rp, nil
	}
	return d, nil, nil
}

func (s *Server) episodeData(r *http.Request) (any, error) {
	d, rp, err := s.episode(r)
	if err != nil {
		return nil, err
	}
	if rp != nil {
		d.Replay = rp.page(d.Step)
		d.Step = min(d.Step, max(0, d.Replay.Steps-1))
	}
	return d, nil
}

// apiFrames answers a replay's page of frames holding ?step=N.
func (s *Server) apiFrames(w http.ResponseWriter, r *http.Request) {
	d, rp, err := s.episode(r)
	if err != nil {
		httpError(w, err, statusOf(err))
		return
	}
	if rp == nil {
		httpError(w, errors.New(d.Note), http.StatusNotFound)
		return
	}
	p := rp.page(d.Step)
	// The frames and their log; the events only once complete (the
	// episode page has those found when it was drawn).
	ev := []EventJSON{}
	if p.EventsComplete {
		ev = p.Events
	}
	writeJSON(w, r, &Replay{Kind: p.Kind, Format: p.Format, Bytes: p.Bytes, Steps: p.Steps, Width: p.Width, Height: p.Height,
		PageSize: p.PageSize, From: p.From, Frames: p.Frames, StateKeys: p.StateKeys, Events: ev, Log: p.Log, End: p.End,
		Problem: p.Problem, EventsComplete: p.EventsComplete})
}
