package experiment

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"gopkg.in/yaml.v3"

	_ "evolve/agent"         // registers the dungeon, played by the scripted agent
	_ "evolve/agent/nethack" // registers nethack: real NetHack 3.6 under a pty (docs/nethack.md)
	"evolve/envs"
	_ "evolve/envs/dungeon" // the built-in environment is always registered
	_ "evolve/envs/process" // registers process: environments and agents in other languages (docs/protocol.md)
	"evolve/internal/strictyaml"
	"evolve/mutate"
	"evolve/rundir"
	"evolve/stats"
	"evolve/trajectory"
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
	// directory holding train.txt, val.txt, test.txt and SHA256SUMS. A
	// relative path is resolved against the directory of the config file
	// (as Docker Compose and Hydra resolve paths), and Parse makes it
	// absolute.
	Seeds string `yaml:"seeds"`
	// BasePrompt is "embedded" for the built-in base prompt v1.0.0, or the
	// path of a prompt YAML file to start from, resolved as Seeds.
	BasePrompt string `yaml:"base_prompt"`
	// Mutation sets the proposer: its family (mutation.proposer: failure,
	// random or cmaes), candidates per generation and step sizes.
	Mutation mutate.Config `yaml:"mutation"`
	// Budget bounds the episodes a run plays (see BudgetConfig).
	Budget BudgetConfig `yaml:"budget"`
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
	// MaxErrorRate stops a run (and an eval) whose phase (a version played
	// on a split) recorded more than this fraction of its episodes as
	// errors (on_episode_panic: record), in [0, 1], default 0.05: past it
	// the phase measures the failure, not the version. The error names
	// the phase, the share and the first error. 1 never stops. It never
	// changes a result, so it is not part of the run's ID; the checkpoint
	// records it for --resume.
	MaxErrorRate float64 `yaml:"max_error_rate"`
	// Executor chooses where episodes are played: this machine (the
	// default) or a Slurm cluster (see rundir.ExecutorConfig). It never
	// changes a result, so it is not part of the run's ID.
	Executor rundir.ExecutorConfig `yaml:"executor"`
	// Agent chooses who plays an environment that offers a choice: its
	// own agent (the dungeon's scripted agent, the default) or a language
	// model through an OpenAI-compatible endpoint (see AgentConfig).
	Agent AgentConfig `yaml:"agent"`
	// Output is the directory under which runs/<run-id>/ is created. A
	// relative path is relative to the working directory of the run (as
	// --out is), not to the config file.
	Output string `yaml:"output"`
	// Trajectories says which episodes keep their trajectory in the run
	// directory (package trajectory): "failed" (the default: every
	// episode whose cause is not none), "all" or "none". It never changes
	// a result, so it is not part of the run's ID.
	Trajectories trajectory.Policy `yaml:"trajectories"`
	// Variants are environment configurations that evolve eval plays,
	// each a name and parameters overriding environment.params (see
	// VariantConfig); evolve run ignores them, and they do not enter a
	// run's ID.
	Variants []VariantConfig `yaml:"variants"`

	// file is the name the config was parsed under, root its YAML tree:
	// they give the problems of Check their line.
	file string
	root *yaml.Node
}

// BudgetConfig is the run's episode budget (budget in the config).
type BudgetConfig struct {
	// Episodes bounds the train and val episodes of a run (test episodes
	// are not counted), >= 0; 0 means no budget. The base version's val
	// phase and the first generation must fit in it (the run is refused
	// otherwise); after each generation the run stops with the stop
	// reason budget when the next generation could exceed it: its train
	// phase plus mutation.candidates times the val seeds.
	Episodes int `yaml:"episodes"`
}

// EnvironmentConfig names an environment and holds its parameters, which
// are decoded strictly into the environment's own config type. The
// parameters go under params, or beside name (environment: {name:
// process, command: [python3, env.py]}); not both.
type EnvironmentConfig struct {
	Name   string    `yaml:"name"`   // registry name, e.g. "dungeon" (see envs.Names)
	Params yaml.Node `yaml:"params"` // the environment's parameters, decoded strictly by Config.Validate

	// params is the decoded parameter struct (the registry's Config()),
	// env the environment built from it.
	params any
	env    envs.Environment
	// flat says the parameters were given beside name: problems then
	// name them environment.KEY rather than environment.params.KEY.
	flat bool
}

