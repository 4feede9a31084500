package serve

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"evolve/internal/format"
	"evolve/internal/httpguard"
	"evolve/online"
	"evolve/prompt"
	"evolve/render"
	"evolve/store"
)

// Defaults of Config.
const (
	DefaultMaxBody  = 64 << 10 // bytes of a request body
	DefaultMaxBatch = 1024     // observations per store write
)

// Config configures a Server.
type Config struct {
	// Store is the prompt store served (required).
	Store *store.Store
	// Weights is the EMA alpha and rollback rule of the store's
	// observation log (store.DefaultWeightsConfig is the design's).
	Weights store.WeightsConfig
	// Epsilon and Seed are the selection's (online.EpsilonGreedy).
	Epsilon float64
	Seed    uint64
	// Signals are the declared context signals (see online.StoreSignals
	// for a store's table); nil means online.DefaultSignals. New refuses
	// a table that fails online.ValidateSignals.
	Signals []online.SignalSpec
	// Token, if not empty, is the bearer token every request but GET
	// /healthz must carry: "Authorization: Bearer TOKEN" (the scheme in
	// any case). It must pass CheckToken (at least MinTokenLen
	// characters, no white space).
	Token string
	// Addr is the address the server listens on (HOST:PORT); a host
	// name in it is one the Host header may carry. "" for none.
	Addr string
	// AllowedHosts are further names the Host header may carry (see
	// httpguard: IP addresses, localhost and the machine's name are
	// always answered, other names are refused with 403 so that a web
	// page cannot rebind its own name to the server). New refuses a
	// name with a port, a scheme or white space.
	AllowedHosts []string
	// PublicRead, with a Token, leaves the read-only endpoints (POST
	// /v1/select, GET /v1/weights, GET /metrics) open: only POST
	// /v1/observe needs the token. Without a Token it changes nothing.
	PublicRead bool
	// IdempotencyWindow is how many of the latest observations' request
	// ids the server remembers (see the package documentation); 0 means
	// DefaultIdempotencyWindow, a negative value turns the check off.
	IdempotencyWindow int
	// MaxBody is the most bytes of a request body (413 beyond); 0 means
	// DefaultMaxBody.
	MaxBody int64
	// MaxBatch is the most observations written at once; 0 means
	// DefaultMaxBatch.
	MaxBatch int
	// Now stamps observations; nil means the current time.
	Now func() time.Time
	// Log receives one line per alarm and per store failure; nil means
	// none.
	Log io.Writer
}

// Server serves a store (see the package documentation). Create it with
// New, serve Handler, and Close it after the HTTP server has shut down.
type Server struct {
	cfg     Config
	eg      online.EpsilonGreedy
	queue   chan *job
	mu      sync.RWMutex // guards closed against the queue's close
	closed  bool
	done    chan struct{}
	reqs    atomic.Uint64
	vmu     sync.Mutex // guards cur
	cur     *view
	metrics *metrics
	logMu   sync.Mutex
	idem    *idempotency // nil: request ids are not checked
	guard   *httpguard.Guard
}

// job is one observation waiting for the committer.
type job struct {
	obs store.Observed
	res chan jobResult
}

type jobResult struct {
	out store.Outcome
	err error
}

// New checks cfg and starts the server's committer. Errors name the
// invalid field.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("serve: no store")
	}
	if err := cfg.Weights.Validate(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	eg := online.EpsilonGreedy{Epsilon: cfg.Epsilon, Seed: cfg.Seed}
	if err := eg.Validate(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if cfg.Signals == nil {
		cfg.Signals = online.DefaultSignals()
	}
	if err := online.ValidateSignals(cfg.Signals); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if cfg.Token != "" {
		if err := CheckToken(cfg.Token); err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
	}
	guard, err := httpguard.New(httpguard.Config{Addr: cfg.Addr, Hosts: cfg.AllowedHosts, Flag: "--allowed-host",
		Error: func(w http.ResponseWriter, code int, msg string) { writeError(w, code, "", msg) }})
	if err != nil {
		return nil, fmt.Errorf("serve: allowed hosts: %w", err)
	}
	if cfg.IdempotencyWindow == 0 {
		cfg.IdempotencyWindow = DefaultIdempotencyWindow
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.MaxBody < 0 || cfg.MaxBatch < 0 {
		return nil, fmt.Errorf("serve: max body and max batch must be >= 0: %d, %d", cfg.MaxBody, cfg.MaxBatch)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, eg: eg, queue: make(chan *job, 4*cfg.MaxBatch), done: make(chan struct{}), metrics: newMetrics(), guard: guard}
	if _, err := s.view(); err != nil {
		return nil, err
	}
	if cfg.IdempotencyWindow > 0 {
		s.idem = newIdempotency(cfg.IdempotencyWindow)
		if err := s.idem.load(s.logPath()); err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
	}
	go s.commit()
	return s, nil
}

// Close stops taking observations, writes every one queued and returns
// when they are durable. Call it after the HTTP server has shut down
// (http.Server.Shutdown waits for the handlers, which wait for their
// observations). Later observations get 503.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	<-s.done
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, format+"\n", args...)
}

