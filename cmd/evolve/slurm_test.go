package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/slurm/slurmtest"
	"evolve/internal/testwait"
)

// The Slurm tests run the test binary as evolve on the cluster that
// slurmtest finds (scripts/slurm-dev-cluster start), and skip without one.
// Each compares a run on Slurm with the same config run locally: every
// file but the manifest, the checkpoint and the Slurm phase directories
// must be identical (the report's times masked, see runFiles).

// slurmConfig writes a config that plays on the cluster with the test
// binary as the tasks' evolve: extra is more YAML (e.g. seeds), executor
// more keys of the executor section.
func slurmConfig(t *testing.T, extra, executor string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "slurm.yaml")
	cfg := fmt.Sprintf("%sexecutor:\n  kind: slurm\n  poll_interval: 200ms\n  command: [%q]\n%s", extra, os.Args[0], executor)
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// useSlurm skips t without a cluster and points this process's
// environment (and so the subprocesses' and their jobs') at it.
func useSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs evolve on a Slurm cluster")
	}
	slurmtest.Client(t)
	for _, kv := range slurmtest.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// sameRun fails t unless the run directories got and want hold the same
// files (but for the manifest, checkpoint and Slurm's phase directories).
func sameRun(t *testing.T, got, want string) {
	t.Helper()
	g, w := runFiles(t, got), runFiles(t, want)
	for name := range g {
		if strings.HasPrefix(name, "slurm/") {
			delete(g, name)
		}
	}
	for _, m := range []map[string][]byte{g, w} {
		delete(m, "manifest.yaml")
		delete(m, "checkpoint.json")
	}
	for name, data := range w {
		if other, ok := g[name]; !ok {
			t.Errorf("the Slurm run lacks %s", name)
		} else if !bytes.Equal(other, data) {
			t.Errorf("%s differs from the local run's", name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("the Slurm run has %s, the local run does not", name)
		}
	}
	if len(w) < 10 {
		t.Errorf("only %d files compared", len(w))
	}
}

// slurmManifest returns the executor section of the run's manifest.
func slurmManifest(t *testing.T, dir string) (kind string, jobs []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Executor struct {
			Kind string           `yaml:"kind"`
			Jobs []map[string]any `yaml:"jobs"`
		} `yaml:"executor"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Executor.Kind, m.Executor.Jobs
}

// runJobs returns the job IDs of every job array the run in dir
// submitted, from its phases' jobs.json.
func runJobs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "slurm", "*", "jobs.json"))
	ids := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var jobs []struct {
			JobID string `json:"job_id"`
		}
		if err := json.Unmarshal(data, &jobs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, j := range jobs {
			ids[j.JobID] = true
		}
	}
	return ids
}

// queued lists the tasks of the given jobs Slurm has pending or running.
func queued(t *testing.T, ids map[string]bool) []string {
	t.Helper()
	out, err := exec.Command("squeue", "-h", "-o", "%F %i %T").Output()
	if err != nil {
		t.Fatalf("squeue: %v", err)
	}
	var tasks []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 3 && ids[f[0]] {
			tasks = append(tasks, f[1]+" "+f[2])
		}
	}
	return tasks
}

// noJobsLeft fails t if a job of the run in dir is still queued a few
// seconds after the run ended.
func noJobsLeft(t *testing.T, dir string) {
	t.Helper()
	ids := runJobs(t, dir)
	if len(ids) == 0 {
		t.Errorf("the run in %s submitted no job", dir)
	}
	var left []string
	if !testwait.Until(10*time.Second, func() bool { left = queued(t, ids); return len(left) == 0 }) {
		t.Errorf("jobs left in squeue after 10 s: %v", left)
	}
}

// The default run with --executor slurm writes the local run's Parquet,
// prompt files, plots and report; the manifest lists the job IDs and
// nodes.
func TestSlurmDefaultRunMatchesLocal(t *testing.T) {
	useSlurm(t)
	local := t.TempDir()
	if code, _, stderr := evolveProc(t, nil, "run", "--out", local, "--quiet"); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, stderr)
	}
	cfg := slurmConfig(t, "", "  array_size: 8\n")
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := evolveProc(t, nil, "run", "--config", cfg, "--executor", "slurm", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("Slurm run: exit %d\n%s", code, stderr)
	}
	t.Logf("Slurm run: %v", time.Since(start))
	dir := runDir(t, out)
	sameRun(t, dir, runDir(t, local))
	kind, jobs := slurmManifest(t, dir)
	if kind != "slurm" || len(jobs) < 5 {
		t.Fatalf("manifest executor %q with %d jobs, want slurm and a job per phase", kind, len(jobs))
	}
	for _, j := range jobs {
		if j["job_id"] == "" || len(j["nodes"].([]any)) == 0 || len(j["tasks"].([]any)) != 8 {
			t.Errorf("manifest job %v: want a job ID, 8 tasks and their nodes", j)
		}
	}
	noJobsLeft(t, dir)
}

var submittedRE = regexp.MustCompile(`msg="slurm job submitted" phase=(\S+) job=(\d+)`)

// waitSubmitted waits for the controller p to submit a job array in a
// phase whose name contains phase, and returns the job ID.
func waitSubmitted(t *testing.T, p *proc, phase string) string {
	t.Helper()
	timeout := time.After(120 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the controller ended before submitting a %s phase:\n%s", phase, p.stderr.String())
			}
			if m := submittedRE.FindStringSubmatch(l); m != nil && strings.Contains(m[1], phase) {
				return m[2]
			}
		case <-timeout:
			t.Fatalf("timed out waiting for a %s phase", phase)
		}
	}
}

// smallSlurmRun is a short run: 60/120/150 seeds, one generation of two
// candidates.
func smallSlurmRun(t *testing.T) (extra, localDir string) {
	t.Helper()
	extra = fmt.Sprintf("name: slurmsmall\nseeds: %s\nmax_generations: 1\nmutation:\n  candidates: 2\n", crashSeeds(t, 60, 120, 150))
	local := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "local.yaml")
	os.WriteFile(cfg, []byte(extra), 0o644)
	if code, _, stderr := evolveProc(t, nil, "run", "--config", cfg, "--out", local, "--quiet"); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, stderr)
	}
	return extra, runDir(t, local)
}

// A task cancelled with scancel JOB_TASK is resubmitted, and the run's
// outputs are still those of the local run.
func TestSlurmCancelledTaskIsResubmitted(t *testing.T) {
	useSlurm(t)
	extra, local := smallSlurmRun(t)
	// One task at a time: the later tasks of an array stay pending long
	// enough to be cancelled.
	cfg := slurmConfig(t, extra, "  array_size: 6\n  max_parallel: 1\n")
	out := t.TempDir()
	p := start(t, "run", "--config", cfg, "--out", out, "--quiet")
	job := waitSubmitted(t, p, "-val-")
	if err := exec.Command("scancel", job+"_4").Run(); err != nil {
		t.Fatalf("scancel %s_4: %v", job, err)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "resubmitting") || !strings.Contains(p.stderr.String(), "task=4 job="+job) {
		t.Errorf("no resubmission of task 4 of job %s logged:\n%s", job, p.stderr.String())
	}
	sameRun(t, runDir(t, out), local)
	_, jobs := slurmManifest(t, runDir(t, out))
	retried := false
	for _, j := range jobs {
		if r, _ := j["retry"].(int); r > 0 {
			retried = true
		}
	}
	if !retried {
		t.Errorf("the manifest lists no resubmitted job: %v", jobs)
	}
	noJobsLeft(t, runDir(t, out))
}

// A controller killed with SIGKILL leaves its jobs running; --resume
// re-attaches to them (or reuses their shards), ends with the local run's
// outputs, and leaves no job in squeue.
func TestSlurmKilledControllerResumes(t *testing.T) {
	useSlurm(t)
	extra, local := smallSlurmRun(t)
	cfg := slurmConfig(t, extra, "  array_size: 6\n  max_parallel: 1\n")
	out := t.TempDir()
	p := start(t, "run", "--config", cfg, "--out", out, "--quiet")
	waitSubmitted(t, p, "g000-val-v1.0.1")
	p.cmd.Process.Kill()
	p.wait(t)
	dir := runDir(t, out)
	r := start(t, "run", "--resume", dir, "--quiet")
	if code := r.wait(t); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "slurm job re-attached") {
		t.Errorf("the resume re-attached to no job:\n%s", r.stderr.String())
	}
	sameRun(t, dir, local)
	noJobsLeft(t, dir)
}

// SIGINT on the controller scancels its jobs and exits 130; a resume ends
// with the local run's outputs.
func TestSlurmInterruptCancelsJobs(t *testing.T) {
	useSlurm(t)
	extra, local := smallSlurmRun(t)
	cfg := slurmConfig(t, extra, "  array_size: 6\n  max_parallel: 1\n")
	out := t.TempDir()
	p := start(t, "run", "--config", cfg, "--out", out, "--quiet")
	job := waitSubmitted(t, p, "-val-")
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "slurm job cancelled") {
		t.Errorf("no job cancelled on SIGINT:\n%s", p.stderr.String())
	}
	dir := runDir(t, out)
	if left := queued(t, map[string]bool{job: true}); len(left) > 0 {
		t.Errorf("job %s still queued after SIGINT: %v", job, left)
	}
	if code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--quiet"); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	sameRun(t, dir, local)
	noJobsLeft(t, dir)
}
