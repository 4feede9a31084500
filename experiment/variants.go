package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"evolve/envs"
	"evolve/internal/strictyaml"
)

// VariantConfig is one environment variant of an evaluation: a name and
// parameters that override the environment's (environment.params),
// key by key:
//
//	variants:
//	  - {name: short, params: {max_turns: 1000}}
//	  - {name: long, params: {max_turns: 3000}}
type VariantConfig struct {
	Name   string    `yaml:"name"`   // 1-64 letters, digits, '.', '_', '=', '-'; unique
	Params yaml.Node `yaml:"params"` // a mapping of the environment's parameters
}

// EnvVariant is an environment built from the config with a variant's
// overrides.
type EnvVariant struct {
	// Name is the variant's name, "" for the configured environment alone.
	Name string
	// Env is the environment.
	Env envs.Environment
	// Identity names the environment and hashes its resolved parameters:
	// "NAME sha256:HEX". Two variants with the same parameters have the
	// same identity (an evaluation cache keys on it). A config with an
	// OutcomeConfig() any method is hashed as what that returns: the
	// process environment leaves out pin_cpu, direct and stderr_dir,
	// which change how episodes are played but no outcome.
	Identity string

	params any // the decoded parameters (the registry's Config()), for VariantResolved
}

// EnvVariants builds the environments an evaluation plays: one per variant of
// the config's variants list, or, when sets is not empty, one per
// combination of the values of sets (each "environment.params.KEY=V1,V2,...",
// as --set takes them; the combinations in the order of sets and values,
// named "KEY=V,KEY=V"), or, when there are neither, the configured
// environment alone (Name ""). sets replace the config's variants. Errors
// name the variant and the bad parameter, with the config file's line for
// variants of the file.
func (c *Config) EnvVariants(sets []string) ([]EnvVariant, error) {
	type spec struct {
		name      string
		overrides *yaml.Node
		prefix    string
	}
	var specs []spec
	if len(sets) > 0 && len(c.Variants) > 0 {
		return nil, fmt.Errorf("%s: the config has variants and --set makes others: give one or the other", c.file)
	}
	switch {
	case len(sets) > 0:
		combos := []spec{{overrides: mapping()}}
		for _, s := range sets {
			key, vals, ok := strings.Cut(s, "=")
			param, isParam := strings.CutPrefix(key, "environment.params.")
			if !ok || !isParam || param == "" || strings.Contains(param, ".") || vals == "" {
				return nil, fmt.Errorf("--set %q: want environment.params.KEY=VALUE[,VALUE...]", s)
			}
			for _, v := range strings.Split(vals, ",") {
				if strings.TrimSpace(v) == "" {
					return nil, fmt.Errorf("--set %q: an empty value (want environment.params.KEY=V1,V2,...)", s)
				}
			}
			var next []spec
			for _, cmb := range combos {
				for _, v := range strings.Split(vals, ",") {
					o := cloneNode(cmb.overrides)
					setKey(o, param, v)
					name := param + "=" + v
					if cmb.name != "" {
						name = cmb.name + "," + name
					}
					next = append(next, spec{name: name, overrides: o, prefix: "--set " + name})
				}
			}
			combos = next
		}
		specs = combos
	case len(c.Variants) > 0:
		seen := map[string]bool{}
		for i, v := range c.Variants {
			field := fmt.Sprintf("variants[%d]", i)
			if !variantNameOK(v.Name) {
				return nil, &strictyaml.Error{File: c.file, Line: strictyaml.Line(c.root, field), Field: field + ".name",
					Msg: fmt.Sprintf("%q is not a valid variant name (1-64 letters, digits, '.', '_', '=', '-')", v.Name)}
			}
			if seen[v.Name] {
				return nil, &strictyaml.Error{File: c.file, Line: strictyaml.Line(c.root, field), Field: field + ".name", Msg: fmt.Sprintf("%q is given twice", v.Name)}
			}
			seen[v.Name] = true
			o := &v.Params
			if o.Kind == 0 {
				o = mapping()
			}
			specs = append(specs, spec{name: v.Name, overrides: o, prefix: field + ".params"})
		}
	default:
		specs = []spec{{overrides: mapping(), prefix: "environment.params"}}
	}
	var out []EnvVariant
	for _, s := range specs {
		env, id, params, err := c.variantEnv(s.overrides, s.prefix)
		if err != nil {
			return nil, err
		}
		out = append(out, EnvVariant{Name: s.name, Env: env, Identity: id, params: params})
	}
	return out, nil
}

// variantEnv builds the environment with environment.params overridden by
// overrides (a mapping) and returns it with its identity.
func (c *Config) variantEnv(overrides *yaml.Node, prefix string) (envs.Environment, string, any, error) {
	f, err := envs.Lookup(c.Environment.Name)
	if err != nil {
		return nil, "", nil, err
	}
	if overrides.Kind != yaml.MappingNode {
		return nil, "", nil, fmt.Errorf("%s: %s: want a mapping of the environment's parameters", c.file, prefix)
	}
	merged := mapping()
	if c.Environment.Params.Kind == yaml.MappingNode {
		merged = cloneNode(&c.Environment.Params)
	}
	for i := 0; i+1 < len(overrides.Content); i += 2 {
		setPair(merged, overrides.Content[i], overrides.Content[i+1])
	}
	if overrides.Line > 0 {
		merged.Line, merged.Column = overrides.Line, overrides.Column // problems point at the variant
	}
	params := f.Config()
	if err := strictyaml.DecodeNode(c.file, prefix, merged, params); err != nil {
		return nil, "", nil, err
	}
	if r, ok := params.(interface{ ResolvePaths(dir string) }); ok {
		r.ResolvePaths(filepath.Dir(c.file))
	}
	env, err := f.New(params)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: %s: %w", c.file, prefix, err)
	}
	var identity any = params
	if o, ok := params.(interface{ OutcomeConfig() any }); ok {
		identity = o.OutcomeConfig() // without settings that change no outcome
	}
	resolved, err := yaml.Marshal(identity)
	if err != nil {
		return nil, "", nil, err
	}
	sum := sha256.Sum256(resolved)
	return env, c.Environment.Name + " sha256:" + hex.EncodeToString(sum[:]), params, nil
}

func variantNameOK(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || slices.Contains([]rune("._=-,"), r))
	}) < 0
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func cloneNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = cloneNode(k)
	}
	return &c
}

// setPair sets the key k of mapping m to v, replacing an existing pair
// (so that both nodes, with their lines, are the override's).
func setPair(m, k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k.Value {
			m.Content[i], m.Content[i+1] = k, v
			return
		}
	}
	m.Content = append(m.Content, k, v)
}

// setNode sets key of mapping m to v.
func setNode(m *yaml.Node, key string, v *yaml.Node) {
	setPair(m, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// setKey sets key of mapping m to the scalar text, typed as YAML would
// type it (1000 an integer, 0.5 a float, true a bool, else a string).
func setKey(m *yaml.Node, key, text string) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode {
		setNode(m, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text})
		return
	}
	setNode(m, key, n.Content[0])
}

// VariantsYAML returns the config's variants as a YAML document of the
// key variants alone ("" when it has none): what an eval's checkpoint
// records beside the resolved config, which leaves them out, so that a
// resume parses the two together and plays the same variants.
func (c *Config) VariantsYAML() (string, error) {
	if len(c.Variants) == 0 {
		return "", nil
	}
	data, err := yaml.Marshal(struct {
		Variants []VariantConfig `yaml:"variants"`
	}{c.Variants})
	return string(data), err
}