// commit writes the queued observations in batches until the queue is
// closed and empty.
func (s *Server) commit() {
	defer close(s.done)
	for j := range s.queue {
		batch := []*job{j}
	drain:
		for len(batch) < s.cfg.MaxBatch {
			select {
			case j, ok := <-s.queue:
				if !ok {
					break drain
				}
				batch = append(batch, j)
			default:
				break drain
			}
		}
		obs := make([]store.Observed, len(batch))
		for i, j := range batch {
			obs[i] = j.obs
		}
		out, err := s.cfg.Store.Observe(s.cfg.Weights, obs)
		s.metrics.batch(len(batch), err)
		if err != nil {
			s.logf("evolve serve: writing %d observations: %v", len(batch), err)
		}
		for i, j := range batch {
			if err != nil {
				j.res <- jobResult{err: err}
				continue
			}
			if a := out[i].Alarm; a != nil {
				s.metrics.alarm(a.RolledBackTo != nil)
				what := a.Note
				if a.RolledBackTo != nil {
					what = "HEAD of " + a.Branch + " rolled back to " + a.RolledBackTo.String()
				}
				s.logf("evolve serve: auto-rollback alarm for %s@%s: window mean %.4f < threshold %.4f (baseline mean %.4f, sigma %.4f, k %g): %s",
					j.obs.Slug, j.obs.Version, a.Evidence.RecentMean, a.Evidence.Threshold, a.Evidence.BaselineMean, a.Evidence.Sigma, a.Evidence.K, what)
			}
			j.res <- jobResult{out: out[i]}
		}
	}
}

// fileKey identifies one content of a file replaced atomically.
type fileKey struct {
	ino, size, mtime int64
}

func statKey(path string) fileKey {
	st, err := os.Stat(path)
	if err != nil {
		return fileKey{}
	}
	return fileKey{ino: inode(st), size: st.Size(), mtime: st.ModTime().UnixNano()}
}

// view is a snapshot of the store: its graph and weights, with the
// versions' context weights and texts loaded so far.
type view struct {
	graph      *store.Graph
	weights    *store.Weights
	gkey, wkey fileKey
	infos      map[prompt.Ref]*versionInfo
}

// versionInfo is what selection needs of a version, loaded once per
// graph.
type versionInfo struct {
	once           sync.Once
	contextWeights map[string]float64
	text           string
	tokens         int
	renderErr      string
	err            error // the version could not be read
}

// view returns the current snapshot, reloading what changed on disk.
func (s *Server) view() (*view, error) {
	dir := s.cfg.Store.Dir()
	gk, wk := statKey(filepath.Join(dir, "versions.json")), statKey(filepath.Join(dir, store.WeightsFile))
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if s.cur != nil && s.cur.gkey == gk && s.cur.wkey == wk {
		return s.cur, nil
	}
	v := &view{gkey: gk, wkey: wk}
	if s.cur != nil && s.cur.gkey == gk {
		v.graph, v.infos = s.cur.graph, s.cur.infos
	} else {
		g, err := s.cfg.Store.Graph()
		if err != nil {
			return nil, err
		}
		v.graph, v.infos = g, map[prompt.Ref]*versionInfo{}
	}
	w, err := s.cfg.Store.Weights()
	if err != nil {
		return nil, err
	}
	v.weights = w
	s.cur = v
	return v, nil
}

