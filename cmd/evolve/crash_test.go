package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"

	"evolve/internal/atomicfile"
)

// crashSeeds writes a small seed directory (the first train, val and test
// seeds of the embedded sets) with its SHA256SUMS, so that one run of the
// crash tests takes about a second.
func crashSeeds(t *testing.T, train, val, test int) string {
	t.Helper()
	dir := t.TempDir()
	var sums strings.Builder
	for _, s := range []struct {
		file string
		n    int
	}{{"train.txt", train}, {"val.txt", val}, {"test.txt", test}} {
		data, err := os.ReadFile(filepath.Join("..", "..", "seeds", s.file))
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") && len(keep) < s.n {
				keep = append(keep, l)
			}
		}
		body := []byte(strings.Join(keep, "\n") + "\n")
		if err := os.WriteFile(filepath.Join(dir, s.file), body, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), s.file)
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// crashConfig is a run of one generation (an accepted candidate, so every
// kind of write happens: versions, the supersedes edge, tables,
// checkpoints, plots, manifest, report) over small seed sets.
func crashConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crash.yaml")
	cfg := fmt.Sprintf("name: crash\nseeds: %s\nmax_generations: 1\nmutation:\n  candidates: 2\n", crashSeeds(t, 60, 120, 150))
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// evolveProc runs the test binary as evolve with extra environment
// variables and returns its exit status (-signal if killed) and output.
func evolveProc(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "EVOLVE_TEST_MAIN=1", "SOURCE_DATE_EPOCH=1790000000"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal()), out.String(), errb.String()
		}
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// writePoints runs the config once, uninterrupted, and returns the write
// points it passed (see atomicfile.FaultLogEnv), by number, each the path
// relative to the run directory.
func writePoints(t *testing.T, cfg, out string) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "points.log")
	if code, _, stderr := evolveProc(t, []string{atomicfile.FaultLogEnv + "=" + log}, "run", "--config", cfg, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := runDir(t, out)
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n, path, _ := strings.Cut(sc.Text(), "\t")
		if n != strconv.Itoa(len(points)+1) {
			t.Fatalf("points log: line %q out of order", sc.Text())
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			rel = path
		}
		points = append(points, rel)
	}
	return points
}

// timestamp matches the UTC times the report prints.
var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// runFiles returns every file of a run directory by relative path. The
// lock is left out; checkpoint.json and manifest.yaml are returned without
// what records when and in how many sessions the run ran (start and end
// times, sessions, host), and the report with its times masked, which is
// all that may differ between a run never interrupted and one interrupted
// and resumed.
func runFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch rel {
		case "report.md", "report.html":
			data = timestamp.ReplaceAll(data, []byte("TIME")) // the run's start and end
		case "run.lock":
			return nil
		case "checkpoint.json":
			var ck map[string]any
			if err := json.Unmarshal(data, &ck); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			delete(ck, "started")
			delete(ck, "finished")
			delete(ck, "sessions")
			data, _ = json.Marshal(ck)
		case "manifest.yaml":
			var mf map[string]any
			if err := yaml.Unmarshal(data, &mf); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for _, k := range []string{"started", "finished", "sessions", "host"} {
				delete(mf, k)
			}
			data, _ = yaml.Marshal(mf)
		}
		m[rel] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameFiles reports every file that differs, is missing or is extra.
func sameFiles(want, got map[string][]byte) []string {
	var diffs []string
	for n, w := range want {
		g, ok := got[n]
		switch {
		case !ok:
			diffs = append(diffs, n+" is missing")
		case !bytes.Equal(w, g):
			diffs = append(diffs, n+" differs")
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			diffs = append(diffs, n+" is extra")
		}
	}
	sort.Strings(diffs)
	return diffs
}

