package view

import (
	"compress/gzip"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"evolve/internal/format"
	"evolve/internal/httpguard"
	"evolve/rundir"
)

//go:embed assets
var assets embed.FS

// Config configures a Server.
type Config struct {
	// Roots are the directories whose runs and evals are shown
	// (rundir.List); at least one.
	Roots []string
	// Token, if not "", is required of every request: ?token=T (then
	// kept in an HttpOnly cookie) or "Authorization: Bearer T". It must
	// pass httpguard.CheckToken (at least 16 characters, no white space),
	// as evolve serve's. The command requires one for a non-loopback
	// address.
	Token string
	// Addr is the address the server listens on (HOST:PORT); a host name
	// in it is one the Host header may carry. "" for none.
	Addr string
	// AllowedHosts are further names the Host header may carry; IP
	// addresses, localhost and the machine's name are always answered,
	// other names get 403 so that a web page cannot rebind its own name
	// to the server and read it (see package httpguard).
	AllowedHosts []string
	// ListTTL is how long a listing of the roots is reused before the
	// directories are walked again; 0 means one second.
	ListTTL time.Duration
}

// Server is evolve view's HTTP handler. It is safe for concurrent use.
type Server struct {
	cfg   Config
	mux   *http.ServeMux
	guard *httpguard.Guard

	mu     sync.Mutex
	listed time.Time
	list   []rundir.Entry
	byID   map[string]rundir.Entry
	runs   map[string]*run // by directory

	replays replayCache
}

// MaxLoadedRuns is how many runs' tables the server keeps in memory at
// once; opening another forgets the least recently used (read again when
// next asked for). With 10^5 episodes a run holds about 20 MB.
const MaxLoadedRuns = 8

// ErrNoRoots is returned by New without a root directory.
var ErrNoRoots = errors.New("view: no directory to show")

// New returns a server over cfg.Roots. It returns ErrNoRoots without a
// root, an error naming a root that is not a readable directory, an
// error wrapping httpguard.ErrWeakToken for a weak cfg.Token and an
// error naming an allowed host that is not a host name.
func New(cfg Config) (*Server, error) {
	if len(cfg.Roots) == 0 {
		return nil, ErrNoRoots
	}
	for _, r := range cfg.Roots {
		fi, err := os.Stat(r)
		if err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("view: %s is not a directory", r)
		}
	}
	if cfg.Token != "" {
		if err := httpguard.CheckToken(cfg.Token); err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
	}
	guard, err := httpguard.New(httpguard.Config{Addr: cfg.Addr, Hosts: cfg.AllowedHosts, Flag: "--allowed-host"})
	if err != nil {
		return nil, fmt.Errorf("view: allowed hosts: %w", err)
	}
	if cfg.ListTTL == 0 {
		cfg.ListTTL = time.Second
	}
	s := &Server{cfg: cfg, runs: map[string]*run{}, guard: guard}
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	m.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	for _, p := range Pages {
		m.HandleFunc("GET "+p.Path, s.servePage(p))
		m.HandleFunc("GET "+p.API, s.serveAPI(p))
	}
	// The runs table's path before /api/v1, which scripts read (the
	// other unversioned paths were only the old pages' own).
	m.HandleFunc("GET /api/runs", s.serveAPI(Pages[0]))
	m.HandleFunc("GET "+FramesAPI, s.apiFrames)
	m.HandleFunc("GET /files/{id}/{name...}", s.file)
	s.mux = m
	return s, nil
}

// ServeHTTP implements http.Handler: GET and HEAD only, the Host check of
// package httpguard (no rebound names), the token check,
// and headers that keep the pages to this server (no framing, no
// scripts or connections elsewhere).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "evolve view is read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if code, msg := s.guard.Check(r); code != 0 {
		http.Error(w, msg, code)
		return
	}
	if s.cfg.Token != "" && !s.authorized(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

const tokenCookie = "evolve_view_token"

// authorized checks the token; a right ?token= sets the cookie and
// redirects to the URL without it.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	ok := func(t string) bool { return subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.Token)) == 1 }
	if t := r.URL.Query().Get("token"); t != "" && ok(t) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
		return true
	}
	if a, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found && ok(a) {
		return true
	}
	http.Error(w, "a token is required: open the URL with ?token=TOKEN once, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	return false
}

