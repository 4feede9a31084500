package ablate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"evolve/experiment"
	"evolve/internal/strictyaml"
	"evolve/mutate"
	"evolve/seeds"
)

// Config is an ablation: the proposers to compare, the environments to
// compare them on, the replicates and the equal budget. It is read from
// YAML strictly (unknown keys are errors naming file, line and key); see
// examples/ablation.yaml and docs/ablation.md.
type Config struct {
	// Name labels the ablation; its directory is Output/Name. Letters,
	// digits, '.', '_' and '-', 1 to 64 characters.
	Name string `yaml:"name"`
	// Seed is the ablation's seed, an unsigned 64-bit integer (decimal):
	// replicate r's seed sets are those of `evolve seeds new --seed S_r`
	// with S_r the r-th output of SplitMix64 started at Seed (ReplicateSeed).
	Seed uint64 `yaml:"seed"`
	// Replicates is R, the number of replicate seed sets, in [1, 1000].
	Replicates int `yaml:"replicates"`
	// Proposers are the proposer families compared (mutation.proposer:
	// failure, random, cmaes), each at most once; default all three.
	Proposers []string `yaml:"proposers"`
	// Budget is every run's budget.episodes (train and val episodes), > 0;
	// an environment may set its own (Environment.Budget), the same for
	// all proposers.
	Budget Budget `yaml:"budget"`
	// MaxGenerations and Patience, when > 0, replace every run config's
	// max_generations and patience (so that the budget, not patience,
	// ends the runs); 0 keeps the run config's.
	MaxGenerations int `yaml:"max_generations"`
	Patience       int `yaml:"patience"`
	// Workers bounds the episodes one run plays at once, >= 1 (default
	// 1). It never changes a result.
	Workers int `yaml:"workers"`
	// Parallel bounds the runs played at once, >= 0; 0 means GOMAXPROCS.
	// It never changes a result.
	Parallel int `yaml:"parallel"`
	// Output is the directory under which Name's directory is created
	// (default "ablations"); a relative path is relative to the working
	// directory, as a run config's output.
	Output string `yaml:"output"`
	// BootstrapReps is the number of stratified bootstrap resamples of
	// the report's intervals, in [100, 1000000]; default 10000. Their
	// random source is seeded from Seed.
	BootstrapReps int `yaml:"bootstrap_reps"`
	// Environments are the environments, each an ordinary run config.
	Environments []Environment `yaml:"environments"`

	file string
}

// Budget is an episode budget: budget.episodes of the run configs.
type Budget struct {
	// Episodes bounds a run's train and val episodes, > 0.
	Episodes int `yaml:"episodes"`
}

// Environment is one environment of an ablation: a run config and the
// sizes of its replicates' seed sets.
type Environment struct {
	// Name labels the environment in the tables and directories (same
	// rule as Config.Name), unique in the ablation.
	Name string `yaml:"name"`
	// Config is the run config file ("default" for the embedded default
	// of evolve run), relative to the ablation file's directory. Its
	// seeds, mutation.proposer, budget, workers and output are replaced
	// by the ablation's; the rest is used as it is.
	Config string `yaml:"config"`
	// Seeds are the sizes of each replicate's seed sets; default 200
	// train, 300 val, 1000 test (those of the embedded set).
	Seeds Sizes `yaml:"seeds"`
	// Budget, when episodes > 0, replaces the ablation's budget for this
	// environment (for every proposer alike).
	Budget Budget `yaml:"budget"`
	// BestKnown, when set, is the upper reference of the normalised score
	// (the best known mean test score on this environment); otherwise the
	// best final test mean of the ablation's runs on it.
	BestKnown *float64 `yaml:"best_known"`
}

// Sizes are the numbers of seeds of each split, each in [1, 1000000]; 0
// takes the default's.
type Sizes struct {
	Train int `yaml:"train"`
	Val   int `yaml:"val"`
	Test  int `yaml:"test"`
}

