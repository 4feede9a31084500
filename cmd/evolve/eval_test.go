package main

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"evolve/internal/atomicfile"
	"evolve/params"
	"evolve/prompt"
	"evolve/results"
)

// evalDir returns the eval directory an eval's stdout names.
func evalDir(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`eval directory: (\S+) \((\d+) played, (\d+) from the cache\)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("stdout names no eval directory:\n%s", stdout)
	}
	return m[1]
}

// playedCached returns the counts an eval's stdout reports.
func playedCached(t *testing.T, stdout string) (int, int) {
	t.Helper()
	m := regexp.MustCompile(`\((\d+) played, (\d+) from the cache\)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no counts in:\n%s", stdout)
	}
	p, _ := strconv.Atoi(m[1])
	c, _ := strconv.Atoi(m[2])
	return p, c
}

// worsePrompt writes the base prompt with max_exploration_steps changed,
// as version v1.0.1 (step 20: clearly worse; 90: slightly worse).
func worsePrompt(t *testing.T, steps int) string {
	t.Helper()
	p := prompt.Base()
	p.Version = prompt.MustParseVersion("v1.0.1")
	p.PolicyParameters = p.PolicyParameters.With("max_exploration_steps", params.IntegerValue(steps))
	p.ContentSHA256 = ""
	data, err := prompt.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "worse.yaml")
	os.WriteFile(path, data, 0o644)
	return path
}

// `evolve eval --split test` of the embedded base prompt plays the test
// episodes of the default run's v1.0.0, seed by seed; a second identical
// eval plays nothing and writes byte-identical Parquet.
func TestEvalMatchesRunAndCaches(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the default run")
	}
	runs := t.TempDir()
	if code, _, stderr := evolve(t, "run", "--out", runs, "--quiet"); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(runDir(t, runs), "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]float64{}
	for _, e := range eps {
		if e.Split == results.SplitTest && e.Version == "v1.0.0" {
			want[e.Seed] = e.Score
		}
	}
	cacheDir, out := t.TempDir(), t.TempDir()
	code, stdout, stderr := evolve(t, "eval", "--quiet", "--cache", cacheDir, "--out", out, "--split", "test", "embedded")
	if code != exitOK {
		t.Fatalf("eval: exit %d\n%s", code, stderr)
	}
	dir := evalDir(t, stdout)
	got, _, err := results.ReadEpisodes(filepath.Join(dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1000 || len(want) != 1000 {
		t.Fatalf("eval %d episodes, run %d test episodes of v1.0.0; want 1000 each", len(got), len(want))
	}
	for _, e := range got {
		if w, ok := want[e.Seed]; !ok || w != e.Score {
			t.Fatalf("seed %d: eval score %v, run score %v (found %v)", e.Seed, e.Score, w, ok)
		}
	}
	if p, c := playedCached(t, stdout); p != 1000 || c != 0 {
		t.Errorf("first eval: %d played, %d cached", p, c)
	}
	code, stdout2, stderr := evolve(t, "eval", "--cache", cacheDir, "--out", out, "--split", "test", "embedded")
	if code != exitOK {
		t.Fatalf("second eval: exit %d\n%s", code, stderr)
	}
	if p, c := playedCached(t, stdout2); p != 0 || c != 1000 {
		t.Errorf("second eval: %d played, %d cached; want 0 and 1000", p, c)
	}
	if !strings.Contains(stderr, "played=0 cached=1000") {
		t.Errorf("the second eval's log does not say it played nothing:\n%s", stderr)
	}
	dir2 := evalDir(t, stdout2)
	for _, f := range []string{"episodes.parquet", "summary.parquet"} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(dir2, f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs between the two evals", f)
		}
	}
}

type junitSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j junitSuites
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return j
}