// info returns the context weights and rendered text of a version,
// loading them once per graph (outside the view lock: rendering counts
// tokens).
func (s *Server) info(v *view, ref prompt.Ref) *versionInfo {
	s.vmu.Lock()
	in, ok := v.infos[ref]
	if !ok {
		in = &versionInfo{}
		v.infos[ref] = in
	}
	s.vmu.Unlock()
	in.once.Do(func() { s.load(in, ref) })
	return in
}

func (s *Server) load(in *versionInfo, ref prompt.Ref) {
	p, err := s.cfg.Store.Load(ref.Slug, ref.Version)
	if err != nil {
		in.err = err
		return
	}
	if in.contextWeights, err = ContextWeights(p); err != nil {
		in.err = err
		return
	}
	res, err := s.cfg.Store.Resolve(ref)
	if err != nil {
		in.renderErr = err.Error()
		return
	}
	r, err := render.New(res.Prompt, render.Options{})
	if err == nil {
		var out render.Rendered
		if out, err = r.Preview(render.PhaseStatic); err == nil {
			in.text, in.tokens = out.System, out.SystemTokens
		}
	}
	if err != nil {
		in.renderErr = err.Error()
	}
}

// ContextWeights returns the context_weights of p's metadata (signal
// name to weight), nil if it has none. Errors: context_weights not a
// mapping, or a weight that is not a finite number, naming the version
// and the key.
func ContextWeights(p *prompt.Prompt) (map[string]float64, error) {
	raw, ok := p.Metadata["context_weights"]
	if !ok || raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: metadata.context_weights must be a mapping of signal to weight, got %T", p.Ref(), raw)
	}
	out := make(map[string]float64, len(m))
	for k, x := range m {
		var f float64
		switch x := x.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		case int:
			f = float64(x)
		default:
			return nil, fmt.Errorf("%s: metadata.context_weights.%s must be a number, got %v", p.Ref(), k, x)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: metadata.context_weights.%s must be finite, got %v", p.Ref(), k, f)
		}
		out[k] = f
	}
	return out, nil
}

// Handler returns the API's handler (with request metrics).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/select", s.handleSelect)
	mux.HandleFunc("/v1/observe", s.handleObserve)
	mux.HandleFunc("/v1/weights", s.handleWeights)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if !method(w, r, http.MethodGet) {
			return
		}
		format.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		if !method(w, r, http.MethodGet) {
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		s.metrics.write(w)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "", "no such endpoint: "+r.URL.Path+" (see /v1/select, /v1/observe, /v1/weights, /healthz, /metrics)")
	})
	return s.metrics.wrap(s.guard.Handler(s.requireToken(mux)))
}

// apiError is the body of every error response.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, code int, field, msg string) {
	format.WriteJSON(w, code, apiError{Error: msg, Field: field})
}

func method(w http.ResponseWriter, r *http.Request, m string) bool {
	if r.Method == m {
		return true
	}
	w.Header().Set("Allow", m)
	writeError(w, http.StatusMethodNotAllowed, "", fmt.Sprintf("%s %s: want %s", r.Method, r.URL.Path, m))
	return false
}

// decode reads r's body into v with DecodeStrict: 413 beyond the size
// limit, 408 for a body not read within the server's read timeout, 400
// naming the field for anything else.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	data, err := io.ReadAll(body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("request body over %d bytes", mbe.Limit))
		return false
	}
	if err != nil {
		code := http.StatusBadRequest
		if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			code = http.StatusRequestTimeout
		}
		writeError(w, code, "", "reading the body: "+err.Error())
		return false
	}
	if err := DecodeStrict(data, v); err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Reason: err.Error()}
		}
		writeError(w, http.StatusBadRequest, fe.Field, "invalid JSON body: "+fe.Error())
		return false
	}
	return true
}

