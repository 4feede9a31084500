package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/prompt"
)

var showErrors = flag.Bool("show-errors", false, "print every validation error of TestValidateMalformed")

// seedDir writes a seed set directory with train, val and test files and
// a SHA256SUMS of them; sums overrides entries of SHA256SUMS ("" drops
// the entry).
func seedDir(t *testing.T, files map[string]string, sums map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, name := range []string{"train.txt", "val.txt", "test.txt"} {
		data, ok := files[name]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256([]byte(data))
		sum := hex.EncodeToString(h[:])
		if s, ok := sums[name]; ok {
			sum = s
		}
		if sum != "" {
			fmt.Fprintf(&b, "%s  %s\n", sum, name)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestValidateMalformed is the catalogue of bad input: configs, prompt
// files, seed files and seed sets, each with the exact error that
// 'evolve validate' (and 'evolve run') reports for it.
func TestValidateMalformed(t *testing.T) {
	base := string(prompt.BaseYAML())
	edit := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("base prompt lacks %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	good := map[string]string{"train.txt": "1\n2\n", "val.txt": "3\n4\n", "test.txt": "5\n6\n"}
	with := func(name, data string) map[string]string {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		if data == "" {
			delete(m, name)
		} else {
			m[name] = data
		}
		return m
	}
	tests := []struct {
		name string
		file string                    // base name of the file to write
		data string                    // its content
		dir  func(t *testing.T) string // or: a seed directory to check
		want string                    // the exact error; DIR stands for the file's directory
	}{
		// Configs.
		{name: "config unknown key", file: "exp.yaml", data: "name: x\nmax_generation: 3\n", want: "DIR/exp.yaml:2: unknown key \"max_generation\" (known: acceptance, base_prompt, environment, max_generations, mutation, name, on_episode_panic, output, patience, seeds, step_budget, workers)"},
		{name: "config unknown nested key", file: "exp.yaml", data: "acceptance:\n  alpah: 0.1\n", want: "DIR/exp.yaml:2: acceptance: unknown key \"alpah\" (known: alpha, correction, test)"},
		{name: "config alpha out of range", file: "exp.yaml", data: "acceptance:\n  alpha: 0.7\n", want: "DIR/exp.yaml:2: acceptance.alpha: 0.7 is out of range, allowed (0, 0.5]"},
		{name: "config wrong type", file: "exp.yaml", data: "max_generations: many\n", want: "DIR/exp.yaml:1: max_generations: \"many\" is not an integer"},
		{name: "config unknown test", file: "exp.yaml", data: "acceptance:\n  test: t-test\n", want: "DIR/exp.yaml:2: acceptance.test: \"t-test\" is not supported (allowed: mwu, signed-rank)"},
		{name: "config unknown correction", file: "exp.yaml", data: "acceptance:\n  correction: sidak\n", want: "DIR/exp.yaml:2: acceptance.correction: \"sidak\" is not one of holm, bonferroni, hochberg, bh, by, none"},
		{name: "config unknown environment", file: "exp.yaml", data: "environment:\n  name: minecraft\n", want: "DIR/exp.yaml:2: environment.name: unknown environment \"minecraft\" (registered: [dungeon])"},
		{name: "config env param out of range", file: "exp.yaml", data: "environment:\n  params:\n    max_turns: 5\n", want: "DIR/exp.yaml:3: environment.params.max_turns: 5 is out of range, allowed [100, 1000000]"},
		{name: "config env unknown param", file: "exp.yaml", data: "environment:\n  params:\n    max_turn: 500\n", want: "DIR/exp.yaml:3: environment.params: unknown key \"max_turn\" (known: max_depth, max_turns, no_progress_turns)"},
		{name: "config candidates out of range", file: "exp.yaml", data: "mutation:\n  candidates: 0\n", want: "DIR/exp.yaml:2: mutation.candidates: 0 is out of range, allowed [1, 64]"},
		{name: "config bad panic policy", file: "exp.yaml", data: "on_episode_panic: ignore\n", want: "DIR/exp.yaml:1: on_episode_panic: \"ignore\" is not one of fail, record"},
		{name: "config negative workers", file: "exp.yaml", data: "workers: -2\n", want: "DIR/exp.yaml:1: workers: -2 is out of range, allowed [0, 4096] (0 = GOMAXPROCS)"},
		{name: "config syntax", file: "exp.yaml", data: "name: [x\n", want: "DIR/exp.yaml:1: invalid YAML: did not find expected ',' or ']'"},
		// Prompts.
		{name: "prompt unknown key", file: "p.yaml", data: edit("mutation_history: []", "mutation_history: []\nnotes: hi"), want: "DIR/p.yaml:34: unknown key \"notes\" (known: branch, content_sha256, inherits_from, metadata, mutation_history, override_sections, policy_parameters, rules_constraints, sections, skill_descriptions, slug, tags, task_definition, timestamp, type, version)"},
		{name: "prompt unknown parameter", file: "p.yaml", data: edit("  risk_tolerance: 0.5", "  risk_tolerance: 0.5\n  patience: 3"), want: "DIR/p.yaml:27: policy_parameters: unknown key \"patience\" (known: health_threshold, hunger_threshold, max_combat_attempts, max_exploration_steps, risk_tolerance, skill_priority)"},
		{name: "prompt threshold out of range", file: "p.yaml", data: edit("health_threshold: 0.3", "health_threshold: 1.3"), want: "DIR/p.yaml:22: policy_parameters.health_threshold: 1.3 is out of range, allowed [0, 1]"},
		{name: "prompt negative steps", file: "p.yaml", data: edit("max_exploration_steps: 100", "max_exploration_steps: -5"), want: "DIR/p.yaml:24: policy_parameters.max_exploration_steps: -5 is out of range, allowed [10, 2000]"},
		{name: "prompt bad version", file: "p.yaml", data: edit("version: v1.0.0", "version: 1.0"), want: "DIR/p.yaml:1: version: invalid version \"1.0\": want vMAJOR.MINOR.PATCH, e.g. v1.0.0"},
		{name: "prompt unknown skill", file: "p.yaml", data: edit("    - flee", "    - pray"), want: "DIR/p.yaml:32: policy_parameters.skill_priority[4]: \"pray\" is not a skill, allowed a permutation of [explore fight eat use_item flee]"},
		{name: "prompt duplicate skill", file: "p.yaml", data: edit("    - flee", "    - explore"), want: "DIR/p.yaml:32: policy_parameters.skill_priority[4]: \"explore\" repeats skill_priority[0], allowed a permutation of [explore fight eat use_item flee]"},
		{name: "prompt wrong type", file: "p.yaml", data: edit("max_combat_attempts: 3", "max_combat_attempts: three"), want: "DIR/p.yaml:25: policy_parameters.max_combat_attempts: \"three\" is not an integer"},
		{name: "prompt hash mismatch", file: "p.yaml", data: edit("mutation_history: []", "mutation_history: []\ncontent_sha256: 0000000000000000000000000000000000000000000000000000000000000000"), want: "DIR/p.yaml: content hash mismatch: content_sha256 records 0000000000000000000000000000000000000000000000000000000000000000, the content hashes to a045963e87745b987a18b14ef50fce0f3d78739ae8db0c1cb6b4efb1914afa73 (the file was edited after it was written; versions are immutable)"},
		// Seed files and sets.
		{name: "seed file not a number", file: "val.txt", data: "1\n2\nx3\n", want: "DIR/val.txt:3: \"x3\" is not a seed (want an unsigned 64-bit integer)"},
		{name: "seed file duplicate", file: "val.txt", data: "1\n2\n1\n", want: "DIR/val.txt:3: seed 1 repeats line 1"},
		{name: "seed file negative", file: "val.txt", data: "-4\n", want: "DIR/val.txt:1: \"-4\" is not a seed (want an unsigned 64-bit integer)"},
		{name: "seed file empty", file: "val.txt", data: "# nothing\n", want: "DIR/val.txt: no seeds"},
		{name: "seed set edited file", dir: func(t *testing.T) string {
			return seedDir(t, good, map[string]string{"val.txt": strings.Repeat("ab", 32)})
		}, want: "DIR/val.txt: sha256 is 1ddb914da9135a2d6dfcc0ff179d68d23e7fd1e5364c088c183234d04a41bece, SHA256SUMS records abababababababababababababababababababababababababababababababab: seed files are frozen; restore the file or create a new seed set"},
		{name: "seed set overlap", dir: func(t *testing.T) string { return seedDir(t, with("test.txt", "5\n2\n"), nil) }, want: "DIR/test.txt: seed 2 is also in the train split: splits must be disjoint"},
		{name: "seed set missing file", dir: func(t *testing.T) string { return seedDir(t, with("test.txt", ""), nil) }, want: "DIR/test.txt: open test.txt: no such file or directory"},
		{name: "seed set missing checksum", dir: func(t *testing.T) string { return seedDir(t, good, map[string]string{"train.txt": ""}) }, want: "DIR/SHA256SUMS: no entry for train.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			if tt.dir != nil {
				path = tt.dir(t)
			} else {
				path = filepath.Join(t.TempDir(), tt.file)
				if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := validateOne(path)
			if err == nil {
				t.Fatalf("%s: valid, want an error", tt.name)
			}
			dir := filepath.Dir(path)
			if tt.dir != nil {
				dir = path
			}
			got := strings.ReplaceAll(err.Error(), dir, "DIR")
			if *showErrors {
				t.Logf("%s\n%s", tt.name, got)
			}
			if got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
