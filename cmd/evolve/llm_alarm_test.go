package main

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evolve/llm"
	"evolve/llm/llmtest"
)

// spottyModel answers "ACTION: explore", except that for about one turn
// in every mod it names no action, and keeps naming none through the
// turn's corrections (the decision hashes the end of the last message,
// which is the turn's observation whether or not a correction precedes
// it): those turns take the fallback action.
func spottyModel(mod uint32) llmtest.Policy {
	return func(msgs []llm.Message) string {
		c := msgs[len(msgs)-1].Content
		if len(c) > 400 {
			c = c[len(c)-400:]
		}
		h := fnv.New32a()
		h.Write([]byte(c))
		if h.Sum32()%mod == 0 {
			return "I would rather think about it some more."
		}
		return "ACTION: explore"
	}
}

// alarmConfig writes a language-model config over a small seed set with
// the given agent keys and top-level keys added, and returns its path.
func alarmConfig(t *testing.T, dir, url, agentKeys, top string) string {
	t.Helper()
	seeds := llmSeeds(t, dir, 4, 4, 4)
	cfg := filepath.Join(dir, "alarm.yaml")
	data := fmt.Sprintf(`name: alarm
seeds: %s
max_generations: 1
mutation: {candidates: 1}
%sagent:
  kind: llm
  llm: {base_url: %q, model: spotty, max_tokens: 16, concurrency: 1}
  cache_dir: %s
  max_turns: 30
%s`, seeds, top, url, filepath.Join(dir, "llm-cache"), agentKeys)
	if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// files counts the regular files under dir (0 if it does not exist).
func files(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// A run stopped by agent.max_fallback_rate stops again when it is
// resumed without --config: the resume keeps the run's own limit, not
// the default 0.2.
func TestLLMResumeKeepsMaxFallbackRate(t *testing.T) {
	srv := llmtest.New(spottyModel(10))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "  max_fallback_rate: 0.02\n", "")
	out := t.TempDir()
	code, _, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitFailure || !strings.Contains(stderr, "too many fallback turns") || !strings.Contains(stderr, "max_fallback_rate 0.02") {
		t.Fatalf("run: exit %d, want %d and the fallback alarm at 0.02\n%s", code, exitFailure, stderr)
	}
	run := runDir(t, out)
	code, _, stderr = evolve(t, "run", "--resume", run, "--quiet")
	if code != exitFailure || !strings.Contains(stderr, "max_fallback_rate 0.02") {
		t.Fatalf("resume: exit %d, want %d: the fallback alarm at the run's max_fallback_rate 0.02\n%s", code, exitFailure, stderr)
	}
}

// A run with agent.cache: read resumed without --config still only
// replays: it sends no request.
func TestLLMResumeKeepsCacheRead(t *testing.T) {
	srv := llmtest.New(spottyModel(1 << 30))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "  cache: read\n", "")
	out := t.TempDir()
	code, _, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitFailure || srv.Requests() != 0 {
		t.Fatalf("run: exit %d and %d requests, want %d (a reply missing from the cache) and none\n%s", code, srv.Requests(), exitFailure, stderr)
	}
	code, _, stderr = evolve(t, "run", "--resume", runDir(t, out), "--quiet")
	if code != exitFailure || srv.Requests() != 0 {
		t.Fatalf("resume: exit %d and %d requests, want %d and none: the run's cache is read-only\n%s", code, srv.Requests(), exitFailure, stderr)
	}
}

// A run with agent.cache: off resumed without --config writes no entry
// to the response cache.
func TestLLMResumeKeepsCacheOff(t *testing.T) {
	srv := llmtest.New(spottyModel(10))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "  cache: off\n  max_fallback_rate: 0.02\n", "")
	out := t.TempDir()
	code, _, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitFailure || srv.Requests() == 0 {
		t.Fatalf("run: exit %d after %d requests, want %d (the fallback alarm)\n%s", code, srv.Requests(), exitFailure, stderr)
	}
	cache := filepath.Join(dir, "llm-cache")
	if n := files(cache); n != 0 {
		t.Fatalf("the run wrote %d files to the response cache with cache: off", n)
	}
	sent := srv.Requests()
	code, _, stderr = evolve(t, "run", "--resume", runDir(t, out), "--quiet")
	if n := files(cache); n != 0 {
		t.Errorf("the resume wrote %d files to the response cache of a cache: off run", n)
	}
	if srv.Requests() == sent {
		t.Errorf("the resume sent no request: it did not play (exit %d)\n%s", code, stderr)
	}
}