// SelectRequest is the body of POST /v1/select.
type SelectRequest struct {
	Prompt    string             `json:"prompt"`     // the slug (required)
	Branch    string             `json:"branch"`     // only this branch's HEAD (with Branches: added to them)
	Branches  []string           `json:"branches"`   // only these branches' HEADs; none: every branch
	Versions  []string           `json:"versions"`   // these versions ("vX.Y.Z") instead of branch HEADs
	Signals   map[string]float64 `json:"signals"`    // the context (see online.CheckSignals)
	RequestID string             `json:"request_id"` // the interaction's id, at most 200 bytes; a decimal number is the request number
}

// Candidate is one variant of a selection with its scores.
type Candidate struct {
	Version    string  `json:"version"`     // "vX.Y.Z"
	Branch     string  `json:"branch"`      // its branch
	Weight     float64 `json:"weight"`      // its EMA edge weight
	ContextFit float64 `json:"context_fit"` // online.ContextFit of its context weights (0 without)
	Context    bool    `json:"context"`     // whether it has context weights
	Score      float64 `json:"score"`       // online.TotalScore
}

// SelectResponse is the answer of POST /v1/select.
type SelectResponse struct {
	Prompt      string      `json:"prompt"`
	Version     string      `json:"version"`    // the chosen version
	Ref         string      `json:"ref"`        // "slug@vX.Y.Z"
	Branch      string      `json:"branch"`     // its branch
	Request     uint64      `json:"request"`    // the request number the choice was drawn for
	RequestID   string      `json:"request_id"` // the request id given, or the request number
	Explored    bool        `json:"explored"`   // chosen at random (exploration)
	Epsilon     float64     `json:"epsilon"`    // the exploration probability
	Text        string      `json:"text"`       // the version's system message (static placeholders resolved); "" if it did not render
	Tokens      int         `json:"tokens"`     // its cl100k_base tokens
	RenderError string      `json:"render_error,omitempty"`
	Candidates  []Candidate `json:"candidates"` // every candidate in order, the chosen one included
	Excluded    []string    `json:"excluded"`   // versions left out: rolled back automatically
}

// requestNumber maps a request id to the selection's request number.
func (s *Server) requestNumber(id string) (uint64, string) {
	if id == "" {
		n := s.reqs.Add(1)
		return n, strconv.FormatUint(n, 10)
	}
	if n, err := strconv.ParseUint(id, 10, 64); err == nil {
		return n, id
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64(), id
}

func (s *Server) handleSelect(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) {
		return
	}
	var req SelectRequest
	if !s.decode(w, r, &req) {
		return
	}
	if e := s.checkSelect(&req); e != nil {
		e.write(w)
		return
	}
	v, err := s.view()
	if err != nil {
		s.logf("evolve serve: reading the store: %v", err)
		writeError(w, http.StatusInternalServerError, "", "reading the store: "+err.Error())
		return
	}
	cands, excluded, e := selectCandidates(v.graph, &req)
	if e != nil {
		e.write(w)
		return
	}
	variants := make([]online.Variant, len(cands))
	infos := make([]*versionInfo, len(cands))
	for i, c := range cands {
		in := s.info(v, c.ref)
		if in.err != nil {
			s.logf("evolve serve: %v", in.err)
			writeError(w, http.StatusInternalServerError, "", in.err.Error())
			return
		}
		infos[i] = in
		variants[i] = online.Variant{ID: c.ref.String(), Weight: v.weights.Weight(c.ref.Slug, c.ref.Version), ContextWeights: in.contextWeights}
	}
	n, id := s.requestNumber(req.RequestID)
	ch := s.eg.Select(variants, req.Signals, n)
	s.metrics.selected(ch.Explored)
	resp := SelectResponse{Prompt: req.Prompt, Version: cands[ch.Index].ref.Version.String(), Ref: cands[ch.Index].ref.String(),
		Branch: cands[ch.Index].branch, Request: n, RequestID: id, Explored: ch.Explored, Epsilon: s.eg.Epsilon,
		Text: infos[ch.Index].text, Tokens: infos[ch.Index].tokens, RenderError: infos[ch.Index].renderErr,
		Candidates: make([]Candidate, len(cands)), Excluded: excluded}
	if resp.Excluded == nil {
		resp.Excluded = []string{}
	}
	for i, c := range cands {
		resp.Candidates[i] = Candidate{Version: c.ref.Version.String(), Branch: c.branch, Weight: variants[i].Weight,
			ContextFit: online.ContextFit(variants[i].ContextWeights, req.Signals), Context: len(variants[i].ContextWeights) > 0, Score: ch.Scores[i]}
	}
	format.WriteJSON(w, http.StatusOK, resp)
}

