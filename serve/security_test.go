package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"evolve/store"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"evolve/internal/testwait"
)

// TestAuth: with a token, every endpoint but /healthz needs it (select
// returns prompt texts); PublicRead opens the reads only; the scheme is
// matched in any case.
func TestAuth(t *testing.T) {
	s := testStore(t)
	_, closed := start(t, Config{Store: s, Token: testToken})
	_, public := start(t, Config{Store: s, Token: testToken, PublicRead: true})
	_, open := start(t, Config{Store: s})
	reqs := []struct{ method, path, body string }{
		{"POST", "/v1/select", `{"prompt": "agent"}`},
		{"GET", "/v1/weights", ""},
		{"GET", "/metrics", ""},
		{"POST", "/v1/observe", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`},
		{"GET", "/healthz", ""},
	}
	tests := []struct {
		name   string
		ts     func() string
		header string
		want   []int // per reqs
	}{
		{"token, none sent", func() string { return closed.URL }, "", []int{401, 401, 401, 401, 200}},
		{"token, wrong", func() string { return closed.URL }, "Bearer " + testToken + "x", []int{401, 401, 401, 401, 200}},
		{"token, other scheme", func() string { return closed.URL }, "Basic " + testToken, []int{401, 401, 401, 401, 200}},
		{"token, Bearer", func() string { return closed.URL }, "Bearer " + testToken, []int{200, 200, 200, 200, 200}},
		{"token, bearer lower case", func() string { return closed.URL }, "bearer " + testToken, []int{200, 200, 200, 200, 200}},
		{"token, BEARER and two spaces", func() string { return closed.URL }, "BEARER  " + testToken, []int{200, 200, 200, 200, 200}},
		{"public read, none sent", func() string { return public.URL }, "", []int{200, 200, 200, 401, 200}},
		{"no token", func() string { return open.URL }, "", []int{200, 200, 200, 200, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, rq := range reqs {
				req, _ := http.NewRequest(rq.method, tt.ts()+rq.path, strings.NewReader(rq.body))
				if rq.method == "POST" {
					req.Header.Set("Content-Type", "application/json")
				}
				if tt.header != "" {
					req.Header.Set("Authorization", tt.header)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.want[i] {
					t.Errorf("%s %s: %d %s, want %d", rq.method, rq.path, resp.StatusCode, body, tt.want[i])
				}
				if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s %s: 401 without WWW-Authenticate", rq.method, rq.path)
				}
				if rq.path == "/v1/select" && resp.StatusCode == 401 && strings.Contains(string(body), "<task>") {
					t.Errorf("a refused select leaks the prompt text: %s", body)
				}
			}
		})
	}
}

// TestCheckToken: short tokens and tokens with white space are refused,
// by CheckToken and by New, without quoting the token.
func TestCheckToken(t *testing.T) {
	tests := []struct {
		tok  string
		want string // "" for accepted
	}{
		{"sesame", "6 characters, want at least 16"},
		{"fifteen-chars-x", "15 characters"},
		{"sixteen-chars-xx", ""},
		{"0123456789abcdef0123456789abcdef", ""},
		{"sixteen chars xxx", "white space"},
		{"sixteen-chars-xx\n", "white space"},
		{"sixteen-chars-xx\t", "white space"},
		{"sixteen-chars-x\x00x", "control character"},
		{"sixteen-chars-\xffxx", "not valid UTF-8"},
	}
	for _, tt := range tests {
		err := CheckToken(tt.tok)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckToken(%q) = %v, want nil", tt.tok, err)
			}
			continue
		}
		if !errors.Is(err, ErrWeakToken) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.tok) {
			t.Errorf("CheckToken(%q) = %v, want ErrWeakToken containing %q and not the token", tt.tok, err, tt.want)
		}
	}
	if _, err := New(Config{Store: testStore(t), Weights: store.DefaultWeightsConfig(), Token: "sesame"}); !errors.Is(err, ErrWeakToken) {
		t.Errorf("New with a weak token: %v", err)
	}
}

// countObserve returns the observe events of s's log with request id id.
func countObserve(t *testing.T, s *store.Store, id string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(s.Dir(), store.ObservationLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev store.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind == store.EventObserve && ev.RequestID == id {
			n++
		}
	}
	return n
}

// TestIdempotentObserve: a retried observation (same request_id, same
// content) gets the first answer and is logged once, also when the
// retries race and after a restart; the same id with other content is
// 409; a window of 2 forgets the oldest id.
func TestIdempotentObserve(t *testing.T) {
	s := testStore(t)
	srv, ts := start(t, Config{Store: s, IdempotencyWindow: 2})
	obs := func(id string, sentiment float64) (int, ObserveResponse, string) {
		var out ObserveResponse
		code, body := call(t, ts, "POST", "/v1/observe", "", fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.1", "sentiment": %v, "request_id": %q}`, sentiment, id), &out)
		return code, out, body
	}
	code, first, body := obs("a", 0.8)
	if code != 200 {
		t.Fatalf("first: %d %s", code, body)
	}
	code, again, body := obs("a", 0.8)
	if code != 200 || again != first {
		t.Errorf("retry: %d %s, want the first answer %+v", code, body, first)
	}
	if n := countObserve(t, s, "a"); n != 1 {
		t.Errorf("request a logged %d times, want 1", n)
	}
	if code, _, body := obs("a", 0.3); code != 409 || !strings.Contains(body, `"field":"request_id"`) {
		t.Errorf("same id, other sentiment: %d %s, want 409 naming request_id", code, body)
	}

	// Twenty racing retries of one new id: one event, one answer.
	var wg sync.WaitGroup
	answers := make([]ObserveResponse, 20)
	for i := range answers {
		wg.Go(func() {
			var out ObserveResponse
			if code, body := call(t, ts, "POST", "/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 0.5, "request_id": "race"}`, &out); code != 200 {
				t.Errorf("racing retry: %d %s", code, body)
			}
			answers[i] = out
		})
	}
	wg.Wait()
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Errorf("racing retries answered %+v and %+v", answers[0], a)
		}
	}
	if n := countObserve(t, s, "race"); n != 1 {
		t.Errorf("racing request logged %d times, want 1", n)
	}

	// A restart reads the ids back from the log (window 2: "a" and
	// "race" are the latest two).
	ts.Close()
	srv.Close()
	_, ts2 := start(t, Config{Store: s, IdempotencyWindow: 2})
	ts = ts2
	if code, again, body := obs("a", 0.8); code != 200 || again != first {
		t.Errorf("retry after a restart: %d %s, want %+v", code, body, first)
	}
	if n := countObserve(t, s, "a"); n != 1 {
		t.Errorf("after a restart, request a logged %d times, want 1", n)
	}
	// Two more ids push "a" out of the window: it is recorded again.
	obs("b", 0.1)
	obs("c", 0.1)
	if code, _, body := obs("a", 0.8); code != 200 {
		t.Errorf("a out of the window: %d %s", code, body)
	}
	if n := countObserve(t, s, "a"); n != 2 {
		t.Errorf("a out of the window logged %d times, want 2", n)
	}
	// No request id: always recorded.
	for range 2 {
		call(t, ts, "POST", "/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`, nil)
	}
	if n := countObserve(t, s, ""); n != 2 {
		t.Errorf("observations without an id logged %d times, want 2", n)
	}
}

