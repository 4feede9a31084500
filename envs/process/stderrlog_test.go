package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"evolve/envs"
)

// TestStderrLogCap: a process that writes more stderr than
// max_stderr_log_mb leaves a log of about the cap, with one line where
// it was cut and, at its end, the count of bytes not written; the next
// process appending to the full log writes only evolve's lines and its
// own cut line. Episodes are not affected.
func TestStderrLogCap(t *testing.T) {
	cfg := helperConfig("episode")
	cfg.Env[helperNoiseVar] = strconv.Itoa(1 << 20) // 1 MiB of stderr per episode
	cfg.StderrDir = t.TempDir()
	cfg.MaxStderrLogMB = 1
	e := newEnv(t, cfg)
	log := filepath.Join(cfg.StderrDir, "process-0.log")
	for round := range 2 {
		pl := newPlayer(t, e, 0)
		for seed := range uint64(3) {
			o, err := pl.Play(context.Background(), envs.Episode{Seed: seed})
			if err != nil || o.Score != float64(seed) {
				t.Fatalf("round %d seed %d: %+v, %v", round, seed, o, err)
			}
		}
		pl.Close()
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		var noise, evolve []string
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if strings.HasPrefix(l, "evolve: ") {
				evolve = append(evolve, l)
			} else if l != "" {
				noise = append(noise, l)
			}
		}
		if size := len(data) - len(strings.Join(evolve, "")); size > 1<<20 {
			t.Errorf("round %d: %d bytes of stderr in the log, want at most the cap, 1 MiB", round, size)
		}
		cuts := regexp.MustCompile(`(?m)^evolve: stderr log cut at its cap of 1 MiB \(max_stderr_log_mb\): the rest of environment process \d+'s stderr is not written here$`).FindAllString(string(data), -1)
		if len(cuts) != round+1 {
			t.Errorf("round %d: %d cut lines, want %d:\n%s", round, len(cuts), round+1, strings.Join(evolve, ""))
		}
		ended := regexp.MustCompile(`(?m)^evolve: environment process \d+ ended: .*; (\d+) bytes of its stderr past the log's cap were not written here$`).FindAllStringSubmatch(string(data), -1)
		if len(ended) != round+1 {
			t.Fatalf("round %d: %d end lines with a count, want %d:\n%s", round, len(ended), round+1, strings.Join(evolve, ""))
		}
		// The process wrote 3 MiB; what the log lacks of it was counted
		// (the log has one "\n" more where a line was cut).
		dropped, _ := strconv.Atoi(ended[round][1])
		if sum := dropped + len(strings.Join(noise, "")); round == 0 && sum != 3<<20 && sum != 3<<20+1 {
			t.Errorf("round 0: %d bytes dropped + %d logged, want 3 MiB written", dropped, len(strings.Join(noise, "")))
		}
		if round == 1 && dropped != 3<<20 {
			t.Errorf("round 1: %d bytes dropped, want all 3 MiB (the log was full)", dropped)
		}
	}
}

// TestMaxStderrLogMBRange: Validate refuses a cap out of range.
func TestMaxStderrLogMBRange(t *testing.T) {
	for _, mb := range []int{-1, MaxMemoryMBLimit + 1} {
		cfg := helperConfig("episode")
		cfg.MaxStderrLogMB = mb
		want := fmt.Sprintf("max_stderr_log_mb: %d is out of range", mb)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("MaxStderrLogMB %d: %v, want %q", mb, err, want)
		}
	}
	var c Config
	if got := c.stderrLogCap(); got != 64<<20 {
		t.Errorf("default cap %d bytes, want 64 MiB", got)
	}
}