// requestError is a refused request: the HTTP status, the field at fault
// ("" for none) and the message of the error body.
type requestError struct {
	code       int
	field, msg string
}

// write writes e as the error response.
func (e *requestError) write(w http.ResponseWriter) { writeError(w, e.code, e.field, e.msg) }

// checkSelect checks what a select request says on its own, before the
// store is read: the prompt's slug, the signals against the server's
// declared set, the request id's length, and versions given without
// branches.
func (s *Server) checkSelect(req *SelectRequest) *requestError {
	if req.Prompt == "" {
		return &requestError{http.StatusBadRequest, "prompt", "prompt (a slug) is required"}
	}
	if err := prompt.ValidateSlug(req.Prompt); err != nil {
		return &requestError{http.StatusBadRequest, "prompt", err.Error()}
	}
	if err := online.CheckSignals(s.cfg.Signals, req.Signals); err != nil {
		var se *online.SignalError
		field := "signals"
		if errors.As(err, &se) {
			field = "signals." + se.Name
		}
		return &requestError{http.StatusBadRequest, field, err.Error()}
	}
	if len(req.RequestID) > 200 {
		return &requestError{http.StatusBadRequest, "request_id", fmt.Sprintf("request_id longer than 200 bytes (%d)", len(req.RequestID))}
	}
	if len(req.Versions) > 0 && (req.Branch != "" || len(req.Branches) > 0) {
		return &requestError{http.StatusBadRequest, "versions", "give versions or branches, not both"}
	}
	return nil
}

// selectCand is one candidate of a selection: a version and its branch.
type selectCand struct {
	ref    prompt.Ref
	branch string
}

// selectCandidates returns the candidates req names in g, in order and
// without repeats: its versions, else the heads of its branches (all the
// prompt's branches if it names none). A version rolled back
// automatically is left out and returned in excluded. Errors: 404 for a
// prompt, version or branch g does not hold, 409 when every candidate
// was rolled back.
func selectCandidates(g *store.Graph, req *SelectRequest) (cands []selectCand, excluded []string, _ *requestError) {
	all := g.Branches(req.Prompt)
	if len(all) == 0 {
		return nil, nil, &requestError{http.StatusNotFound, "prompt", fmt.Sprintf("no prompt %q in the store", req.Prompt)}
	}
	add := func(ver prompt.Version, branch string) {
		if _, ex := g.AutoRolledBack(req.Prompt, ver); ex {
			excluded = append(excluded, ver.String())
			return
		}
		if !slices.ContainsFunc(cands, func(c selectCand) bool { return c.ref.Version == ver }) {
			cands = append(cands, selectCand{prompt.Ref{Slug: req.Prompt, Version: ver}, branch})
		}
	}
	if len(req.Versions) > 0 {
		for i, vs := range req.Versions {
			ver, err := prompt.ParseVersion(vs)
			if err != nil {
				return nil, nil, &requestError{http.StatusBadRequest, fmt.Sprintf("versions[%d]", i), err.Error()}
			}
			vi, ok := g.Find(req.Prompt, ver)
			if !ok {
				return nil, nil, &requestError{http.StatusNotFound, fmt.Sprintf("versions[%d]", i), fmt.Sprintf("no version %s of %s", ver, req.Prompt)}
			}
			add(ver, vi.Branch)
		}
	} else {
		branches := req.Branches
		if req.Branch != "" {
			branches = append(slices.Clone(branches), req.Branch)
		}
		if len(branches) == 0 {
			branches = all
		}
		for i, b := range branches {
			head, ok := g.Head(req.Prompt, b)
			if !ok {
				field := fmt.Sprintf("branches[%d]", i)
				if req.Branch == b {
					field = "branch"
				}
				return nil, nil, &requestError{http.StatusNotFound, field, fmt.Sprintf("no branch %q of %s (branches: %s)", b, req.Prompt, strings.Join(all, ", "))}
			}
			add(head, b)
		}
	}
	if len(cands) == 0 {
		return nil, nil, &requestError{http.StatusConflict, "versions", fmt.Sprintf("every candidate of %s was rolled back automatically (%s); promote one by hand (evolve prompt promote)", req.Prompt, strings.Join(excluded, ", "))}
	}
	return cands, excluded, nil
}

