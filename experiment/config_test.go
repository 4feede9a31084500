package experiment

import (
	"strings"
	"testing"

	"evolve/envs/dungeon"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if c.Name != "default" || c.Environment.Name != "dungeon" || c.MaxGenerations != 10 || c.Mutation.Candidates != 4 {
		t.Fatalf("unexpected default: %+v", c)
	}
	p, ok := c.EnvParams().(*dungeon.Config)
	if !ok || *p != dungeon.DefaultConfig() {
		t.Fatalf("env params = %#v, want dungeon defaults %+v", c.EnvParams(), dungeon.DefaultConfig())
	}
}

// A config may set only what it changes; the rest keeps the defaults.
func TestParsePartial(t *testing.T) {
	c, err := Parse("exp.yaml", []byte("name: quick\nmax_generations: 3\nenvironment:\n  name: dungeon\n  params:\n    max_turns: 2000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "quick" || c.MaxGenerations != 3 || c.Acceptance.Alpha != 0.05 {
		t.Errorf("got %+v", c)
	}
	p := c.EnvParams().(*dungeon.Config)
	if p.MaxTurns != 2000 || p.NoProgressTurns != 300 {
		t.Errorf("env params = %+v, want max_turns 2000 and default no_progress_turns 300", p)
	}
	c, err = Parse("exp.yaml", []byte("patience: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.EnvParams().(*dungeon.Config); *p != dungeon.DefaultConfig() {
		t.Errorf("no environment key: params = %+v, want defaults", p)
	}
}

// Every malformed config gets an error naming file, line, field and value.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", "name: x\nmax_generation: 3\n",
			`exp.yaml:2: unknown key "max_generation" (known: acceptance, base_prompt, environment, max_generations, mutation, name, on_episode_panic, output, patience, seeds, step_budget, workers)`},
		{"unknown nested key", "acceptance:\n  alpah: 0.1\n",
			`exp.yaml:2: acceptance: unknown key "alpah" (known: alpha, correction, test)`},
		{"unknown env param", "environment:\n  name: dungeon\n  params:\n    max_turn: 10\n",
			`exp.yaml:4: environment.params: unknown key "max_turn" (known: max_depth, max_turns, no_progress_turns)`},
		{"duplicate key", "name: a\nname: b\n",
			`exp.yaml:2: name: duplicate key (first at line 1)`},
		{"wrong type", "max_generations: many\n",
			`exp.yaml:1: max_generations: "many" is not an integer`},
		{"wrong env param type", "environment:\n  name: dungeon\n  params:\n    max_turns: lots\n",
			`exp.yaml:4: environment.params.max_turns: "lots" is not an integer`},
		{"env param out of range", "environment:\n  name: dungeon\n  params:\n    max_turns: 5\n",
			`exp.yaml:4: environment.params.max_turns: 5 is out of range, allowed [100, 1000000]`},
		{"unknown environment", "environment:\n  name: nethack\n",
			`exp.yaml:2: environment.name: unknown environment "nethack" (registered: [dungeon])`},
		{"alpha out of range", "acceptance:\n  alpha: 0.9\n",
			`exp.yaml:2: acceptance.alpha: 0.9 is out of range, allowed (0, 0.5]`},
		{"bad correction", "acceptance:\n  correction: sidak\n",
			`exp.yaml:2: acceptance.correction: "sidak" is not one of holm, bonferroni, hochberg, bh, by, none`},
		{"bad test", "acceptance:\n  test: t-test\n",
			`exp.yaml:2: acceptance.test: "t-test" is not supported (allowed: mwu, signed-rank)`},
		{"zero generations", "max_generations: 0\n",
			`exp.yaml:1: max_generations: 0 is out of range, allowed [1, 1000]`},
		{"bad patience", "patience: 0\n",
			`exp.yaml:1: patience: 0 is out of range, allowed [1, 100]`},
		{"negative workers", "workers: -1\n",
			`exp.yaml:1: workers: -1 is out of range, allowed [0, 4096] (0 = GOMAXPROCS)`},
		{"bad name", "name: 'my run'\n",
			`exp.yaml:1: name: "my run" is not a valid name (1-64 letters, digits, '.', '_', '-')`},
		{"candidates zero", "mutation:\n  candidates: 0\n",
			`exp.yaml:2: mutation.candidates: 0 is out of range, allowed [1, 64]`},
		{"mapping expected", "acceptance: strict\n",
			`exp.yaml:1: acceptance: want a mapping of alpha, correction, test, got "strict"`},
		{"syntax error", "name: [unclosed\n",
			`exp.yaml:1: invalid YAML: did not find expected ',' or ']'`},
		{"two documents", "name: a\n---\nname: b\n",
			`exp.yaml:2: a second YAML document is not allowed`},
		{"bad panic policy", "on_episode_panic: ignore\n",
			`exp.yaml:1: on_episode_panic: "ignore" is not one of fail, record`},
		{"negative step budget", "step_budget: -5\n",
			`exp.yaml:1: step_budget: -5 is negative (0 = no budget)`},
		{"empty file", "",
			`exp.yaml: empty document`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("exp.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("want error %q", tt.want)
			}
			if got := err.Error(); got != tt.want && !(strings.HasSuffix(tt.want, "...") && strings.HasPrefix(got, strings.TrimSuffix(tt.want, "..."))) {
				t.Errorf("error\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(DefaultYAML())
	f.Add([]byte("name: x\nenvironment:\n  name: dungeon\n  params:\n    max_turns: 200\n"))
	f.Add([]byte("acceptance: {alpha: 0.1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		// Anything accepted is valid and buildable.
		if _, err := c.Env(); err != nil {
			t.Fatalf("accepted config does not build its environment: %v", err)
		}
		if _, err := c.Resolved(); err != nil {
			t.Fatalf("accepted config does not resolve: %v", err)
		}
	})
}