// The gate: a clearly worse version exits 3 with a failed JUnit test case;
// the same version as its own baseline passes; a version worse by less
// than the margin passes with --margin; the Markdown summary goes to
// $GITHUB_STEP_SUMMARY.
func TestEvalGate(t *testing.T) {
	cacheDir, out := t.TempDir(), t.TempDir()
	base := filepath.Join(t.TempDir(), "base")
	args := []string{"eval", "--quiet", "--cache", cacheDir, "--split", "val"}
	if code, _, stderr := evolve(t, append(args, "--dir", base, "embedded")...); code != exitOK {
		t.Fatalf("baseline: exit %d\n%s", code, stderr)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)

	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, stdout, stderr := evolve(t, append(args, "--out", out, "--baseline", base, "--fail-on-regression", "--junit", junit, worsePrompt(t, 20))...)
	if code != exitRegression || !strings.Contains(stderr, "regression: v1.0.1") {
		t.Fatalf("clearly worse: exit %d, want %d\n%s\n%s", code, exitRegression, stdout, stderr)
	}
	j := readJUnit(t, junit)
	if j.Tests != 1 || j.Failures != 1 || len(j.Suites) != 1 || j.Suites[0].Cases[0].Failure == nil ||
		!strings.Contains(j.Suites[0].Cases[0].Failure.Message, "baseline") {
		t.Errorf("JUnit: %+v", j)
	}
	if md, err := os.ReadFile(summary); err != nil || !strings.Contains(string(md), "v1.0.1") || !strings.Contains(string(md), "|") {
		t.Errorf("step summary: %q, %v", md, err)
	}

	code, _, stderr = evolve(t, append(args, "--out", out, "--baseline", base, "--fail-on-regression", "--junit", junit, "embedded")...)
	if code != exitOK {
		t.Errorf("the baseline against itself: exit %d\n%s", code, stderr)
	}
	if j := readJUnit(t, junit); j.Tests != 1 || j.Failures != 0 {
		t.Errorf("JUnit of a pass: %+v", j)
	}

	slightly := worsePrompt(t, 90)
	code, stdout, _ = evolve(t, append(args, "--out", out, "--baseline", base, "--json", slightly)...)
	if code != exitOK || !strings.Contains(stdout, `"regression"`) {
		t.Fatalf("slightly worse, --json: exit %d\n%s", code, stdout)
	}
	code, _, stderr = evolve(t, append(args, "--out", out, "--baseline", base, "--fail-on-regression", "--margin", "100", slightly)...)
	if code != exitOK {
		t.Errorf("worse by less than the margin: exit %d, want 0\n%s", code, stderr)
	}
}

// Repeats and variants: --repeats 2 plays each seed twice (repeat 0 is the
// seed itself), --set makes a variant per value, each with its rows.
func TestEvalRepeatsAndVariants(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("11\n12\n13\n14\n15\n"), 0o644)
	out := t.TempDir()
	code, stdout, stderr := evolve(t, "eval", "--quiet", "--no-cache", "--out", out, "--seeds", seeds, "--repeats", "2",
		"--set", "environment.params.max_turns=500,1500", "embedded")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows, _, err := results.ReadEpisodes(filepath.Join(evalDir(t, stdout), "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20 {
		t.Fatalf("%d episodes, want 5 seeds x 2 repeats x 2 variants", len(rows))
	}
	var variants []string
	for _, r := range rows {
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
		}
		if r.Repeat < 0 || r.Repeat > 1 || r.Seed < 11 || r.Seed > 15 {
			t.Errorf("row %+v", r)
		}
	}
	if strings.Join(variants, " ") != "max_turns=1500 max_turns=500" {
		t.Errorf("variants %v", variants)
	}
	for _, r := range rows {
		if r.Variant == "max_turns=500" && r.Repeat == 0 {
			turns := r.Metrics[1].Num
			if turns > 500 {
				t.Errorf("seed %d on max_turns=500 played %v turns", r.Seed, turns)
			}
		}
	}
}