// ObserveRequest is the body of POST /v1/observe.
type ObserveRequest struct {
	Prompt      string   `json:"prompt"`      // the slug (required)
	Version     string   `json:"version"`     // "vX.Y.Z" (required)
	Sentiment   *float64 `json:"sentiment"`   // in [0, 1] (required)
	Corrections *int     `json:"corrections"` // >= 0; default 0
	Success     string   `json:"success"`     // success, partial, failure or unknown (default)
	RequestID   string   `json:"request_id"`  // the interaction's id, logged; at most 200 bytes
}

// ObserveResponse is the answer of POST /v1/observe, sent once the
// observation is durable.
type ObserveResponse struct {
	Prompt  string       `json:"prompt"`
	Version string       `json:"version"`
	Seq     int64        `json:"seq"`    // the event's position in the store's observation log
	Score   float64      `json:"score"`  // the observation score
	Weight  float64      `json:"weight"` // the version's weight after it
	Alarm   *store.Alarm `json:"alarm"`  // set if it made the version's detector alarm (and roll back)
}

func (s *Server) handleObserve(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) {
		return
	}
	var req ObserveRequest
	if !s.decode(w, r, &req) {
		return
	}
	bad := func(field, format string, args ...any) {
		writeError(w, http.StatusBadRequest, field, fmt.Sprintf(format, args...))
	}
	if req.Prompt == "" {
		bad("prompt", "prompt (a slug) is required")
		return
	}
	if err := prompt.ValidateSlug(req.Prompt); err != nil {
		bad("prompt", "%v", err)
		return
	}
	if req.Version == "" {
		bad("version", "version (vX.Y.Z) is required")
		return
	}
	ver, err := prompt.ParseVersion(req.Version)
	if err != nil {
		bad("version", "%v", err)
		return
	}
	o := online.Observation{}
	switch {
	case req.Sentiment == nil:
		bad("sentiment", "sentiment (a number in [0, 1]) is required")
		return
	case !(*req.Sentiment >= 0 && *req.Sentiment <= 1):
		bad("sentiment", "sentiment must be in [0, 1]: %v", *req.Sentiment)
		return
	}
	o.Sentiment = *req.Sentiment
	if req.Corrections != nil {
		if *req.Corrections < 0 {
			bad("corrections", "corrections must be >= 0: %d", *req.Corrections)
			return
		}
		o.Corrections = *req.Corrections
	}
	if err := o.Success.UnmarshalText([]byte(req.Success)); err != nil {
		bad("success", "%v", err)
		return
	}
	if len(req.RequestID) > 200 {
		bad("request_id", "request_id longer than 200 bytes (%d)", len(req.RequestID))
		return
	}
	v, err := s.view()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "", "reading the store: "+err.Error())
		return
	}
	if _, ok := v.graph.Find(req.Prompt, ver); !ok {
		field := "version"
		if len(v.graph.Branches(req.Prompt)) == 0 {
			field = "prompt"
		}
		writeError(w, http.StatusNotFound, field, fmt.Sprintf("no version %s of prompt %q in the store", ver, req.Prompt))
		return
	}
	var claimed *idemEntry
	if s.idem != nil && req.RequestID != "" {
		fp := fingerprint(req.Prompt, ver, o)
		for claimed == nil {
			e, first := s.idem.claim(req.RequestID, fp)
			if first {
				claimed = e
				break
			}
			if e.fp != fp {
				writeError(w, http.StatusConflict, "request_id", fmt.Sprintf("request_id %q was already used for another observation (%s); a retry must repeat it exactly", req.RequestID, e.fp))
				return
			}
			select {
			case <-e.done:
			case <-r.Context().Done():
				return
			}
			if e.ok {
				s.metrics.replayed()
				w.Header().Set("Idempotent-Replayed", "true")
				format.WriteJSON(w, http.StatusOK, e.resp)
				return
			}
			// The first attempt failed and recorded nothing: claim again.
		}
	}
	resp, code, msg := s.record(store.Observed{Slug: req.Prompt, Version: ver, RequestID: req.RequestID, Observation: o, Time: s.cfg.Now()})
	if claimed != nil {
		if code == http.StatusOK {
			s.idem.finish(claimed, resp)
		} else {
			s.idem.release(req.RequestID, claimed)
		}
	}
	if code != http.StatusOK {
		writeError(w, code, "", msg)
		return
	}
	format.WriteJSON(w, http.StatusOK, resp)
}

