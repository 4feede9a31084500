package nethack

import (
	"bufio"
	"context"
	"encoding/json"
	nh "evolve/envs/nethack"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"evolve/envs"
)

// readLabelled reads testdata/causes.jsonl.
func readLabelled(t *testing.T) []labelled {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "causes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for n := 1; sc.Scan(); n++ {
		var l labelled
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("testdata/causes.jsonl:%d: %v", n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLabelledCauses re-classifies the stored evidence of the labelled
// episodes of testdata/causes.jsonl (real games, labels checked by hand:
// testdata/README.md) and fails below 95% agreement with the labels,
// overall or on the held-out groups; every label must be a declared
// cause or none.
func TestLabelledCauses(t *testing.T) {
	ls := readLabelled(t)
	if len(ls) < 100 {
		t.Fatalf("%d labelled episodes, want at least 100", len(ls))
	}
	declared := append(Info().CauseNames(), envs.CauseNone)
	var agree, heldN, heldAgree int
	perCause := map[string][2]int{} // label: agreed, total
	for _, l := range ls {
		if !slices.Contains(declared, l.Label) {
			t.Errorf("%s seed %d: label %q is not a declared cause", l.Group, l.Seed, l.Label)
		}
		got, ev := nh.Classify(l.Evidence)
		held := strings.HasPrefix(l.Group, "heldout-")
		pc := perCause[l.Label]
		pc[1]++
		if held {
			heldN++
		}
		if got == l.Label {
			agree++
			pc[0]++
			if held {
				heldAgree++
			}
		} else {
			t.Logf("%s seed %d: classified %s (%s), labelled %s: %s", l.Group, l.Seed, got, ev, l.Label, l.Note)
		}
		perCause[l.Label] = pc
	}
	for _, c := range declared {
		if pc, ok := perCause[c]; ok {
			t.Logf("%-18s %3d/%3d", c, pc[0], pc[1])
		}
	}
	t.Logf("agreement %d/%d overall, %d/%d held out", agree, len(ls), heldAgree, heldN)
	if 100*agree < 95*len(ls) {
		t.Errorf("agreement %d/%d = %.1f%%, want at least 95%%", agree, len(ls), 100*float64(agree)/float64(len(ls)))
	}
	if heldN == 0 || 100*heldAgree < 95*heldN {
		t.Errorf("held-out agreement %d/%d, want at least 95%%", heldAgree, heldN)
	}
}

// TestEvidenceInOutcome plays one seed and checks that the outcome's
// cause is Classify's on the evidence the player kept, and that the
// columns killed_by, quit and cause_evidence agree with it.
func TestEvidenceInOutcome(t *testing.T) {
	e := newTestEnv(t, shortConfig())
	pl, err := e.NewPlayer(0)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	for _, seed := range []uint64{1, 6} {
		o, err := pl.Play(context.Background(), envs.Episode{Seed: seed, Params: quickBase()})
		if err != nil {
			t.Fatal(err)
		}
		ev := pl.(*Player).evidence
		cause, text := nh.Classify(ev)
		if o.Cause != cause || o.Metrics[9].Str != text {
			t.Errorf("seed %d: outcome cause %s (%q), nh.Classify of its evidence %s (%q)", seed, o.Cause, o.Metrics[9].Str, cause, text)
		}
		quit := ev.Death == "quit"
		if (o.Metrics[8].Num == 1) != quit || quit != (o.Metrics[5].Str == "") {
			t.Errorf("seed %d: death %q, quit %v, killed_by %q", seed, ev.Death, o.Metrics[8].Num, o.Metrics[5].Str)
		}
		if ev.Pet != "f" && ev.Pet != "d" {
			t.Errorf("seed %d: pet %q, want f or d", seed, ev.Pet)
		}
	}
}

// TestLabelledReplay replays the first NH_LABELS_REPLAY episodes of each
// group of testdata/causes.jsonl and checks that the game gives the
// stored evidence's death text and end, and the label. The episodes were
// recorded with the scripted agent of the set's commit: a change of the
// agent changes the games, and the set must then be recorded and checked
// again. Skipped unless NH_LABELS_REPLAY is set (it plays real games).
func TestLabelledReplay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("NH_LABELS_REPLAY"))
	if n <= 0 {
		t.Skip("set NH_LABELS_REPLAY=3 to replay 3 episodes of each labelled group")
	}
	byGroup := map[string][]labelled{}
	for _, l := range readLabelled(t) {
		if len(byGroup[l.Group]) < n {
			byGroup[l.Group] = append(byGroup[l.Group], l)
		}
	}
	for _, g := range labelGroups {
		ls := byGroup[g.Name]
		if len(ls) == 0 {
			continue
		}
		e := newTestEnv(t, g.Cfg())
		list := make([]uint64, len(ls))
		for i, l := range ls {
			list[i] = l.Seed
		}
		outs, evs := playSeeds(t, e, g.P(), list, 1, "")
		for i, l := range ls {
			if evs[i].Death != l.Evidence.Death || evs[i].While != l.Evidence.While || evs[i].End != l.Evidence.End {
				t.Errorf("%s seed %d: replayed %q/%q/%q, stored %q/%q/%q", g.Name, l.Seed,
					evs[i].Death, evs[i].While, evs[i].End, l.Evidence.Death, l.Evidence.While, l.Evidence.End)
			}
			if outs[i].Cause != l.Label {
				t.Logf("%s seed %d: replayed cause %s, label %s (%s)", g.Name, l.Seed, outs[i].Cause, l.Label, l.Note)
			}
		}
	}
}