// paramsField is the field path of the parameters in problems.
func (e *EnvironmentConfig) paramsField() string {
	if e.flat {
		return "environment"
	}
	return "environment.params"
}

// UnmarshalYAML reads name and the parameters, under params or beside
// name.
func (e *EnvironmentConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: environment: want a mapping with name and the environment's parameters", n.Line)}}
	}
	flat := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	var problems []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode {
				problems = append(problems, fmt.Sprintf("line %d: name: want the environment's name, e.g. dungeon or process", v.Line))
			}
			e.Name = v.Value
		case "params":
			e.Params = *v
		default:
			flat.Content = append(flat.Content, k, v)
		}
	}
	if len(flat.Content) > 0 {
		if e.Params.Kind != 0 {
			problems = append(problems, fmt.Sprintf("line %d: %s: give the environment's parameters under params or beside name, not both", flat.Content[0].Line, flat.Content[0].Value))
		} else {
			e.Params, e.flat = *flat, true
		}
	}
	if len(problems) > 0 {
		return &yaml.TypeError{Errors: problems}
	}
	return nil
}

// Acceptance is the statistical gate of a generation.
type Acceptance struct {
	// Test is the acceptance test, a test registered with
	// stats.UseAcceptance: "mwu" (one-sided Mann-Whitney U, candidate
	// greater than incumbent; the default) or "signed-rank" (one-sided
	// Wilcoxon signed-rank test of the differences candidate − incumbent
	// paired by val seed).
	Test stats.TestName `yaml:"test"`
	// Alpha is the family-wise significance level, in (0, 0.5].
	Alpha float64 `yaml:"alpha"`
	// Correction adjusts the p-values across a generation's candidates:
	// "holm" (default), "bonferroni", "hochberg", "bh", "by" or "none".
	Correction string `yaml:"correction"`
	// AlphaSpending spends Alpha across the run's generations:
	// "basel" (the default) tests generation g (from 1) at
	// α_g = α·6/(π²g²) (stats.BaselAlpha), so that the run's chance of
	// accepting any non-improving candidate, over all its generations, is
	// at most Alpha; "none" tests every generation at Alpha (the
	// run-wise rate then grows with the generations).
	AlphaSpending string `yaml:"alpha_spending"`
	// Sequential makes the gate group-sequential (docs/sequential.md):
	// candidates are tested at interim looks on the first val seeds and
	// stop early for efficacy or futility. Looks 1 (the default) plays
	// every val seed.
	Sequential Sequential `yaml:"sequential"`
}

// Sequential is a group-sequential acceptance gate:
//
//	sequential: {looks: 3, spending: obrien-fleming, futility: 0}
//
// A candidate is tested at looks k = 1..Looks on the first n_k = ⌈k·N/K⌉
// val seeds (N the val split's size), with the configured rank test's
// standardised statistic (normal approximation without continuity
// correction) and the Lan-DeMets boundaries of Spending at level
// α_g/m (α_g the generation's level, m its candidates: Bonferroni across
// candidates). It stops at the first look where Z >= the boundary
// (efficacy) or, before the last look, Z < Futility (futility; the
// boundaries are non-binding, so futility only lowers the error rate).
type Sequential struct {
	// Looks is K, the number of looks including the last, in [1, 20]; 1
	// switches sequential testing off.
	Looks int `yaml:"looks"`
	// Spending is the α-spending function over the looks:
	// "obrien-fleming" (the default) or "pocock" (stats.Spending).
	Spending string `yaml:"spending"`
	// Futility is the z below which a candidate stops at an interim look,
	// in [-5, 5]; null (the default) never stops for futility.
	Futility *float64 `yaml:"futility"`
	// Stopping is the multi-candidate stopping rule:
	// StoppingSimultaneous (the default) stops the whole generation at
	// the first look where a candidate can be accepted;
	// StoppingSeparate lets every candidate go on to its own boundary
	// (accept.Sequential.Simultaneous).
	Stopping string `yaml:"stopping"`
}

