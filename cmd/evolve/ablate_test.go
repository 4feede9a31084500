package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evolve/internal/atomicfile"
)

// ablateConfig writes a small ablation config (the dungeon, 2 replicates,
// failure and random, 2 generations a run) whose output is out.
func ablateConfig(t *testing.T, out string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ablation.yaml")
	y := fmt.Sprintf(`name: crash
seed: 5
replicates: 2
proposers: [failure, random]
budget: {episodes: 400}
max_generations: 1000
patience: 100
parallel: 2
bootstrap_reps: 200
output: %s
environments:
  - {name: dungeon, config: default, seeds: {train: 20, val: 40, test: 60}}
`, out)
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAblateResumeAfterKill kills evolve ablate with SIGKILL at write
// points spread over an ablation (runs in flight, two at once), then
// reruns the same command, and checks that ablation.parquet,
// anytime.parquet and summary.json are byte-identical to those of an
// ablation never interrupted. Also: --resume DIR gives them too, and
// --json prints summary.json.
func TestAblateResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve ablate several times")
	}
	refOut := t.TempDir()
	log := filepath.Join(t.TempDir(), "points.log")
	code, _, stderr := evolveProc(t, []string{atomicfile.FaultLogEnv + "=" + log}, "ablate", "--config", ablateConfig(t, refOut), "--quiet")
	if code != 0 {
		t.Fatalf("reference ablation: exit %d\n%s", code, stderr)
	}
	points := countLines(t, log)
	if points < 20 {
		t.Fatalf("only %d write points", points)
	}
	files := []string{"ablation.parquet", "anytime.parquet", "summary.json", "report.md"}
	want := map[string][]byte{}
	for _, f := range files {
		want[f] = readFile(t, filepath.Join(refOut, "crash", f))
	}
	for _, frac := range []float64{0.1, 0.45, 0.8, 0.99} {
		n := max(1, int(frac*float64(points)))
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			out := t.TempDir()
			cfg := ablateConfig(t, out)
			code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(n)}, "ablate", "--config", cfg, "--quiet")
			if code != -9 {
				t.Fatalf("killed at write point %d: exit %d, want SIGKILL\n%s", n, code, stderr)
			}
			args := []string{"ablate", "--config", cfg, "--quiet"}
			if n%2 == 1 {
				args = []string{"ablate", "--resume", filepath.Join(out, "crash"), "--quiet"}
			}
			if code, _, stderr := evolveProc(t, nil, args...); code != 0 {
				t.Fatalf("rerun after the kill: exit %d\n%s", code, stderr)
			}
			for _, f := range files {
				if got := readFile(t, filepath.Join(out, "crash", f)); !bytes.Equal(got, want[f]) {
					t.Errorf("%s after kill -9 at write point %d and a rerun differs from the uninterrupted ablation's", f, n)
				}
			}
		})
	}
	var stdout bytes.Buffer
	if code := run(context.Background(), &stdout, new(bytes.Buffer), []string{"ablate", "--resume", filepath.Join(refOut, "crash"), "--json", "--quiet"}); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var s struct {
		Environments []struct {
			Proposers []struct {
				Proposer string `json:"proposer"`
				Runs     int    `json:"runs"`
			} `json:"proposers"`
		} `json:"environments"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || len(s.Environments) != 1 || len(s.Environments[0].Proposers) != 2 || s.Environments[0].Proposers[0].Runs != 2 {
		t.Errorf("--json printed %s (%v)", stdout.Bytes(), err)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAblateUsage: the command line's errors exit 2 with a message.
func TestAblateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ablate"}, "want exactly one of --config FILE and --resume DIR"},
		{[]string{"ablate", "--config", "a", "--resume", "b"}, "want exactly one of"},
		{[]string{"ablate", "--config", "a", "extra"}, `unexpected argument "extra"`},
		{[]string{"ablate", "--config", "a", "--parallel", "-1"}, "--parallel must be >= 0"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), new(bytes.Buffer), &stderr, tc.args); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
