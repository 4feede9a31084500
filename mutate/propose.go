package mutate

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"evolve/failure"
	"evolve/params"
	"evolve/stats"
)

// Config is the proposer's table: how many candidates, which remedies
// answer which failure cause, which fill a generation up, and the steps.
type Config struct {
	// Candidates is k, the most candidates proposed per generation, in
	// [1, 64].
	Candidates int `yaml:"candidates" json:"candidates"`
	// Remedies maps each failure cause to its remedies, most direct
	// first (see Remedy for the syntax). Empty means the environment's
	// default table (envs.Info.Remedies).
	Remedies map[string][]string `yaml:"remedies" json:"remedies,omitempty"`
	// Fill lists remedies that fill a generation up to Candidates when
	// the causes' remedies are too few. Empty means the environment's
	// default (envs.Info.Fill).
	Fill []string `yaml:"fill" json:"fill,omitempty"`
	// Steps overrides the declared step of numeric parameters by name
	// (> 0; a whole number for an Integer).
	Steps map[string]float64 `yaml:"steps" json:"steps,omitempty"`
	// Proposer is the proposer family (mutation.proposer): "failure"
	// (the default, also written ""), "random" or "cmaes"; see
	// ProposerFailure, ProposerRandom and ProposerCMAES.
	Proposer string `yaml:"proposer,omitempty" json:"proposer,omitempty"`
}

// DefaultConfig returns k = 4 candidates and the environment's remedies,
// fill-ups and steps.
func DefaultConfig() Config { return Config{Candidates: 4} }

// Validate checks c against the parameters' schema and the declared
// failure causes: k in range, each remedy well formed and fitting the
// schema, each cause declared, each step positive (whole for an Integer)
// and naming a numeric parameter. The error names the first bad entry
// ("remedies.injury[1]: ...").
func (c Config) Validate(schema params.Schema, causes []string) error {
	if c.Candidates < 1 || c.Candidates > 64 {
		return fmt.Errorf("candidates: %d is out of range, allowed [1, 64]", c.Candidates)
	}
	if err := CheckProposer(c.Proposer, c.Candidates, schema); err != nil {
		return err
	}
	for _, cause := range sortedKeys(c.Remedies) {
		if !slices.Contains(causes, cause) {
			return fmt.Errorf("remedies.%s: not a failure cause of the environment (declared: %v)", cause, causes)
		}
		for i, s := range c.Remedies[cause] {
			if err := checkRemedy(s, schema); err != nil {
				return fmt.Errorf("remedies.%s[%d]: %w", cause, i, err)
			}
		}
	}
	for i, s := range c.Fill {
		if err := checkRemedy(s, schema); err != nil {
			return fmt.Errorf("fill[%d]: %w", i, err)
		}
	}
	for _, name := range sortedKeys(c.Steps) {
		f, x := schema.Field(name), c.Steps[name]
		switch {
		case f == nil || (f.Kind != params.Number && f.Kind != params.Integer):
			return fmt.Errorf("steps.%s: not a number or integer parameter (parameters: %v)", name, schema.Names())
		case !(x > 0) || (f.Kind == params.Integer && x != float64(int64(x))):
			return fmt.Errorf("steps.%s: %v must be a positive %s", name, x, f.Kind)
		}
	}
	return nil
}

func checkRemedy(s string, schema params.Schema) error {
	r, err := ParseRemedy(s)
	if err != nil {
		return err
	}
	return r.Check(schema)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Propose returns up to c.Candidates distinct mutations of p that answer
// the failures in a, in the package's order of steps: causes ranked by
// count (a.Ranked), each cause's remedies taken round-robin, most direct
// first, skipping any whose result equals p or an earlier candidate; then
// the fill-ups. remedies and fill are the tables in use (a config's, or
// the environment's defaults). Every returned Params is valid for schema
// and differs from p and from each other. The result is a deterministic
// function of its arguments. It returns an error for p invalid for
// schema, or a remedy that does not fit it.
func Propose(a failure.Analysis, p params.Set, schema params.Schema, c Config, remedies map[string][]string, fill []string) ([]Mutation, error) {
	return propose(a, p, schema, c, remedies, fill, nil)
}

// propose is Propose with a filter: a mutation for which keep (if not
// nil) returns false is skipped, and the next remedy takes its place.
func propose(a failure.Analysis, p params.Set, schema params.Schema, c Config, remedies map[string][]string, fill []string, keep func(Mutation) bool) ([]Mutation, error) {
	if err := schema.Validate(p); err != nil {
		return nil, err
	}
	var out []Mutation
	add := func(m Mutation) {
		if len(out) >= c.Candidates || m.Params.Equal(p) || keep != nil && !keep(m) {
			return
		}
		for _, o := range out {
			if o.Params.Equal(m.Params) {
				return
			}
		}
		out = append(out, m)
	}
	apply := func(s string) (Mutation, error) {
		r, err := ParseRemedy(s)
		if err != nil {
			return Mutation{}, err
		}
		return Apply(r, p, schema, c.Steps[r.Param])
	}
	ranked := a.Ranked()
	for round := 0; len(out) < c.Candidates; round++ {
		any := false
		for _, cause := range ranked {
			rs := remedies[cause]
			if round >= len(rs) {
				continue
			}
			any = true
			m, err := apply(rs[round])
			if errors.Is(err, ErrNoChange) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("remedy %q for %s: %w", rs[round], cause, err)
			}
			m.Cause = cause
			add(m)
		}
		if !any {
			break
		}
	}
	for _, s := range fill {
		m, err := apply(s)
		if errors.Is(err, ErrNoChange) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fill-up %q: %w", s, err)
		}
		add(m)
	}
	return out, nil
}

// Undoes reports whether m undoes the change from parent to incumbent
// (the incumbent's last accepted change): it sets a parameter that
// change moved back to its value in parent. A text mutation (nil Params)
// and a nil parent undo nothing.
func Undoes(m Mutation, incumbent, parent params.Set) bool {
	if m.Params == nil || parent == nil {
		return false
	}
	for _, was := range parent {
		now, ok := incumbent.Get(was.Name)
		if !ok || now.Equal(was.Value) {
			continue
		}
		if v, ok := m.Params.Get(was.Name); ok && v.Equal(was.Value) {
			return true
		}
	}
	return false
}

// NewEvidence reports whether there is new evidence against the
// incumbent's last accepted change, so that a mutation may undo it: the
// incumbent's mean score on the train seeds is below its parent's on the
// same seeds. The change was accepted on the val seeds; the train seeds
// are data its acceptance did not see. A failure cause that grew after
// the change is no such evidence: the val test already weighed it against
// what the change gained. Unknown scores (an empty slice) are no evidence.
func NewEvidence(incumbent, parent []float64) bool {
	if len(incumbent) == 0 || len(parent) == 0 {
		return false
	}
	return stats.MeanOf(incumbent) < stats.MeanOf(parent)
}
