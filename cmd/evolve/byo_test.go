package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"evolve/internal/testwait"
	"evolve/results"
	"evolve/trajectory"
)

// python3 returns the path of python3, or skips the test.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (apt-get install python3): the process environment examples need it")
	}
	return p
}

// copyExample copies examples/python to a new directory, so that a test's
// processes can be told apart by their working directory.
func copyExample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("..", "..", "examples", "python")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasSuffix(p, ".pyc") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// processesIn lists the live processes whose working directory is dir.
func processesIn(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+" "+string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// The Python example of examples/python evolves from a fresh clone: at
// least one mutation is accepted, episodes.parquet has the example's
// declared metric columns, each worker's stderr is logged in the run
// directory, and no process is left behind.
func TestPythonExample(t *testing.T) {
	python3(t)
	ex := copyExample(t)
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", filepath.Join(ex, "config.yaml"), "--out", out, "--workers", "2", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	dir := runDir(t, out)
	gens, _, err := results.ReadGenerations(filepath.Join(dir, "generations.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, g := range gens {
		if g.Accepted != "" {
			accepted++
		}
	}
	if accepted == 0 {
		t.Errorf("no mutation accepted:\n%s", stdout)
	}
	_, metrics, err := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range metrics {
		names = append(names, m.Name+":"+string(m.Type))
	}
	if got := strings.Join(names, " "); got != "food:int energy_left:float patches:int survived:bool last_reaction:string" {
		t.Errorf("metric columns %s", got)
	}
	for _, f := range []string{"process-0.log", "process-1.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("worker log: %v", err)
		}
	}
	if left := processesIn(ex); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
	// The environment's trajectories of failed episodes are stored as
	// given (the default trajectories policy, failed).
	stored := 0
	eps, _, _ := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	for _, e := range eps {
		tr, err := trajectory.Read(dir, trajectory.Phase{Split: e.Split, Version: e.Version}, e.Seed, 0)
		switch {
		case e.Cause == "none" && err == nil:
			t.Fatalf("%s %s seed %d succeeded but has a stored trajectory", e.Split, e.Version, e.Seed)
		case e.Cause != "none" && err != nil:
			t.Fatalf("%s %s seed %d failed (%s) but has no trajectory: %v", e.Split, e.Version, e.Seed, e.Cause, err)
		case err == nil:
			if !strings.HasPrefix(string(tr.Data), `[{"turn": 0, "event": "patch"`) && !strings.HasPrefix(string(tr.Data), `[{"turn":0,"event":"patch"`) {
				t.Fatalf("seed %d: stored trajectory %.80q is not the environment's", e.Seed, tr.Data)
			}
			stored++
		}
	}
	if stored == 0 {
		t.Error("no trajectory stored")
	}
	t.Logf("%d generations, %d accepted, %d trajectories", len(gens), accepted, stored)
}

// SIGINT reaches the environment processes: evolve exits 130 and none of
// them outlives it; the run resumes to completion.
func TestProcessEnvSIGINT(t *testing.T) {
	python3(t)
	ex := copyExample(t)
	out := t.TempDir()
	p := start(t, "run", "--config", filepath.Join(ex, "config.yaml"), "--out", out, "--workers", "2", "--verbose")
	p.waitFor(t, `msg="phase started" gen=1 split=train`)
	if len(processesIn(ex)) == 0 {
		t.Error("no environment process was running during the run")
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, p.stderr.String())
	}
	// The kernel reaps asynchronously: wait for it.
	var left []string
	if !testwait.Until(5*time.Second, func() bool { left = processesIn(ex); return len(left) == 0 }) {
		t.Fatalf("processes outlived evolve by 5 s: %v", left)
	}
	r := start(t, "run", "--resume", runDir(t, out))
	if code := r.wait(t); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
	}
}

