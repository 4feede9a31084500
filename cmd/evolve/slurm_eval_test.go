package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"evolve/llm/llmtest"
	"evolve/prompt"
)

// evalFiles returns the files of an eval directory that must not depend
// on where it was played: everything but the manifest, the checkpoint,
// the lock and the Slurm phase directories (report.md and report.html
// have no times).
func evalFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case rel == "manifest.yaml", rel == "checkpoint.json", rel == "eval.lock", strings.HasPrefix(rel, "slurm/"):
			return nil
		}
		data, err := os.ReadFile(path)
		m[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameEval fails t unless the eval directories got and want hold the same
// tables, report, plots and prompts, byte for byte.
func sameEval(t *testing.T, got, want string) {
	t.Helper()
	g, w := evalFiles(t, got), evalFiles(t, want)
	for name, data := range w {
		if other, ok := g[name]; !ok {
			t.Errorf("the Slurm eval lacks %s", name)
		} else if !bytes.Equal(other, data) {
			t.Errorf("%s differs from the local eval's", name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("the Slurm eval has %s, the local eval does not", name)
		}
	}
	for _, f := range []string{"episodes.parquet", "summary.parquet", "comparisons.parquet", "report.md"} {
		if _, ok := w[f]; !ok {
			t.Errorf("the local eval has no %s to compare", f)
		}
	}
}

// slurmEvalVersions writes a second version (a rule added) and
// returns the eval's PROMPT arguments: the embedded base and it.
func slurmEvalVersions(t *testing.T) []string {
	t.Helper()
	p := prompt.Base().Clone()
	p.Version = prompt.MustParseVersion("v1.1.0")
	p.RulesConstraints = append(p.RulesConstraints, "Rest before a fight.")
	data, err := prompt.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.1.0.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"embedded", path}
}

// evolve eval --executor slurm writes the local eval's tables, report and
// plots byte for byte; the outcome cache is filled as a local eval fills
// it (a local eval after it plays nothing, and a Slurm eval after a local
// one submits no job); the manifest lists the jobs. It logs both wall
// times.
func TestSlurmEvalMatchesLocal(t *testing.T) {
	useSlurm(t)
	versions := slurmEvalVersions(t)
	seeds := crashSeeds(t, 10, 10, 400)
	extra := "name: slurmeval\nseeds: " + seeds + "\nvariants:\n  - {name: short, params: {max_turns: 1000}}\n  - {name: long, params: {max_turns: 3000}}\n"
	localCfg := filepath.Join(t.TempDir(), "local.yaml")
	os.WriteFile(localCfg, []byte(extra), 0o644)
	slurmCfg := slurmConfig(t, extra, "  array_size: 8\n")
	args := func(cfg, dir string, more ...string) []string {
		return append(append([]string{"eval", "--config", cfg, "--dir", dir, "--quiet"}, more...), versions...)
	}

	local := filepath.Join(t.TempDir(), "local")
	start := time.Now()
	if code, stdout, stderr := evolveProc(t, nil, args(localCfg, local, "--no-cache")...); code != 0 {
		t.Fatalf("local eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	localTime := time.Since(start)
	onSlurm := filepath.Join(t.TempDir(), "slurm")
	start = time.Now()
	code, stdout, stderr := evolveProc(t, nil, args(slurmCfg, onSlurm, "--no-cache")...)
	if code != 0 {
		t.Fatalf("Slurm eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("wall time of an eval of 2 versions × 2 variants × 400 seeds: local %v, Slurm (8 shards a phase) %v", localTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	sameEval(t, onSlurm, local)
	kind, jobs := slurmManifest(t, onSlurm)
	if kind != "slurm" || len(jobs) != 4 {
		t.Fatalf("manifest executor %q with %d jobs, want slurm and one job per phase (4)", kind, len(jobs))
	}
	noJobsLeft(t, onSlurm)

	// The outcome cache: a Slurm eval fills it, a local eval then plays
	// nothing; a Slurm eval after that submits nothing.
	cache := filepath.Join(t.TempDir(), "cache")
	filled := filepath.Join(t.TempDir(), "filled")
	// --executor slurm on the local config: the tasks run this binary.
	if code, stdout, stderr := evolveProc(t, nil, args(localCfg, filled, "--cache", cache, "--executor", "slurm")...); code != 0 || !strings.Contains(stdout, "(1600 played, 0 from the cache)") {
		t.Fatalf("Slurm eval with a cache: exit %d, want all 1600 played\n%s\n%s", code, stdout, stderr)
	}
	if kind, jobs := slurmManifest(t, filled); kind != "slurm" || len(jobs) != 4 {
		t.Errorf("--executor slurm: manifest executor %q with %d jobs, want slurm and 4", kind, len(jobs))
	}
	sameEval(t, filled, local)
	again := filepath.Join(t.TempDir(), "again")
	if code, stdout, stderr := evolveProc(t, nil, args(localCfg, again, "--cache", cache)...); code != 0 || !strings.Contains(stdout, "(0 played, 1600 from the cache)") {
		t.Fatalf("local eval after the Slurm eval: exit %d, want every episode from the cache\n%s\n%s", code, stdout, stderr)
	}
	sameEval(t, again, local)
	cached := filepath.Join(t.TempDir(), "cached")
	if code, stdout, stderr := evolveProc(t, nil, args(slurmCfg, cached, "--cache", cache)...); code != 0 || !strings.Contains(stdout, "(0 played, 1600 from the cache)") {
		t.Fatalf("Slurm eval from the cache: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if ids := runJobs(t, cached); len(ids) != 0 {
		t.Errorf("a Slurm eval whose outcomes are all cached submitted jobs %v", ids)
	}
	sameEval(t, cached, local)
}

// An eval controller killed with SIGKILL while its tasks run is resumed
// with --resume: it re-attaches to its jobs or reuses their shards, writes
// the local eval's outputs and leaves no job in squeue. The executor is
// the one the eval started with (the checkpoint records it).
func TestSlurmEvalKilledControllerResumes(t *testing.T) {
	useSlurm(t)
	versions := slurmEvalVersions(t)
	extra := "name: slurmevalkill\nseeds: " + crashSeeds(t, 10, 10, 120) + "\n"
	localCfg := filepath.Join(t.TempDir(), "local.yaml")
	os.WriteFile(localCfg, []byte(extra), 0o644)
	local := filepath.Join(t.TempDir(), "local")
	if code, _, stderr := evolveProc(t, nil, append([]string{"eval", "--config", localCfg, "--dir", local, "--quiet", "--no-cache"}, versions...)...); code != 0 {
		t.Fatalf("local eval: exit %d\n%s", code, stderr)
	}
	cfg := slurmConfig(t, extra, "  array_size: 6\n  max_parallel: 1\n")
	dir := filepath.Join(t.TempDir(), "slurm")
	p := start(t, append([]string{"eval", "--config", cfg, "--dir", dir, "--quiet", "--no-cache"}, versions...)...)
	waitSubmitted(t, p, "g000-test-v1.1.0")
	p.cmd.Process.Kill()
	p.wait(t)
	r := start(t, "eval", "--resume", dir, "--quiet", "--no-cache")
	if code := r.wait(t); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "slurm job re-attached") {
		t.Errorf("the resume re-attached to no job:\n%s", r.stderr.String())
	}
	sameEval(t, dir, local)
	noJobsLeft(t, dir)
}

// Real NetHack on Slurm: an eval of 12 seeds in 4 shards, in a directory
// given relative to the working directory, writes the local eval's
// tables, and each task built the game's preload shim in the node's own
// cache directory (EVOLVE_CACHE_DIR unset).
func TestSlurmEvalNetHack(t *testing.T) {
	useSlurm(t)
	const binary = "/usr/lib/games/nethack/nethack-console"
	if _, err := os.Stat(binary); err != nil {
		t.Skipf("NetHack is not installed (%v): apt-get install nethack-console", err)
	}
	if os.Getenv("EVOLVE_CACHE_DIR") != "" {
		t.Setenv("EVOLVE_CACHE_DIR", "") // the tasks choose the node's own
	}
	dir := t.TempDir()
	var seeds []string
	for i := range 12 {
		seeds = append(seeds, strconv.Itoa(1000+7*i))
	}
	seedFile := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seedFile, []byte(strings.Join(seeds, "\n")+"\n"), 0o644)
	extra := "name: nh-slurm\nenvironment:\n  name: nethack\n  params: {max_turns: 400, no_progress_turns: 200, stall_seconds: 10}\n"
	localCfg := filepath.Join(dir, "local.yaml")
	os.WriteFile(localCfg, []byte(extra), 0o644)
	slurmCfg := slurmConfig(t, extra, "  array_size: 4\n")
	base, err := filepath.Abs(filepath.Join("..", "..", "examples", "nethack", "base_prompt.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local")
	if code, _, stderr := evolveProc(t, nil, "eval", "--config", localCfg, "--seeds", seedFile, "--dir", local, "--quiet", "--no-cache", base); code != 0 {
		t.Fatalf("local eval: exit %d\n%s", code, stderr)
	}
	// A relative --dir: the tasks are given the phase directories' absolute
	// paths.
	t.Chdir(dir)
	onSlurm := filepath.Join(dir, "slurm")
	if code, _, stderr := evolveProc(t, nil, "eval", "--config", slurmCfg, "--seeds", seedFile, "--dir", "slurm", "--quiet", "--no-cache", base); code != 0 {
		t.Fatalf("Slurm eval: exit %d\n%s", code, stderr)
	}
	sameEval(t, onSlurm, local)
	node := filepath.Join(os.TempDir(), fmt.Sprintf("evolve-cache-%d", os.Getuid()), "nethack")
	if shims, _ := filepath.Glob(filepath.Join(node, "*", "shim.so")); len(shims) == 0 {
		t.Errorf("no preload shim in the node's cache %s", node)
	}
	noJobsLeft(t, onSlurm)
}

// A language-model eval on Slurm: the tasks reach the model and the
// response cache at agent.cache_dir, in the eval's cache mode. After a
// local eval, a Slurm eval with --llm-cache read sends no request and
// writes the local tables; one whose config says cache: off writes no
// cache entry.
func TestSlurmEvalLLM(t *testing.T) {
	useSlurm(t)
	srv := llmtest.New(spottyModel(7))
	defer srv.Close()
	dir := t.TempDir()
	seeds := llmSeeds(t, dir, 2, 2, 8)
	config := func(name, cache, agentKeys, executor string) string {
		path := filepath.Join(dir, name)
		data := fmt.Sprintf("name: slurmllm\nseeds: %s\nagent:\n  kind: llm\n  llm: {base_url: %q, model: spotty, max_tokens: 16, concurrency: 4}\n  cache_dir: %s\n  max_turns: 30\n  max_fallback_rate: 1\n%s%s",
			seeds, srv.URL, cache, agentKeys, executor)
		os.WriteFile(path, []byte(data), 0o644)
		return path
	}
	onSlurm := fmt.Sprintf("executor:\n  kind: slurm\n  array_size: 4\n  poll_interval: 200ms\n  command: [%q]\n", os.Args[0])
	cache := filepath.Join(dir, "llm-cache")
	versions := slurmEvalVersions(t)
	eval := func(cfg, out string, more ...string) {
		t.Helper()
		args := append(append([]string{"eval", "--config", cfg, "--dir", out, "--quiet", "--no-cache"}, more...), versions...)
		if code, stdout, stderr := evolveProc(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	local := filepath.Join(dir, "local")
	eval(config("local.yaml", cache, "", ""), local)
	sent := srv.Requests()
	if sent == 0 {
		t.Fatal("the local eval sent no request")
	}
	replay := filepath.Join(dir, "replay")
	eval(config("slurm.yaml", cache, "", onSlurm), replay, "--llm-cache", "read")
	if n := srv.Requests() - sent; n != 0 {
		t.Errorf("the Slurm eval with --llm-cache read sent %d requests", n)
	}
	sameEval(t, replay, local)
	if kind, jobs := slurmManifest(t, replay); kind != "slurm" || len(jobs) != 2 {
		t.Errorf("manifest executor %q with %d jobs, want slurm and 2", kind, len(jobs))
	}
	off := filepath.Join(dir, "off-cache")
	played := filepath.Join(dir, "played")
	eval(config("off.yaml", off, "  cache: off\n", onSlurm), played)
	if srv.Requests() == sent {
		t.Errorf("the Slurm eval with cache: off sent no request")
	}
	if n := files(off); n != 0 {
		t.Errorf("the tasks of a cache: off eval wrote %d files to its response cache", n)
	}
	sameEval(t, played, local)
	noJobsLeft(t, played)
}

// A language-model run on Slurm whose config says agent.cache: off: its
// tasks send their requests and write nothing to the response cache (the
// resolved config they read leaves the cache's mode out; phase.json
// carries it).
func TestSlurmRunLLMCacheOff(t *testing.T) {
	useSlurm(t)
	srv := llmtest.New(spottyModel(1 << 30))
	defer srv.Close()
	dir := t.TempDir()
	cfg := alarmConfig(t, dir, srv.URL, "  cache: off\n",
		fmt.Sprintf("executor:\n  kind: slurm\n  array_size: 2\n  poll_interval: 200ms\n  command: [%q]\n", os.Args[0]))
	out := t.TempDir()
	if code, stdout, stderr := evolveProc(t, nil, "run", "--config", cfg, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if srv.Requests() == 0 {
		t.Fatal("the run sent no request")
	}
	if n := files(filepath.Join(dir, "llm-cache")); n != 0 {
		t.Errorf("the tasks of a cache: off run wrote %d files to the response cache", n)
	}
	noJobsLeft(t, runDir(t, out))
}
