package serve

import (
	"bytes"
	"encoding/json"
	"evolve/store"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/internal/testwait"
	"evolve/online"
	"evolve/prompt"
)

// testStore is a store with prompt "agent": main v1.0.0 -> v1.0.1 (HEAD)
// and branch "coding" (v1.0.2, HEAD) whose metadata has context weights
// favouring task_coding.
func testStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.OpenStore(filepath.Join(t.TempDir(), "prompts"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return t0 }
	root := prompt.Base()
	root.Slug = "agent"
	if _, err := s.Append(root, "edit", "root"); err != nil {
		t.Fatal(err)
	}
	p, err := s.LoadRef(prompt.Ref{Slug: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	p.Metadata = prompt.Metadata{"note": "second"}
	if _, err := s.Append(p, "edit", "second"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Branch(prompt.Ref{Slug: "agent"}, "coding"); err != nil {
		t.Fatal(err)
	}
	p, err = s.LoadRef(prompt.Ref{Slug: "agent", Branch: "coding"})
	if err != nil {
		t.Fatal(err)
	}
	p.Metadata = prompt.Metadata{"context_weights": map[string]any{"task_coding": 1.0, "user_frustrated": -0.5}}
	if _, err := s.Append(p, "edit", "coding weights"); err != nil {
		t.Fatal(err)
	}
	return s
}

// testToken is a bearer token CheckToken accepts.
const testToken = "sesame-open-up-now"

// start serves s on loopback with cfg's defaults filled.
func start(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Weights == (store.WeightsConfig{}) {
		cfg.Weights = store.DefaultWeightsConfig()
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts
}

// call sends a request and decodes the JSON answer into out (if not
// nil); it returns the status and the raw body.
func call(t *testing.T, ts *httptest.Server, method, path, token, body string, out any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, data)
		}
	}
	return resp.StatusCode, string(data)
}

func TestSelect(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s, Epsilon: 0.2, Seed: 1})
	var r SelectResponse
	code, body := call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"task_coding": 1}, "request_id": "7"}`, &r)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	// main's HEAD has no context weights: score 0.5. coding's: 0.5*0.5 +
	// 0.5*(1/1.5) = 0.5833. Request 7 of seed 1 exploits.
	if len(r.Candidates) != 2 || r.Candidates[0].Version != "v1.0.1" || r.Candidates[1].Version != "v1.0.3" ||
		r.Candidates[0].Score != 0.5 || math.Abs(r.Candidates[1].Score-(0.25+0.5/1.5)) > 1e-12 || !r.Candidates[1].Context {
		t.Fatalf("candidates %+v", r.Candidates)
	}
	if r.Explored || r.Version != "v1.0.3" || r.Branch != "coding" || r.Ref != "agent@v1.0.3" || r.Request != 7 {
		t.Errorf("choice %+v", r)
	}
	if !strings.Contains(r.Text, "<task>") || r.Tokens <= 0 || r.RenderError != "" {
		t.Errorf("text %q tokens %d render error %q", r.Text, r.Tokens, r.RenderError)
	}
	// The same request id gives the same choice; a branch restricts.
	var r2 SelectResponse
	call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"task_coding": 1}, "request_id": "7"}`, &r2)
	if r2.Version != r.Version || r2.Explored != r.Explored {
		t.Errorf("request 7 again: %+v", r2)
	}
	call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "branch": "main"}`, &r2)
	if len(r2.Candidates) != 1 || r2.Version != "v1.0.1" {
		t.Errorf("branch main: %+v", r2)
	}
	call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "versions": ["v1.0.0", "v1.0.3"], "request_id": "abc"}`, &r2)
	if len(r2.Candidates) != 2 || r2.Candidates[0].Version != "v1.0.0" || r2.RequestID != "abc" {
		t.Errorf("versions: %+v", r2)
	}
}

// TestSelectShares: over 2,000 requests at epsilon 0.5 with equal
// weights and no signals, the first candidate (the tie's winner) gets
// 1 - 0.5 + 0.25 = 75% of them, within the binomial 99.9% interval.
func TestSelectShares(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s, Epsilon: 0.5, Seed: 3})
	first := 0
	const n = 2000
	for i := range n {
		var r SelectResponse
		call(t, ts, "POST", "/v1/select", "", fmt.Sprintf(`{"prompt": "agent", "request_id": "%d"}`, i), &r)
		if r.Version == "v1.0.1" {
			first++
		}
	}
	if half := 3.29 * math.Sqrt(n*0.75*0.25); math.Abs(float64(first)-0.75*n) > half {
		t.Errorf("first candidate chosen %d of %d times, want 1500 +- %.0f", first, n, half)
	}
}

