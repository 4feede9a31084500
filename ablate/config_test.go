package ablate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseErrors: every bad value is refused with the file, the line,
// the field and the value.
func TestParseErrors(t *testing.T) {
	const good = "name: a\nseed: 1\nreplicates: 2\nbudget: {episodes: 5000}\nenvironments:\n  - {name: dungeon, config: default}\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown key", good + "replicate: 3\n", []string{"a.yaml:7", "replicate"}},
		{"bad name", strings.Replace(good, "name: a", "name: a/b", 1), []string{"a.yaml:1", "name", `"a/b"`}},
		{"no seed", strings.Replace(good, "seed: 1\n", "", 1), []string{"seed: missing"}},
		{"replicates 0", strings.Replace(good, "replicates: 2", "replicates: 0", 1), []string{"a.yaml:3", "replicates", "0 is not in [1, 1000]"}},
		{"budget 0", strings.Replace(good, "episodes: 5000", "episodes: 0", 1), []string{"budget.episodes", "0: want"}},
		{"bad proposer", good + "proposers: [failure, grid]\n", []string{"proposers[1]", `"grid" is not a proposer`}},
		{"proposer twice", good + "proposers: [random, random]\n", []string{"proposers[1]", `"random" is listed twice`}},
		{"no environments", "name: a\nseed: 1\nreplicates: 2\nbudget: {episodes: 5000}\n", []string{"environments: none"}},
		{"env twice", good + "  - {name: dungeon, config: default}\n", []string{"environments[1].name", `"dungeon" is listed twice`}},
		{"env no config", good + "  - {name: other}\n", []string{"environments[1].config", "empty"}},
		{"missing config file", good + "  - {name: other, config: nothere.yaml}\n", []string{"environments[1].config", "nothere.yaml"}},
		{"seed sizes", good + "  - {name: d2, config: default, seeds: {val: -1}}\n", []string{"environments[1].seeds.val", "-1 is not in"}},
		{"budget too small for a generation", strings.Replace(good, "episodes: 5000", "episodes: 400", 1), []string{"a.yaml:4", "budget.episodes", "400 is less than the 1700"}},
		{"patience", good + "patience: 101\n", []string{"patience", "101 is not in [0, 100]"}},
		{"workers", good + "workers: -2\n", []string{"workers", "-2"}},
		{"bootstrap reps", good + "bootstrap_reps: 10\n", []string{"bootstrap_reps", "10 is not in"}},
		{"fraction", strings.Replace(good, "replicates: 2", "replicates: 2.5", 1), []string{"a.yaml:3", "replicates"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("a.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.yaml)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if _, err := Parse("a.yaml", []byte(good)); err != nil {
		t.Fatalf("the good config: %v", err)
	}
}

// TestExampleConfigs: the committed ablation configs parse.
func TestExampleConfigs(t *testing.T) {
	for _, f := range []string{"../examples/ablation.yaml", "../examples/ablation/dungeon.yaml", "../examples/ablation/nethack.yaml"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
		c, err := Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range c.Environments {
			if e.Config != DefaultConfig && !filepath.IsAbs(e.Config) {
				t.Errorf("%s: environment %s: config %q not made absolute", f, e.Name, e.Config)
			}
		}
	}
}

// TestReplicateSeed checks SplitMix64's first outputs from 0 (Steele, Lea
// and Flood 2014; the reference values of the seeds package's test).
func TestReplicateSeed(t *testing.T) {
	for r, want := range map[int]uint64{1: 0xe220a8397b1dcdaf, 2: 0x6e789e6aa1b965f4, 3: 0x06c45d188009454f} {
		if got := ReplicateSeed(0, r); got != want {
			t.Errorf("ReplicateSeed(0, %d) = %#x, want %#x", r, got, want)
		}
	}
}