// A kill -9 at any write of a gated eval (--fail-on-regression --junit,
// a version that regresses), then --resume (or, killed before the first
// checkpoint, the same command again), exits 3 as the uninterrupted eval
// does and leaves every file it leaves: the gate cannot be bypassed by a
// kill between the checkpoint and the outputs. A resume of the finished
// eval exits 3 again and writes the JUnit file again.
func TestEvalKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve several times")
	}
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n4\n5\n6\n7\n8\n"), 0o644)
	worse := worsePrompt(t, 20)
	// args is the command with DIR and JUNIT to fill in.
	args := func(dir, junit string) []string {
		return []string{"eval", "--quiet", "--no-cache", "--seeds", seeds, "--fail-on-regression", "--junit", junit, "--dir", dir, "embedded", worse}
	}
	log := filepath.Join(t.TempDir(), "points")
	ref, refJUnit := filepath.Join(t.TempDir(), "ref"), filepath.Join(t.TempDir(), "junit.xml")
	if code, _, stderr := evolveProc(t, []string{atomicfile.FaultLogEnv + "=" + log}, args(ref, refJUnit)...); code != exitRegression {
		t.Fatalf("reference: exit %d, want %d\n%s", code, exitRegression, stderr)
	}
	f, _ := os.Open(log)
	n, checkpoints, afterPhase1 := 0, 0, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
		if strings.HasSuffix(sc.Text(), "checkpoint.json") {
			if checkpoints++; checkpoints == 2 {
				afterPhase1 = n // the checkpoint of the first phase
			}
		}
	}
	f.Close()
	if n < 12 {
		t.Fatalf("only %d write points", n)
	}
	files := []string{"episodes.parquet", "summary.parquet", "comparisons.parquet", "prompts/v1.0.0.yaml", "prompts/v1.0.1.yaml",
		"report.md", "report.html", "results.tex", "plots/scores.svg", "plots/scores.png", "plots/scores.pdf"}
	want := map[string][]byte{}
	for _, name := range files {
		var err error
		if want[name], err = os.ReadFile(filepath.Join(ref, name)); err != nil {
			t.Fatalf("the uninterrupted eval wrote no %s", name)
		}
	}
	want["junit"], _ = os.ReadFile(refJUnit)
	// same checks that dir (and junit) hold what the uninterrupted eval wrote.
	same := func(when, dir, junit string) {
		t.Helper()
		for _, name := range files {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != string(want[name]) {
				t.Errorf("%s: %s differs from the uninterrupted eval's (%v)", when, name, err)
			}
		}
		if got, _ := os.ReadFile(junit); string(got) != string(want["junit"]) {
			t.Errorf("%s: the JUnit file differs from the uninterrupted eval's:\n%s", when, got)
		}
		if _, err := os.Stat(filepath.Join(dir, "manifest.yaml")); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	// SIGINT while the first phase's checkpoint is written: exit 130,
	// then --resume completes it; a resume of the finished eval exits 3
	// again and writes the JUnit file again.
	{
		dir, junit := filepath.Join(t.TempDir(), "eval"), filepath.Join(t.TempDir(), "junit.xml")
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(afterPhase1), atomicfile.FaultActionEnv + "=sigint"}, args(dir, junit)...)
		if code != exitInterrupted || !strings.Contains(stderr, "evolve eval --resume "+dir) || !strings.Contains(stderr, "with --no-cache the episodes of unfinished phases are played again") {
			t.Fatalf("SIGINT: exit %d, want %d naming how to resume (and that --no-cache keeps nothing)\n%s", code, exitInterrupted, stderr)
		}
		if code, _, stderr := evolveProc(t, nil, "eval", "--quiet", "--no-cache", "--resume", dir); code != exitRegression {
			t.Fatalf("resume after SIGINT: exit %d, want %d\n%s", code, exitRegression, stderr)
		}
		same("after SIGINT and --resume", dir, junit)
		os.Remove(junit)
		code, stdout, stderr := evolveProc(t, nil, "eval", "--resume", dir)
		if code != exitRegression || !strings.Contains(stderr, "had finished") || !strings.Contains(stdout, "REGRESSION") {
			t.Errorf("resume of a finished eval: exit %d, want %d\n%s\n%s", code, exitRegression, stdout, stderr)
		}
		same("resume of a finished eval", dir, junit)
		code, _, stderr = evolveProc(t, nil, "eval", "--resume", dir, "--margin", "1000")
		if code != exitFailure || !strings.Contains(stderr, "the resume gives") {
			t.Errorf("resume with another gate: exit %d\n%s", code, stderr)
		}
		code, _, stderr = evolveProc(t, nil, args(dir, junit)...)
		if code != exitFailure || !strings.Contains(stderr, "--resume "+dir) {
			t.Errorf("a plain rerun into a finished eval: exit %d\n%s", code, stderr)
		}
	}
	for k := 1; k <= n; k++ {
		dir, junit := filepath.Join(t.TempDir(), "eval"), filepath.Join(t.TempDir(), "junit.xml")
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(k)}, args(dir, junit)...)
		if code != -int(syscall.SIGKILL) {
			t.Fatalf("kill at write %d: exit %d\n%s", k, code, stderr)
		}
		again := []string{"eval", "--quiet", "--no-cache", "--resume", dir}
		if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err != nil {
			// Killed before its first checkpoint: --resume says to run the
			// command again, which takes the directory over.
			if code, _, stderr := evolveProc(t, nil, again...); code != exitFailure || !strings.Contains(stderr, "run the same evolve eval command again") {
				t.Errorf("--resume after a kill at write %d, before the first checkpoint: exit %d\n%s", k, code, stderr)
			}
			again = args(dir, junit)
		}
		if code, _, stderr := evolveProc(t, nil, again...); code != exitRegression {
			t.Fatalf("%v after a kill at write %d: exit %d, want %d\n%s", again, k, code, exitRegression, stderr)
		}
		same(fmt.Sprintf("kill at write %d", k), dir, junit)
	}
}