// TestServeTimeouts: a client that stalls its body is cut off by the
// read timeout (408), and a shutdown with stalled clients returns nil
// within its bound instead of waiting for them.
func TestServeTimeouts(t *testing.T) {
	s := testStore(t)
	srv, err := New(Config{Store: s, Weights: store.DefaultWeightsConfig()})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: l}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tm := Timeouts{ReadHeader: time.Second, Read: 300 * time.Millisecond, Write: 5 * time.Second, Idle: time.Second, Shutdown: 200 * time.Millisecond}
	done := make(chan error, 1)
	var log strings.Builder
	var logMu sync.Mutex
	go func() {
		done <- srv.Serve(ctx, ln, tm, writerFunc(func(p []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return log.Write(p) }))
	}()

	stall := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/observe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"prompt\":")
		return c
	}
	c := stall()
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("stalled body: no answer before the connection closed: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("stalled body: %d, want 408", resp.StatusCode)
	}

	// Stalled clients during a shutdown: closed after the bound.
	for range 5 {
		defer stall().Close()
	}
	// Shut down once the server holds the five (and the first).
	testwait.For(t, 10*time.Second, "the server to accept the 6 stalled connections", func() bool { return ln.accepted.Load() >= 6 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after a shutdown = %v, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown with stalled clients did not end")
	}
}

