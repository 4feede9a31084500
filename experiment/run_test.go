package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"evolve/store"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"evolve/agent"
	"evolve/prompt"
	"evolve/results"
	"evolve/stats"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

// defaultRuns runs the embedded default experiment once with 2 workers and
// once with 1, sharing the result among the tests of this file.
var defaultRuns = map[int]*Result{}

func defaultRun(t *testing.T, workers int) *Result {
	t.Helper()
	if testing.Short() {
		t.Skip("the default run takes several seconds")
	}
	if r := defaultRuns[workers]; r != nil {
		return r
	}
	res, err := Run(context.Background(), DefaultConfig(), Options{
		Out: t.TempDir(), Workers: workers, Now: fixedNow, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	// keep the directory for the other tests: copy nothing, just don't
	// let TempDir's cleanup of this test remove it
	keep := filepath.Join(os.TempDir(), fmt.Sprintf("evolve-default-run-w%d-%d", workers, os.Getpid()))
	if err := os.Rename(res.Dir, keep); err != nil {
		t.Fatal(err)
	}
	res.Dir = keep
	defaultRuns[workers] = res
	return res
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, r := range defaultRuns {
		os.RemoveAll(r.Dir)
	}
	os.Exit(code)
}

// The default run shows what the product promises: at least two accepted
// mutations with p < 0.05, and a final version better than v1.0.0 on the
// test split.
func TestDefaultRunImproves(t *testing.T) {
	res := defaultRun(t, 2)
	accepted := 0
	for _, c := range res.Candidates {
		if c.Accepted {
			if c.P >= 0.05 || c.PAdj >= 0.05 {
				t.Errorf("generation %d accepted %s with p=%v, p_adj=%v", c.Generation, c.Version, c.P, c.PAdj)
			}
			accepted++
		}
	}
	if accepted < 2 {
		t.Errorf("accepted %d mutations, want >= 2", accepted)
	}
	if res.Final == res.Base || !(res.TestFinal.Mean > res.TestBase.Mean) {
		t.Errorf("test split: final %s mean %.1f, base %s mean %.1f: want the final above the base",
			res.Final, res.TestFinal.Mean, res.Base, res.TestBase.Mean)
	}
	if res.TestFinal.N != 1000 || res.TestBase.N != 1000 {
		t.Errorf("test n = %d, %d, want 1000", res.TestFinal.N, res.TestBase.N)
	}
	t.Logf("%d generations, %d accepted; test mean %.1f -> %.1f", len(res.Generations), accepted, res.TestBase.Mean, res.TestFinal.Mean)
}

// With the base parameters every failure cause occurs on the val split
// and none is more than 70% of the failures.
func TestBaseFailureMixOnVal(t *testing.T) {
	res := defaultRun(t, 2)
	eps, _, err := results.ReadEpisodes(filepath.Join(res.Dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	n, fails := 0, 0
	for _, e := range eps {
		if e.Split != results.SplitVal || e.Version != "v1.0.0" {
			continue
		}
		n++
		counts[e.Cause]++
		if e.Cause != "none" {
			fails++
		}
	}
	if n != 300 {
		t.Fatalf("base val episodes = %d, want 300", n)
	}
	for _, c := range agent.DungeonInfo().CauseNames() {
		share := float64(counts[c]) / float64(fails)
		t.Logf("%-12s %3d (%.0f%% of failures)", c, counts[c], 100*share)
		if counts[c] == 0 {
			t.Errorf("cause %s never occurs on val with the base parameters", c)
		}
		if share > 0.70 {
			t.Errorf("cause %s is %.0f%% of failures, want <= 70%%", c, 100*share)
		}
	}
}

// --workers 1 and --workers 2 write byte-identical Parquet and prompt
// files.
func TestWorkersByteIdentical(t *testing.T) {
	a, b := defaultRun(t, 2), defaultRun(t, 1)
	if filepath.Base(a.Dir) == "" || a.RunID != b.RunID {
		t.Fatalf("run IDs differ: %s, %s", a.RunID, b.RunID)
	}
	files := func(dir string) map[string]string {
		m := map[string]string{}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if strings.HasSuffix(rel, ".parquet") || strings.HasSuffix(rel, ".yaml") && strings.HasPrefix(rel, "prompts/") {
				data, _ := os.ReadFile(p)
				sum := sha256.Sum256(data)
				m[rel] = hex.EncodeToString(sum[:])
			}
			return nil
		})
		return m
	}
	fa, fb := files(a.Dir), files(b.Dir)
	if len(fa) < 5 {
		t.Fatalf("only %d files compared", len(fa))
	}
	var names []string
	for n := range fa {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if fa[n] != fb[n] {
			t.Errorf("%s differs between --workers 2 and --workers 1", n)
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("file sets differ: %d vs %d files", len(fa), len(fb))
	}
}

// The run's prompt store holds every candidate, each loadable and
// verified, with the accepted chain's evidence in its history.
func TestRunPromptStore(t *testing.T) {
	res := defaultRun(t, 2)
	st, err := store.OpenStore(filepath.Join(res.Dir, "prompts"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + len(res.Candidates)
	if len(list) != want {
		t.Fatalf("store has %d versions, want %d", len(list), want)
	}
	cur, err := st.Head(prompt.DefaultSlug, prompt.MainBranch)
	if err != nil || cur.String() != res.Final {
		t.Fatalf("HEAD = %v (%v), want %s", cur, err, res.Final)
	}
	// The chain of main is the accepted versions, newest first.
	g, err := st.Graph()
	if err != nil {
		t.Fatal(err)
	}
	wantChain := []string{res.Base}
	for _, gen := range res.Generations {
		if gen.Accepted != "" {
			wantChain = append([]string{gen.Accepted}, wantChain...)
		}
	}
	if got := fmt.Sprint(g.Chain(prompt.DefaultSlug, prompt.MainBranch)); got != fmt.Sprint(wantChain) {
		t.Errorf("main chain = %s, want %v", got, wantChain)
	}
	final, err := st.Load(prompt.DefaultSlug, cur)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range final.MutationHistory {
		if rec.Evidence == nil || !rec.Evidence.Accepted || rec.Evidence.PValue >= 0.05 {
			t.Errorf("history record %s: evidence %+v, want accepted with p < 0.05", rec.Version, rec.Evidence)
		}
	}
	for _, vi := range list {
		if _, err := st.Load(vi.Slug, vi.Version); err != nil {
			t.Errorf("Load(%s): %v", vi.Version, err)
		}
	}
}

// A tiny experiment from a custom seed directory; a second run of the same
// config gets the same run ID in a new directory.
func TestRunSmallConfigAndRerun(t *testing.T) {
	seedDir := t.TempDir()
	writeSeeds(t, seedDir, map[string][]uint64{
		"train": {1, 2, 3, 4, 5, 6, 7, 8},
		"val":   {11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
		"test":  {21, 22, 23, 24, 25},
	})
	out := t.TempDir()
	cfgYAML := fmt.Sprintf("name: tiny\nseeds: %s\nmax_generations: 2\nmutation:\n  candidates: 2\noutput: %s\n", seedDir, out)
	cfg, err := Parse("tiny.yaml", []byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Run(context.Background(), cfg, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(context.Background(), cfg, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if r1.RunID != r2.RunID || !strings.HasPrefix(r1.RunID, "tiny-") {
		t.Errorf("run IDs %q, %q: want equal, starting tiny-", r1.RunID, r2.RunID)
	}
	if r2.Dir != r1.Dir+".2" {
		t.Errorf("second run dir %q, want %q", r2.Dir, r1.Dir+".2")
	}
	for _, f := range []string{"manifest.yaml", "episodes.parquet", "candidates.parquet", "generations.parquet",
		"plots/val_by_generation.png", "plots/candidates.svg", "prompts/versions.json", "prompts/dungeon-agent/v1.0.0.yaml"} {
		if _, err := os.Stat(filepath.Join(r1.Dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	a, _ := os.ReadFile(filepath.Join(r1.Dir, "episodes.parquet"))
	b, _ := os.ReadFile(filepath.Join(r2.Dir, "episodes.parquet"))
	if !bytes.Equal(a, b) {
		t.Error("two runs of one config wrote different episodes.parquet")
	}
	eps, _, _ := results.ReadEpisodes(filepath.Join(r1.Dir, "episodes.parquet"))
	if len(eps) == 0 || eps[0].Run != r1.RunID {
		t.Errorf("episodes run column = %q, want %q", eps[0].Run, r1.RunID)
	}
}

// A changed seed file is refused before anything runs.
func TestRunRefusesChangedSeeds(t *testing.T) {
	seedDir := t.TempDir()
	writeSeeds(t, seedDir, map[string][]uint64{"train": {1}, "val": {2}, "test": {3}})
	os.WriteFile(filepath.Join(seedDir, "val.txt"), []byte("2\n99\n"), 0o644)
	cfg, err := Parse("x.yaml", []byte("seeds: "+seedDir+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), cfg, Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "val.txt: sha256 is") {
		t.Fatalf("err = %v, want a val.txt hash mismatch", err)
	}
}

func writeSeeds(t *testing.T, dir string, splits map[string][]uint64) {
	t.Helper()
	var sums strings.Builder
	for _, name := range []string{"train", "val", "test"} {
		var b strings.Builder
		for _, s := range splits[name] {
			fmt.Fprintf(&b, "%d\n", s)
		}
		data := []byte(b.String())
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s.txt\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunSignedRank runs one generation under the paired gate and checks
// that candidates.parquet records the signed-rank test, recomputed here
// from the episodes paired by val seed.
func TestRunSignedRank(t *testing.T) {
	cfg, err := Parse("sr.yaml", []byte("name: sr\nmax_generations: 1\nacceptance:\n  test: signed-rank\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(res.Dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	val := map[string]map[uint64]float64{}
	for _, e := range eps {
		if e.Generation == 0 && e.Split == results.SplitVal {
			if val[e.Version] == nil {
				val[e.Version] = map[uint64]float64{}
			}
			val[e.Version][e.Seed] = float64(e.Score)
		}
	}
	cands, err := results.ReadCandidates(filepath.Join(res.Dir, "candidates.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	for _, c := range cands {
		var x, y []float64
		for seed, s := range val["v1.0.0"] {
			x, y = append(x, val[c.Version][seed]), append(y, s)
		}
		want, err := stats.WilcoxonSignedRank(x, y, stats.SignedRankOptions{Alternative: stats.Greater})
		if err != nil {
			t.Fatal(err)
		}
		if c.Test != "signed-rank" || c.V == nil || *c.V != want.TPlus || math.Abs(c.P-want.P) > 1e-12 {
			t.Errorf("%s: test %q V %v p %v, want signed-rank V %v p %v", c.Version, c.Test, c.V, c.P, want.TPlus, want.P)
		}
	}
	y, err := os.ReadFile(filepath.Join(res.Dir, "prompts", prompt.DefaultSlug, cands[0].Version+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "test: wilcoxon-signed-rank") {
		t.Errorf("%s evidence does not name the signed-rank test:\n%s", cands[0].Version, y)
	}
}

// A base prompt an agent cannot play as it is (it inherits, or has no
// policy parameters) is refused before anything runs, naming the file.
func TestRunRefusesUnplayableBase(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"version: v1.0.0\nslug: child\ninherits_from: dungeon-agent\nsections: {style: Terse.}\n",
			"prompt child@v1.0.0 inherits from dungeon-agent: an agent plays a resolved prompt"},
		{"version: v1.0.0\nslug: words\nsections: {style: Terse.}\n", "prompt words@v1.0.0 has no policy_parameters: an agent needs them"},
	} {
		file := filepath.Join(t.TempDir(), "base.yaml")
		os.WriteFile(file, []byte(tc.doc), 0o644)
		cfg, err := Parse("x.yaml", []byte("base_prompt: "+file+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		_, err = Run(context.Background(), cfg, Options{Out: out})
		if err == nil || !strings.Contains(err.Error(), "base prompt "+file+": "+tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("a refused run wrote %v", entries)
		}
	}
}

// TestRunFromEvolvedBase: a base prompt evolved by an earlier run (its
// mutation history names a parent that this run's store does not hold)
// runs; the proposer treats it as having no parent in this run.
func TestRunFromEvolvedBase(t *testing.T) {
	prev := defaultRun(t, 2)
	file := filepath.Join(prev.Dir, "prompts", prompt.DefaultSlug, prev.Final+".yaml")
	cfg, err := Parse("x.yaml", []byte("name: again\nmax_generations: 1\nbase_prompt: "+file+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
	if err != nil {
		t.Fatalf("a run from %s: %v", prev.Final, err)
	}
	if res.Base != prev.Final || len(res.Generations) != 1 || res.Generations[0].NCandidates == 0 {
		t.Fatalf("base %s, %d generations; want base %s and one generation with candidates", res.Base, len(res.Generations), prev.Final)
	}
}