// A process that crashes on one seed, hangs on another and prints garbage
// on a third: with on_episode_panic: record (and max_error_rate 0.5, as 3
// of the 8 train episodes fail) the run completes, those three train
// episodes are recorded as errors with their messages in
// episode_errors.jsonl, and no process is left.
func TestFaultyProcessRun(t *testing.T) {
	python3(t)
	dir := t.TempDir()
	src, _ := filepath.Abs(filepath.Join("..", "..", "envs", "process", "testdata", "faulty.py"))
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "faulty.py"), data, 0o755)
	seedDir := filepath.Join(dir, "seeds")
	os.Mkdir(seedDir, 0o755)
	var sums strings.Builder
	for _, s := range []struct {
		file  string
		seeds string
	}{{"train.txt", "1\n2\n3\n4\n5\n6\n7\n8\n"}, {"val.txt", "12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n"}, {"test.txt", "30\n31\n32\n33\n"}} {
		os.WriteFile(filepath.Join(seedDir, s.file), []byte(s.seeds), 0o644)
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256([]byte(s.seeds)), s.file)
	}
	os.WriteFile(filepath.Join(seedDir, "SHA256SUMS"), []byte(sums.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("version: v1.0.0\ntask_definition: Score.\npolicy_parameters:\n  x: 0.5\n"), 0o644)
	cfg := filepath.Join(dir, "faulty.yaml")
	os.WriteFile(cfg, []byte(`name: faulty
environment:
  name: process
  command: [python3, faulty.py]
  episode_timeout: 6s
  message_timeout: 3s
seeds: seeds
base_prompt: base.yaml
max_generations: 1
on_episode_panic: record
max_error_rate: 0.5
`), 0o644)
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--workers", "2", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := runDir(t, out)
	eps, _, err := results.ReadEpisodes(filepath.Join(run, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	errs := map[uint64]bool{}
	for _, e := range eps {
		if e.Split == results.SplitTrain && e.Cause == "error" {
			errs[e.Seed] = true
		}
	}
	if len(errs) != 3 || !errs[3] || !errs[5] || !errs[7] {
		t.Errorf("train error episodes %v, want seeds 3, 5 and 7", errs)
	}
	log, err := os.ReadFile(filepath.Join(run, "episode_errors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"seed":3`, "crashing on purpose", `"seed":5`, "timed out", `"seed":7`, "Loading model weights"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("episode_errors.jsonl lacks %q:\n%s", want, log)
		}
	}
	var left []string
	if !testwait.Until(5*time.Second, func() bool { left = processesIn(dir); return len(left) == 0 }) {
		t.Errorf("processes left after 5 s: %v", left)
	}
	// The grandchild the hanging seed started runs in the process's group
	// and is killed with it.
	out2, _ := exec.Command("pgrep", "-f", "evolve-test-grandchild").Output()
	if len(bytes.TrimSpace(out2)) > 0 {
		t.Errorf("the hanging seed's grandchild outlived the run: pids %s", out2)
	}
}

// The corridor of examples/python (step mode) evolves to the same
// episodes, decisions and test result whether evolve relays every step or
// the environment plays each episode with the agent over the direct
// channel (direct: true): only the run ID, which hashes the config,
// differs.
func TestPythonStepDirect(t *testing.T) {
	python3(t)
	ex := copyExample(t)
	var runs [2][]results.EpisodeRow
	for i, direct := range []bool{false, true} {
		cfg := filepath.Join(ex, fmt.Sprintf("corridor-%v.yaml", direct))
		os.WriteFile(cfg, []byte(fmt.Sprintf(`name: corridor
environment:
  name: process
  command: [python3, step_env.py]
  agent: [python3, step_agent.py]
  direct: %v
seeds: seeds/
`, direct)), 0o644)
		out := t.TempDir()
		code, stdout, stderr := evolve(t, "run", "--config", cfg, "--out", out, "--workers", "2", "--quiet")
		if code != exitOK {
			t.Fatalf("direct %v: exit %d\n%s\n%s", direct, code, stdout, stderr)
		}
		eps, _, err := results.ReadEpisodes(filepath.Join(runDir(t, out), "episodes.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		for j := range eps {
			eps[j].Run = ""
		}
		runs[i] = eps
	}
	a, b := runs[0], runs[1]
	if len(a) < 600 || len(a) != len(b) {
		t.Fatalf("%d episodes relayed, %d direct", len(a), len(b))
	}
	for j := range a {
		if fmt.Sprint(a[j]) != fmt.Sprint(b[j]) {
			t.Fatalf("episode %d: relayed %+v, direct %+v", j, a[j], b[j])
		}
	}
	t.Logf("%d episodes equal", len(a))
}