// countingListener counts the connections its listener has accepted.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// FuzzDecodeStrict: whatever DecodeStrict accepts, encoding/json
// decodes to the same value; whatever it refuses is a *FieldError.
func FuzzDecodeStrict(f *testing.F) {
	for _, b := range []string{`{"prompt": "agent", "signals": {"task_coding": 1}}`, `{"prompt": "a", "prompt": "b"}`,
		`{"Prompt": "a"}`, `{"prompt": "a"}x`, "{\"prompt\": \"\xff\"}", `{"signals": {"a": null}}`, `{"versions": ["v1", null]}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req SelectRequest
		err := DecodeStrict(data, &req)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("DecodeStrict(%q) = %v, not a *FieldError", data, err)
			}
			return
		}
		var plain SelectRequest
		if err := json.Unmarshal(data, &plain); err != nil {
			t.Fatalf("DecodeStrict accepted %q, which encoding/json refuses: %v", data, err)
		}
		a, _ := json.Marshal(req)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Fatalf("DecodeStrict(%q) = %s, encoding/json %s", data, a, b)
		}
	})
}

// TestOtherOrigins replays the attacks of a web page on a tokenless
// server on loopback: no-cors text/plain POSTs of observations from
// another origin, and reads and writes through a rebound name (DNS
// rebinding). None reaches the store; the server's own clients still do.
func TestOtherOrigins(t *testing.T) {
	s := testStore(t)
	_, ts := start(t, Config{Store: s})
	self := ts.Listener.Addr().String()
	observe := `{"prompt": "agent", "version": "v1.0.1", "sentiment": 0, "success": "failure"}`
	attacks := []struct {
		name, method, path, host string
		header                   map[string]string
		want                     int
	}{
		{"no-cors text/plain from another loopback port", "POST", "/v1/observe", self,
			map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Origin": "http://127.0.0.1:9999", "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"}, 403},
		{"no-cors text/plain, an old browser", "POST", "/v1/observe", self,
			map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415},
		{"JSON from another site", "POST", "/v1/observe", self,
			map[string]string{"Content-Type": "application/json", "Origin": "http://attacker.example", "Sec-Fetch-Site": "cross-site"}, 403},
		{"rebound name, observe", "POST", "/v1/observe", "attacker.example:" + ts.URL[strings.LastIndex(ts.URL, ":")+1:],
			map[string]string{"Content-Type": "application/json", "Origin": "http://attacker.example", "Sec-Fetch-Site": "same-origin"}, 403},
		{"rebound name, select (prompt texts)", "POST", "/v1/select", "attacker.example",
			map[string]string{"Content-Type": "application/json"}, 403},
		{"rebound name, weights", "GET", "/v1/weights", "attacker.example", nil, 403},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			for range 20 {
				body := observe
				if a.path == "/v1/select" {
					body = `{"prompt": "agent"}`
				}
				req, _ := http.NewRequest(a.method, ts.URL+a.path, strings.NewReader(body))
				req.Host = a.host
				for k, v := range a.header {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != a.want {
					t.Fatalf("%d %s, want %d", resp.StatusCode, data, a.want)
				}
				if strings.Contains(string(data), "<task>") || strings.Contains(string(data), "weight") {
					t.Fatalf("a refused request got the store's content: %s", data)
				}
			}
		})
	}
	w, err := s.Weights()
	if err != nil {
		t.Fatal(err)
	}
	if w.Events != 0 {
		t.Errorf("%d observations recorded from other origins, want 0", w.Events)
	}
	// The server's own page and programs: same-origin and plain clients.
	for _, h := range []map[string]string{
		{"Content-Type": "application/json"},
		{"Content-Type": "application/json", "Origin": "http://" + self, "Sec-Fetch-Site": "same-origin"},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/observe", strings.NewReader(observe))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%v: %d %s, want 200", h, resp.StatusCode, data)
		}
	}
}
