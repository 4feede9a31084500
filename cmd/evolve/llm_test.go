package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/agent"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/results"
)

// The LLM path end to end against a real OpenAI-compatible server on
// loopback: a rule-based model waits unless the system prompt holds the
// injury rule, when it explores. The run accepts the text mutation that
// adds that rule (prompt diff shows the
// line), and a second run of the same config makes 0 requests and writes
// byte-identical Parquet.
func TestLLMRun(t *testing.T) {
	if testing.Short() {
		t.Skip("plays some 20,000 model turns")
	}
	// A cautious model: it only waits, unless the system prompt holds the
	// rule the failures call for (injury's first), when it explores.
	rule := agent.DungeonRules["injury"][0]
	srv := llmtest.New(func(msgs []llm.Message) string {
		if strings.Contains(msgs[0].Content, rule) {
			return "The rules tell me how to stay safe, so I can explore.\nACTION: explore"
		}
		return "ACTION: wait"
	})
	defer srv.Close()
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds")
	if code, _, stderr := evolve(t, "seeds", "new", "--train", "20", "--val", "40", "--test", "40", "--seed", "5", seeds); code != exitOK {
		t.Fatalf("seeds: %d %s", code, stderr)
	}
	cfg := filepath.Join(dir, "llm.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: llm
seeds: seeds
max_generations: 2
mutation: {candidates: 2}
agent:
  kind: llm
  llm: {base_url: %q, model: rule-bot, max_tokens: 32, concurrency: 16}
  cache_dir: cache
  max_turns: 300
`, srv.URL)), 0o644)
	os.MkdirAll(filepath.Join(dir, "cache"), 0o755)
	os.Rename(filepath.Join(dir, "cache"), filepath.Join(dir, "cache"))
	out := t.TempDir()
	t.Chdir(dir) // cache_dir is relative to the working directory
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	first := srv.Requests()
	if first == 0 {
		t.Fatal("the run made no requests")
	}
	run := runDir(t, out)
	if !strings.Contains(stdout, "Added rule for injury") {
		cands, _ := results.ReadCandidates(filepath.Join(run, "candidates.parquet"))
		for _, c := range cands {
			t.Logf("candidate %s %q: val mean %.1f, p %.3g", c.Version, c.Mutation, c.Mean, c.P)
		}
		t.Fatalf("no text mutation accepted:\n%s", stdout)
	}
	gens, _, err := results.ReadGenerations(filepath.Join(run, "generations.parquet"))
	if err != nil || len(gens) == 0 || gens[0].Accepted == "" {
		t.Fatalf("generation 0 accepted nothing: %v %+v", err, gens)
	}
	m := []string{"", gens[0].Accepted}
	code, diff, stderr := evolve(t, "prompt", "diff", "--store", filepath.Join(run, "prompts"), "v1.0.0", m[1])
	if code != exitOK || !strings.Contains(diff, "+ "+rule) && !strings.Contains(diff, "+"+rule) {
		t.Errorf("prompt diff does not show the added rule (exit %d):\n%s\n%s", code, diff, stderr)
	}
	if md, err := os.ReadFile(filepath.Join(run, "report.md")); err != nil || !strings.Contains(string(md), "## Model usage") || !strings.Contains(string(md), "| prompt tokens |") {
		t.Errorf("report.md has no model usage table (%v)", err)
	}
	// The checkpoint keeps agent.cache_dir (the resolved config leaves
	// it out), so a resume without --config replays from the same cache.
	if ck, err := os.ReadFile(filepath.Join(run, "checkpoint.json")); err != nil || !strings.Contains(string(ck), `"llm_cache_dir": "cache"`) && !strings.Contains(string(ck), `"llm_cache_dir":"cache"`) {
		t.Errorf("checkpoint.json does not record the response cache's directory (%v):\n%s", err, ck)
	}
	out2 := t.TempDir()
	if code, _, stderr := evolve(t, "run", "--config", cfg, "--out", out2, "--quiet"); code != exitOK {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	if n := srv.Requests(); n != first {
		t.Errorf("the second run made %d requests, want 0 (all from the response cache)", n-first)
	}
	for _, f := range []string{"episodes.parquet", "candidates.parquet", "generations.parquet"} {
		a, _ := os.ReadFile(filepath.Join(run, f))
		b, _ := os.ReadFile(filepath.Join(runDir(t, out2), f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs between the two runs", f)
		}
	}
	// --cache read replays with no request; on an empty cache it fails
	// rather than call the server.
	if code, _, stderr := evolve(t, "run", "--config", cfg, "--out", t.TempDir(), "--quiet", "--cache", "read"); code != exitOK || srv.Requests() != first {
		t.Errorf("--cache read: exit %d, %d requests\n%s", code, srv.Requests()-first, stderr)
	}
	os.RemoveAll(filepath.Join(dir, "cache"))
	if code, _, stderr := evolve(t, "run", "--config", cfg, "--out", t.TempDir(), "--quiet", "--cache", "read"); code == exitOK || !strings.Contains(stderr, "not in the cache") || srv.Requests() != first {
		t.Errorf("--cache read on an empty cache: exit %d, %d requests\n%s", code, srv.Requests()-first, stderr)
	}
	t.Logf("%d requests; %s", first, strings.TrimSpace(stdout))
}
