package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/experiment"
	"evolve/internal/testwait"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/results"
	"evolve/rundir"
)

// nightFaults are the first-attempt faults of TestLLMNight's servers:
// what real models and gateways answer on a bad night.
var nightFaults = []llmtest.Fault{llmtest.ServerError, llmtest.TooMany, llmtest.Truncated, llmtest.HTML,
	llmtest.EmptyContent, llmtest.NullContent, llmtest.CutContent, llmtest.EmptyChoices}

// nightServer is a dungeon model (eat when Hungry or Weak, else
// explore) answering in the four reply styles of llmtest.Styles, whose
// first attempt of 12% of the requests fails with one of nightFaults.
func nightServer(t *testing.T) *llmtest.Server {
	srv := llmtest.New(llmtest.Styles(func(msgs []llm.Message) string {
		last := msgs[len(msgs)-1].Content
		if strings.Contains(last, "Hungry") || strings.Contains(last, "Weak") {
			return "ACTION: eat"
		}
		return "ACTION: explore"
	}))
	srv.FailFirstAttempts(0.12, 21, nightFaults...)
	t.Cleanup(srv.Close)
	return srv
}

// TestLLMNight plays the documented LLM config (docs/llm.md) through a
// bad night: servers that fail the first attempt of 12% of the requests
// (500, 429, truncated JSON, HTML, empty, null, cut, no choices), answer
// in four reply styles, and go down mid-run. The run waits the outage
// out (the progress log says so; the endpoint comes back once it has),
// finishes with no fallback turn, shows the rate in the report; a
// second run is stopped by SIGINT (exit 130, the resume command, the
// session recorded as SIGINT) and resumed against a moved endpoint
// (--base-url) to the same episodes.parquet, with the manifest's llm:
// totals over both sessions.
func TestLLMNight(t *testing.T) {
	if testing.Short() {
		t.Skip("plays some 5,000 model turns and waits out an outage")
	}
	dir := t.TempDir()
	seeds := llmSeeds(t, dir, 6, 12, 6)
	config := func(name, url string) string {
		cfg := filepath.Join(dir, name+".yaml")
		// The config of docs/llm.md, with smaller episodes.
		os.WriteFile(cfg, []byte(fmt.Sprintf(`name: night
seeds: %s
max_generations: 1
mutation: {candidates: 2}
agent:
  kind: llm
  llm:
    base_url: %s
    model: Qwen/Qwen2.5-7B-Instruct
    max_tokens: 64
    concurrency: 16
  cache: readwrite
  cache_dir: %s
  max_turns: 40
  max_tries: 3
  radius: 6
  history: 2
  max_prompt_tokens: 4096
`, seeds, url, filepath.Join(dir, name+"-cache"))), 0o644)
		return cfg
	}

	// 1. Uninterrupted, with an outage mid-run: the endpoint goes down at
	// the 600th request and comes back once the run's progress log says
	// it waits for it (a check every 5 s while it is down).
	a := nightServer(t)
	outA := t.TempDir()
	var stdoutA bytes.Buffer
	stderrA := &syncBuffer{}
	var ended atomic.Bool // the run has returned
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		testwait.Until(10*time.Minute, func() bool { return a.Requests() >= 600 || ended.Load() })
		if ended.Load() {
			return // too few requests for an outage: the checks below fail
		}
		a.Down(llmtest.ServerError)
		testwait.Until(time.Minute, func() bool { return strings.Contains(stderrA.String(), "waiting for the endpoint") })
		a.Down(llmtest.OK)
	}()
	began := time.Now()
	code := run(context.Background(), &stdoutA, stderrA, []string{"run", "--config", config("a", a.URL), "--out", outA, "--quiet"})
	ended.Store(true)
	wg.Wait()
	stdout, stderr := stdoutA.String(), stderrA.String()
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "waiting for the endpoint") {
		t.Errorf("the progress log does not say it waits for the endpoint:\n%s", stderr)
	}
	runA := runDir(t, outA)
	eps, metrics, err := results.ReadEpisodes(filepath.Join(runA, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	for _, e := range eps {
		for i, m := range metrics {
			sum[m.Name] += e.Metrics[i].Num
		}
	}
	st := a.Stats()
	t.Logf("run: %v, %d requests, faults %v; %v model calls, %v fallback turns, %v corrections, %v unusable",
		time.Since(began).Round(time.Second), st.Requests, st.Faults, sum["model_calls"], sum["fallbacks"], sum["corrections"], sum["unusable_replies"])
	if sum["model_calls"] == 0 || sum["fallbacks"] > 0.02*sum["model_calls"] {
		t.Errorf("%v fallback turns of %v model calls, want at most 2%%", sum["fallbacks"], sum["model_calls"])
	}
	if md, err := os.ReadFile(filepath.Join(runA, "report.md")); err != nil || !bytes.Contains(md, []byte("| fallback rate |")) {
		t.Errorf("report.md shows no fallback rate (%v)", err)
	}

	// 2. The same config against a fresh server, stopped by SIGINT.
	b := nightServer(t)
	outB := t.TempDir()
	cfgB := config("b", b.URL)
	p := start(t, "run", "--config", cfgB, "--out", outB, "--quiet")
	if !testwait.Until(10*time.Minute, func() bool { return b.Requests() >= 400 }) {
		p.cmd.Process.Kill()
		t.Fatalf("the second run sent %d requests in 10 min, want 400 before its SIGINT", b.Requests())
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Fatalf("SIGINT: exit %d, want %d\n%s", code, exitInterrupted, p.stderr.String())
	}
	runB := runDir(t, outB)
	if !strings.Contains(p.stderr.String(), "evolve run --resume "+runB) {
		t.Errorf("no resume command after SIGINT:\n%s", p.stderr.String())
	}

	// 3. Resumed against a moved endpoint: the same episodes.
	c := nightServer(t)
	if code, stdout, stderr := evolve(t, "run", "--resume", runB, "--base-url", c.URL, "--quiet"); code != exitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if c.Requests() == 0 {
		t.Error("the resume sent nothing to the new endpoint")
	}
	ea, _ := os.ReadFile(filepath.Join(runA, "episodes.parquet"))
	eb, _ := os.ReadFile(filepath.Join(runB, "episodes.parquet"))
	if len(ea) == 0 || !bytes.Equal(ea, eb) {
		t.Error("episodes.parquet of the interrupted and resumed run differs from the uninterrupted run's")
	}
	var m rundir.RunManifest
	data, err := os.ReadFile(filepath.Join(runB, "manifest.yaml"))
	if err == nil {
		err = yaml.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.LLM != nil && m.LLM.CacheStored > 0 {
		t.Logf("interrupted and resumed run: %d calls, %d requests, %d retries, %d unusable attempts, %d outages, %v in backoff waits; cache %d entries, %d bytes per entry",
			m.LLM.Calls, m.LLM.Requests, m.LLM.Retries, m.LLM.Unusable, m.LLM.Outages, m.LLM.Waited, m.LLM.CacheStored, m.LLM.CacheBytes/m.LLM.CacheStored)
	}
	if len(m.Sessions) != 2 || m.Sessions[0].End != "SIGINT" || m.Sessions[1].End != rundir.SessionFinished {
		t.Errorf("manifest sessions %+v, want SIGINT then finished", m.Sessions)
	}
	if m.LLM == nil || float64(m.LLM.Calls) < sum["model_calls"] || m.LLM.Requests < b.Requests()+c.Requests()-10 {
		t.Errorf("manifest llm: %+v; want the totals of both sessions (%v model calls in the episodes, %d+%d requests)",
			m.LLM, sum["model_calls"], b.Requests(), c.Requests())
	}
}

// A candidate whose system text cannot fit max_prompt_tokens is never
// played: at 400 tokens the base prompt (373) fits and a library rule's
// candidate does not; it is recorded in candidates.parquet with the
// reason, not accepted, and the run finishes. validate refuses a budget
// the base prompt cannot fit.
func TestLLMOverBudget(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: explore"))
	defer srv.Close()
	dir := t.TempDir()
	seeds := llmSeeds(t, dir, 4, 4, 2)
	cfg := func(budget int) string {
		p := filepath.Join(dir, fmt.Sprintf("budget%d.yaml", budget))
		os.WriteFile(p, []byte(fmt.Sprintf(`name: budget
seeds: %s
max_generations: 1
mutation: {candidates: 2}
agent:
  kind: llm
  llm: {base_url: %q, model: budget-bot, max_tokens: 16, concurrency: 4}
  cache: off
  max_turns: 10
  max_prompt_tokens: %d
`, seeds, srv.URL, budget)), 0o644)
		return p
	}
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", cfg(400), "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	cands, err := results.ReadCandidates(filepath.Join(runDir(t, out), "candidates.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	over := 0
	for _, c := range cands {
		if strings.Contains(c.Mutation, "not played: "+experiment.ReasonOverBudget) {
			over++
			if c.Accepted || c.N != 0 {
				t.Errorf("over-budget candidate %q: accepted %v, n %d", c.Mutation, c.Accepted, c.N)
			}
		}
	}
	if over == 0 {
		t.Errorf("no candidate recorded as over the token budget: %+v", cands)
	}
	if code, stdout, _ := evolve(t, "validate", cfg(300)); code == exitOK || !strings.Contains(stdout, "agent.max_prompt_tokens: 300 tokens cannot hold") {
		t.Errorf("validate at 300 tokens: exit %d\n%s", code, stdout)
	}
}

// evolve prompt render --vars prints, byte for byte, the request a run
// sends for that version on that turn (one code path:
// experiment.TurnRequest); and --vars reads JSON as JSON, surrogate
// pairs included.
func TestRenderIsWhatRunSends(t *testing.T) {
	var mu sync.Mutex
	var first []llm.Message // a turn-1 request
	srv := llmtest.New(func(msgs []llm.Message) string {
		mu.Lock()
		if first == nil && len(msgs) == 2 && strings.HasPrefix(msgs[1].Content, "Turn 1.\n") {
			first = msgs
		}
		mu.Unlock()
		return "explore"
	})
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: r
seeds: %s
max_generations: 1
mutation: {candidates: 1}
agent:
  kind: llm
  llm: {base_url: %q, model: m, max_tokens: 8, concurrency: 2}
  cache: off
  max_turns: 3
`, llmSeeds(t, dir, 2, 2, 2), srv.URL)), 0o644)
	out := t.TempDir()
	if code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet"); code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if first == nil {
		t.Fatal("no turn-1 request")
	}
	view := strings.TrimPrefix(first[1].Content, "Turn 1.\n")
	view = view[:strings.LastIndex(view, "\n\nValid actions: ")]
	vars := filepath.Join(dir, "vars.json")
	data, _ := json.Marshal(map[string]any{"turn": 1, "observation": view})
	os.WriteFile(vars, data, 0o644)
	code, stdout, stderr := evolve(t, "prompt", "render", "--json", "--store", filepath.Join(runDir(t, out), "prompts"), "--vars", vars, "v1.0.0")
	if code != exitOK {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	var got struct{ Messages []llm.Message }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0] != first[0] || got.Messages[1] != first[1] {
		t.Errorf("render prints\n%+v\nthe run sent\n%+v", got.Messages, first)
	}

	// Python's json.dumps escapes an emoji as a surrogate pair.
	os.WriteFile(vars, []byte(`{"turn": 2, "observation": "HP:3(12) \ud83d\ude00"}`), 0o644)
	code, stdout, stderr = evolve(t, "prompt", "render", "--vars", vars, "embedded")
	if code != exitOK || !strings.Contains(stdout, "HP:3(12) 😀") {
		t.Errorf("--vars with a surrogate pair: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// An endpoint that stays down past retry_for stops the run with exit 1
// and the resume command (never an error episode, even with
// on_episode_panic: record); a resume with another model is refused,
// and one against the endpoint where it moved (--config with another
// base_url, timeout, retry_for and concurrency) finishes.
func TestLLMEndpointDown(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: explore"))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "down.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: down
seeds: %s
max_generations: 1
mutation: {candidates: 1}
on_episode_panic: record
agent:
  kind: llm
  llm: {base_url: %q, model: m, max_tokens: 8, concurrency: 2, retry_for: 2s}
  cache: off
  max_turns: 3
`, llmSeeds(t, dir, 2, 2, 2), srv.URL)), 0o644)
	srv.Down(llmtest.Unavailable)
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	run := runDir(t, out)
	if code != exitFailure || !strings.Contains(stderr+stdout, "evolve run --resume "+run) || !strings.Contains(stderr+stdout, "retry_for 2s") {
		t.Fatalf("endpoint down: exit %d, want %d with the resume command\n%s\n%s", code, exitFailure, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(run, "episode_errors.jsonl")); err == nil {
		t.Error("the outage was recorded as error episodes")
	}
	// The endpoint moved: a config that differs in how the model is
	// reached resumes; one that differs in the model is refused, naming
	// the key.
	moved := llmtest.New(llmtest.Rules("ACTION: explore"))
	defer moved.Close()
	data, _ := os.ReadFile(cfg)
	edit := func(name, old, new string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
		return p
	}
	other := edit("model.yaml", "model: m,", "model: m2,")
	if code, _, stderr := evolve(t, "run", "--resume", run, "--config", other, "--quiet"); code != exitFailure || !strings.Contains(stderr, "agent.llm.model: m → m2") {
		t.Errorf("resume with another model: exit %d, want a refusal naming agent.llm.model\n%s", code, stderr)
	}
	movedCfg := edit("moved.yaml", fmt.Sprintf("base_url: %q, model: m, max_tokens: 8, concurrency: 2, retry_for: 2s", srv.URL),
		fmt.Sprintf("base_url: %q, model: m, max_tokens: 8, concurrency: 3, retry_for: 5m, timeout: 20s", moved.URL))
	if code, stdout, stderr := evolve(t, "run", "--resume", run, "--config", movedCfg, "--quiet"); code != exitOK || moved.Requests() == 0 {
		t.Fatalf("resume against the moved endpoint: exit %d, %d requests\n%s\n%s", code, moved.Requests(), stdout, stderr)
	}
}

// A model whose replies name no action stops the run at the first phase
// over max_fallback_rate, naming the version, the rate and the most
// common replies; it does not measure the fallback action silently.
func TestLLMFallbackRate(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("I would rather not say."))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "fb.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: fb
seeds: %s
max_generations: 1
mutation: {candidates: 1}
agent:
  kind: llm
  llm: {base_url: %q, model: m, max_tokens: 8, concurrency: 2}
  cache: off
  max_turns: 3
`, llmSeeds(t, dir, 2, 2, 2), srv.URL)), 0o644)
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", t.TempDir(), "--quiet")
	all := stdout + stderr
	for _, want := range []string{"too many fallback turns", "version v1.0.0", "(100.0%)", `"I would rather not say." (18×)`, "agent.max_fallback_rate 0.2", "evolve run --resume"} {
		if !strings.Contains(all, want) {
			t.Errorf("the error lacks %q", want)
		}
	}
	if code != exitFailure || t.Failed() {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailure, all)
	}
}

// A server whose 200 replies are not chat completions is never silent:
// the run's log shows the body (its first 2 KB) once per phase, beside
// the phase's line of replies that named no action.
func TestLLMBodyLogged(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: explore"))
	defer srv.Close()
	srv.FailFraction(llmtest.HTML, 1, 1)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "body.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: body
seeds: %s
max_generations: 1
mutation: {candidates: 1}
agent:
  kind: llm
  llm: {base_url: %q, model: m, max_tokens: 8, concurrency: 2, reply_retries: 0}
  cache: off
  max_turns: 2
  max_tries: 1
  max_fallback_rate: 1
`, llmSeeds(t, dir, 2, 2, 2), srv.URL)), 0o644)
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	bodies := strings.Count(stderr, "model server reply not used")
	phases := strings.Count(stderr, `msg="phase done"`)
	if bodies < 2 || bodies != phases || strings.Count(stderr, "kind=malformed") != bodies ||
		strings.Count(stderr, "<title>502 Bad Gateway</title>") != bodies {
		t.Errorf("%d bodies logged over %d phases, want one malformed body per phase:\n%s", bodies, phases, stderr)
	}
}

// TestLLMEvalBodyLogged: evolve eval, as evolve run, logs the body of each
// kind of unusable reply once per phase (a version on a variant), so that
// a malformed body is seen somewhere.
func TestLLMEvalBodyLogged(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: explore"))
	defer srv.Close()
	srv.FailFraction(llmtest.HTML, 1, 1)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "body.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: body
seeds: %s
agent:
  kind: llm
  llm: {base_url: %q, model: m, max_tokens: 8, concurrency: 2, reply_retries: 0}
  cache: off
  max_turns: 2
  max_tries: 1
  max_fallback_rate: 1
`, llmSeeds(t, dir, 2, 8, 2), srv.URL)), 0o644)
	v2 := writeRulePrompt(t, dir, "Explore first.")
	code, stdout, stderr := evolve(t, "eval", "--config", cfg, "--out", t.TempDir(), "--no-cache", "--split", "val", "embedded", v2)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	bodies := strings.Count(stderr, "model server reply not used")
	if bodies != 2 || strings.Count(stderr, "kind=malformed") != bodies || strings.Count(stderr, "<title>502 Bad Gateway</title>") != bodies {
		t.Errorf("%d bodies logged over 2 phases, want one malformed body per phase:\n%s", bodies, stderr)
	}
}
