package main

import (
	"bufio"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

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

// A kill -9 at any write of an eval, then --resume, gives the outputs of
// an eval never interrupted.
func TestEvalKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evolve several times")
	}
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n4\n5\n6\n7\n8\n"), 0o644)
	worse := worsePrompt(t, 20)
	args := []string{"eval", "--quiet", "--no-cache", "--seeds", seeds, "embedded", worse}
	log := filepath.Join(t.TempDir(), "points")
	ref := filepath.Join(t.TempDir(), "ref")
	if code, _, stderr := evolveProc(t, []string{atomicfile.FaultLogEnv + "=" + log}, append([]string{args[0], "--dir", ref}, args[1:]...)...); code != 0 {
		t.Fatalf("reference: exit %d\n%s", code, stderr)
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
	if n < 6 {
		t.Fatalf("only %d write points", n)
	}
	want := map[string][]byte{}
	for _, name := range []string{"episodes.parquet", "summary.parquet", "prompts/v1.0.0.yaml", "prompts/v1.0.1.yaml"} {
		want[name], _ = os.ReadFile(filepath.Join(ref, name))
	}
	// SIGINT while the first phase's checkpoint is written: exit 130,
	// then --resume completes it.
	{
		dir := filepath.Join(t.TempDir(), "eval")
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(afterPhase1), atomicfile.FaultActionEnv + "=sigint"},
			append([]string{args[0], "--dir", dir}, args[1:]...)...)
		if code != exitInterrupted || !strings.Contains(stderr, "evolve eval --resume "+dir) {
			t.Fatalf("SIGINT: exit %d, want %d naming how to resume\n%s", code, exitInterrupted, stderr)
		}
		if code, _, stderr := evolveProc(t, nil, "eval", "--quiet", "--no-cache", "--resume", dir); code != 0 {
			t.Fatalf("resume after SIGINT: exit %d\n%s", code, stderr)
		}
		for name, w := range want {
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != string(w) {
				t.Errorf("after SIGINT and --resume: %s differs", name)
			}
		}
		code, stdout, _ := evolveProc(t, nil, "eval", "--resume", dir)
		if code != 0 || !strings.Contains(stdout, "already finished") {
			t.Errorf("resume of a finished eval: exit %d, %q", code, stdout)
		}
	}
	for k := 1; k <= n; k++ {
		dir := filepath.Join(t.TempDir(), "eval")
		code, _, stderr := evolveProc(t, []string{atomicfile.FaultAtEnv + "=" + strconv.Itoa(k)}, append([]string{args[0], "--dir", dir}, args[1:]...)...)
		if code != -int(syscall.SIGKILL) {
			t.Fatalf("kill at write %d: exit %d\n%s", k, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "checkpoint.json")); err != nil {
			continue // killed before its first checkpoint: nothing to resume, start again
		}
		if code, _, stderr := evolveProc(t, nil, "eval", "--quiet", "--no-cache", "--resume", dir); code != 0 {
			t.Fatalf("resume after a kill at write %d: exit %d\n%s", k, code, stderr)
		}
		for name, w := range want {
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != string(w) {
				t.Errorf("kill at write %d: %s differs from the uninterrupted eval", k, name)
			}
		}
	}
}

// The shell steps of docs/ci.md run as written: main's baseline, then a
// pull request with the same prompt (passes, plays nothing), then one with
// a clearly worse prompt (exit 3, failed JUnit test case).
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
	if steps["main"] == "" || steps["pr"] == "" {
		t.Fatalf("docs/ci.md has no ci-step main and pr blocks: %v", steps)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	os.Mkdir(bin, 0o755)
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "evolve"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, "prompts"), 0o755)
	os.WriteFile(filepath.Join(repo, "prompts", "agent.yaml"), prompt.BaseYAML(), 0o644)
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
	if code, out := sh(steps["main"]); code != 0 {
		t.Fatalf("main step: exit %d\n%s", code, out)
	}
	os.Rename(filepath.Join(repo, "eval-main"), filepath.Join(repo, "baseline")) // the artifact, downloaded
	code, out := sh(steps["pr"])
	if code != 0 || !strings.Contains(out, "(0 played, 1000 from the cache)") {
		t.Fatalf("pull request with main's prompt: exit %d\n%s", code, out)
	}
	os.RemoveAll(filepath.Join(repo, "eval-pr"))
	data, _ := os.ReadFile(worsePrompt(t, 20))
	os.WriteFile(filepath.Join(repo, "prompts", "agent.yaml"), data, 0o644)
	code, out = sh(steps["pr"])
	if code != exitRegression {
		t.Fatalf("pull request with a worse prompt: exit %d, want %d\n%s", code, exitRegression, out)
	}
	if j := readJUnit(t, filepath.Join(repo, "junit.xml")); j.Failures != 1 {
		t.Errorf("JUnit after a regression: %+v", j)
	}
	if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "v1.0.1") {
		t.Errorf("step summary:\n%s", md)
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
			if !slices.Contains(tt.args, "--resume") {
				args = append(args, "--out", t.TempDir(), "embedded")
			}
			code, _, stderr := evolve(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, tt.code, stderr, tt.want)
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