type manifestSessions struct {
	Started  string `yaml:"started"`
	Sessions []struct {
		Started        string `yaml:"started"`
		FromGeneration int    `yaml:"from_generation"`
		AtGeneration   int    `yaml:"at_generation"`
		End            string `yaml:"end"`
	} `yaml:"sessions"`
}

func readManifest(t *testing.T, dir string) manifestSessions {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifestSessions
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCrashAtEveryWrite kills a small run (SIGKILL, through the fault hook
// of internal/atomicfile) at each of its file-system writes in turn, then
// continues it as a retry loop would: --resume, also when the process died
// in its first checkpoint write, which takes over the stillborn directory
// as a plain rerun does (TestResumeStillborn). Every file of the run directory must then equal
// the uninterrupted run's (checkpoint and manifest without their times).
func TestCrashAtEveryWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve about 100 times")
	}
	cfg := crashConfig(t)
	refOut := t.TempDir()
	points := writePoints(t, cfg, refOut)
	if len(points) < 30 {
		t.Fatalf("the run passed only %d write points: %v", len(points), points)
	}
	t.Logf("%d write points", len(points))
	want := runFiles(t, runDir(t, refOut))

	var mu sync.Mutex
	kinds := map[string]bool{}
	for n := 1; n <= len(points); n++ {
		t.Run(fmt.Sprintf("%02d_%s", n, strings.ReplaceAll(points[n-1], "/", "_")), func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(n)},
				"run", "--config", cfg, "--out", out, "--quiet")
			if code != -int(syscall.SIGKILL) {
				t.Fatalf("the run was to be killed at write %d (%s): exit %d\n%s", n, points[n-1], code, stderr)
			}
			dir := runDir(t, out)
			var how string
			if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err == nil {
				how = "resume"
				code, _, stderr = evolveProc(t, nil, "run", "--resume", dir, "--quiet")
			} else {
				// Killed in its first checkpoint write: a retry loop that
				// only calls --resume must take the directory over.
				how = "resume of a stillborn directory"
				code, _, stderr = evolveProc(t, nil, "run", "--resume", dir, "--quiet")
			}
			if code != 0 {
				t.Fatalf("%s after a kill at write %d (%s): exit %d\n%s", how, n, points[n-1], code, stderr)
			}
			if d := runDir(t, out); d != dir {
				t.Fatalf("%s made a second run directory %s", how, d)
			}
			if diffs := sameFiles(want, runFiles(t, dir)); len(diffs) > 0 {
				t.Errorf("%s after a kill at write %d (%s): %s", how, n, points[n-1], strings.Join(diffs, "; "))
			}
			m := readManifest(t, dir)
			if how != "" {
				if len(m.Sessions) != 2 || m.Sessions[0].End != "crash" || m.Sessions[1].End != "finished" || m.Sessions[0].Started != m.Started {
					t.Errorf("manifest: started %s, sessions %+v; want the first session's start, a crash and a finished session", m.Started, m.Sessions)
				}
			}
			mu.Lock()
			kinds[how] = true
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		if !kinds["resume"] || !kinds["resume of a stillborn directory"] {
			t.Errorf("continued by %v; want both a resume and a resume of a stillborn directory among the kill points", kinds)
		}
	})
}

