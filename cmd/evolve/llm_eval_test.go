package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evolve/agent"
	"evolve/envs"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
)

// llmSeeds writes a seed set of the given split sizes under dir.
func llmSeeds(t *testing.T, dir string, train, val, test int) string {
	t.Helper()
	seeds := filepath.Join(dir, "seeds")
	if code, _, stderr := evolve(t, "seeds", "new", "--train", fmt.Sprint(train), "--val", fmt.Sprint(val), "--test", fmt.Sprint(test), "--seed", "5", seeds); code != exitOK {
		t.Fatalf("seeds: %d %s", code, stderr)
	}
	return seeds
}

// evolve eval with a language model as the agent, against a real
// OpenAI-compatible server on loopback: the model explores only when the
// system prompt holds injury's first library rule, so the version that
// holds it scores better. A second eval of the same versions replays
// every reply from the response cache (0 requests) and writes
// byte-identical Parquet and JSON; --llm-cache read does too, and fails
// on an empty cache without a request; the outcome cache keys on the
// agent, so a scripted eval never replays the model's outcomes.
func TestLLMEval(t *testing.T) {
	rule := agent.DungeonRules["injury"][0]
	srv := llmtest.New(func(msgs []llm.Message) string {
		if strings.Contains(msgs[0].Content, rule) {
			return "ACTION: explore"
		}
		return "ACTION: wait"
	})
	defer srv.Close()
	dir := t.TempDir()
	seeds := llmSeeds(t, dir, 2, 2, 8)
	cacheDir := filepath.Join(dir, "llm-cache")
	cfg := filepath.Join(dir, "llm.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`name: llm-eval
seeds: %s
agent:
  kind: llm
  llm: {base_url: %q, model: rule-bot, max_tokens: 16, seed: 3, concurrency: 8}
  cache_dir: %s
  max_turns: 40
`, seeds, srv.URL, cacheDir)), 0o644)
	scripted := filepath.Join(dir, "scripted.yaml")
	os.WriteFile(scripted, []byte(fmt.Sprintf("name: llm-eval\nseeds: %s\n", seeds)), 0o644)

	// v2.0.0: the base prompt with the rule.
	v2 := writeRulePrompt(t, dir, rule)

	evalArgs := func(out string, extra ...string) []string {
		return append([]string{"eval", "--config", cfg, "--out", out, "--quiet", "--json", "--no-cache"}, append(extra, "embedded", v2)...)
	}
	out1 := t.TempDir()
	code, json1, stderr := evolve(t, evalArgs(out1)...)
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s\n%s", code, json1, stderr)
	}
	first := srv.Requests()
	if first == 0 {
		t.Fatal("the eval made no request")
	}
	e1 := runDir(t, out1)
	rows, metrics, err := results.ReadEpisodes(filepath.Join(e1, rundir.EpisodesFile))
	if err != nil {
		t.Fatal(err)
	}
	calls := slices.IndexFunc(metrics, func(m envs.Metric) bool { return m.Name == "model_calls" })
	if len(rows) != 16 || calls < 0 {
		t.Fatalf("%d episodes, metrics %v: want 16 with model_calls", len(rows), metrics)
	}
	score := map[string]float64{}
	for _, r := range rows {
		if r.Metrics[calls].Num < 1 {
			t.Errorf("%s seed %d: %v model calls", r.Version, r.Seed, r.Metrics[calls].Num)
		}
		score[r.Version] += r.Score
	}
	if score["v2.0.0"] <= score["v1.0.0"] {
		t.Errorf("the version with the rule scored %v, the base %v: the model did not read the prompt", score["v2.0.0"], score["v1.0.0"])
	}
	man, _ := os.ReadFile(filepath.Join(e1, rundir.ManifestFile))
	if !strings.Contains(string(man), "agent: llm sha256:") || !strings.Contains(string(man), "requests: ") {
		t.Errorf("manifest.yaml has no agent identity or model statistics:\n%s", man)
	}

	// The same eval again: every reply from the response cache.
	out2 := t.TempDir()
	code, json2, stderr := evolve(t, evalArgs(out2)...)
	if code != exitOK || srv.Requests() != first {
		t.Fatalf("second eval: exit %d, %d requests (want 0)\n%s", code, srv.Requests()-first, stderr)
	}
	same := func(what, a, b string) {
		t.Helper()
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between the two evals", what)
		}
	}
	e2 := runDir(t, out2)
	for _, f := range []string{rundir.EpisodesFile, rundir.SummaryFile} {
		same(f, filepath.Join(e1, f), filepath.Join(e2, f))
	}
	if json1 != json2 || !strings.Contains(json1, "v2.0.0") {
		t.Errorf("--json differs between the two evals:\n%s\n%s", json1, json2)
	}
	// --llm-cache read replays; on an empty cache it fails, sending nothing.
	out3 := t.TempDir()
	if code, _, stderr := evolve(t, evalArgs(out3, "--llm-cache", "read")...); code != exitOK || srv.Requests() != first {
		t.Errorf("--llm-cache read: exit %d, %d requests\n%s", code, srv.Requests()-first, stderr)
	} else {
		same(rundir.EpisodesFile, filepath.Join(e1, rundir.EpisodesFile), filepath.Join(runDir(t, out3), rundir.EpisodesFile))
	}
	if code, _, stderr := evolve(t, evalArgs(t.TempDir(), "--llm-cache", "sometimes")...); code != exitUsage || !strings.Contains(stderr, "--llm-cache") {
		t.Errorf("--llm-cache sometimes: exit %d\n%s", code, stderr)
	}

	// The outcome cache keys on the agent: the scripted agent plays its
	// own episodes, the model's are replayed only for the model.
	oc := filepath.Join(dir, "outcomes")
	for _, tc := range []struct {
		config         string
		played, cached int
	}{{cfg, 8, 0}, {scripted, 8, 0}, {cfg, 0, 8}, {scripted, 0, 8}} {
		code, stdout, stderr := evolve(t, "eval", "--config", tc.config, "--out", t.TempDir(), "--quiet", "--cache", oc, "embedded")
		if code != exitOK {
			t.Fatalf("eval --config %s: exit %d\n%s", tc.config, code, stderr)
		}
		if p, c := playedCached(t, stdout); p != tc.played || c != tc.cached {
			t.Errorf("eval --config %s with the outcome cache: %d played, %d cached; want %d, %d", filepath.Base(tc.config), p, c, tc.played, tc.cached)
		}
	}

	os.RemoveAll(cacheDir)
	if code, _, stderr := evolve(t, evalArgs(t.TempDir(), "--llm-cache", "read")...); code == exitOK || !strings.Contains(stderr, "not in the cache") || srv.Requests() != first {
		t.Errorf("--llm-cache read on an empty cache: exit %d, %d requests\n%s", code, srv.Requests()-first, stderr)
	}
	t.Logf("%d requests", first)
}

// writeRulePrompt writes dir/v2.yaml, the base prompt as v2.0.0 with rule
// added to its constraints, and returns its path.
func writeRulePrompt(t *testing.T, dir, rule string) string {
	t.Helper()
	p := prompt.Base().Clone()
	p.RulesConstraints = append(p.RulesConstraints, rule)
	p.Version = prompt.MustParseVersion("v2.0.0")
	data, err := prompt.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	v2 := filepath.Join(dir, "v2.yaml")
	if err := os.WriteFile(v2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return v2
}
