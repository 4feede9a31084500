package main

import (
	"bytes"
	"context"
	"encoding/json"
	"evolve/store"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/bandit"
	"evolve/online"
	"evolve/prompt"
)

// syncBuffer is a bytes.Buffer safe for one writer and polling readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveStore writes a store with prompt "agent": v1.0.0 superseded by
// v1.0.1 (HEAD of main).
func serveStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "prompts")
	s, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return time.Unix(1790000000, 0).UTC() }
	root := prompt.Base()
	root.Slug = "agent"
	if _, err := s.Append(root, "edit", "root"); err != nil {
		t.Fatal(err)
	}
	p, err := s.LoadRef(prompt.Ref{Slug: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	p.Metadata = prompt.Metadata{"context_weights": map[string]any{"task_coding": 1.0}}
	if _, err := s.Append(p, "edit", "coding weights"); err != nil {
		t.Fatal(err)
	}
	return dir
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startServe runs evolve serve in-process on a free loopback port and
// returns its URL, its stderr and a function that stops it (as SIGINT
// does: the command's context is cancelled) and returns its exit status.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, &stdout, stderr, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)) }()
	var url string
	for url == "" {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("evolve serve exited %d:\n%s", code, stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	stopped := false
	stop := func() int {
		if stopped {
			return -1
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return url, stderr, stop
}

func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		if !strings.Contains(token, " ") {
			token = "Bearer " + token
		}
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v\n%s", url, err, data)
	}
	return resp.StatusCode, out
}

// TestServe runs the real command on loopback: a select, observations
// with the token, a graceful stop that leaves every answered observation
// in the log, and evolve prompt log showing the weights.
func TestServe(t *testing.T) {
	dir := serveStore(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	const tok = "s3cret-s3cret-s3cret"
	os.WriteFile(tokenFile, []byte(tok+"\n"), 0o600)
	url, stderr, stop := startServe(t, "--store", dir, "--token-file", tokenFile, "--seed", "5")
	if code, _ := post(t, url+"/v1/select", "", `{"prompt": "agent"}`); code != 401 {
		t.Errorf("select without the token: %d, want 401 (it returns prompt texts)", code)
	}
	code, sel := post(t, url+"/v1/select", "bearer "+tok, `{"prompt": "agent", "signals": {"task_coding": 1}, "request_id": "1"}`)
	if code != 200 || sel["ref"] == nil || len(sel["candidates"].([]any)) != 1 {
		t.Fatalf("select: %d %v", code, sel)
	}
	if code, out := post(t, url+"/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`); code != 401 {
		t.Errorf("observe without the token: %d %v", code, out)
	}
	for i := range 5 {
		code, out := post(t, url+"/v1/observe", tok, fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.1", "sentiment": 1, "success": "success", "request_id": "r%d"}`, i))
		if code != 200 {
			t.Fatalf("observe: %d %v", code, out)
		}
	}
	if code := stop(); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "stopped; 6 events in "+filepath.Join(dir, "observations.jsonl")) {
		t.Errorf("stderr:\n%s", stderr)
	}
	code, out, errs := evolve(t, "prompt", "log", "agent", "--store", dir)
	if code != exitOK || !strings.Contains(out, "online: weight 0.7048, 5 observations, mean score 1.0000") {
		t.Errorf("prompt log: %d\n%s%s", code, out, errs)
	}
	// The log now fixes alpha and the rollback rule: a flag that
	// contradicts them is refused before the server starts.
	code, _, errs = evolve(t, "serve", "--store", dir, "--alpha", "0.5", "--rollback-window", "10", "--addr", "127.0.0.1:0")
	if want := "--alpha 0.5 (the store's is 0.1), --rollback-window 10 (the store's is 50): the observation log of " + dir + " fixes alpha"; code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("serve with a contradicting --alpha: exit %d, stderr %q; want %d and %q", code, errs, exitUsage, want)
	}
}

func TestServeUsage(t *testing.T) {
	dir := serveStore(t)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--store", dir, "--addr", "0.0.0.0:0"}, exitUsage, "--addr 0.0.0.0:0 is not a loopback address: give --token-file FILE (or $EVOLVE_SERVE_TOKEN)"},
		{[]string{"--store", dir, "--token", "short"}, exitUsage, "--token: weak bearer token: 5 characters, want at least 16"},
		{[]string{"--store", dir, "--token", "has a space in it somewhere"}, exitUsage, "--token: weak bearer token: white space"},
		{[]string{"--store", dir, "--public-read"}, exitUsage, "--public-read only means something with a token"},
		{[]string{"--store", dir, "--shutdown-timeout", "-1s"}, exitUsage, "--shutdown-timeout must be >= 0, got -1s"},
		{[]string{"--store", dir, "--addr", ":8080"}, exitUsage, "is not a loopback address"},
		{[]string{"--store", dir, "--epsilon", "1.5"}, exitUsage, "--epsilon: epsilon must be in [0, 1]: 1.5"},
		{[]string{"--store", dir, "--alpha", "0"}, exitUsage, "alpha must be in (0, 1]: 0"},
		{[]string{"--store", dir, "--rollback-window", "0"}, exitUsage, "rollback window must be >= 1 score: 0"},
		{[]string{"--store", dir, "--token", "a", "--token-file", "b"}, exitUsage, "give --token or --token-file, not both"},
		{[]string{"--store", filepath.Join(dir, "nothing")}, exitFailure, "no prompt store in"},
		{[]string{"--store", dir, "extra"}, exitUsage, "serve takes no arguments"},
	}
	for _, tt := range tests {
		code, _, stderr := evolve(t, append([]string{"serve"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("evolve serve %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
	if code, out, _ := evolve(t, "serve", "--help"); code != exitOK || !strings.Contains(out, "POST /v1/observe") || !strings.Contains(out, "-rollback-k K") {
		t.Errorf("--help: %d\n%s", code, out)
	}
}

// TestPromptPromote: after an automatic rollback (observations with a
// small rule), prompt log shows the evidence and the alarm, and prompt
// promote brings the version back.
func TestPromptPromote(t *testing.T) {
	dir := serveStore(t)
	url, stderr, stop := startServe(t, "--store", dir, "--rollback-baseline", "4", "--rollback-window", "2", "--rollback-k", "2")
	for _, s := range []float64{1, 1, 0.8, 1, 0, 0} {
		if code, out := post(t, url+"/v1/observe", "", fmt.Sprintf(`{"prompt": "agent", "version": "v1.0.1", "sentiment": %g}`, s)); code != 200 {
			t.Fatalf("%d %v", code, out)
		}
	}
	if code := stop(); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "auto-rollback alarm for agent@v1.0.1") || !strings.Contains(stderr.String(), "HEAD of main rolled back to v1.0.0") {
		t.Errorf("stderr:\n%s", stderr)
	}
	code, out, errs := evolve(t, "prompt", "log", "--all", "agent", "--store", dir)
	for _, want := range []string{
		"rolled back to v1.0.0 automatically: window of 2 mean 0.3000 < baseline (4) mean 0.7750",
		"alarm at observation 6: window mean 0.3000 < ",
		"HEAD rolled back here from v1.0.1 automatically",
	} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("prompt log lacks %q: %d\n%s%s", want, code, out, errs)
		}
	}
	code, out, errs = evolve(t, "prompt", "promote", "agent@v1.0.1", "--store", dir)
	if code != exitOK || out != "agent@main: HEAD v1.0.0 → v1.0.1 (it had been rolled back automatically; online selection offers it again)\n" {
		t.Errorf("promote: %d %q %s", code, out, errs)
	}
	if code, _, errs := evolve(t, "prompt", "promote", "agent@v1.0.1", "--store", dir); code != exitFailure || !strings.Contains(errs, "HEAD of branch main already") {
		t.Errorf("promote HEAD: %d %s", code, errs)
	}
	if code, _, errs := evolve(t, "prompt", "promote", "agent", "--store", dir); code != exitUsage || !strings.Contains(errs, "promote takes a version") {
		t.Errorf("promote a branch: %d %s", code, errs)
	}
}

// TestServeSignalTables: the bandit study's signals are a 400 under the
// design's table, and accepted once the store declares them (the
// study's own signals.yaml copied into it) or --signals names them; a
// broken table stops serve before it listens, naming the file.
func TestServeSignalTables(t *testing.T) {
	dir := serveStore(t)
	body := `{"prompt": "agent", "signals": {"time_pressure": 0.8}}`
	url, _, stop := startServe(t, "--store", dir)
	if code, out := post(t, url+"/v1/select", "", body); code != 400 || out["field"] != "signals.time_pressure" {
		t.Errorf("the design's table: %d %v, want 400 naming signals.time_pressure", code, out)
	}
	stop()

	table := filepath.Join(t.TempDir(), "study-signals.yaml")
	os.WriteFile(table, online.FormatSignals(bandit.Signals()), 0o644)
	url, stderr, stop := startServe(t, "--store", dir, "--signals", table)
	if code, out := post(t, url+"/v1/select", "", body); code != 200 {
		t.Errorf("--signals with the study's table: %d %v", code, out)
	}
	if code, out := post(t, url+"/v1/select", "", `{"prompt": "agent", "signals": {"task_coding": 1}}`); code != 400 {
		t.Errorf("--signals: a design signal the table leaves out: %d %v, want 400", code, out)
	}
	stop()
	if !strings.Contains(stderr.String(), "3 signals from "+table) {
		t.Errorf("stderr does not say where the signals come from:\n%s", stderr)
	}

	os.WriteFile(filepath.Join(dir, online.SignalTableFile), online.FormatSignals(bandit.Signals()), 0o644)
	url, _, stop = startServe(t, "--store", dir)
	if code, out := post(t, url+"/v1/select", "", body); code != 200 {
		t.Errorf("the store's signals.yaml: %d %v", code, out)
	}
	stop()

	os.WriteFile(filepath.Join(dir, online.SignalTableFile), []byte("signals:\n  - {name: Bad}\n"), 0o644)
	code, _, errs := evolve(t, "serve", "--store", dir, "--addr", "127.0.0.1:0")
	if want := filepath.Join(dir, online.SignalTableFile) + `:2: signals[0].name: "Bad"`; code != exitFailure || !strings.Contains(errs, want) {
		t.Errorf("a broken signals.yaml: exit %d, stderr %q; want %d and %q", code, errs, exitFailure, want)
	}
}

// TestServeTokenSources: the token from $EVOLVE_SERVE_TOKEN guards every
// endpoint but /healthz; --token works but warns (it shows in ps);
// --public-read opens the reads only.
func TestServeTokenSources(t *testing.T) {
	dir := serveStore(t)
	const tok = "env-token-0123456789"
	t.Setenv("EVOLVE_SERVE_TOKEN", tok)
	url, stderr, stop := startServe(t, "--store", dir)
	if code, _ := post(t, url+"/v1/select", "", `{"prompt": "agent"}`); code != 401 {
		t.Errorf("select without the token from the environment: %d, want 401", code)
	}
	if code, out := post(t, url+"/v1/select", tok, `{"prompt": "agent"}`); code != 200 {
		t.Errorf("select with it: %d %v", code, out)
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz without a token: %v %v", resp, err)
	}
	stop()
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("a token from the environment warns:\n%s", stderr)
	}

	url, stderr, stop = startServe(t, "--store", dir, "--token", "flag-token-0123456789", "--public-read")
	if code, _ := post(t, url+"/v1/select", "", `{"prompt": "agent"}`); code != 200 {
		t.Errorf("--public-read select without a token: %d, want 200", code)
	}
	if code, _ := post(t, url+"/v1/observe", "", `{"prompt": "agent", "version": "v1.0.1", "sentiment": 1}`); code != 401 {
		t.Errorf("--public-read observe without a token: %d, want 401", code)
	}
	stop()
	if !strings.Contains(stderr.String(), "warning: --token shows in ps") {
		t.Errorf("--token does not warn:\n%s", stderr)
	}
}
