package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"evolve/results"
	"evolve/stats"
)

// A group-sequential run (3 looks, O'Brien-Fleming, futility at z < 0)
// of one generation of the default experiment: every candidate stops at
// a look with n = 100, 200 or 300 val episodes recorded with it, the
// futility stops at look 1 or 2, the accepted candidate crossed for
// efficacy and has all 300 val episodes in episodes.parquet (it is the
// next incumbent), the candidates played fewer val episodes than the
// fixed-sample gate's 4 × 300, and the Parquet files are byte-identical
// with 1 and 2 workers.
func TestRunSequential(t *testing.T) {
	if testing.Short() {
		t.Skip("plays two runs of one generation")
	}
	cfg, err := Parse("seq.yaml", []byte("name: seq\nmax_generations: 1\nacceptance:\n  sequential: {looks: 3, spending: obrien-fleming, futility: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, w := range []int{2, 1} {
		res, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Workers: w, Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, res.Dir)
	}
	for _, f := range []string{"episodes.parquet", "candidates.parquet", "generations.parquet"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], f))
		b, _ := os.ReadFile(filepath.Join(dirs[1], f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 2 workers and 1", f)
		}
	}
	cands, err := results.ReadCandidates(filepath.Join(dirs[0], "candidates.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	eps, _, err := results.ReadEpisodes(filepath.Join(dirs[0], "episodes.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	played := map[string]int{}
	for _, e := range eps {
		if e.Split == results.SplitVal {
			played[e.Version]++
		}
	}
	total, accepted := 0, 0
	for _, c := range cands {
		if c.Look == nil || *c.Look < 1 || *c.Look > 3 || int(c.N) != 100*int(*c.Look) {
			t.Errorf("%s: look %v, n %d; want look in [1, 3] and n = 100·look", c.Version, c.Look, c.N)
			continue
		}
		switch c.Stop {
		case "futility":
			if *c.Look == 3 {
				t.Errorf("%s: futility stop at the last look", c.Version)
			}
		case "efficacy", "final":
		default:
			t.Errorf("%s: stop %q", c.Version, c.Stop)
		}
		if c.Accepted {
			accepted++
			if c.Stop != "efficacy" || played[c.Version] != 300 {
				t.Errorf("accepted %s: stop %q, %d val episodes recorded; want efficacy, 300", c.Version, c.Stop, played[c.Version])
			}
		} else if played[c.Version] != int(c.N) {
			t.Errorf("%s: %d val episodes recorded, n %d", c.Version, played[c.Version], c.N)
		}
		if math.Abs(c.PAdj-math.Min(1, 4*c.P)) > 1e-15 {
			t.Errorf("%s: p_adj %v, want min(1, 4p) = %v", c.Version, c.PAdj, math.Min(1, 4*c.P))
		}
		total += played[c.Version]
	}
	if accepted != 1 || total >= 4*300 {
		t.Errorf("%d accepted, %d candidate val episodes; want 1 accepted and fewer than 1200", accepted, total)
	}
}

// Alpha spending: generation g is tested at α·6/(π²(g+1)²) by default,
// and at α with alpha_spending: none.
func TestAlphaOf(t *testing.T) {
	c := DefaultConfig()
	for g := range 4 {
		if got, want := c.alphaOf(g), stats.BaselAlpha(0.05, g+1); got != want {
			t.Errorf("basel: generation %d at %v, want %v", g, got, want)
		}
	}
	c.Acceptance.AlphaSpending = "none"
	if got := c.alphaOf(3); got != 0.05 {
		t.Errorf("none: generation 3 at %v, want 0.05", got)
	}
}

// cancelAt is an Observer that cancels the run at the n-th val phase of
// generation gen (a look of the group-sequential gate).
type cancelAt struct {
	gen, n, seen int
	cancel       func()
}

func (c *cancelAt) Started(string, string, int) {}
func (c *cancelAt) PhaseStart(gen int, split, _ string, _ int) {
	if gen == c.gen && split == results.SplitVal {
		if c.seen++; c.seen == c.n {
			c.cancel()
		}
	}
}
func (c *cancelAt) EpisodeDone(int, int)                             {}
func (c *cancelAt) PhaseEnd(int, string, string, int, time.Duration) {}
func (c *cancelAt) GenerationEnd(Generation)                         {}

// A group-sequential run interrupted at its second look of generation 1
// and resumed ends with the Parquet files of a run never interrupted.
func TestRunSequentialResume(t *testing.T) {
	if testing.Short() {
		t.Skip("plays three runs of two generations")
	}
	yml := "name: seqr\nmax_generations: 2\npatience: 2\nmutation: {candidates: 2}\nacceptance:\n  sequential: {looks: 3, spending: pocock, futility: 0}\n"
	cfg, err := Parse("seqr.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Run(context.Background(), cfg, Options{Out: t.TempDir(), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Run(ctx, cfg, Options{Out: t.TempDir(), Now: fixedNow, Observer: &cancelAt{gen: 1, n: 2, cancel: cancel}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Generations != 1 {
		t.Fatalf("err = %v, want an interruption after 1 generation", err)
	}
	cfg2, _ := Parse("seqr.yaml", []byte(yml))
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
