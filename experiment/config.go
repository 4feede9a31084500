package experiment

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"

	"gopkg.in/yaml.v3"

	"evolve/envs"
	_ "evolve/envs/dungeon" // the built-in environment is always registered
	"evolve/internal/strictyaml"
	"evolve/mutate"
)

// Config is an experiment: what to evolve, where, and how to decide. It is
// read from YAML strictly (unknown keys are errors naming file, line and
// key); DefaultConfig is the embedded default.
type Config struct {
	// Name labels the run; it starts the run ID. Letters, digits, '.', '_'
	// and '-', 1 to 64 characters.
	Name string `yaml:"name"`
	// Environment selects a registered environment and its parameters.
	Environment EnvironmentConfig `yaml:"environment"`
	// Seeds is "embedded" for the built-in frozen seed sets, or a
	// directory holding train.txt, val.txt, test.txt and SHA256SUMS.
	Seeds string `yaml:"seeds"`
	// BasePrompt is "embedded" for the built-in base prompt v1.0.0, or the
	// path of a prompt YAML file to start from.
	BasePrompt string `yaml:"base_prompt"`
	// Mutation sets the proposer: candidates per generation and step sizes.
	Mutation mutate.Config `yaml:"mutation"`
	// Acceptance sets the statistical gate.
	Acceptance Acceptance `yaml:"acceptance"`
	// MaxGenerations bounds the generations, in [1, 1000].
	MaxGenerations int `yaml:"max_generations"`
	// Patience is how many consecutive generations without an accepted
	// candidate end the run, in [1, 100]. Each further try proposes the
	// next candidates in the proposer's order.
	Patience int `yaml:"patience"`
	// Workers bounds the episodes played at once; 0 means GOMAXPROCS. It
	// never changes a result.
	Workers int `yaml:"workers"`
	// StepBudget ends an episode as a recorded timeout after this many
	// steps; 0 means no budget beyond the environment's turn limit.
	StepBudget int `yaml:"step_budget"`
	// OnEpisodePanic is what a panic inside the environment or agent does:
	// "fail" stops the run with the seed, version and stack; "record"
	// records the episode as ended by "panic" with score 0 (failure cause
	// "error"), logs the panic to episode_errors.jsonl in the run
	// directory, and goes on.
	OnEpisodePanic string `yaml:"on_episode_panic"`
	// Output is the directory under which runs/<run-id>/ is created.
	Output string `yaml:"output"`
}

// EnvironmentConfig names an environment and holds its parameters, which
// are decoded strictly into the environment's own config type.
type EnvironmentConfig struct {
	Name   string    `yaml:"name"`   // registry name, e.g. "dungeon" (see envs.Names)
	Params yaml.Node `yaml:"params"` // the environment's parameters, decoded strictly by Config.Validate

	// params is the decoded parameter struct (the registry's Config()).
	params any
}

// Acceptance is the statistical gate of a generation.
type Acceptance struct {
	// Test is the acceptance test: "mwu" (one-sided Mann-Whitney U,
	// candidate greater than incumbent; the default) or "signed-rank"
	// (one-sided Wilcoxon signed-rank test of the differences candidate −
	// incumbent paired by val seed).
	Test string `yaml:"test"`
	// Alpha is the family-wise significance level, in (0, 0.5].
	Alpha float64 `yaml:"alpha"`
	// Correction adjusts the p-values across a generation's candidates:
	// "holm" (default), "bonferroni", "hochberg", "bh", "by" or "none".
	Correction string `yaml:"correction"`
}

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the embedded default config as written.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// DefaultConfig returns the embedded default config. It panics if the
// embedded file is invalid, which a test rules out.
func DefaultConfig() *Config {
	c, err := Parse("default.yaml (embedded)", defaultYAML)
	if err != nil {
		panic(err)
	}
	return c
}

// Load reads and validates the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Parse decodes a config from data (the contents of file) strictly and
// validates it. Fields absent from data take the default's values, so a
// config may set only what it changes. Errors are *strictyaml.Error values
// naming file, line, field and the bad value with its allowed range.
func Parse(file string, data []byte) (*Config, error) {
	c := &Config{}
	if file != "default.yaml (embedded)" {
		c = DefaultConfig()
		c.Environment.Params = yaml.Node{}
	}
	if err := strictyaml.Decode(file, data, c); err != nil {
		return nil, err
	}
	if c.Environment.Params.Kind == 0 && file != "default.yaml (embedded)" {
		// keep the default parameters when the file names no params
		def := DefaultConfig()
		if c.Environment.Name == def.Environment.Name {
			c.Environment.Params = def.Environment.Params
		}
	}
	if err := c.resolve(file, strictyaml.Root(data)); err != nil {
		return nil, err
	}
	return c, nil
}