func TestObserveAndWeights(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s, Epsilon: 0.2, Seed: 1})
	var o ObserveResponse
	code, body := call(t, ts, "POST", "/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 0.8, "corrections": 3, "success": "partial", "request_id": "q1"}`, &o)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	// score 0.4 + 0.21 + 0.1 = 0.71; weight 0.9*0.5 + 0.1*0.71 = 0.521
	if math.Abs(o.Score-0.71) > 1e-12 || math.Abs(o.Weight-0.521) > 1e-12 || o.Seq != 2 || o.Alarm != nil {
		t.Errorf("observe: %+v", o)
	}
	var wr WeightsResponse
	call(t, ts, "GET", "/v1/weights?prompt=agent", "", "", &wr)
	if wr.Events != 2 || len(wr.Versions) != 4 || wr.Versions[1].Version != "v1.0.1" || wr.Versions[1].Weight != o.Weight ||
		wr.Versions[1].Observations != 1 || !wr.Versions[1].Head || wr.Versions[0].Weight != 0.5 || wr.Versions[0].MeanScore != nil {
		t.Errorf("weights %+v", wr)
	}
	// A select now sees the new weight.
	var r SelectResponse
	call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "branch": "main"}`, &r)
	if r.Candidates[0].Weight != o.Weight {
		t.Errorf("select sees weight %v, want %v", r.Candidates[0].Weight, o.Weight)
	}
}

func TestBadInput(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s, Epsilon: 0.2, Seed: 1, Token: testToken, PublicRead: true, MaxBody: 1024})
	big := `{"prompt": "agent", "request_id": "` + strings.Repeat("x", 2000) + `"}`
	tests := []struct {
		name, method, path, token, body string
		code                            int
		field, msg                      string
	}{
		{"unknown field", "POST", "/v1/select", "", `{"prompt": "agent", "sigs": {}}`, 400, "sigs", `unknown field`},
		{"wrong type", "POST", "/v1/select", "", `{"prompt": 3}`, 400, "prompt", "prompt: must be string, got number"},
		{"not JSON", "POST", "/v1/select", "", `{"prompt": `, 400, "prompt", "invalid JSON body"},
		{"empty", "POST", "/v1/select", "", ``, 400, "", "empty body"},
		{"two values", "POST", "/v1/select", "", `{"prompt": "agent"} {}`, 400, "", "data after the JSON object"},
		{"trailing brace", "POST", "/v1/select", "", `{"prompt": "agent"}}`, 400, "", "data after the JSON object"},
		{"trailing bytes", "POST", "/v1/select", "", `{"prompt": "agent"}x`, 400, "", "data after the JSON object"},
		{"duplicate key", "POST", "/v1/select", "", `{"prompt": "../../etc", "prompt": "agent"}`, 400, "prompt", "key given twice"},
		{"duplicate signal", "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"task_coding": 0, "task_coding": 1}}`, 400, "signals.task_coding", "key given twice"},
		{"case-variant key", "POST", "/v1/select", "", `{"Prompt": "agent"}`, 400, "Prompt", `did you mean "prompt"`},
		{"case-variant beside the key", "POST", "/v1/select", "", `{"prompt": "agent", "PROMPT": "../x"}`, 400, "PROMPT", `did you mean "prompt"`},
		{"invalid UTF-8", "POST", "/v1/select", "", "{\"prompt\": \"agent\", \"request_id\": \"a\xffb\"}", 400, "", "not valid UTF-8 (byte 36 is 0xff)"},
		{"null signal", "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"task_coding": null}}`, 400, "signals.task_coding", "null"},
		{"null field", "POST", "/v1/select", "", `{"prompt": "agent", "branch": null}`, 400, "branch", "null"},
		{"not an object", "POST", "/v1/select", "", `["agent"]`, 400, "", "must be a JSON object"},
		{"no prompt", "POST", "/v1/select", "", `{}`, 400, "prompt", "prompt (a slug) is required"},
		{"long select request_id", "POST", "/v1/select", "", `{"prompt": "agent", "request_id": "` + strings.Repeat("r", 201) + `"}`, 400, "request_id", "request_id longer than 200 bytes (201)"},
		{"bad slug", "POST", "/v1/select", "", `{"prompt": "../x"}`, 400, "prompt", "invalid slug"},
		{"unknown prompt", "POST", "/v1/select", "", `{"prompt": "nobody"}`, 404, "prompt", `no prompt "nobody"`},
		{"unknown signal", "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"mood": 1}}`, 400, "signals.mood", `signal "mood" = 1: unknown signal`},
		{"signal out of range", "POST", "/v1/select", "", `{"prompt": "agent", "signals": {"energy_high": 2}}`, 400, "signals.energy_high", "out of range [0, 1]"},
		{"unknown branch", "POST", "/v1/select", "", `{"prompt": "agent", "branch": "nope"}`, 404, "branch", `no branch "nope"`},
		{"bad version", "POST", "/v1/select", "", `{"prompt": "agent", "versions": ["v1.0.1", "1.2"]}`, 400, "versions[1]", "1.2"},
		{"too big", "POST", "/v1/select", "", big, 413, "", "request body over 1024 bytes"},
		{"method", "GET", "/v1/select", "", "", 405, "", "GET /v1/select: want POST"},
		{"no token", "POST", "/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`, 401, "", "Authorization: Bearer"},
		{"wrong token", "POST", "/v1/observe", "open", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`, 401, "", "Authorization: Bearer"},
		{"no sentiment", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1"}`, 400, "sentiment", "sentiment (a number in [0, 1]) is required"},
		{"sentiment range", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1.5}`, 400, "sentiment", "sentiment must be in [0, 1]: 1.5"},
		{"corrections", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1, "corrections": -2}`, 400, "corrections", "corrections must be >= 0: -2"},
		{"corrections type", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1, "corrections": 1.5}`, 400, "corrections", "corrections: must be int"},
		{"success", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1, "success": "yes"}`, 400, "success", `"yes"`},
		{"no version", "POST", "/v1/observe", testToken, `{"prompt": "agent", "sentiment": 1}`, 400, "version", "version (vX.Y.Z) is required"},
		{"unknown version", "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v7.0.0", "sentiment": 1}`, 404, "version", "no version v7.0.0"},
		{"weights slug", "GET", "/v1/weights?prompt=NO", "", "", 400, "prompt", "invalid slug"},
		{"no endpoint", "GET", "/v2/x", testToken, "", 404, "", "no such endpoint: /v2/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(t, ts, tt.method, tt.path, tt.token, tt.body, nil)
			var e apiError
			json.Unmarshal([]byte(body), &e)
			if code != tt.code || e.Field != tt.field || !strings.Contains(e.Error, tt.msg) {
				t.Errorf("%d %s; want %d, field %q, error containing %q", code, body, tt.code, tt.field, tt.msg)
			}
		})
	}
	// With the token, the observation is recorded; selects need none
	// (PublicRead).
	if code, body := call(t, ts, "POST", "/v1/observe", testToken, `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`, nil); code != 200 {
		t.Errorf("with the token: %d %s", code, body)
	}
}

// TestConcurrentObservers: 40 clients send 25 observations each at once;
// every one is recorded (no lost update), the log replays to the
// stored weights, and the metrics count them.
func TestConcurrentObservers(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s, Epsilon: 0.2, Seed: 1, MaxBatch: 16})
	var wg sync.WaitGroup
	fails := make(chan string, 1000)
	for c := range 40 {
		wg.Go(func() {
			for i := range 25 {
				body := fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.%d", "sentiment": %g, "corrections": %d, "success": "success", "request_id": "c%d-%d"}`, (c+i)%4, float64(i)/25, c%5, c, i)
				resp, err := ts.Client().Post(ts.URL+"/v1/observe", "application/json", strings.NewReader(body))
				if err != nil {
					fails <- err.Error()
					return
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					fails <- string(data)
				}
			}
		})
	}
	wg.Wait()
	close(fails)
	for f := range fails {
		t.Fatal(f)
	}
	stored, err := s.Weights()
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := s.ReplayWeights()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, replayed) {
		t.Fatal("weights differ from the replay of the log")
	}
	total := 0
	for _, vw := range stored.Versions {
		total += vw.Observations
	}
	if total != 1000 {
		t.Errorf("%d observations recorded, want 1000", total)
	}
	_, metrics := call(t, ts, "GET", "/metrics", "", "", nil)
	for _, want := range []string{
		`evolve_http_requests_total{path="/v1/observe",code="200"} 1000`,
		"evolve_observations_total 1000",
		`evolve_http_request_duration_seconds_count{path="/v1/observe"} 1000`,
		`evolve_http_request_duration_seconds_bucket{path="/v1/observe",le="+Inf"} 1000`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
}

