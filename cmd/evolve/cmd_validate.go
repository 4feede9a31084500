package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"evolve/envs"
	"evolve/experiment"
	"evolve/internal/strictyaml"
	"evolve/params"
	"evolve/prompt"
	"evolve/prompt/guard"
	"evolve/seeds"
)

func init() {
	register(&command{
		name:     "validate",
		synopsis: "check configs, prompt files and seed sets without running anything",
		usage:    "[--config FILE] FILE|DIR ...",
		help: `
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
	evolve validate runs/default-651436c4dc/prompts/dungeon-agent/v1.0.5.yaml
	evolve validate my-seeds/`,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			config := fs.String("config", "", "check prompt files against the parameter schema of the environment of config `FILE` (default: the embedded default's, the dungeon)")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				if len(args) == 0 {
					return usagef("no file to validate")
				}
				cfg := experiment.DefaultConfig()
				if *config != "" {
					var err error
					if cfg, err = experiment.Load(*config); err != nil {
						return err
					}
				}
				e, err := cfg.Env()
				if err != nil {
					return err
				}
				info := e.Info()
				bad := 0
				for _, a := range args {
					kind, err := validateOne(a, info)
					if err != nil {
						bad++
						fmt.Fprintf(env.stdout, "%s: INVALID %s\n    %s\n", a, kind, strings.ReplaceAll(err.Error(), "\n", "\n    "))
						continue
					}
					fmt.Fprintf(env.stdout, "%s: ok (%s)\n", a, kind)
				}
				if bad > 0 {
					return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d inputs invalid", bad, len(args))}
				}
				return nil
			}
		},
	})
}

// validateOne checks one input and returns its kind; a prompt's policy
// parameters are checked against info's schema.
func validateOne(path string, info envs.Info) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "file", err
	}
	if st.IsDir() {
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
	if isPrompt(data) {
		p, err := prompt.Decode(path, data)
		if err != nil {
			return "prompt", err
		}
		if err := guard.Default().Error(p.Texts()...); err != nil {
			return "prompt", fmt.Errorf("%s: %w (a store refuses it; evolve prompt validate %s lists the issues)", path, err, path)
		}
		if p.HasPolicy() {
			var problems []*strictyaml.Error
			for _, e := range info.Params.Problems(info.Params.Coerce(p.PolicyParameters)) {
				var pe *params.Error
				field := ""
				if errors.As(e, &pe) {
					field = "policy_parameters." + pe.Field
				}
				msg := strings.TrimPrefix(e.Error(), field+": ")
				problems = append(problems, &strictyaml.Error{File: path, Line: paramLine(data, field), Field: field,
					Msg: msg + " (the " + info.Name + " environment's parameters)"})
			}
			if err := strictyaml.Join(problems...); err != nil {
				return "prompt", err
			}
		}
		hash := "no content_sha256 (not written by a store)"
		if p.ContentSHA256 != "" {
			hash = "content_sha256 verified"
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

// isPrompt reports whether data is a YAML mapping with a version,
// policy_parameters, task_definition or sections key.
func isPrompt(data []byte) bool {
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return false
		}
	}
	for _, k := range []string{"version", "policy_parameters", "task_definition", "sections"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// paramLine returns the line of field ("policy_parameters.NAME[i]") in the
// YAML document data, 0 if unknown.
func paramLine(data []byte, field string) int {
	var root yaml.Node
	if field == "" || yaml.Unmarshal(data, &root) != nil || len(root.Content) != 1 {
		return 0
	}
	return strictyaml.Line(root.Content[0], field)
}