// entries returns the listing of the roots, walked again after ListTTL.
func (s *Server) entries() ([]rundir.Entry, map[string]rundir.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.list != nil && time.Since(s.listed) < s.cfg.ListTTL {
		return s.list, s.byID, nil
	}
	list, err := rundir.List(s.cfg.Roots)
	if err != nil {
		return nil, nil, err
	}
	s.list, s.listed = list, time.Now()
	s.byID = make(map[string]rundir.Entry, len(list))
	for _, e := range list {
		s.byID[ID(e.Key)] = e
	}
	return s.list, s.byID, nil
}

// open returns the run of an {id}, loaded and locked (the caller
// unlocks r.mu); the error answers 404 for an unknown id.
func (s *Server) open(id string) (*run, error) {
	_, byID, err := s.entries()
	if err != nil {
		return nil, err
	}
	e, ok := byID[id]
	if !ok {
		return nil, failWith(http.StatusNotFound, fmt.Errorf("no run or eval %q under %s", id, strings.Join(s.cfg.Roots, ", ")))
	}
	s.mu.Lock()
	r, ok := s.runs[e.Dir]
	if !ok {
		if len(s.runs) >= MaxLoadedRuns { // forget the least recently used
			oldest := ""
			for dir, x := range s.runs {
				if oldest == "" || x.used.Before(s.runs[oldest].used) {
					oldest = dir
				}
			}
			delete(s.runs, oldest)
		}
		r = &run{}
		s.runs[e.Dir] = r
	}
	r.used = time.Now()
	s.mu.Unlock()
	r.mu.Lock()
	r.entry = e
	if err := r.load(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	return r, nil
}

// lookup is open writing its error to w (nil then).
func (s *Server) lookup(w http.ResponseWriter, id string) *run {
	r, err := s.open(id)
	if err != nil {
		httpError(w, err, statusOf(err))
		return nil
	}
	return r
}

// httpError answers code with {"error": err's text}.
func httpError(w http.ResponseWriter, err error, code int) {
	format.WriteJSON(w, code, map[string]string{"error": err.Error()})
}

// writeJSON writes v as JSON with format.Marshal (a value holding NaN
// or an infinity, which JSON has neither of, is written with those as
// null; a value that cannot be encoded answers 500), never cached, and
// gzipped as writeBody does.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	w.Header().Set("Cache-Control", "no-store")
	data, err := format.Marshal(v, "")
	if err != nil {
		httpError(w, errors.New("encoding the response"), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	writeBody(w, r, data)
}

// writeBody writes a body, gzipped when the client accepts it and it is
// longer than a packet (a replay's frames shrink about tenfold).
func writeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Add("Vary", "Accept-Encoding")
	if len(body) < 1400 || r == nil || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Write(body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	zw.Write(body)
	zw.Close()
}

// RunsJSON is the runs page's data (/api/v1/): every directory under
// the roots, and the groups of replicates.
type RunsJSON struct {
	Roots   []string     `json:"roots"`
	Entries []EntryJSON  `json:"entries"`
	Groups  []Replicates `json:"groups"`
	// Now is when the listing was made (UTC).
	Now time.Time `json:"now"`
	// Running reports that an entry is running (the page polls).
	Running bool `json:"running"`
}

func (RunsJSON) title() string      { return "Runs and evals" }
func (RunsJSON) crumbs() []LinkJSON { return []LinkJSON{crumb("runs", "")} }
func (d RunsJSON) live() bool       { return true }

// EntryJSON is a rundir.Entry with its URL id.
type EntryJSON struct {
	rundir.Entry
	URLID string `json:"url_id"`
	// SharedID reports that another listed directory has the same ID
	// (the page then names the directory beside it).
	SharedID bool `json:"shared_id"`
	// Progress is a running run's generations over its maximum, in [0, 1].
	Progress float64 `json:"progress"`
	// Phase is a running run's current phase, from its
	// rundir.ProgressFile; absent when the run is not running or has
	// written none.
	Phase *PhaseJSON `json:"phase,omitempty"`
}

func entryJSON(e rundir.Entry) EntryJSON {
	j := EntryJSON{Entry: e, URLID: ID(e.Key)}
	if e.MaxGenerations > 0 {
		j.Progress = min(1, float64(e.Generations)/float64(e.MaxGenerations))
	}
	if e.Kind == rundir.KindRun && e.Status == rundir.Running {
		if p, err := rundir.ReadProgress(e.Dir); err == nil {
			j.Phase = phaseJSON(p)
		}
	}
	return j
}

// PhaseJSON is a running run's current phase as its rundir.ProgressFile
// tells it: the run writes that file at most every second while the
// phase plays.
type PhaseJSON struct {
	// Generation counts from 0, as the Parquet tables count; Split is
	// "train", "val" or "test"; Versions the versions the phase plays
	// (several for a pool of candidates).
	Generation int      `json:"generation"`
	Split      string   `json:"split"`
	Versions   []string `json:"versions"`
	// Done of Total episodes of the phase are played.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Rate is Done over the seconds from Started to Updated (episodes
	// per second); ETASeconds the phase's remaining episodes at Rate,
	// counted from Updated; both null before the first episode.
	Rate       format.Float `json:"rate"`
	ETASeconds format.Float `json:"eta_seconds"`
	// Started is when the phase started, Updated when the run last
	// wrote its progress, RunStarted when the run was first started
	// (UTC).
	Started    time.Time `json:"started"`
	Updated    time.Time `json:"updated"`
	RunStarted time.Time `json:"run_started"`
}

func phaseJSON(p *rundir.Progress) *PhaseJSON {
	j := &PhaseJSON{Generation: p.Generation, Split: p.Split, Versions: p.Versions, Done: p.Done, Total: p.Total,
		Rate: format.Float(math.NaN()), ETASeconds: format.Float(math.NaN()), Started: p.PhaseStarted, Updated: p.Updated, RunStarted: p.RunStarted}
	if r := p.Rate(); r > 0 {
		j.Rate, j.ETASeconds = format.Float(r), format.Float(p.ETA().Seconds())
	}
	if j.Versions == nil {
		j.Versions = []string{}
	}
	return j
}

func (s *Server) runsData(r *http.Request) (any, error) {
	list, _, err := s.entries()
	if err != nil {
		return nil, err
	}
	out := RunsJSON{Roots: s.cfg.Roots, Entries: make([]EntryJSON, len(list)), Now: time.Now().UTC()}
	seen := map[string]int{}
	for _, e := range list {
		seen[e.ID]++
	}
	for i, e := range list {
		out.Entries[i] = entryJSON(e)
		out.Entries[i].SharedID = seen[e.ID] > 1
		out.Running = out.Running || e.Status == rundir.Running
	}
	out.Groups = GroupReplicates(list)
	if out.Groups == nil {
		out.Groups = []Replicates{}
	}
	return out, nil
}

func (s *Server) episodesData(r *http.Request) (any, error) {
	q, err := ParseQuery(r.URL.Query().Get)
	if err != nil {
		return nil, failWith(http.StatusBadRequest, err)
	}
	id := r.PathValue("id")
	run, err := s.open(id)
	if err != nil {
		return nil, err
	}
	defer run.mu.Unlock()
	p, err := run.Episodes(q)
	if err != nil {
		return nil, failWith(http.StatusBadRequest, err)
	}
	p.ID, p.query = id, r.URL.Query()
	p.Filters = map[string]string{}
	for k := range p.query {
		if v := p.query.Get(k); v != "" && k != "token" {
			p.Filters[k] = v
		}
	}
	return p, nil
}

// parseSeed reads a seed path element; the error names it.
func parseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("seed %q is not an unsigned integer", s)
	}
	return v, nil
}

// linkTo returns the page URL of a run's episode.
func linkTo(id, split, version string, seed uint64) string {
	return "/runs/" + url.PathEscape(id) + "/episodes/" + url.PathEscape(split) + "/" + url.PathEscape(version) + "/" + strconv.FormatUint(seed, 10)
}

// HasETA reports whether ETASeconds is known.
func (p *PhaseJSON) HasETA() bool { return !math.IsNaN(float64(p.ETASeconds)) }