// The values of acceptance.sequential.stopping.
const (
	StoppingSimultaneous = "simultaneous"
	StoppingSeparate     = "separate"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the embedded default config as written.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// DefaultConfig returns the embedded default config. It panics if the
// embedded file is invalid, which a test rules out.
func DefaultConfig() *Config {
	c, err := Parse(embeddedFile, defaultYAML)
	if err != nil {
		panic(err)
	}
	return c
}

// embeddedFile is the name DefaultConfig parses the embedded default under.
const embeddedFile = "default.yaml (embedded)"

// Embedded is the value of Config.Seeds and Config.BasePrompt that names
// the built-in seed sets and base prompt.
const Embedded = "embedded"

// Load reads the config file at path, validates it as Parse does and
// checks the seed directory and base prompt it names as Config.Check does
// (the output directory is checked when a run starts, as --out may
// replace it). Every problem of the file is reported at once: one is a
// *strictyaml.Error, more a strictyaml.Errors sorted by line, each naming
// path, line and field. An unreadable file is the error of os.ReadFile.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, _, err := parseAndCheck(path, data, false)
	return c, err
}

// Preflight is what "evolve validate" runs on a config: Parse and Check
// of the config's own output directory, with every problem of both
// reported at once as Load reports them. It returns the config and the
// inputs it names when there is no problem. It creates nothing.
func Preflight(file string, data []byte) (*Config, *Inputs, error) {
	return parseAndCheck(file, data, true)
}