// SIGINT while the report is written exits 130 and leaves a run that is
// not finished; its resume writes the outputs of a run never interrupted,
// and the manifest records the interruption.
func TestSIGINTDuringReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	cfg := crashConfig(t)
	refOut := t.TempDir()
	points := writePoints(t, cfg, refOut)
	want := runFiles(t, runDir(t, refOut))
	n := slicesIndex(points, "report.md")
	if n < 0 {
		t.Fatalf("the run never wrote report.md: %v", points)
	}
	out := t.TempDir()
	code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(n+1), atomicfile.FaultActionEnv + "=sigint"},
		"run", "--config", cfg, "--out", out, "--quiet")
	if code != exitInterrupted {
		t.Fatalf("SIGINT while writing the report: exit %d, want %d\n%s", code, exitInterrupted, stderr)
	}
	dir := runDir(t, out)
	if !strings.Contains(stderr, "evolve run --resume "+dir) {
		t.Errorf("stderr does not say how to resume:\n%s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ck struct {
		Done     bool `json:"done"`
		Sessions []struct {
			End string `json:"end"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(data, &ck); err != nil || ck.Done || len(ck.Sessions) != 1 || ck.Sessions[0].End != "SIGINT" {
		t.Fatalf("checkpoint after SIGINT: %s (%v); want not done and one session ended by SIGINT", data, err)
	}
	if code, _, stderr := evolveProc(t, nil, "run", "--resume", dir, "--quiet"); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if diffs := sameFiles(want, runFiles(t, dir)); len(diffs) > 0 {
		t.Errorf("after SIGINT in the report and a resume: %s", strings.Join(diffs, "; "))
	}
	m := readManifest(t, dir)
	if len(m.Sessions) != 2 || m.Sessions[0].End != "SIGINT" || m.Sessions[0].AtGeneration != 1 ||
		m.Sessions[1].FromGeneration != 1 || m.Sessions[1].End != "finished" {
		t.Errorf("manifest sessions %+v; want one ended by SIGINT at generation 1, then one finished", m.Sessions)
	}

	// Resuming the finished run again is a success that says so.
	code, stdout, _ := evolveProc(t, nil, "run", "--resume", dir)
	if code != 0 || !strings.Contains(stdout, "has already finished") {
		t.Errorf("resume of a finished run: exit %d, stdout %q; want 0 and a word that it finished", code, stdout)
	}
}

// Resume refuses a run directory whose committed version files or
// checkpoint cannot be trusted, naming the file, and changes nothing.
func TestResumeVerifies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	cfg := crashConfig(t)
	ref := t.TempDir()
	points := writePoints(t, cfg, ref)
	// Kill the run just before its final exports: every version is
	// committed and the checkpoint counts the generation.
	n := slicesIndex(points, "plots/val_by_generation.png")
	if n < 0 {
		t.Fatalf("no plot write among %v", points)
	}
	killed := func(t *testing.T) string {
		out := t.TempDir()
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(n+1)}, "run", "--config", cfg, "--out", out, "--quiet")
		if code != -int(syscall.SIGKILL) {
			t.Fatalf("exit %d, want a kill\n%s", code, stderr)
		}
		return runDir(t, out)
	}
	t.Run("truncated candidate", func(t *testing.T) {
		dir := killed(t)
		// v1.1.0 is a rejected candidate: not the incumbent, not HEAD.
		path := filepath.Join(dir, "prompts", "dungeon-agent", "v1.1.0.yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, data[:len(data)/2], 0o444); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := evolveProc(t, nil, "run", "--resume", dir)
		if code != exitFailure || !strings.Contains(stderr, path) || !strings.Contains(stderr, "hash mismatch") {
			t.Errorf("exit %d, stderr %q; want %d naming %s and its hash mismatch", code, stderr, exitFailure, path)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
			t.Error("the refused resume wrote a report")
		}
	})
	t.Run("checkpoint incumbent", func(t *testing.T) {
		dir := killed(t)
		path := filepath.Join(dir, "checkpoint.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(data, []byte(`"incumbent": "v1.0.1"`), []byte(`"incumbent": "v1.1.0"`), 1)
		if bytes.Equal(edited, data) {
			t.Fatalf("checkpoint has no incumbent v1.0.1:\n%s", data)
		}
		os.WriteFile(path, edited, 0o644)
		code, _, stderr := evolveProc(t, nil, "run", "--resume", dir)
		if code != exitFailure || !strings.Contains(stderr, "says the incumbent is v1.1.0 but the prompt store's HEAD of dungeon-agent@main is v1.0.1") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

func slicesIndex(points []string, name string) int {
	for i, p := range points {
		if p == name {
			return i
		}
	}
	return -1
}
