package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"evolve/llm"
	"evolve/llm/llmtest"
)

// BenchmarkLLMRunPool is `evolve run` with the language-model agent
// against llmtest's loopback server answering every request after
// 50 ms, at agent.llm.concurrency 64: one generation of 4 candidates on
// 128 val seeds (so that the candidates' pool holds 512 episodes), 64
// train and 64 test seeds, episodes of at most 20 turns, no response
// cache. The bound on throughput is the concurrency over the latency,
// 64 / 50 ms = 1,280 requests/s; the run loses to it at every phase's
// tail, where fewer than 64 episodes are left. It reports:
//
//   - req/s: the server's requests over the run's wall time;
//   - mean-in-flight: the server's time-weighted mean of requests held,
//     from the first arrival to the last departure;
//   - pct-of-ideal: mean-in-flight / 64 · 100, the share of the
//     concurrency-bound ideal the run reached (by Little's law, the
//     requests/s of the requests' span over the ideal's; an LLM run
//     should keep it >= 95).
func BenchmarkLLMRunPool(b *testing.B) {
	const concurrency, delay = 64, 50 * time.Millisecond
	srv := llmtest.New(func(msgs []llm.Message) string { return "ACTION: explore" })
	defer srv.Close()
	srv.SetDelay(delay)
	dir := b.TempDir()
	var errb bytes.Buffer
	if code := run(context.Background(), &bytes.Buffer{}, &errb, []string{"seeds", "new", "--train", "64", "--val", "128", "--test", "64", "--seed", "5", filepath.Join(dir, "seeds")}); code != 0 {
		b.Fatalf("seeds: exit %d: %s", code, errb.String())
	}
	cfg := filepath.Join(dir, "llm.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`name: llm-bench
seeds: seeds
max_generations: 1
mutation: {candidates: 4}
agent:
  kind: llm
  llm: {base_url: %q, model: bench, max_tokens: 16, concurrency: %d}
  cache: "off"
  max_turns: 20
`, srv.URL, concurrency)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Chdir(dir)
	var wall time.Duration
	var reqs int64
	var inFlight float64
	for b.Loop() {
		before := srv.Stats()
		start := time.Now()
		var out bytes.Buffer
		errb.Reset()
		if code := run(context.Background(), &out, &errb, []string{"run", "--config", cfg, "--out", b.TempDir(), "--quiet"}); code != 0 {
			b.Fatalf("run: exit %d: %s", code, errb.String())
		}
		wall += time.Since(start)
		st := srv.Stats()
		reqs += st.Requests - before.Requests
		inFlight = st.MeanInFlight
	}
	b.ReportMetric(float64(reqs)/wall.Seconds(), "req/s")
	b.ReportMetric(inFlight, "mean-in-flight")
	b.ReportMetric(100*inFlight/concurrency, "pct-of-ideal")
}
