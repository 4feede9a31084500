package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the evolve command: tests re-exec
// it with EVOLVE_TEST_MAIN=1 to get a real process they can signal.
func TestMain(m *testing.M) {
	if os.Getenv("EVOLVE_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Stdout, os.Stderr, os.Args[1:]))
	}
	os.Exit(m.Run())
}

const resumeConfig = "name: resume\nmax_generations: 3\nmutation:\n  candidates: 2\n"

// proc is an evolve subprocess whose stderr log is watched.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	lines  chan string
	stderr bytes.Buffer
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{lines: make(chan string, 1000)}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), "EVOLVE_TEST_MAIN=1", "SOURCE_DATE_EPOCH=1790000000")
	p.cmd.Stdout = &p.stdout
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.stderr.WriteString(sc.Text() + "\n")
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

// waitFor blocks until a stderr line contains s.
func (p *proc) waitFor(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("process ended before logging %q", s)
			}
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %q", s)
		}
	}
}

// wait drains the log and returns the exit status.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	for range p.lines {
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func writeConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "resume.yaml")
	if err := os.WriteFile(path, []byte(resumeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runDir returns the only run directory under out.
func runDir(t *testing.T, out string) string {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one run directory in %s, got %v (%v)", out, ents, err)
	}
	return filepath.Join(out, ents[0].Name())
}

// outputs returns the files that must not depend on interruptions: the
// Parquet tables, the prompt versions and the store index.
func outputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, pat := range []string{"*.parquet", "prompts/*/*.yaml", "prompts/versions.json"} {
		files, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, f)
			m[rel] = data
		}
	}
	return m
}

func sameOutputs(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 6 {
		t.Fatalf("reference has only %d output files", len(names))
	}
	for _, n := range names {
		if !bytes.Equal(want[n], got[n]) {
			t.Errorf("%s differs from the uninterrupted run", n)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s exists only in the resumed run", n)
		}
	}
}

// table is the summary table of a run's stdout, without the lines naming
// the run directory and the report.
func table(stdout string) string {
	var keep []string
	for _, l := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(l, "run directory:") && !strings.HasPrefix(l, "report:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var reference struct {
	outputs map[string][]byte
	table   string
}

func referenceRun(t *testing.T, cfg string) (map[string][]byte, string) {
	t.Helper()
	if reference.outputs == nil {
		out := t.TempDir()
		p := start(t, "run", "--config", cfg, "--out", out, "--workers", "2")
		if code := p.wait(t); code != 0 {
			t.Fatalf("reference run: exit %d\n%s", code, p.stderr.String())
		}
		reference.outputs = outputs(t, runDir(t, out))
		reference.table = table(p.stdout.String())
	}
	return reference.outputs, reference.table
}

// Killing a run with SIGKILL at several points and resuming it gives the
// outputs of a run never interrupted.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve several times")
	}
	cfg := writeConfig(t)
	want, wantTable := referenceRun(t, cfg)
	points := []struct{ name, line string }{
		{"during train", `msg="phase started" gen=1 split=train`},
		{"during val", `msg="phase started" gen=1 split=val`},
		{"between generations", `msg="generation done" gen=0`},
		{"during test", `split=test`},
		{"during base val", `msg="phase started" gen=0 split=val version=v1.0.0`},
	}
	for _, pt := range points {
		t.Run(pt.name, func(t *testing.T) {
			out := t.TempDir()
			p := start(t, "run", "--config", cfg, "--out", out, "--workers", "2", "--verbose")
			p.waitFor(t, pt.line)
			p.cmd.Process.Kill()
			if code := p.wait(t); code != -int(syscall.SIGKILL) {
				t.Logf("process ended with %d before the kill landed", code)
			}
			dir := runDir(t, out)
			r := start(t, "run", "--resume", dir, "--workers", "1")
			if code := r.wait(t); code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
			}
			if !strings.Contains(r.stderr.String(), `msg="resuming run"`) {
				t.Errorf("resume did not log that it resumed:\n%s", r.stderr.String())
			}
			sameOutputs(t, want, outputs(t, dir))
			if got := table(r.stdout.String()); got != wantTable {
				t.Errorf("summary differs:\n got: %s\nwant: %s", got, wantTable)
			}
		})
	}
}

