//go:build unix

// The benchmarks read getrusage(2), which Windows does not have.

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"evolve/internal/slurm/slurmtest"
	"evolve/seeds"
)

// maxRSSMB reports the process's peak resident set size so far, in MiB
// (getrusage ru_maxrss; it includes whatever the test binary held before).
func maxRSSMB(b *testing.B) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
	}
}

// writeScores writes n integer scores (rounded normal, mean mu, sd 150,
// as the dungeon's) one per line.
func writeScores(b *testing.B, path string, rng *rand.Rand, n int, mu float64) {
	b.Helper()
	var buf bytes.Buffer
	for range n {
		fmt.Fprintf(&buf, "%d\n", int64(math.Round(mu+150*rng.NormFloat64())))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCompare is `evolve compare` end to end (read two text files,
// three U tests, summaries, the Hodges-Lehmann shift and its CI) on n vs
// n tied integer scores. The target for n = 10^6 is < 5 s and
// < 500 MB peak RSS (before the selection algorithm for the shift it ran
// out of memory: 8 TB for the n² differences). n = 10^6 is skipped with
// -short.
func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("10^6 vs 10^6 scores: skipped with -short")
			}
			dir := b.TempDir()
			rng := rand.New(rand.NewPCG(1, 2))
			base, cand := filepath.Join(dir, "base.txt"), filepath.Join(dir, "cand.txt")
			writeScores(b, base, rng, n, 500)
			writeScores(b, cand, rng, n, 520)
			for b.Loop() {
				var errb bytes.Buffer
				if code := run(context.Background(), io.Discard, &errb, []string{"compare", "--json", base, cand}); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
			maxRSSMB(b)
		})
	}
}

// largeSeedSet writes a seed directory with the embedded train and val
// splits and a test split of n seeds continuing the embedded generator's
// SplitMix64 stream (seeds/internal/gen), disjoint from both, with its
// SHA256SUMS.
func largeSeedSet(b *testing.B, dir string, n int) {
	b.Helper()
	emb, err := seeds.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	seen := map[uint64]bool{}
	sums := ""
	write := func(name string, xs []uint64) {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "# %s split, %d seeds\n", strings.TrimSuffix(name, ".txt"), len(xs))
		for _, x := range xs {
			fmt.Fprintf(&buf, "%d\n", x)
			seen[x] = true
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		h := sha256.Sum256(buf.Bytes())
		sums += hex.EncodeToString(h[:]) + "  " + name + "\n"
	}
	write(seeds.Train.File(), emb.Train)
	write(seeds.Val.File(), emb.Val)
	s := uint64(0x65766f6c7665) // gen.Origin
	test := make([]uint64, 0, n)
	for len(test) < n {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		if !seen[z] {
			seen[z] = true
			test = append(test, z)
		}
	}
	write(seeds.Test.File(), test)
	if err := os.WriteFile(filepath.Join(dir, seeds.SumsFile), []byte(sums), 0o644); err != nil {
		b.Fatal(err)
	}
}

var runDirLine = regexp.MustCompile(`(?m)^run directory: (.+)$`)

// BenchmarkRunLargeTestSplit is `evolve run` of the default experiment with
// a test split of n seeds (the embedded train and val splits), then
// `evolve report` of its directory alone. The target: a
// 100,000-seed test split runs and reports on this machine, the report in
// < 30 s. Metrics: report-s (the report alone), maxrss-MB (peak RSS of
// the process) and maxrss-B/test-episode (that divided by the 2n test
// episodes held in memory, an upper bound of the bytes per episode).
// Skipped with -short: a 100,000-seed run plays 200,000 episodes (minutes
// on 2 cores).
func BenchmarkRunLargeTestSplit(b *testing.B) {
	if testing.Short() {
		b.Skip("plays 2·10^5 test episodes: skipped with -short")
	}
	for _, n := range []int{100_000} {
		b.Run(fmt.Sprintf("test-seeds=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			seedDir := filepath.Join(dir, "seeds")
			if err := os.Mkdir(seedDir, 0o755); err != nil {
				b.Fatal(err)
			}
			largeSeedSet(b, seedDir, n)
			cfg := filepath.Join(dir, "large.yaml")
			if err := os.WriteFile(cfg, []byte("name: large\nseeds: seeds\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			var report time.Duration
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := run(context.Background(), &out, &errb, []string{"run", "--config", cfg, "--out", filepath.Join(dir, "runs"), "--quiet"}); code != 0 {
					b.Fatalf("run: exit %d: %s", code, errb.String())
				}
				m := runDirLine.FindStringSubmatch(out.String())
				if m == nil {
					b.Fatalf("no run directory in:\n%s", out.String())
				}
				start := time.Now()
				if code := run(context.Background(), io.Discard, &errb, []string{"report", m[1]}); code != 0 {
					b.Fatalf("report: exit %d: %s", code, errb.String())
				}
				report += time.Since(start)
				os.RemoveAll(m[1])
			}
			b.ReportMetric(report.Seconds()/float64(b.N), "report-s")
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
				b.ReportMetric(float64(ru.Maxrss)*1024/float64(2*n), "maxrss-B/test-episode")
			}
		})
	}
}

// phaseDone matches the log line of a finished phase.
var phaseDone = regexp.MustCompile(`msg="phase done" .* episodes=(\d+)`)

// BenchmarkExecutor runs the default evolution run (18 phases, 6,500
// episodes) on the local executor and on the Slurm cluster slurmtest finds
// (array_size 8, poll_interval 200ms; skipped without one), and reports
// episodes/s and seconds per phase. On Slurm, s/phase is the overhead of
// a phase from submission to merged shards, the dungeon's episodes taking
// about 0.1 s of it.
func BenchmarkExecutor(b *testing.B) {
	for _, kind := range []string{"local", "slurm"} {
		b.Run("executor="+kind, func(b *testing.B) {
			dir := b.TempDir()
			cfg := filepath.Join(dir, "exp.yaml")
			yml := "name: default\n"
			if kind == "slurm" {
				slurmtest.Client(b)
				for _, kv := range slurmtest.Env() {
					k, v, _ := strings.Cut(kv, "=")
					b.Setenv(k, v)
				}
				b.Setenv("EVOLVE_TEST_MAIN", "1") // the tasks run this binary as evolve
				yml += fmt.Sprintf("executor:\n  kind: slurm\n  array_size: 8\n  poll_interval: 200ms\n  command: [%q]\n", os.Args[0])
			}
			if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
				b.Fatal(err)
			}
			var elapsed time.Duration
			phases, episodes := 0, 0
			for b.Loop() {
				out := b.TempDir()
				var stdout, errb bytes.Buffer
				start := time.Now()
				if code := run(context.Background(), &stdout, &errb, []string{"run", "--config", cfg, "--out", out}); code != 0 {
					b.Fatalf("run: exit %d: %s", code, errb.String())
				}
				elapsed += time.Since(start)
				m := runDirLine.FindStringSubmatch(stdout.String())
				if m == nil {
					b.Fatalf("no run directory in:\n%s", stdout.String())
				}
				for _, m := range phaseDone.FindAllStringSubmatch(errb.String(), -1) {
					n, _ := strconv.Atoi(m[1])
					phases, episodes = phases+1, episodes+n
				}
			}
			if phases == 0 {
				b.Fatal("no phase logged")
			}
			b.ReportMetric(float64(episodes)/elapsed.Seconds(), "episodes/s")
			b.ReportMetric(elapsed.Seconds()/float64(phases), "s/phase")
		})
	}
}