// evolve eval applies agent.max_fallback_rate: an eval whose model never
// names an action fails with exit 1 (a failed measurement), not 0 and
// not 3 (a regression).
func TestLLMEvalFallbackAlarm(t *testing.T) {
	srv := llmtest.New(spottyModel(1))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "", "")
	junit := filepath.Join(dir, "junit.xml")
	code, stdout, stderr := evolve(t, "eval", "--config", cfg, "--out", t.TempDir(), "--quiet", "--no-cache", "--fail-on-regression", "--junit", junit, "embedded")
	if code != exitFailure {
		t.Fatalf("eval: exit %d, want %d\n%s\n%s", code, exitFailure, stdout, stderr)
	}
	for _, want := range []string{"version v1.0.0", "too many fallback turns", "(100.0%) took the fallback action, over agent.max_fallback_rate 0.2"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error lacks %q:\n%s", want, stderr)
		}
	}
}

// A finished language-model eval shows each version's shares of error
// episodes, fallback turns and unusable replies in its stdout, report.md,
// JUnit file and checkpoint's verdict.
func TestLLMEvalShowsMeasurement(t *testing.T) {
	srv := llmtest.New(spottyModel(3))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "  max_fallback_rate: 0.5\n", "")
	v2 := writeRulePrompt(t, dir, "Explore first.")
	junit := filepath.Join(dir, "junit.xml")
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "eval", "--config", cfg, "--out", out, "--quiet", "--no-cache", "--alpha", "0.1", "--junit", junit, "embedded", v2)
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	line := regexp.MustCompile(`v2\.0\.0: errors 0 of 4 episodes \(0\.0%\); fallback turns \d+ of \d+ \([1-9][0-9.]*%\); unusable replies \d+ of \d+ \([0-9.]+%\)`)
	if !line.MatchString(stdout) {
		t.Errorf("stdout has no measurement line of v2.0.0 with a fallback share:\n%s", stdout)
	}
	e := runDir(t, out)
	md, _ := os.ReadFile(filepath.Join(e, "report.md"))
	if !strings.Contains(string(md), "## Measurement") || !strings.Contains(string(md), "| - | v2.0.0 | 4 | 0 (0.0%) |") {
		t.Errorf("report.md has no measurement table:\n%s", md)
	}
	x, _ := os.ReadFile(junit)
	if !line.Match(x) || !strings.Contains(string(x), "measurement: v1.0.0: errors 0 of 4") {
		t.Errorf("junit.xml shows no measurement of the version and its baseline:\n%s", x)
	}
	ck, _ := os.ReadFile(filepath.Join(e, "checkpoint.json"))
	if !strings.Contains(string(ck), `"health"`) || !strings.Contains(string(ck), `"fallbacks"`) {
		t.Errorf("checkpoint.json's verdict has no health")
	}
}

// With on_episode_panic: record, a model endpoint that refuses every
// request (401) makes every episode an error: the run stops at its first
// phase (max_error_rate, default 0.05) with exit 1 and a message naming
// the share, the limit and the first error, instead of finishing with
// means of 0.
func TestLLMRunStopsOnErrorRate(t *testing.T) {
	srv := llmtest.New(spottyModel(1 << 30))
	defer srv.Close()
	srv.Down(llmtest.Unauthorized)
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "", "on_episode_panic: record\n")
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitFailure {
		t.Fatalf("run: exit %d, want %d\n%s\n%s", code, exitFailure, stdout, stderr)
	}
	for _, want := range []string{"too many error episodes", "4 of 4 episodes (100.0%)", "max_error_rate 0.05", "the first: seed", "401", "evolve run --resume"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "test split") {
		t.Errorf("a summary of means was printed:\n%s", stdout)
	}
}

// With max_error_rate: 1 (never stop) a run whose every episode is an
// error finishes, but neither its summary nor its report states a mean
// over error episodes: they count the errors instead.
func TestLLMRunStatesNoMeanOverErrors(t *testing.T) {
	srv := llmtest.New(spottyModel(1 << 30))
	defer srv.Close()
	srv.Down(llmtest.Unauthorized)
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "", "on_episode_panic: record\nmax_error_rate: 1\n")
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "base v1.0.0 no mean (all 4 episodes errors)") || strings.Contains(stdout, "mean 0.0") {
		t.Errorf("the summary states a mean over error episodes, or does not count them:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(runDir(t, out), "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "all 4 of its test episodes ended in an error, so no test score is stated") || strings.Contains(string(md), "mean test score of 0.0") {
		t.Errorf("report.md states a mean over error episodes, or does not count them:\n%s", md)
	}
}