// record queues obs for the committer and waits until it is durable. It
// returns the answer and 200, or the status and message of the failure
// (503 while shutting down, 500 for a store failure), nothing recorded.
func (s *Server) record(obs store.Observed) (ObserveResponse, int, string) {
	j := &job{obs: obs, res: make(chan jobResult, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ObserveResponse{}, http.StatusServiceUnavailable, "shutting down: observation not recorded"
	}
	s.queue <- j
	s.mu.RUnlock()
	res := <-j.res
	if res.err != nil {
		return ObserveResponse{}, http.StatusInternalServerError, "recording the observation: " + res.err.Error()
	}
	return ObserveResponse{Prompt: obs.Slug, Version: obs.Version.String(), Seq: res.out.Seq, Score: res.out.Score, Weight: res.out.Weight, Alarm: res.out.Alarm}, http.StatusOK, ""
}

// WeightsResponse is the answer of GET /v1/weights.
type WeightsResponse struct {
	Events   int64           `json:"events"` // events in the observation log
	Alpha    float64         `json:"alpha"`
	Versions []VersionWeight `json:"versions"` // by slug, then in the order written
}

// VersionWeight is one version's state in WeightsResponse.
type VersionWeight struct {
	Prompt       string       `json:"prompt"`
	Version      string       `json:"version"`
	Branch       string       `json:"branch"`
	Head         bool         `json:"head"`         // HEAD of its branch
	Weight       float64      `json:"weight"`       // EMA edge weight (0.5 if never observed)
	Observations int          `json:"observations"` // observations recorded
	MeanScore    *float64     `json:"mean_score"`   // their mean score; null without
	Excluded     bool         `json:"excluded"`     // rolled back automatically, not selected until promoted
	Alarm        *store.Alarm `json:"alarm"`        // the last detector alarm
}

func (s *Server) handleWeights(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) {
		return
	}
	slug := r.URL.Query().Get("prompt")
	if slug != "" {
		if err := prompt.ValidateSlug(slug); err != nil {
			writeError(w, http.StatusBadRequest, "prompt", err.Error())
			return
		}
	}
	v, err := s.view()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "", "reading the store: "+err.Error())
		return
	}
	if slug != "" && len(v.graph.Branches(slug)) == 0 {
		writeError(w, http.StatusNotFound, "prompt", fmt.Sprintf("no prompt %q in the store", slug))
		return
	}
	resp := WeightsResponse{Events: v.weights.Events, Alpha: v.weights.Config.Alpha, Versions: WeightsOf(v.graph, v.weights, slug)}
	format.WriteJSON(w, http.StatusOK, resp)
}

// WeightsOf lists the versions of slug ("" for every slug) with their
// weights, by slug, then in the order written.
func WeightsOf(g *store.Graph, ws *store.Weights, slug string) []VersionWeight {
	out := []VersionWeight{}
	slugs := g.Slugs()
	if slug != "" {
		slugs = []string{slug}
	}
	for _, sl := range slugs {
		for _, vi := range g.VersionsOf(sl, "") {
			head, _ := g.Head(sl, vi.Branch)
			_, ex := g.AutoRolledBack(sl, vi.Version)
			vw := VersionWeight{Prompt: sl, Version: vi.Version.String(), Branch: vi.Branch, Head: head == vi.Version,
				Weight: ws.Weight(sl, vi.Version), Excluded: ex}
			if st := ws.Of(sl, vi.Version); st != nil {
				vw.Observations, vw.Alarm = st.Observations, st.Alarm
				if st.Observations > 0 {
					m := st.MeanScore()
					vw.MeanScore = &m
				}
			}
			out = append(out, vw)
		}
	}
	return out
}
