package view

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"evolve/agent"
	"evolve/envs"
	"evolve/results"
)

func copyFile(b *testing.B, from, to string) {
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRunsPage200 serves /api/runs over 200 finished runs (each
// directory walked and its checkpoint, manifest and generations table
// read anew every time): the data of the runs page. Target: < 1 s.
func BenchmarkRunsPage200(b *testing.B) {
	f := getFixture(b)
	root := b.TempDir()
	for i := range 200 {
		for _, name := range []string{"checkpoint.json", "manifest.yaml", "prompts/versions.json"} {
			copyFile(b, filepath.Join(f.run1.Dir, name), filepath.Join(root, "runs", fmt.Sprintf("r%03d", i), name))
		}
	}
	s, err := New(Config{Roots: []string{root}, ListTTL: time.Nanosecond})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, loopbackGet("/api/runs"))
		if rec.Code != 200 {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
	}
}

// bigRun writes a run directory with n episodes (the dungeon's metrics,
// scores and causes drawn from a seeded source) beside the fixture's
// checkpoint.
func bigRun(b *testing.B, n int) string {
	f := getFixture(b)
	dir := filepath.Join(b.TempDir(), "big")
	copyFile(b, filepath.Join(f.run1.Dir, "checkpoint.json"), filepath.Join(dir, "checkpoint.json"))
	metrics := agent.DungeonInfo().Metrics
	rng := rand.New(rand.NewPCG(1, 2))
	causes := []string{"none", "injury", "combat_loss", "starvation", "entrapment"}
	splits := []string{"train", "val", "test"}
	rows := make([]results.EpisodeRow, n)
	for i := range rows {
		ms := make([]envs.MetricValue, len(metrics))
		for j, m := range metrics {
			if m.Type == envs.String {
				ms[j].Str = "jackal"
			} else {
				ms[j].Num = float64(rng.IntN(3000))
			}
		}
		rows[i] = results.EpisodeRow{Run: "big", Generation: int32(i / 5000), Version: fmt.Sprintf("v1.0.%d", i/5000),
			Split: splits[i%3], Seed: rng.Uint64(), Score: float64(rng.IntN(3000)), Cause: causes[rng.IntN(len(causes))],
			EndReason: "killed", Metrics: ms}
	}
	if err := results.WriteEpisodes(filepath.Join(dir, "episodes.parquet"), metrics, rows); err != nil {
		b.Fatal(err)
	}
	return filepath.Dir(dir)
}

// BenchmarkEpisodesPage100k serves one page (50 episodes) of a run with
// 10^5 episodes, filtered by split and sorted by score: the data of the
// episodes page once the run is loaded. Target: < 300 ms. It reports the
// heap the loaded run holds (heap-MB) and the memory the whole test
// process got from the OS (sys-MB); target: < 200 MB.
func BenchmarkEpisodesPage100k(b *testing.B) {
	root := bigRun(b, 100_000)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	get := func(u string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, loopbackGet(u))
		if rec.Code != 200 {
			b.Fatalf("%s: %d: %s", u, rec.Code, rec.Body)
		}
		io.Copy(io.Discard, rec.Body)
	}
	get("/api/v1/runs/big/episodes") // loads the run
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	for i := 0; b.Loop(); i++ {
		// Each request is a new query (the order flips), so it filters
		// and sorts anew: the worst case, not a cached page.
		get(fmt.Sprintf("/api/v1/runs/big/episodes?split=val&sort=score&desc=%d&page=%d", i%2, i%100))
	}
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "heap-MB")
	b.ReportMetric(float64(after.Sys)/(1<<20), "sys-MB") // all the process got from the OS, an upper bound of its RSS
}

// BenchmarkEpisodesLoad100k is the first request of a run with 10^5
// episodes: reading episodes.parquet, then a page.
func BenchmarkEpisodesLoad100k(b *testing.B) {
	root := bigRun(b, 100_000)
	for b.Loop() {
		s, err := New(Config{Roots: []string{root}})
		if err != nil {
			b.Fatal(err)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, loopbackGet("/api/v1/runs/big/episodes?sort=score"))
		if rec.Code != 200 {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
	}
}

// loopbackGet is a GET of target as a browser on loopback sends it
// (httptest.NewRequest's Host, example.com, is not one the server
// answers to).
func loopbackGet(target string) *http.Request {
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "127.0.0.1"
	return r
}

// BenchmarkRunPage100k serves a run's page data (/api/runs/{id}: the
// decisions, the comparisons offered on the splits played, every file)
// of a run with 10^5 episodes once it is loaded. Target: < 300 ms.
func BenchmarkRunPage100k(b *testing.B) {
	root := bigRun(b, 100_000)
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	get := func(u string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, loopbackGet(u))
		if rec.Code != 200 {
			b.Fatalf("%s: %d: %s", u, rec.Code, rec.Body)
		}
	}
	get("/api/v1/runs/big") // loads the run
	for b.Loop() {
		get("/api/v1/runs/big")
	}
}

// BenchmarkFailures100k computes the failure analysis of a run with 10^5
// episodes (20 versions, 20 generations, three splits), as the first run
// page after each change of episodes.parquet does; later pages reuse it.
// Target: well under the page's 300 ms.
func BenchmarkFailures100k(b *testing.B) {
	root := bigRun(b, 100_000)
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	r := s.lookup(httptest.NewRecorder(), "big") // loads the run
	if r == nil {
		b.Fatal("no run big")
	}
	defer r.mu.Unlock()
	for b.Loop() {
		if fa := r.failures("big"); len(fa.Tables) != 3 {
			b.Fatalf("%d tables, want 3", len(fa.Tables))
		}
	}
}

// BenchmarkPages100k serves each page's HTML, drawn on the server, for
// a run with 10^5 episodes once it is loaded: the server time a reader
// waits for. Target: <= 300 ms each.
func BenchmarkPages100k(b *testing.B) {
	root := bigRun(b, 100_000)
	rows, _, err := results.ReadEpisodes(filepath.Join(root, "big", "episodes.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	var ep results.EpisodeRow
	for _, r := range rows {
		if r.Split == "val" {
			ep = r
			break
		}
	}
	s, err := New(Config{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	get := func(u string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, loopbackGet(u))
		if rec.Code != 200 {
			b.Fatalf("%s: %d: %.300s", u, rec.Code, rec.Body)
		}
	}
	get("/runs/big") // loads the run
	for _, p := range []struct{ name, url string }{
		{"runs", "/"},
		{"run", "/runs/big"},
		{"episodes", "/runs/big/episodes?split=val&sort=score&desc=%d"},
		{"episode", "/runs/big/episodes/val/" + ep.Version + "/" + fmt.Sprint(ep.Seed)},
		{"compare", "/compare?a=big&av=v1.0.0&bv=v1.0.19&split=val"},
	} {
		b.Run(p.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				u := p.url
				if p.name == "episodes" {
					u = fmt.Sprintf(u, i%2) // a new order each time: filtered and sorted anew
				}
				get(u)
			}
		})
	}
}
