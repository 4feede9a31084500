package scores

import (
	"math"
	"strings"
	"testing"
)

func TestParseKeyed(t *testing.T) {
	gs, err := ParseKeyed("k.csv", []byte("Task,seed,score\nb,1,2.5\na,1,1\nb,2,3\n"), "task")
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Key != "b" || gs[1].Key != "a" || len(gs[0].Scores) != 2 || gs[0].Scores[1] != 3 || gs[0].Seeds[1] != 2 || gs[1].Source != "k.csv[a]" {
		t.Errorf("groups %+v %+v", gs[0].Sample, gs[1].Sample)
	}
	for data, want := range map[string]string{
		"task,score\n":                    "no scores",
		"x,score\na,1\n":                  `k.csv:1: no "task" column`,
		"task,seed,score\na,1,1\na,1,2\n": `k.csv:3: seed 1 of key "a" repeats line 2`,
		"task,score\na,NaN\n":             "k.csv:2: score",
		"task,score\na\n":                 "k.csv:2: 1 fields",
	} {
		if _, err := ParseKeyed("k.csv", []byte(data), "task"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", data, err, want)
		}
	}
}

// FuzzParseKeyed: any input either fails with an error or gives
// non-empty groups of finite scores, seeds (if any) one per score and
// unique within a key, keys unique.
func FuzzParseKeyed(f *testing.F) {
	f.Add([]byte("task,seed,score\nb,1,2.5\na,1,1\nb,2,3\n"))
	f.Add([]byte("task,score\n\"a,b\",1e3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := ParseKeyed("f.csv", data, "task")
		if err != nil {
			return
		}
		keys := map[string]bool{}
		for _, g := range gs {
			if keys[g.Key] || len(g.Scores) == 0 || g.Seeds != nil && len(g.Seeds) != len(g.Scores) {
				t.Fatalf("bad group %q: %+v", g.Key, g.Sample)
			}
			keys[g.Key] = true
			seen := map[uint64]bool{}
			for i, x := range g.Scores {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("score %v", x)
				}
				if g.Seeds != nil {
					if seen[g.Seeds[i]] {
						t.Fatalf("seed %d repeats in %q", g.Seeds[i], g.Key)
					}
					seen[g.Seeds[i]] = true
				}
			}
		}
	})
}