// resolve validates every field and decodes the environment parameters.
// root is the file's YAML tree, to give errors their line.
func (c *Config) resolve(file string, root *yaml.Node) error {
	bad := func(field string, format string, args ...any) error {
		return &strictyaml.Error{File: file, Line: strictyaml.Line(root, field), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if !nameRE.MatchString(c.Name) {
		return bad("name", "%q is not a valid name (1-64 letters, digits, '.', '_', '-')", c.Name)
	}
	f, err := envs.Lookup(c.Environment.Name)
	if err != nil {
		return bad("environment.name", "%v", err)
	}
	params := f.Config()
	if c.Environment.Params.Kind != 0 {
		if err := strictyaml.DecodeNode(file, "environment.params", &c.Environment.Params, params); err != nil {
			return err
		}
	}
	if _, err := f.New(params); err != nil {
		return strictyaml.FieldError(file, "environment.params", &c.Environment.Params, err)
	}
	c.Environment.params = params
	if c.Seeds == "" {
		return bad("seeds", `empty; want "embedded" or a seed directory`)
	}
	if c.BasePrompt == "" {
		return bad("base_prompt", `empty; want "embedded" or a prompt YAML file`)
	}
	if err := c.Mutation.Validate(); err != nil {
		return strictyaml.FieldError(file, "mutation", nodeAt(root, "mutation"), err)
	}
	if c.Acceptance.Test != "mwu" && c.Acceptance.Test != "signed-rank" {
		return bad("acceptance.test", "%q is not supported (allowed: mwu, signed-rank)", c.Acceptance.Test)
	}
	if !(c.Acceptance.Alpha > 0 && c.Acceptance.Alpha <= 0.5) {
		return bad("acceptance.alpha", "%v is out of range, allowed (0, 0.5]", c.Acceptance.Alpha)
	}
	switch c.Acceptance.Correction {
	case "holm", "bonferroni", "hochberg", "bh", "by", "none":
	default:
		return bad("acceptance.correction", "%q is not one of holm, bonferroni, hochberg, bh, by, none", c.Acceptance.Correction)
	}
	if c.MaxGenerations < 1 || c.MaxGenerations > 1000 {
		return bad("max_generations", "%d is out of range, allowed [1, 1000]", c.MaxGenerations)
	}
	if c.Patience < 1 || c.Patience > 100 {
		return bad("patience", "%d is out of range, allowed [1, 100]", c.Patience)
	}
	if c.Workers < 0 || c.Workers > 4096 {
		return bad("workers", "%d is out of range, allowed [0, 4096] (0 = GOMAXPROCS)", c.Workers)
	}
	if c.StepBudget < 0 {
		return bad("step_budget", "%d is negative (0 = no budget)", c.StepBudget)
	}
	if c.OnEpisodePanic != "fail" && c.OnEpisodePanic != "record" {
		return bad("on_episode_panic", "%q is not one of fail, record", c.OnEpisodePanic)
	}
	if c.Output == "" {
		return bad("output", "empty; want a directory")
	}
	return nil
}

// nodeAt returns the mapping value at key of root, or an empty node.
func nodeAt(root *yaml.Node, key string) *yaml.Node {
	if root != nil && root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				return root.Content[i+1]
			}
		}
	}
	return &yaml.Node{}
}

// Env builds the configured environment.
func (c *Config) Env() (envs.Environment, error) {
	f, err := envs.Lookup(c.Environment.Name)
	if err != nil {
		return nil, err
	}
	return f.New(c.Environment.params)
}

// EnvParams returns the decoded environment parameters (a pointer to the
// environment's config struct).
func (c *Config) EnvParams() any { return c.Environment.params }

// Resolved returns the config as YAML with every default filled in: what
// the run manifest records and what a resumed run compares.
func (c *Config) Resolved() ([]byte, error) {
	type envOut struct {
		Name   string `yaml:"name"`
		Params any    `yaml:"params"`
	}
	type out struct {
		Name           string        `yaml:"name"`
		Environment    envOut        `yaml:"environment"`
		Seeds          string        `yaml:"seeds"`
		BasePrompt     string        `yaml:"base_prompt"`
		Mutation       mutate.Config `yaml:"mutation"`
		Acceptance     Acceptance    `yaml:"acceptance"`
		MaxGenerations int           `yaml:"max_generations"`
		Patience       int           `yaml:"patience"`
		StepBudget     int           `yaml:"step_budget"`
		OnEpisodePanic string        `yaml:"on_episode_panic"`
	}
	return yaml.Marshal(out{c.Name, envOut{c.Environment.Name, c.Environment.params}, c.Seeds, c.BasePrompt,
		c.Mutation, c.Acceptance, c.MaxGenerations, c.Patience, c.StepBudget, c.OnEpisodePanic})
}