// Limits and defaults of a Config.
const (
	MaxReplicates        = 1000
	DefaultOutput        = "ablations"
	DefaultBootstrapReps = 10000
	// DefaultConfig is the value of Environment.Config naming the
	// embedded default run config.
	DefaultConfig = "default"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Load reads and checks the ablation file at path (see Parse).
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes an ablation config from data (the contents of file)
// strictly, applies the defaults, makes each environment's config path
// absolute and checks everything: every problem at once, each a
// *strictyaml.Error naming file, line, field and the bad value. It also
// builds every (environment, proposer) run config once (RunConfig), so that
// a proposer an environment cannot take (cmaes without numeric
// parameters) or a budget too small for a first generation is refused
// before anything runs.
func Parse(file string, data []byte) (*Config, error) {
	c := &Config{}
	root := strictyaml.Root(data)
	if err := strictyaml.Decode(file, data, c); err != nil {
		return nil, err
	}
	c.file = file
	var problems []*strictyaml.Error
	bad := func(field, format string, args ...any) {
		problems = append(problems, &strictyaml.Error{File: file, Line: strictyaml.Line(root, field), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if !nameRE.MatchString(c.Name) {
		bad("name", "%q is not a valid name (1-64 letters, digits, '.', '_', '-')", c.Name)
	}
	if nodeOf(root, "seed") == nil {
		bad("seed", "missing: the replicates' seed sets are a function of it, so choose one and record it")
	}
	if c.Replicates < 1 || c.Replicates > MaxReplicates {
		bad("replicates", "%d is not in [1, %d]", c.Replicates, MaxReplicates)
	}
	if len(c.Proposers) == 0 {
		c.Proposers = []string{mutate.ProposerFailure, mutate.ProposerRandom, mutate.ProposerCMAES}
	}
	for i, p := range c.Proposers {
		f := fmt.Sprintf("proposers[%d]", i)
		switch p {
		case mutate.ProposerFailure, mutate.ProposerRandom, mutate.ProposerCMAES:
		default:
			bad(f, "%q is not a proposer (want failure, random or cmaes)", p)
		}
		if slices.Index(c.Proposers, p) < i {
			bad(f, "%q is listed twice", p)
		}
	}
	if c.Budget.Episodes <= 0 {
		bad("budget.episodes", "%d: want the equal episode budget of every run, > 0", c.Budget.Episodes)
	}
	if c.MaxGenerations < 0 || c.MaxGenerations > 1000 {
		bad("max_generations", "%d is not in [0, 1000] (0 keeps the run config's)", c.MaxGenerations)
	}
	if c.Patience < 0 || c.Patience > 100 {
		bad("patience", "%d is not in [0, 100] (0 keeps the run config's)", c.Patience)
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Workers < 1 {
		bad("workers", "%d: want >= 1 episodes at once per run", c.Workers)
	}
	if c.Parallel < 0 {
		bad("parallel", "%d: want >= 0 runs at once (0 = GOMAXPROCS)", c.Parallel)
	}
	if c.Output == "" {
		c.Output = DefaultOutput
	}
	if c.BootstrapReps == 0 {
		c.BootstrapReps = DefaultBootstrapReps
	}
	if c.BootstrapReps < 100 || c.BootstrapReps > 1000000 {
		bad("bootstrap_reps", "%d is not in [100, 1000000]", c.BootstrapReps)
	}
	if len(c.Environments) == 0 {
		bad("environments", "none: want at least one environment (name and config)")
	}
	names := map[string]bool{}
	for i := range c.Environments {
		e := &c.Environments[i]
		f := fmt.Sprintf("environments[%d]", i)
		if !nameRE.MatchString(e.Name) {
			bad(f+".name", "%q is not a valid name (1-64 letters, digits, '.', '_', '-')", e.Name)
		} else if names[e.Name] {
			bad(f+".name", "%q is listed twice", e.Name)
		}
		names[e.Name] = true
		if e.Config == "" {
			bad(f+".config", `empty: want a run config file, or "default" for evolve run's embedded default`)
		} else if e.Config != DefaultConfig && !filepath.IsAbs(e.Config) {
			e.Config = filepath.Join(filepath.Dir(file), e.Config)
			if abs, err := filepath.Abs(e.Config); err == nil {
				e.Config = abs
			}
		}
		def := seeds.DefaultSizes
		for _, s := range []struct {
			name string
			n    *int
			def  int
		}{{"train", &e.Seeds.Train, def.Train}, {"val", &e.Seeds.Val, def.Val}, {"test", &e.Seeds.Test, def.Test}} {
			if *s.n == 0 {
				*s.n = s.def
			}
			if *s.n < 1 || *s.n > seeds.MaxSplitSize {
				bad(f+".seeds."+s.name, "%d is not in [1, %d]", *s.n, seeds.MaxSplitSize)
			}
		}
		if e.Budget.Episodes < 0 {
			bad(f+".budget.episodes", "%d: want > 0, or 0 for the ablation's budget", e.Budget.Episodes)
		}
		if e.BestKnown != nil && (*e.BestKnown != *e.BestKnown) {
			bad(f+".best_known", "NaN: want a score")
		}
	}
	if len(problems) > 0 {
		return nil, strictyaml.Join(problems...)
	}
	for i, e := range c.Environments {
		for _, p := range c.Proposers {
			rc, err := c.RunConfig(i, p, experiment.Embedded)
			if err != nil {
				bad(fmt.Sprintf("environments[%d].config", i), "%s with proposer %s: %v", e.Config, p, err)
				continue
			}
			// What experiment.Run checks once the seed sets exist.
			need := e.Seeds.Val + e.Seeds.Train + rc.Mutation.Candidates*e.Seeds.Val
			if b := c.EpisodeBudget(i); b < need {
				field := "budget.episodes"
				if e.Budget.Episodes > 0 {
					field = fmt.Sprintf("environments[%d].budget.episodes", i)
				}
				bad(field, "%d is less than the %d train and val episodes %s needs for the base version's val phase (%d) and one generation (%d train + %d candidates x %d val)",
					b, need, e.Name, e.Seeds.Val, e.Seeds.Train, rc.Mutation.Candidates, e.Seeds.Val)
				break
			}
		}
	}
	return c, strictyaml.Join(problems...)
}

// nodeOf returns the value node of the top-level key, or nil.
func nodeOf(root *yaml.Node, key string) *yaml.Node {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	return nil
}

// File is the name the config was parsed under.
func (c *Config) File() string { return c.file }

// EpisodeBudget returns the budget.episodes of environment i's runs.
func (c *Config) EpisodeBudget(i int) int {
	if b := c.Environments[i].Budget.Episodes; b > 0 {
		return b
	}
	return c.Budget.Episodes
}

// RunConfig returns the run config of proposer on environment i with the
// seed directory seedDir (experiment.Embedded for a check without seeds):
// the environment's config with its name, seeds, mutation.proposer,
// budget.episodes, workers (and max_generations and patience if the
// ablation sets them) replaced, validated as evolve run validates a file.
// Its errors are the run config's problems.
func (c *Config) RunConfig(i int, proposer, seedDir string) (*experiment.Config, error) {
	e := c.Environments[i]
	var (
		base *experiment.Config
		file = e.Config
		err  error
	)
	if e.Config == DefaultConfig {
		base, file = experiment.DefaultConfig(), "evolve run default (embedded)"
	} else if base, err = experiment.Load(e.Config); err != nil {
		return nil, err
	}
	base.Name = e.Name + "-" + proposer
	if len(base.Name) > 64 {
		base.Name = base.Name[:64]
	}
	base.Seeds = seedDir
	base.Mutation.Proposer = proposer
	base.Budget.Episodes = c.EpisodeBudget(i)
	if c.MaxGenerations > 0 {
		base.MaxGenerations = c.MaxGenerations
	}
	if c.Patience > 0 {
		base.Patience = c.Patience
	}
	data, err := base.Resolved()
	if err != nil {
		return nil, err
	}
	// Parse again what the run will record: its checks see the new values.
	rc, err := experiment.Parse(file, data)
	if err != nil {
		return nil, err
	}
	rc.Workers, rc.Executor, rc.Trajectories, rc.MaxErrorRate = c.Workers, base.Executor, base.Trajectories, base.MaxErrorRate
	rc.Output = ""
	return rc, nil
}

// Canonical returns the config as YAML with its defaults applied and
// environment configs as absolute paths: what the ablation directory
// records (ablation.yaml) and what a rerun must match.
func (c *Config) Canonical() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		panic(err) // plain data: cannot fail
	}
	enc.Close()
	return b.Bytes()
}
