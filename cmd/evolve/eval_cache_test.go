package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"evolve/agent"
	"evolve/envs/nethack"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/results"
	"evolve/rundir"
	"evolve/trajectory"
)

// cacheEnv is one environment an eval plays cold, then from the outcome
// cache.
type cacheEnv struct {
	config string // the experiment config
	prompt string // the PROMPT argument
	// ext is the extension of every trajectory in the archive, and start
	// the beginning of each one's bytes, as the environment writes them.
	ext, start string
}

// dungeonCacheEnv is the built-in dungeon with its scripted agent, 3 val
// seeds, every trajectory kept.
func dungeonCacheEnv(t *testing.T, dir string) cacheEnv {
	seeds := llmSeeds(t, dir, 2, 3, 2)
	cfg := filepath.Join(dir, "dungeon.yaml")
	os.WriteFile(cfg, fmt.Appendf(nil, "name: dungeon-cache\nseeds: %s\ntrajectories: all\n", seeds), 0o644)
	return cacheEnv{config: cfg, prompt: "embedded", ext: ".json", start: `{"kind":"` + agent.DungeonRecordKind + `"`}
}

// TestEvalCacheEveryEnvironment: evolve eval on each built-in environment
// (the dungeon with the scripted agent and with a language model, real
// NetHack, the Python process example) plays its val seeds cold with one
// worker, then again with two workers from the outcome cache: the second
// eval reports every episode from the cache and plays none, and writes
// byte-identical episodes.parquet and trajectory archives, whose
// trajectories are each in the environment's own format (dungeon
// actions, an LLM transcript, asciicast v2, the process's JSON as it
// wrote it). NetHack's cold eval is also played with two workers and no
// cache, with the same bytes again. A cached trajectory damaged on disk
// is then a logged miss: its episode is played again and its entry
// rewritten as it was.
func TestEvalCacheEveryEnvironment(t *testing.T) {
	envsToTest := map[string]func(t *testing.T, dir string) cacheEnv{
		"dungeon": dungeonCacheEnv,
		"dungeon-llm": func(t *testing.T, dir string) cacheEnv {
			srv := llmtest.New(func(msgs []llm.Message) string { return "ACTION: explore" })
			t.Cleanup(srv.Close)
			seeds := llmSeeds(t, dir, 2, 3, 2)
			cfg := filepath.Join(dir, "llm.yaml")
			os.WriteFile(cfg, fmt.Appendf(nil, `name: llm-cache
seeds: %s
trajectories: all
agent:
  kind: llm
  llm: {base_url: %q, model: rule-bot, max_tokens: 16, seed: 3, concurrency: 2}
  cache_dir: %s
  max_turns: 20
`, seeds, srv.URL, filepath.Join(dir, "llm-cache")), 0o644)
			return cacheEnv{config: cfg, prompt: "embedded", ext: ".json", start: `{"kind":"` + trajectory.LLMTranscriptKind + `"`}
		},
		"nethack": func(t *testing.T, dir string) cacheEnv {
			if _, err := os.Stat(nethack.DefaultBinary); err != nil {
				t.Skipf("NetHack is not installed (apt-get install %s): %v", nethack.Package, err)
			}
			if _, err := exec.LookPath("cc"); err != nil && os.Getenv("CC") == "" {
				t.Skip("no C compiler (apt-get install gcc): NetHack's preload shim needs one")
			}
			seeds := llmSeeds(t, dir, 2, 3, 3)
			ex := filepath.Join("..", "..", "examples", "nethack")
			quick, err := os.ReadFile(filepath.Join(ex, "quick.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			base, _ := filepath.Abs(filepath.Join(ex, "base_prompt.yaml"))
			cfg := strings.Replace(string(quick), "seeds: seeds-quick/", "seeds: "+seeds+" #", 1)
			cfg = strings.Replace(cfg, "base_prompt: base_prompt.yaml", "base_prompt: "+base, 1)
			if cfg == string(quick) {
				t.Fatal("examples/nethack/quick.yaml has no seeds: seeds-quick/ line to replace")
			}
			path := filepath.Join(dir, "quick.yaml")
			os.WriteFile(path, []byte(cfg+"trajectories: all\n"), 0o644)
			return cacheEnv{config: path, prompt: base, ext: ".cast", start: `{"version": 2,`}
		},
		"python": func(t *testing.T, dir string) cacheEnv {
			python3(t)
			ex := copyExample(t)
			if code, _, stderr := evolve(t, "seeds", "new", "--train", "2", "--val", "3", "--test", "2", "--seed", "5", filepath.Join(ex, "s")); code != exitOK {
				t.Fatalf("seeds: %s", stderr)
			}
			cfg, err := os.ReadFile(filepath.Join(ex, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			c := strings.Replace(string(cfg), "seeds: seeds/", "seeds: s #", 1)
			if c == string(cfg) {
				t.Fatal("examples/python/config.yaml has no seeds: seeds/ line to replace")
			}
			os.WriteFile(filepath.Join(ex, "config.yaml"), []byte(c+"trajectories: all\n"), 0o644)
			return cacheEnv{config: filepath.Join(ex, "config.yaml"), prompt: filepath.Join(ex, "base_prompt.yaml"), ext: ".json", start: `[{"turn":`}
		},
	}
	for _, name := range []string{"dungeon", "dungeon-llm", "nethack", "python"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ce := envsToTest[name](t, dir)
			cacheDir := filepath.Join(dir, "cache")
			evalIn := func(out string, flags ...string) string {
				t.Helper()
				args := append([]string{"eval", "--config", ce.config, "--split", "val", "--dir", filepath.Join(dir, out)}, flags...)
				code, stdout, stderr := evolve(t, append(args, ce.prompt)...)
				if code != exitOK {
					t.Fatalf("eval %s: exit %d\n%s\n%s", out, code, stdout, stderr)
				}
				if strings.Contains(stderr, "refused") {
					t.Errorf("eval %s refused cache entries:\n%s", out, stderr)
				}
				return stdout + stderr
			}
			cold := evalIn("cold", "--cache", cacheDir, "--workers", "1", "--quiet")
			if p, c := playedCached(t, cold); p != 3 || c != 0 {
				t.Fatalf("cold eval: %d played, %d from the cache; want 3, 0", p, c)
			}
			outs := []string{"cold"}
			if name == "nethack" {
				if p, c := playedCached(t, evalIn("cold2", "--no-cache", "--workers", "2", "--quiet")); p != 3 || c != 0 {
					t.Fatalf("cold eval with 2 workers: %d played, %d from the cache; want 3, 0", p, c)
				}
				outs = append(outs, "cold2")
			}
			cached := evalIn("cached", "--cache", cacheDir, "--workers", "2")
			if p, c := playedCached(t, cached); p != 0 || c != 3 {
				t.Fatalf("cached eval: %d played, %d from the cache; want 0, 3", p, c)
			}
			if !strings.Contains(cached, "played=0 cached=3 cache_corrupt=0 cache_old_format=0 replayed_for_trajectory=0") {
				t.Errorf("the cached eval's log does not say it played nothing:\n%s", cached)
			}
			outs = append(outs, "cached")
			arch := filepath.Join("trajectories", "val", "v1.0.0.zip")
			for _, f := range []string{rundir.EpisodesFile, arch} {
				want, err := os.ReadFile(filepath.Join(dir, "cold", f))
				if err != nil || len(want) == 0 {
					t.Fatalf("cold eval wrote no %s: %v", f, err)
				}
				for _, o := range outs[1:] {
					if got, _ := os.ReadFile(filepath.Join(dir, o, f)); !bytes.Equal(got, want) {
						t.Errorf("%s of the %s eval differs from the cold eval's", f, o)
					}
				}
			}
			rows, _, err := results.ReadEpisodes(filepath.Join(dir, "cached", rundir.EpisodesFile))
			if err != nil || len(rows) != 3 {
				t.Fatalf("cached eval: %d episodes, %v; want 3", len(rows), err)
			}
			zr, err := zip.OpenReader(filepath.Join(dir, "cached", arch))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			if len(zr.File) != 3 {
				t.Fatalf("%d trajectories in the archive, want 3", len(zr.File))
			}
			for _, f := range zr.File {
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				b.ReadFrom(r)
				r.Close()
				format := "json"
				if ce.ext == ".cast" {
					format = "asciicast-v2"
				}
				if filepath.Ext(f.Name) != ce.ext || !strings.HasPrefix(b.String(), ce.start) {
					t.Errorf("trajectory %s starts %.60q, want %s starting %q", f.Name, b.String(), ce.ext, ce.start)
				} else if err := trajectory.Check(format, b.Bytes()); err != nil {
					t.Errorf("trajectory %s: %v", f.Name, err)
				}
			}
			reportCacheSize(t, cacheDir)

			// A damaged trajectory in the cache: a miss, logged, played
			// again, and its entry replaced by the one a cold eval writes.
			var entry string
			filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && entry == "" {
					entry = p
				}
				return err
			})
			good, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			bad := bytes.Clone(good)
			bad[len(bad)-2] ^= 0x20
			os.WriteFile(entry, bad, 0o644)
			code, stdout, stderr := evolve(t, "eval", "--config", ce.config, "--split", "val", "--dir", filepath.Join(dir, "damaged"), "--cache", cacheDir, ce.prompt)
			if code != exitOK {
				t.Fatalf("eval of a damaged cache: exit %d\n%s", code, stderr)
			}
			if p, c := playedCached(t, stdout); p != 1 || c != 2 {
				t.Errorf("eval of a damaged cache: %d played, %d from the cache; want 1, 2", p, c)
			}
			if !strings.Contains(stderr, "episode cache entry refused") || !strings.Contains(stderr, "trajectory checksum mismatch") || !strings.Contains(stderr, entry) {
				t.Errorf("the damaged entry is not logged:\n%s", stderr)
			}
			if got, _ := os.ReadFile(entry); !bytes.Equal(got, good) {
				t.Errorf("the damaged entry was not replaced by the episode's")
			}
			for _, f := range []string{rundir.EpisodesFile, arch} {
				want, _ := os.ReadFile(filepath.Join(dir, "cold", f))
				if got, _ := os.ReadFile(filepath.Join(dir, "damaged", f)); !bytes.Equal(got, want) {
					t.Errorf("%s after a damaged entry differs from the cold eval's", f)
				}
			}
		})
	}
}

