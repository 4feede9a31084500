package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"evolve/envs"
	"evolve/experiment"
	"evolve/guard"
	"evolve/prompt"
	"evolve/rundir"
	"evolve/seeds"
)

// cmdValidate is evolve validate.
var cmdValidate = &Command{
	UsageLine: "evolve validate [--config FILE] FILE|DIR ...",
	Short:     "check configs, prompt files and seed sets without running anything",
	Long: `
Check each argument and report every problem with its file, line, field,
bad value and allowed range. The kind of input is recognised from its
content:

	a directory             a seed set (train.txt, val.txt, test.txt, SHA256SUMS)
	*.txt                   one seed split file
	YAML with a version, policy_parameters, task_definition or sections key
	                        a prompt version (strict schema, content hash, texts
	                        screened as a prompt store does, and its policy
	                        parameters against the parameter schema of the
	                        environment of --config: by default the embedded
	                        default's, the dungeon's scripted agent)
	other YAML              an experiment config (strict; keys you omit take the defaults)

A config is checked as 'evolve run' checks it before creating anything:
its fields, then the seed directory and base prompt it names (relative
paths are resolved against the config file's directory) with every check
their loading makes (seed hashes, a prompt's schema, that an agent can
play it, and its texts screened as a prompt store does), and that a run
directory can be created under its output directory. Every problem of a
file is listed at once, one per line, in line order.

Exit status 0 when every input is valid, 1 otherwise.

Examples:

	evolve validate exp.yaml
	evolve validate runs/default-1275011f00/prompts/dungeon-agent/v1.0.5.yaml
	evolve validate my-seeds/`,
	SetFlags: validateFlags,
	Run:      runValidate,
}

// validateFlagValues are the flags of evolve validate.
type validateFlagValues struct {
	config string
}

// validateFlags defines the flags of evolve validate on fs.
func validateFlags(fs *flag.FlagSet) any {
	f := new(validateFlagValues)
	fs.StringVar(&f.config, "config", "", "check prompt files against the parameter schema of the environment of config `FILE` (default: the embedded default's, the dungeon)")
	return f
}

// runValidate is evolve validate.
func runValidate(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*validateFlagValues)
	if len(args) == 0 {
		return usagef("no file to validate")
	}
	info, err := configEnv(f.config)
	if err != nil {
		return err
	}
	bad := 0
	for _, a := range args {
		kind, err := validateOne(a, info)
		if err != nil {
			bad++
			fmt.Fprintf(cmd.Stdout, "%s: INVALID %s\n    %s\n", a, kind, strings.ReplaceAll(err.Error(), "\n", "\n    "))
			continue
		}
		fmt.Fprintf(cmd.Stdout, "%s: ok (%s)\n", a, kind)
	}
	if bad > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %s invalid", bad, plural(len(args), "input", "inputs"))}
	}
	return nil
}

// configEnv returns the environment of the experiment config in file
// ("" for the embedded default, the dungeon), built from the config: the
// schema that prompt files are checked against.
func configEnv(file string) (envs.Info, error) {
	cfg := experiment.DefaultConfig()
	if file != "" {
		var err error
		if cfg, err = experiment.Load(file); err != nil {
			return envs.Info{}, err
		}
	}
	e, err := cfg.Env()
	if err != nil {
		return envs.Info{}, err
	}
	return e.Info(), nil
}

// validateOne checks one input and returns its kind; a prompt's policy
// parameters are checked against info's schema.
func validateOne(path string, info envs.Info) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "file", err
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, rundir.ManifestFile)); err == nil {
			return validateRunDir(path) // a run or eval directory, not a seed set
		}
		set, err := seeds.Load(path)
		if err != nil {
			return "seed set", err
		}
		return fmt.Sprintf("seed set: train %d, val %d, test %d seeds", len(set.Train), len(set.Val), len(set.Test)), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "file", err
	}
	if filepath.Ext(path) == ".txt" {
		s, err := seeds.Parse(path, data)
		if err != nil {
			return "seed file", err
		}
		return fmt.Sprintf("seed file: %d seeds", len(s)), nil
	}
	if prompt.IsDocument(data) {
		r := prompt.Checker{Playable: true, Schema: info.Params, Env: info.Name, Policy: guard.Default()}.Check(path, data)
		if err := r.Err(); err != nil {
			if len(r.Issues) > 0 && len(r.Problems) == 0 {
				err = fmt.Errorf("%s: %w (a store refuses it; evolve prompt validate %s lists the issues)", path, err, path)
			}
			return "prompt", err
		}
		p := r.Prompt
		hash := "content_sha256 verified"
		if p.ContentSHA256 == "" { // an editable file: the hash is computed
			q := p.Clone()
			if _, err := prompt.Encode(q); err != nil {
				return "prompt", fmt.Errorf("%s: %w", path, err)
			}
			hash = "content_sha256 computed: " + q.ContentSHA256 + " (the file has none: an editable prompt)"
		}
		return fmt.Sprintf("prompt %s, %s", p.Version, hash), nil
	}
	c, in, err := experiment.Preflight(path, data)
	if err != nil {
		return "config", err
	}
	base := c.BasePrompt
	if base == experiment.Embedded && c.Environment.Name != "dungeon" {
		base = "generated from the environment's declared defaults:"
	}
	return fmt.Sprintf("config %q: environment %s, %d candidates, alpha %v, up to %d generations; seeds %s (train %d, val %d, test %d); base prompt %s %s",
		c.Name, c.Environment.Name, c.Mutation.Candidates, c.Acceptance.Alpha, c.MaxGenerations,
		c.Seeds, len(in.Seeds.Train), len(in.Seeds.Val), len(in.Seeds.Test), base, in.Base.Version), nil
}
