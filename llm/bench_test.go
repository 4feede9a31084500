//go:build unix

// The benchmarks read getrusage(2), which Windows does not have.

package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"evolve/llm"
	"evolve/llm/llmtest"
)

// benchMessages returns the i-th conversation of the benchmarks: a
// system prompt of about 2 KB and an observation of about 600 bytes, the
// size of a rendered dungeon prompt, different for every i.
func benchMessages(i int) []llm.Message {
	sys := "<guardrails>\nFollow the rules. Answer with one line: ACTION: <name>.\n</guardrails>\n<rules>\n" +
		strings.Repeat("- Keep your hit points above the threshold; flee when they fall below it.\n", 26) + "</rules>"
	obs := fmt.Sprintf("<status>turn %d HP:12(12) Hungry</status>\n<map>\n%s</map>", i, strings.Repeat("#....@....#....>....#\n", 25))
	return []llm.Message{{Role: llm.RoleSystem, Content: sys}, {Role: llm.RoleUser, Content: obs}}
}

// cpuTime returns the CPU time (user + system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkThroughput: 128 callers share one client of concurrency 64
// against a server, in another process, that answers every request after
// 50 ms. One op is one Complete call. It reports:
//
//   - req/s: completed calls per second of wall time (the bound is
//     64 / 50 ms = 1,280);
//   - max-in-flight and mean-in-flight: the most requests the server held
//     at once (64 at most, by the client's limit) and its time-weighted
//     mean from first arrival to last departure;
//   - client-cpu-ns/req: CPU time of this process (the client alone:
//     getrusage(RUSAGE_SELF) around the calls) per call;
//   - server-cpu-ns/req: CPU time of the server process per call.
func BenchmarkThroughput(b *testing.B) {
	const callers, concurrency = 128, 64
	cmd := subprocess(b, "serve 50ms")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	url, err := readLine(stdout)
	if err != nil {
		b.Fatal(err)
	}
	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Concurrency = url, "bench", concurrency
	cl, err := llm.New(cfg, llm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	msgs := make([][]llm.Message, b.N)
	for i := range msgs {
		msgs[i] = benchMessages(i)
	}
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	cpu0, t0 := cpuTime(b), time.Now()
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if _, err := cl.Complete(context.Background(), msgs[i]); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	wall, cpu := time.Since(t0), cpuTime(b)-cpu0
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	resp, err := http.Get(url + llmtest.StatsPath)
	if err != nil {
		b.Fatal(err)
	}
	var st llmtest.Stats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	cl.Close()
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	if st.Requests != int64(b.N) || st.MaxInFlight > concurrency {
		b.Fatalf("server saw %d requests, %d at once; want %d, at most %d", st.Requests, st.MaxInFlight, b.N, concurrency)
	}
	su := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	server := time.Duration(su.Utime.Nano() + su.Stime.Nano())
	b.ReportMetric(float64(b.N)/wall.Seconds(), "req/s")
	b.ReportMetric(float64(st.MaxInFlight), "max-in-flight")
	b.ReportMetric(st.MeanInFlight, "mean-in-flight")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "client-cpu-ns/req")
	b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-cpu-ns/req")
}

// BenchmarkCompleteCached: a Complete call answered from the cache (a
// request hash, a file read and a JSON decode).
func BenchmarkCompleteCached(b *testing.B) {
	srv := llmtest.New(policy)
	defer srv.Close()
	c, err := llm.OpenCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model = srv.URL, "bench"
	cl, err := llm.New(cfg, llm.Options{Cache: c, Mode: llm.ModeReadWrite})
	if err != nil {
		b.Fatal(err)
	}
	const n = 1000
	msgs := make([][]llm.Message, n)
	for i := range msgs {
		msgs[i] = benchMessages(i)
		if _, err := cl.Complete(context.Background(), msgs[i]); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		if r, err := cl.Complete(context.Background(), msgs[i%n]); err != nil || !r.Cached {
			b.Fatal(r, err)
		}
		i++
	}
}

// BenchmarkCachePut: storing one reply to a benchmark-sized request.
func BenchmarkCachePut(b *testing.B) {
	c, err := llm.OpenCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg := llm.DefaultConfig()
	i := 0
	for b.Loop() {
		req := llm.Request{Model: "bench", Messages: benchMessages(i), MaxTokens: cfg.MaxTokens}
		if err := c.Put(req, llm.Reply{Content: "ACTION: eat", PromptTokens: 700, CompletionTokens: 3}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRequestHash: the content address of a benchmark-sized request.
func BenchmarkRequestHash(b *testing.B) {
	req := llm.Request{Model: "bench", Messages: benchMessages(1), MaxTokens: 256}
	for b.Loop() {
		_ = req.Hash()
	}
}