// reportCacheSize logs the cache's size per entry.
func reportCacheSize(t *testing.T, dir string) {
	n, size := 0, int64(0)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, _ := d.Info()
			n, size = n+1, size+fi.Size()
		}
		return nil
	})
	if n > 0 {
		t.Logf("outcome cache: %d entries, %d bytes each on average", n, size/int64(n))
	}
}

// toFormat1 rewrites every entry of the outcome cache under dir as the
// evolve before format 2 wrote it: one line of JSON, a JSON trajectory
// spliced into the outcome, no "recorded". It fails t on an entry with a
// trajectory of another format, which format 1 could not hold.
func toFormat1(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		line, traj, _ := bytes.Cut(data, []byte("\n"))
		var e map[string]json.RawMessage
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		var o map[string]json.RawMessage
		json.Unmarshal(e["outcome"], &o)
		var ref struct{ Format string }
		json.Unmarshal(o["trajectory"], &ref)
		if len(traj) > 0 && ref.Format != "json" {
			t.Fatalf("%s: a %s trajectory, which format 1 cannot hold", p, ref.Format)
		}
		// The fields in format 1's order, the trajectory last.
		var ob bytes.Buffer
		ob.WriteString("{")
		for i, k := range []string{"seed", "score", "end_reason", "cause", "metrics", "error"} {
			if v, ok := o[k]; ok {
				if i > 0 {
					ob.WriteString(",")
				}
				fmt.Fprintf(&ob, "%q:%s", k, v)
			}
		}
		if len(traj) > 0 {
			fmt.Fprintf(&ob, `,"trajectory":%s`, traj)
		}
		ob.WriteString("}")
		sum := sha256.Sum256(ob.Bytes())
		v1 := fmt.Appendf(nil, `{"format":1,"key":%s,"outcome_sha256":"%x","outcome":%s}`+"\n", e["key"], sum, ob.Bytes())
		n++
		return os.WriteFile(p, v1, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The outcome cache and the trajectories policy: entries written before
// format 2 are read (and counted in the log), giving the same outputs;
// an eval whose policy keeps trajectories that the cached entries lack
// (cached under trajectories: failed or none) plays those episodes
// again, writes the archive a cold eval writes, and replaces the entries,
// so that the next eval takes every episode from the cache.
func TestEvalCacheTrajectoryPolicies(t *testing.T) {
	dir := t.TempDir()
	seeds := llmSeeds(t, dir, 2, 12, 2)
	config := func(policy string) string {
		p := filepath.Join(dir, policy+".yaml")
		// Reaching level 8 wins: about a third of the episodes fail.
		os.WriteFile(p, fmt.Appendf(nil, "name: policies\nseeds: %s\ntrajectories: %s\nenvironment:\n  name: dungeon\n  params: {max_depth: 8}\n", seeds, policy), 0o644)
		return p
	}
	cacheDir := filepath.Join(dir, "cache")
	evalIn := func(out, policy string, cache ...string) (played, cached int, log string) {
		t.Helper()
		if len(cache) == 0 {
			cache = []string{"--cache", cacheDir}
		}
		args := append([]string{"eval", "--config", config(policy), "--split", "val", "--dir", filepath.Join(dir, out)}, cache...)
		code, stdout, stderr := evolve(t, append(args, "embedded")...)
		if code != exitOK {
			t.Fatalf("eval %s: exit %d\n%s", out, code, stderr)
		}
		p, c := playedCached(t, stdout)
		return p, c, stderr
	}
	same := func(a, b, f string) {
		t.Helper()
		x, err := os.ReadFile(filepath.Join(dir, a, f))
		y, _ := os.ReadFile(filepath.Join(dir, b, f))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between evals %s and %s (%v)", f, a, b, err)
		}
	}
	arch := filepath.Join("trajectories", "val", "v1.0.0.zip")

	evalIn("failed-cold", "failed")
	// The same cache in the format of the evolve before: read, the same
	// outputs.
	if n := toFormat1(t, cacheDir); n != 12 {
		t.Fatalf("%d entries rewritten, want 12", n)
	}
	p, c, log := evalIn("failed-v1", "failed")
	if p != 0 || c != 12 || !strings.Contains(log, "cache_old_format=12") {
		t.Fatalf("eval of format-1 entries: %d played, %d cached; want 0, 12\n%s", p, c, log)
	}
	same("failed-cold", "failed-v1", rundir.EpisodesFile)
	same("failed-cold", "failed-v1", arch)

	// Under all, the successful episodes' trajectories are missing.
	infos, err := trajectory.List(filepath.Join(dir, "failed-cold"), trajectory.Phase{Split: "val", Version: "v1.0.0"})
	if err != nil || len(infos) == 0 || len(infos) == 12 {
		t.Fatalf("the failed policy kept %d of 12 trajectories (%v); the test wants some episodes to succeed and some to fail", len(infos), err)
	}
	missing := 12 - len(infos)
	evalIn("all-cold", "all", "--no-cache")
	p, c, log = evalIn("all", "all")
	if p != missing || c != 12-missing || !strings.Contains(log, fmt.Sprintf("replayed_for_trajectory=%d", missing)) {
		t.Fatalf("eval under all: %d played, %d cached; want %d, %d\n%s", p, c, missing, 12-missing, log)
	}
	same("all-cold", "all", rundir.EpisodesFile)
	same("all-cold", "all", arch)
	if p, c, _ := evalIn("all-again", "all"); p != 0 || c != 12 {
		t.Fatalf("eval under all again: %d played, %d cached; want 0, 12", p, c)
	}
	same("all-cold", "all-again", arch)

	// Entries cached under none hold no trajectory: all plays them all
	// again; failed takes them from the cache since they are recorded.
	os.RemoveAll(cacheDir)
	if p, c, _ := evalIn("none", "none"); p != 12 || c != 0 {
		t.Fatalf("eval under none: %d played, %d cached", p, c)
	}
	if _, err := os.Stat(filepath.Join(dir, "none", "trajectories")); !os.IsNotExist(err) {
		t.Errorf("an eval under none wrote trajectories: %v", err)
	}
	if p, c, _ := evalIn("failed-after-none", "failed"); p != 12-missing || c != missing {
		t.Fatalf("eval under failed after none: %d played, %d cached; want %d, %d", p, c, 12-missing, missing)
	}
	same("failed-cold", "failed-after-none", arch)
	same("failed-cold", "none", rundir.EpisodesFile)
}