// TestAutoRollbackServed: a HEAD whose observations drop is rolled back
// by the detector; the alarm comes back in the observe answer, and the
// version is no longer selected.
func TestAutoRollbackServed(t *testing.T) {
	s := testStore(t)
	cfg := store.WeightsConfig{Alpha: 0.1, Rule: online.RollbackRule{Baseline: 4, Window: 2, K: 2, MinSigma: 0.05}}
	_, ts := start(t, Config{Store: s, Weights: cfg, Epsilon: 0, Seed: 1})
	send := func(sentiment float64) ObserveResponse {
		var o ObserveResponse
		code, body := call(t, ts, "POST", "/v1/observe", "", fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.3", "sentiment": %g, "success": "success"}`, sentiment), &o)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		return o
	}
	for range 4 {
		send(1)
	}
	send(0)
	o := send(0)
	if o.Alarm == nil || o.Alarm.RolledBackTo == nil || o.Alarm.RolledBackTo.String() != "v1.0.2" {
		t.Fatalf("no rollback: %+v", o)
	}
	var r SelectResponse
	call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "versions": ["v1.0.3", "v1.0.2"]}`, &r)
	if len(r.Candidates) != 1 || r.Version != "v1.0.2" || len(r.Excluded) != 1 || r.Excluded[0] != "v1.0.3" {
		t.Errorf("after the rollback: %+v", r)
	}
	code, body := call(t, ts, "POST", "/v1/select", "", `{"prompt": "agent", "versions": ["v1.0.3"]}`, nil)
	if code != 409 || !strings.Contains(body, "evolve prompt promote") {
		t.Errorf("only the rolled-back version: %d %s", code, body)
	}
	var wr WeightsResponse
	call(t, ts, "GET", "/v1/weights?prompt=agent", "", "", &wr)
	if v := wr.Versions[3]; !v.Excluded || v.Alarm == nil || v.Head {
		t.Errorf("weights of v1.0.3: %+v", v)
	}
	_, metrics := call(t, ts, "GET", "/metrics", "", "", nil)
	if !strings.Contains(metrics, "evolve_rollbacks_total 1") {
		t.Errorf("metrics:\n%s", metrics)
	}
}

// TestCloseFlushes: observations in flight when the server shuts down
// are all written before Close returns, and each answered one is in the
// log.
func TestCloseFlushes(t *testing.T) {
	s := testStore(t)
	srv, err := New(Config{Store: s, Weights: store.DefaultWeightsConfig(), Epsilon: 0.2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for c := range 20 {
		wg.Go(func() {
			for i := range 10 {
				body := fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.1", "sentiment": 0.5, "request_id": "c%d-%d"}`, c, i)
				resp, err := http.Post(ts.URL+"/v1/observe", "application/json", bytes.NewBufferString(body))
				if err != nil {
					return // the listener closed
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		})
	}
	// Shut down once an observation has been answered, while the others
	// are still coming.
	testwait.For(t, 10*time.Second, "a first observation answered 200", func() bool { mu.Lock(); defer mu.Unlock(); return ok > 0 })
	ts.Close() // waits for the handlers in flight
	srv.Close()
	wg.Wait()
	w, err := s.ReplayWeights()
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	if vw := w.Of("agent", prompt.MustParseVersion("v1.0.1")); vw != nil {
		got = vw.Observations
	}
	// Nothing answered 200 is lost. A client may also lose the response
	// of an observation written just as the test server closed its
	// connection, so the log may hold more than the 200s.
	if got < ok || ok == 0 {
		t.Errorf("%d observations answered 200, %d in the log", ok, got)
	}
	// After Close, an observation is refused with 503.
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, jsonRequest("/v1/observe", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`))
	if rec.Code != 503 {
		t.Errorf("after Close: %d %s", rec.Code, rec.Body)
	}
}

// jsonRequest is a POST of body to path as a client on loopback sends
// it (httptest.NewRequest's Host, example.com, is not one the server
// answers to).
func jsonRequest(path, body string) *http.Request {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	return req
}

// FuzzSelectBody: no body makes /v1/select fail with a server error or
// panic: it is answered 200 or with a client error naming the problem.
func FuzzSelectBody(f *testing.F) {
	s, err := store.OpenStore(filepath.Join(f.TempDir(), "prompts"))
	if err != nil {
		f.Fatal(err)
	}
	root := prompt.Base()
	root.Slug = "agent"
	if _, err := s.Append(root, "edit", "root"); err != nil {
		f.Fatal(err)
	}
	srv, err := New(Config{Store: s, Weights: store.DefaultWeightsConfig(), Epsilon: 0.2, Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	for _, b := range []string{`{"prompt": "agent"}`, `{"prompt": "agent", "signals": {"task_coding": 1}, "request_id": "9"}`,
		`{"prompt": "agent", "versions": ["v1.0.0"]}`, `{"prompt": "agent", "branches": ["main", "x"]}`, `[]`, `{"signals": null}`} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, jsonRequest("/v1/select", body))
		var e apiError
		switch {
		case rec.Code == 200:
		case rec.Code >= 400 && rec.Code < 500 && json.Unmarshal(rec.Body.Bytes(), &e) == nil && e.Error != "":
		default:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	})
}