// SIGINT and SIGTERM stop the run with 130 and 143, leave a checkpoint
// and print how to resume; the resumed run completes identically.
func TestInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve several times")
	}
	cfg := writeConfig(t)
	want, _ := referenceRun(t, cfg)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			out := t.TempDir()
			p := start(t, "run", "--config", cfg, "--out", out, "--workers", "2", "--verbose")
			p.waitFor(t, `msg="phase started" gen=1 split=val`)
			p.cmd.Process.Signal(tc.sig)
			if code := p.wait(t); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, p.stderr.String())
			}
			dir := runDir(t, out)
			if !strings.Contains(p.stderr.String(), "evolve run --resume "+dir) {
				t.Errorf("stderr does not say how to resume:\n%s", p.stderr.String())
			}
			var ck struct {
				Generations int  `json:"generations"`
				Done        bool `json:"done"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "checkpoint.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &ck); err != nil || ck.Generations != 1 || ck.Done {
				t.Fatalf("checkpoint %s: %+v (%v), want 1 generation, not done", data, ck, err)
			}
			r := start(t, "run", "--resume", dir)
			if code := r.wait(t); code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
			}
			sameOutputs(t, want, outputs(t, dir))
		})
	}
}

// A second SIGINT exits at once; the directory is still resumable.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	cfg := writeConfig(t)
	out := t.TempDir()
	p := start(t, "run", "--config", cfg, "--out", out, "--verbose")
	p.waitFor(t, `msg="phase started" gen=1 split=train`)
	p.cmd.Process.Signal(syscall.SIGINT)
	p.waitFor(t, "stopping after in-flight episodes")
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	r := start(t, "run", "--resume", runDir(t, out))
	if code := r.wait(t); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
	}
}

// Resuming refuses a changed config or seed file and names the change; a
// finished run is a success with nothing to do; a locked directory is
// refused.
func TestResumeRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	cfg := writeConfig(t)
	out := t.TempDir()
	p := start(t, "run", "--config", cfg, "--out", out, "--verbose")
	p.waitFor(t, `msg="generation done" gen=0`)
	p.cmd.Process.Kill()
	p.wait(t)
	dir := runDir(t, out)

	changed := filepath.Join(t.TempDir(), "changed.yaml")
	os.WriteFile(changed, []byte(resumeConfig+"acceptance:\n  alpha: 0.01\n"), 0o644)
	code, _, stderr := evolve(t, "run", "--resume", dir, "--config", changed)
	if code != exitFailure || !strings.Contains(stderr, "the config differs from the one it was started with: acceptance.alpha: 0.05 → 0.01") {
		t.Errorf("changed config: exit %d, stderr %q", code, stderr)
	}

	// A run whose seeds are a directory: change a seed file under it.
	seedDir := t.TempDir()
	for _, f := range []string{"train.txt", "val.txt", "test.txt", "SHA256SUMS"} {
		data, _ := os.ReadFile(filepath.Join("..", "..", "seeds", f))
		os.WriteFile(filepath.Join(seedDir, f), data, 0o644)
	}
	cfg2 := filepath.Join(t.TempDir(), "seeded.yaml")
	os.WriteFile(cfg2, []byte(resumeConfig+"seeds: "+seedDir+"\n"), 0o644)
	out2 := t.TempDir()
	p = start(t, "run", "--config", cfg2, "--out", out2, "--verbose")
	p.waitFor(t, `msg="generation done" gen=0`)
	p.cmd.Process.Kill()
	p.wait(t)
	val, _ := os.ReadFile(filepath.Join(seedDir, "val.txt"))
	os.WriteFile(filepath.Join(seedDir, "val.txt"), append(val, []byte("12345\n")...), 0o644)
	code, _, stderr = evolve(t, "run", "--resume", runDir(t, out2))
	if code != exitFailure || !strings.Contains(stderr, "val.txt: sha256 is") {
		t.Errorf("changed seeds: exit %d, stderr %q", code, stderr)
	}

	// Locked by a live process.
	p = start(t, "run", "--resume", dir, "--verbose")
	p.waitFor(t, `msg="resuming run"`)
	code, _, stderr = evolve(t, "run", "--resume", dir)
	if code != exitFailure || !strings.Contains(stderr, "is in use by another evolve process") {
		t.Errorf("locked: exit %d, stderr %q", code, stderr)
	}
	if c := p.wait(t); c != 0 {
		t.Fatalf("resume: exit %d\n%s", c, p.stderr.String())
	}
	code, stdout, stderr := evolve(t, "run", "--resume", dir)
	if code != exitOK || !strings.Contains(stdout, "has already finished; nothing to resume") {
		t.Errorf("finished: exit %d, stdout %q, stderr %q; want 0 and a word that it finished", code, stdout, stderr)
	}
	code, _, stderr = evolve(t, "run", "--resume", t.TempDir())
	if code != exitFailure || !strings.Contains(stderr, "is not a resumable run directory") {
		t.Errorf("not a run: exit %d, stderr %q", code, stderr)
	}
}