// parseAndCheck parses data and, if its YAML could be read, checks the
// inputs it names (and its output directory if output), joining the
// problems of both.
func parseAndCheck(file string, data []byte, output bool) (*Config, *Inputs, error) {
	c, problems := parse(file, data)
	if c == nil {
		return nil, nil, strictyaml.Join(problems...)
	}
	out := ""
	if output {
		out = c.Output
	}
	in, err := c.Check(out)
	if err != nil && strictyaml.List(err) == nil {
		return nil, nil, err
	}
	reported := map[string]bool{}
	for _, e := range problems {
		reported[e.Field] = true
	}
	for _, e := range strictyaml.List(err) {
		// With problems in the fields, Check's environment and gate are
		// built from defaults kept in their place: only the files it
		// reads and the output directory are news.
		files := e.Field == "seeds" || e.Field == "base_prompt" || e.Field == "output"
		if (len(problems) == 0 || files) && !reported[e.Field] {
			problems = append(problems, e)
		}
	}
	if err := strictyaml.Join(problems...); err != nil {
		return nil, nil, err
	}
	return c, in, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Parse decodes a config from data (the contents of file) strictly and
// validates it. Fields absent from data take the default's values, so a
// config may set only what it changes. Relative seeds and base_prompt
// paths are resolved against the directory of file and made absolute. It
// reads no file: Check reads what the config names. Every problem is
// reported at once, in line order: one problem is a *strictyaml.Error,
// more a strictyaml.Errors, each naming file, line, field and the bad
// value with its allowed range.
func Parse(file string, data []byte) (*Config, error) {
	c, problems := parse(file, data)
	if err := strictyaml.Join(problems...); err != nil {
		return nil, err
	}
	return c, nil
}

// parse is Parse returning every problem; the config is nil if data is
// not a YAML mapping (its problems say why), else decoded as far as it
// could be (a field with a problem keeps its default).
func parse(file string, data []byte) (*Config, []*strictyaml.Error) {
	c := &Config{Agent: defaultAgent(), Executor: defaultExecutor()}
	if file != embeddedFile {
		c = DefaultConfig()
		c.Environment.Params = yaml.Node{}
	}
	problems := strictyaml.List(strictyaml.Decode(file, data, c))
	root := strictyaml.Root(data)
	if root == nil || (root.Kind != yaml.MappingNode && len(problems) > 0) {
		return nil, problems // not YAML, or not a mapping: nothing to check
	}
	c.file, c.root = file, root
	if c.Environment.Params.Kind == 0 && file != embeddedFile {
		// keep the default parameters when the file names no params
		def := DefaultConfig()
		if c.Environment.Name == def.Environment.Name {
			c.Environment.Params = def.Environment.Params
		}
	}
	return c, append(problems, c.resolve(file, root, problems)...)
}

// resolve validates every field, decodes the environment parameters and
// makes the seeds and base_prompt paths absolute. root is the file's YAML
// tree, to give problems their line; a field named in decoded (the
// problems of decoding) is not checked again.
func (c *Config) resolve(file string, root *yaml.Node, decoded []*strictyaml.Error) []*strictyaml.Error {
	reported := map[string]bool{}
	for _, e := range decoded {
		reported[e.Field] = true
	}
	var problems []*strictyaml.Error
	add := func(e *strictyaml.Error) {
		if !reported[e.Field] {
			problems = append(problems, e)
		}
	}
	bad := func(field string, format string, args ...any) {
		add(&strictyaml.Error{File: file, Line: strictyaml.Line(root, field), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if !nameRE.MatchString(c.Name) {
		bad("name", "%q is not a valid name (1-64 letters, digits, '.', '_', '-')", c.Name)
	}
	if f, err := envs.Lookup(c.Environment.Name); err != nil {
		bad("environment.name", "%v", err)
	} else {
		params := f.Config()
		ok := true
		if c.Environment.Params.Kind != 0 {
			es := strictyaml.List(strictyaml.DecodeNode(file, c.Environment.paramsField(), &c.Environment.Params, params))
			problems = append(problems, es...)
			ok = len(es) == 0
		}
		if ok {
			if r, isRel := params.(interface{ ResolvePaths(dir string) }); isRel {
				r.ResolvePaths(filepath.Dir(file)) // relative to the config file, as seeds and base_prompt
			}
			if env, err := f.New(params); err != nil {
				add(strictyaml.FieldError(file, c.Environment.paramsField(), &c.Environment.Params, err))
			} else {
				c.Environment.params, c.Environment.env = params, env
				info := env.Info()
				if err := c.Mutation.Validate(info.Params, info.CauseNames()); err != nil {
					add(strictyaml.FieldError(file, "mutation", nodeAt(root, "mutation"), err))
				}
			}
		}
	}
	dir := filepath.Dir(file)
	if c.Seeds == "" {
		bad("seeds", `empty; want "embedded" or a seed directory`)
	} else if abs, err := resolvePath(dir, c.Seeds); err != nil {
		bad("seeds", "%v", err)
	} else {
		c.Seeds = abs
	}
	if c.BasePrompt == "" {
		bad("base_prompt", `empty; want "embedded" or a prompt YAML file`)
	} else if abs, err := resolvePath(dir, c.BasePrompt); err != nil {
		bad("base_prompt", "%v", err)
	} else {
		c.BasePrompt = abs
	}
	if _, err := stats.ParseTestName(string(c.Acceptance.Test), stats.UseAcceptance); err != nil {
		bad("acceptance.test", "%q is not supported (allowed: %s)", c.Acceptance.Test, stats.CommaList(stats.TestNames(stats.UseAcceptance)))
	}
	if !(c.Acceptance.Alpha > 0 && c.Acceptance.Alpha <= 0.5) {
		bad("acceptance.alpha", "%v is out of range, allowed (0, 0.5]", c.Acceptance.Alpha)
	}
	switch c.Acceptance.Correction {
	case "holm", "bonferroni", "hochberg", "bh", "by", "none":
	default:
		bad("acceptance.correction", "%q is not one of holm, bonferroni, hochberg, bh, by, none", c.Acceptance.Correction)
	}
	switch c.Acceptance.AlphaSpending {
	case "basel", "none":
	default:
		bad("acceptance.alpha_spending", "%q is not one of basel, none", c.Acceptance.AlphaSpending)
	}
	if sq := c.Acceptance.Sequential; sq.Looks < 1 || sq.Looks > 20 {
		bad("acceptance.sequential.looks", "%d is out of range, allowed [1, 20] (1 = no interim look)", sq.Looks)
	}
	if _, err := stats.ParseSpending(c.Acceptance.Sequential.Spending); err != nil {
		bad("acceptance.sequential.spending", "%v", err)
	}
	if f := c.Acceptance.Sequential.Futility; f != nil && !(*f >= -5 && *f <= 5) {
		bad("acceptance.sequential.futility", "%v is out of range, allowed [-5, 5] (null = no futility stop)", *f)
	}
	if st := c.Acceptance.Sequential.Stopping; st != StoppingSimultaneous && st != StoppingSeparate {
		bad("acceptance.sequential.stopping", "%q is not a stopping rule, want %s or %s", st, StoppingSimultaneous, StoppingSeparate)
	}
	if c.MaxGenerations < 1 || c.MaxGenerations > 1000 {
		bad("max_generations", "%d is out of range, allowed [1, 1000]", c.MaxGenerations)
	}
	if c.Patience < 1 || c.Patience > 100 {
		bad("patience", "%d is out of range, allowed [1, 100]", c.Patience)
	}
	if c.Workers < 0 || c.Workers > 4096 {
		bad("workers", "%d is out of range, allowed [0, 4096] (0 = GOMAXPROCS)", c.Workers)
	}
	if c.StepBudget < 0 {
		bad("step_budget", "%d is negative (0 = no budget)", c.StepBudget)
	}
	if c.Budget.Episodes < 0 {
		bad("budget.episodes", "%d is negative (0 = no budget)", c.Budget.Episodes)
	}
	for _, err := range validateExecutor(c.Executor) {
		add(strictyaml.FieldError(file, "executor", nodeAt(root, "executor"), err))
	}
	if err := c.Agent.validate(); err != nil {
		add(strictyaml.FieldError(file, "agent", nodeAt(root, "agent"), err))
	}
	if c.OnEpisodePanic != "fail" && c.OnEpisodePanic != "record" {
		bad("on_episode_panic", "%q is not one of fail, record", c.OnEpisodePanic)
	}
	if !(c.MaxErrorRate >= 0 && c.MaxErrorRate <= 1) {
		bad("max_error_rate", "%v is out of range, allowed [0, 1] (a fraction of a phase's episodes; 1 never stops)", c.MaxErrorRate)
	}
	if c.Output == "" {
		bad("output", "empty; want a directory")
	}
	return problems
}

// resolvePath returns "embedded" as it is, and path made absolute: joined
// to dir if relative.
func resolvePath(dir, path string) (string, error) {
	if path == Embedded || filepath.IsAbs(path) {
		return path, nil
	}
	return filepath.Abs(filepath.Join(dir, path))
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

// Env returns the configured environment, built when the config was
// parsed.
func (c *Config) Env() (envs.Environment, error) {
	if c.Environment.env != nil {
		return c.Environment.env, nil
	}
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
// the run manifest records and what a resumed run compares. Seeds and
// base_prompt are absolute paths (or "embedded").
func (c *Config) Resolved() ([]byte, error) { return c.resolved(c.Seeds, c.BasePrompt) }

// identity is Resolved with a seed directory written as "directory" and a
// base prompt file as "file": the part of the run ID that comes from the
// config, which must not change with where the files are (their content
// hashes enter the ID separately). The embedded defaults stay "embedded",
// so the default run keeps its ID.
func (c *Config) identity() ([]byte, error) {
	s, b := c.Seeds, c.BasePrompt
	if s != Embedded {
		s = "directory"
	}
	if b != Embedded {
		b = "file"
	}
	return c.resolvedFor(s, b, true)
}

// resultsConfig is Resolved without how the model is reached (see
// AgentConfig.out): what a resume's config must equal.
func (c *Config) resultsConfig() ([]byte, error) { return c.resolvedFor(c.Seeds, c.BasePrompt, true) }

func (c *Config) resolved(seedsPath, basePrompt string) ([]byte, error) {
	return c.resolvedFor(seedsPath, basePrompt, false)
}

// resolvedFor is resolved; forID leaves out how the model is reached.
func (c *Config) resolvedFor(seedsPath, basePrompt string, forID bool) ([]byte, error) {
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
		Budget         *BudgetConfig `yaml:"budget,omitempty"`
		Acceptance     Acceptance    `yaml:"acceptance"`
		MaxGenerations int           `yaml:"max_generations"`
		Patience       int           `yaml:"patience"`
		StepBudget     int           `yaml:"step_budget"`
		OnEpisodePanic string        `yaml:"on_episode_panic"`
		Agent          *agentOut     `yaml:"agent,omitempty"`
	}
	var ag *agentOut
	if c.Agent.Kind == AgentLLM { // the scripted default adds nothing: run IDs keep
		ag = c.Agent.out(forID)
	}
	// The defaults (proposer failure, no episode budget) add nothing, so
	// that the run IDs of configs without them keep.
	mut := c.Mutation
	if mut.Proposer == mutate.ProposerFailure {
		mut.Proposer = ""
	}
	var budget *BudgetConfig
	if c.Budget.Episodes != 0 {
		budget = &c.Budget
	}
	return yaml.Marshal(out{c.Name, envOut{c.Environment.Name, c.Environment.params}, seedsPath, basePrompt,
		mut, budget, c.Acceptance, c.MaxGenerations, c.Patience, c.StepBudget, c.OnEpisodePanic, ag})
}