// The shell steps of docs/ci.md run as written, from prompt new to a
// failing gate and back: the editable prompt, main's baseline, a pull
// request with the same prompt (passes, plays nothing), the doc's edit
// that makes it worse (exit 3, failed JUnit test case), and the revert
// (passes again).
func TestCIWorkflow(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```sh ci-step (\\w+)\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		steps[m[1]] = m[2]
	}
	for _, name := range []string{"new", "main", "pr", "worse", "revert"} {
		if steps[name] == "" {
			t.Fatalf("docs/ci.md has no ci-step %s block: %v", name, steps)
		}
	}
	bin := filepath.Join(t.TempDir(), "bin")
	os.Mkdir(bin, 0o755)
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "evolve"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := t.TempDir()
	summary := filepath.Join(t.TempDir(), "summary.md")
	sh := func(script string) (int, string) {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary,
			"XDG_CACHE_HOME="+filepath.Join(repo, ".cache"), "HOME="+repo)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := sh(steps["new"]); code != 0 || !strings.Contains(out, "content_sha256 computed") {
		t.Fatalf("new step: exit %d\n%s", code, out)
	}
	if code, out := sh(steps["main"]); code != 0 {
		t.Fatalf("main step: exit %d\n%s", code, out)
	}
	os.Rename(filepath.Join(repo, "eval-main"), filepath.Join(repo, "baseline")) // the artifact, downloaded
	code, out := sh(steps["pr"])
	if code != 0 || !strings.Contains(out, "(0 played, 1000 from the cache)") {
		t.Fatalf("pull request with main's prompt: exit %d\n%s", code, out)
	}
	os.RemoveAll(filepath.Join(repo, "eval-pr"))
	before, _ := os.ReadFile(filepath.Join(repo, "prompts", "agent.yaml"))
	if code, out := sh(steps["worse"]); code != 0 {
		t.Fatalf("worse step: exit %d\n%s", code, out)
	}
	code, out = sh(steps["pr"])
	if code != exitRegression {
		t.Fatalf("pull request with a worse prompt: exit %d, want %d\n%s", code, exitRegression, out)
	}
	if j := readJUnit(t, filepath.Join(repo, "junit.xml")); j.Failures != 1 {
		t.Errorf("JUnit after a regression: %+v", j)
	}
	if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "regressed") {
		t.Errorf("step summary:\n%s", md)
	}
	os.RemoveAll(filepath.Join(repo, "eval-pr"))
	if code, out := sh(steps["revert"]); code != 0 {
		t.Fatalf("revert step: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(repo, "prompts", "agent.yaml")); string(after) != string(before) {
		t.Fatalf("the revert step does not restore the prompt")
	}
	if code, out := sh(steps["pr"]); code != 0 || !strings.Contains(out, "(0 played, 1000 from the cache)") {
		t.Fatalf("pull request after the revert: exit %d\n%s", code, out)
	}
	if j := readJUnit(t, filepath.Join(repo, "junit.xml")); j.Failures != 0 {
		t.Errorf("JUnit after the revert: %+v", j)
	}
}

// A baseline that is not comparable is refused, not compared; bad flag
// combinations are usage errors before anything is played.
func TestEvalRefusals(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n4\n5\n6\n"), 0o644)
	other := filepath.Join(t.TempDir(), "other.txt")
	os.WriteFile(other, []byte("7\n8\n9\n10\n11\n12\n"), 0o644)
	short := filepath.Join(t.TempDir(), "short.yaml")
	os.WriteFile(short, []byte("name: short\nenvironment:\n  name: dungeon\n  params: {max_turns: 1000}\n"), 0o644)
	base := filepath.Join(t.TempDir(), "base")
	if code, _, stderr := evolve(t, "eval", "--quiet", "--no-cache", "--seeds", seeds, "--dir", base, "embedded"); code != exitOK {
		t.Fatalf("baseline: %d %s", code, stderr)
	}
	runs := t.TempDir()
	os.MkdirAll(filepath.Join(runs, "r", "prompts"), 0o755)
	os.WriteFile(filepath.Join(runs, "r", "manifest.yaml"), []byte("run_id: r-1234567890\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"other environment config", []string{"--config", short, "--seeds", seeds, "--baseline", base}, exitFailure, "with another environment configuration"},
		{"other seeds", []string{"--seeds", other, "--baseline", base}, exitFailure, "played other seeds"},
		{"other repeats", []string{"--seeds", seeds, "--repeats", "2", "--baseline", base}, exitFailure, "played 1 repeat(s) per seed, this eval 2"},
		{"no such baseline version", []string{"--seeds", seeds, "--baseline", base, "--baseline-version", "v9.9.9"}, exitFailure, `has no version "v9.9.9"`},
		{"a baseline parquet without the seeds", []string{"--seeds", other, "--baseline", filepath.Join(base, "episodes.parquet")}, exitFailure, "did not play seed 7"},
		{"a run as baseline", []string{"--seeds", seeds, "--baseline", filepath.Join(runs, "r")}, exitFailure, "a run directory is not a baseline"},
		{"missing baseline", []string{"--seeds", seeds, "--baseline", "/no/such/eval"}, exitFailure, "--baseline"},
		{"seeds and split", []string{"--seeds", seeds, "--split", "val"}, exitUsage, "--split cannot be used with it"},
		{"bad test", []string{"--seeds", seeds, "--test", "foo"}, exitUsage, `unknown test "foo"`},
		{"negative margin", []string{"--seeds", seeds, "--margin", "-1"}, exitUsage, "--margin must be >= 0"},
		{"both margins", []string{"--seeds", seeds, "--margin", "1", "--margin-a12", "0.1"}, exitUsage, "cannot both be given"},
		{"version without baseline", []string{"--seeds", seeds, "--baseline-version", "v1.0.0"}, exitUsage, "give --baseline too"},
		{"negative workers", []string{"--seeds", seeds, "--workers", "-3"}, exitUsage, "--workers must be >= 0"},
		{"cache and no-cache", []string{"--seeds", seeds, "--cache", t.TempDir(), "--no-cache"}, exitUsage, "cannot both be given"},
		{"resume with repeats", []string{"--resume", base, "--repeats", "2"}, exitUsage, "--repeats cannot be used with --resume"},
		{"resume of a run", []string{"--resume", filepath.Join(runs, "r")}, exitFailure, "not a resumable eval directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"eval", "--quiet", "--no-cache"}, tt.args...)
			out := t.TempDir()
			if !slices.Contains(tt.args, "--resume") {
				args = append(args, "--out", out, "embedded")
			}
			code, _, stderr := evolve(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, tt.code, stderr, tt.want)
			}
			// Refused before anything is played: no eval directory.
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Errorf("an eval directory was made (%s): the refusal came after playing", ents[0].Name())
			}
		})
	}
}

// Episodes played before Ctrl-C are in the cache: the resume replays them.
func TestEvalInterruptKeepsPlayed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve")
	}
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), 0o644)
	log := filepath.Join(t.TempDir(), "points")
	ref := filepath.Join(t.TempDir(), "ref")
	if code, _, stderr := evolveProc(t, []string{atomicfile.FaultLogEnv + "=" + log}, "eval", "--quiet", "--cache", t.TempDir(), "--seeds", seeds, "--dir", ref, "embedded"); code != 0 {
		t.Fatalf("reference: %d\n%s", code, stderr)
	}
	data, _ := os.ReadFile(log)
	at, entries := 0, 0
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasSuffix(l, ".json") && !strings.HasSuffix(l, "checkpoint.json") {
			if entries++; entries == 4 {
				at = i + 1 // the fourth cache entry: three are written
			}
		}
	}
	if at == 0 {
		t.Fatalf("no cache writes among the points:\n%s", data)
	}
	cacheDir, dir := t.TempDir(), filepath.Join(t.TempDir(), "eval")
	code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(at), atomicfile.FaultActionEnv + "=sigint"},
		"eval", "--quiet", "--workers", "1", "--cache", cacheDir, "--seeds", seeds, "--dir", dir, "embedded")
	if code != exitInterrupted || !strings.Contains(stderr, "--resume "+dir+" --cache="+cacheDir) {
		t.Fatalf("SIGINT: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := evolveProc(t, nil, "eval", "--quiet", "--cache", cacheDir, "--resume", dir)
	if code != 0 {
		t.Fatalf("resume: %d\n%s", code, stderr)
	}
	if _, cached := playedCached(t, stdout); cached < 3 {
		t.Errorf("the resume replayed %d episodes from the cache, want the 3 or more played before the signal:\n%s", cached, stdout)
	}
	a, _ := os.ReadFile(filepath.Join(ref, "episodes.parquet"))
	b, _ := os.ReadFile(filepath.Join(dir, "episodes.parquet"))
	if string(a) != string(b) {
		t.Error("the resumed eval's episodes.parquet differs from an uninterrupted one")
	}
}

// A clear improvement is reported as one (stdout, report.md and
// comparisons.parquet, with both one-sided p-values), not as "p = 1, ok";
// every comparison is a row of comparisons.parquet.
func TestEvalImprovement(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	var lines strings.Builder
	for s := 1; s <= 300; s++ {
		fmt.Fprintf(&lines, "%d\n", s)
	}
	os.WriteFile(seeds, []byte(lines.String()), 0o644)
	dir := filepath.Join(t.TempDir(), "eval")
	worse := worsePrompt(t, 20)
	code, stdout, stderr := evolve(t, "eval", "--quiet", "--no-cache", "--seeds", seeds, "--dir", dir, "--fail-on-regression", worse, "embedded")
	if code != exitOK || !strings.Contains(stdout, "IMPROVEMENT") || !strings.Contains(stdout, "No regression; 1 of 1 comparison improved.") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows, err := results.ReadComparisons(filepath.Join(dir, "comparisons.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d comparison rows, want 1", len(rows))
	}
	r := rows[0]
	if r.Version != "v1.0.0" || r.Baseline != "v1.0.1" || r.Verdict != results.VerdictImprovement || !(r.PBetter < 0.05) || !(r.PWorse > 0.5) ||
		r.N != 300 || r.NPaired != 300 || !(r.MeanDiff > 0) || !(r.A12 > 0.5) {
		t.Errorf("comparison row %+v", r)
	}
	if code, out, errs := evolve(t, "validate", dir); code != exitOK || !strings.Contains(out, "ok (eval directory: 2 prompt versions verified") {
		t.Errorf("validate EVAL_DIR: exit %d\n%s%s", code, out, errs)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "| improvement |") || !strings.Contains(string(md), "p better (adj.)") {
		t.Errorf("report.md:\n%s", md)
	}
}

// report.html of an eval with a regression renders in headless Chromium:
// tables and the figure drawn, the verdict's red mark drawn by CSS (no
// emoji, whose glyph depends on the fonts installed), no raw Markdown. It
// skips when Chromium is not installed (.ci/run installs it).
func TestEvalHTMLInChromium(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium on PATH (apt-get install chromium)")
	}
	dir := filepath.Join(t.TempDir(), "eval")
	if code, _, stderr := evolve(t, "eval", "--quiet", "--no-cache", "--split", "val", "--dir", dir, "embedded", worsePrompt(t, 20)); code != exitOK {
		t.Fatalf("eval: exit %d\n%s", code, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, raw := range []string{"**", "![", "✅", "❌"} {
		if strings.Contains(string(page), raw) {
			t.Errorf("report.html holds %q", raw)
		}
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--screenshot="+shot, "--window-size=1400,3000", "file://"+filepath.Join(dir, "report.html"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count non-white pixels and those of the regression mark (#d62728).
	var red, ink int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 250 || g < 250 || bl < 250 {
				ink++
			}
			if r > 190 && g < 70 && bl < 70 {
				red++
			}
		}
	}
	if ink < 20000 || red < 30 {
		t.Errorf("screenshot %dx%d: %d inked and %d red pixels; want the tables and figure drawn (>= 20000) and the regression mark (>= 30)", b.Dx(), b.Dy(), ink, red)
	}
}
