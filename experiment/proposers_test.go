package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"evolve/mutate"
	"evolve/results"
	"evolve/rundir"
)

// smallSeeds writes train 8, val 10 and test 5 seeds and returns their
// directory.
func smallSeeds(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeSeeds(t, dir, map[string][]uint64{
		"train": {1, 2, 3, 4, 5, 6, 7, 8},
		"val":   {11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
		"test":  {21, 22, 23, 24, 25},
	})
	return dir
}

func readManifest(t *testing.T, dir string) rundir.RunManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.RunManifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The default proposer and no budget add nothing to the run ID, written
// out or not; another proposer or a budget makes another ID.
func TestProposerAndBudgetIdentity(t *testing.T) {
	ids := map[string]string{}
	for _, tc := range []struct{ name, yml string }{
		{"bare", ""},
		{"explicit", "mutation: {proposer: failure}\nbudget: {episodes: 0}\n"},
		{"random", "mutation: {proposer: random}\n"},
		{"cmaes", "mutation: {proposer: cmaes}\n"},
		{"budget", "budget: {episodes: 100000}\n"},
	} {
		c, err := Parse("id.yaml", []byte("name: default\n"+tc.yml))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		in, err := c.Check("")
		if err != nil {
			t.Fatal(err)
		}
		if ids[tc.name], err = contentID(c, in.Seeds, in.Base); err != nil {
			t.Fatal(err)
		}
	}
	if ids["bare"] != "default-1275011f00" || ids["explicit"] != ids["bare"] {
		t.Errorf("default IDs %s (bare), %s (explicit): want both default-1275011f00", ids["bare"], ids["explicit"])
	}
	for _, k := range []string{"random", "cmaes", "budget"} {
		if ids[k] == ids["bare"] {
			t.Errorf("%s has the default run's ID %s", k, ids[k])
		}
	}
}

// Bad proposers and budgets are refused naming the field and value.
func TestProposerAndBudgetErrors(t *testing.T) {
	for _, tc := range []struct{ yml, want string }{
		{"mutation: {proposer: bayes}\n", `"bayes" is not one of failure, random, cmaes`},
		{"mutation: {proposer: cmaes, candidates: 1}\n", "cmaes needs candidates >= 2"},
		{"budget: {episodes: -1}\n", "budget.episodes: -1 is negative"},
		{"budget: {episods: 5}\n", "episods"},
	} {
		_, err := Parse("bad.yaml", []byte(tc.yml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml") {
			t.Errorf("%q: err = %v, want one naming bad.yaml and %q", tc.yml, err, tc.want)
		}
	}
	cfg, err := Parse("small.yaml", []byte(fmt.Sprintf("seeds: %s\nbudget: {episodes: 47}\nmutation: {candidates: 3}\n", smallSeeds(t))))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = Run(context.Background(), cfg, Options{Out: out, Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), "budget.episodes: 47 is less than the 48") {
		t.Errorf("err = %v, want budget.episodes 47 refused (48 needed)", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("a refused run made %d entries in its output directory", len(ents))
	}
}

// A random and a CMA-ES run complete on the dungeon: every generation
// proposes mutation.candidates candidates by the proposer, the tables
// and the manifest name it, the episode counts are exact, and a second
// run of the config writes the same candidates.parquet.
func TestRunBaselineProposers(t *testing.T) {
	if testing.Short() {
		t.Skip("plays four small runs")
	}
	seedDir := smallSeeds(t)
	for _, name := range []string{mutate.ProposerRandom, mutate.ProposerCMAES} {
		t.Run(name, func(t *testing.T) {
			yml := fmt.Sprintf("name: %s\nseeds: %s\nmax_generations: 3\npatience: 3\nmutation: {proposer: %s, candidates: 3}\n", name, seedDir, name)
			cfg, err := Parse(name+".yaml", []byte(yml))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			perGen := map[int32]int{}
			for _, c := range res.Candidates {
				perGen[c.Generation]++
				if c.Proposer != name || c.Operator != name {
					t.Errorf("candidate %s: proposer %q operator %q, want %q", c.Version, c.Proposer, c.Operator, name)
				}
			}
			if len(res.Generations) == 0 {
				t.Fatal("no generation")
			}
			for _, g := range res.Generations {
				if perGen[g.Generation] != 3 {
					t.Errorf("generation %d: %d candidates, want 3", g.Generation, perGen[g.Generation])
				}
				// base val 10, then per generation 8 train + 3 x 10 val
				if want := int64(10 + 38*(g.Generation+1)); g.EpisodesUsed != want {
					t.Errorf("generation %d: episodes_used %d, want %d", g.Generation, g.EpisodesUsed, want)
				}
			}
			cands, err := results.ReadCandidates(filepath.Join(res.Dir, "candidates.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) != len(res.Candidates) || cands[0].Proposer != name {
				t.Errorf("candidates.parquet: %d rows, proposer %q; want %d rows by %s", len(cands), cands[0].Proposer, len(res.Candidates), name)
			}
			m := readManifest(t, res.Dir)
			n := len(res.Generations)
			want := rundir.EpisodeCounts{Train: 8 * n, Val: 10 + 30*n, Budgeted: 8*n + 10 + 30*n}
			want.Test = m.Episodes.Test
			if m.Proposer != name || m.Episodes != want || (m.Episodes.Test != 5 && m.Episodes.Test != 10) {
				t.Errorf("manifest proposer %q episodes %+v, want %s, %+v (test 5 or 10)", m.Proposer, m.Episodes, name, want)
			}
			again, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"candidates.parquet", "generations.parquet"} {
				a, _ := os.ReadFile(filepath.Join(res.Dir, f))
				b, _ := os.ReadFile(filepath.Join(again.Dir, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("two runs of one %s config wrote different %s", name, f)
				}
			}
		})
	}
}

// A CMA-ES run interrupted in generation 1 and resumed replays the
// recorded history and ends with the Parquet files of a run never
// interrupted.
func TestRunCMAESResume(t *testing.T) {
	if testing.Short() {
		t.Skip("plays three small runs")
	}
	yml := fmt.Sprintf("name: cmr\nseeds: %s\nmax_generations: 3\npatience: 3\nmutation: {proposer: cmaes, candidates: 3}\n", smallSeeds(t))
	cfg, err := Parse("cmr.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Generations) < 3 {
		t.Fatalf("%d generations, want 3 (a resume after generation 1 replays one)", len(whole.Generations))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Run(ctx, cfg, Options{Out: t.TempDir(), Now: fixedNow, Observer: &cancelAt{gen: 2, n: 1, cancel: cancel}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Generations != 2 {
		t.Fatalf("err = %v, want an interruption after 2 generations", err)
	}
	cfg2, _ := Parse("cmr.yaml", []byte(yml))
	resumed, err := Resume(context.Background(), ie.Dir, cfg2, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"episodes.parquet", "candidates.parquet", "generations.parquet"} {
		a, _ := os.ReadFile(filepath.Join(whole.Dir, f))
		b, _ := os.ReadFile(filepath.Join(resumed.Dir, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s of the resumed run differs from the uninterrupted run's", f)
		}
	}
}

// A run whose next generation could exceed budget.episodes stops with
// the stop reason budget, having played exactly the episodes counted.
func TestRunBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a small run")
	}
	// base val 10, each generation 8 train + at most 3 x 10 val = 38:
	// after two generations 86 are used, and a third could reach 124.
	yml := fmt.Sprintf("name: budget\nseeds: %s\nmax_generations: 10\npatience: 10\nbudget: {episodes: 123}\nmutation: {proposer: random, candidates: 3}\n", smallSeeds(t))
	cfg, err := Parse("budget.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != rundir.StopBudget || len(res.Generations) != 2 {
		t.Fatalf("stop %q after %d generations, want budget after 2", res.StopReason, len(res.Generations))
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(res.Dir, "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range eps {
		counts[e.Split]++
	}
	m := readManifest(t, res.Dir)
	want := rundir.EpisodeCounts{Train: 16, Val: 70, Test: counts[results.SplitTest], Budgeted: 86, Budget: 123}
	if m.Episodes != want || counts[results.SplitTrain] != 16 || counts[results.SplitVal] != 70 || m.StopReason != rundir.StopBudget {
		t.Errorf("manifest episodes %+v stop %q, episodes.parquet %v; want %+v, budget", m.Episodes, m.StopReason, counts, want)
	}
	if last := res.Generations[1].EpisodesUsed; last != 86 {
		t.Errorf("generation 1 episodes_used %d, want 86", last)
	}
	if got := rundir.StopText(rundir.StopBudget, 1, 10); !strings.HasPrefix(got, "budget:") {
		t.Errorf("rundir.StopText(budget) = %q", got)
	}
}
