package mutate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"evolve/params"
)

// Proposer names, the values of mutation.proposer: the run's proposer
// family. Only the proposer differs between them: every candidate goes
// through the same acceptance gate, versions and tables.
const (
	// ProposerFailure is the failure-driven proposer (Composed), the
	// default.
	ProposerFailure = "failure"
	// ProposerRandom is uniform random search over the parameter schema
	// (Random), a baseline.
	ProposerRandom = "random"
	// ProposerCMAES is CMA-ES over the numeric parameters (CMAES), a
	// baseline.
	ProposerCMAES = "cmaes"
)

// Operator names of the baseline proposers' candidates.
const (
	OpRandom = "random" // a uniform draw from the parameter schema (Random)
	OpCMAES  = "cmaes"  // a CMA-ES sample (CMAES)
)

// ProposerName returns name with "" read as ProposerFailure.
func ProposerName(name string) string {
	if name == "" {
		return ProposerFailure
	}
	return name
}

// CheckProposer checks mutation.proposer: name ("" is ProposerFailure)
// must be failure, random or cmaes, and cmaes needs k >= 2 candidates
// (CMA-ES recombines the better half of each generation's samples) and a
// number or integer parameter in schema. The error names the value.
func CheckProposer(name string, k int, schema params.Schema) error {
	switch ProposerName(name) {
	case ProposerFailure, ProposerRandom:
		return nil
	case ProposerCMAES:
		if k < 2 {
			return fmt.Errorf("proposer: cmaes needs candidates >= 2 (its population), have %d", k)
		}
		if len(numericFields(schema)) == 0 {
			return fmt.Errorf("proposer: cmaes needs a number or integer parameter; the schema has none (parameters: %v)", schema.Names())
		}
		return nil
	}
	return fmt.Errorf("proposer: %q is not one of failure, random, cmaes", name)
}

// Random is the random-search baseline proposer: each generation it
// draws K parameter sets independently and uniformly from the schema
// (ignoring the failure analysis and the incumbent's values): a Number
// uniform in [Min, Max], an Integer uniform over the whole numbers in
// [Min, Max], an Enum uniform over its items, an Ordering a uniformly
// random permutation of its items (Fisher-Yates). A draw equal to the
// incumbent or to an earlier candidate is drawn again, at most 100 times
// per candidate (a small discrete schema may then yield fewer than K).
//
// Its randomness is a PCG (math/rand/v2) seeded by (Seed, generation):
// the candidates are a deterministic function of the seed, the
// generation and the incumbent (only to avoid repeating it), never of a global generator.
type Random struct {
	// Seed is the run's proposer seed (see experiment's proposerSeed).
	Seed uint64
	// Generation is the generation proposed for, from 0.
	Generation int
}

// Propose implements Proposer: K draws (each generation has its own
// stream, so a stalled incumbent gets fresh ones; Stall is not used).
// Its error says the incumbent's parameters are not valid for the
// schema.
func (p *Random) Propose(_ context.Context, req Request) ([]Mutation, error) {
	inc := req.Incumbent.PolicyParameters
	if err := req.Schema.Validate(inc); err != nil {
		return nil, fmt.Errorf("random proposer: %w", err)
	}
	rng := rand.New(rand.NewPCG(p.Seed, uint64(p.Generation)))
	n := req.K
	var out []Mutation
	for len(out) < n {
		var s params.Set
		ok := false
		for try := 0; try < 100 && !ok; try++ {
			s = drawUniform(rng, req.Schema)
			ok = !s.Equal(inc)
			for _, o := range out {
				ok = ok && !o.Params.Equal(s)
			}
		}
		if !ok {
			break
		}
		out = append(out, baselineMutation(OpRandom, "random draw", inc, s, req.Schema))
	}
	return out, nil
}

// drawUniform draws one parameter set uniformly from schema, in schema
// order.
func drawUniform(rng *rand.Rand, schema params.Schema) params.Set {
	s := make(params.Set, 0, len(schema))
	for i := range schema {
		f := &schema[i]
		var v params.Value
		switch f.Kind {
		case params.Number:
			v = params.NumberValue(f.Min + rng.Float64()*(f.Max-f.Min))
		case params.Integer:
			lo, hi := int(math.Ceil(f.Min)), int(math.Floor(f.Max))
			v = params.IntegerValue(lo + rng.IntN(hi-lo+1))
		case params.Enum:
			v = params.EnumValue(f.Items[rng.IntN(len(f.Items))])
		case params.Ordering:
			l := append([]string(nil), f.Items...)
			rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
			v = params.OrderingValue(l)
		}
		s = append(s, params.Param{Name: f.Name, Value: v})
	}
	return s
}

// baselineMutation is the mutation from inc to s, described by the
// parameters that changed ("random draw: health_threshold 0.3 → 0.7134,
// ...", numbers to 4 significant digits); an ordering changed makes it a Reorder (minor bump).
func baselineMutation(op, what string, inc, s params.Set, schema params.Schema) Mutation {
	m := Mutation{Operator: op, Remedy: op, Params: s}
	var changes []string
	for _, f := range schema {
		a, _ := inc.Get(f.Name)
		b, _ := s.Get(f.Name)
		if a.Equal(b) {
			continue
		}
		if f.Kind == params.Ordering {
			m.Reorder = true
		}
		changes = append(changes, fmt.Sprintf("%s %s → %s", f.Name, short(a), short(b)))
	}
	if len(changes) == 0 {
		m.Description = what + ": unchanged"
	} else {
		m.Description = what + ": " + strings.Join(changes, ", ")
	}
	return m
}

// short formats v for a description: a Number to 4 significant digits
// (the version's file holds the exact value), anything else as it is.
func short(v params.Value) string {
	if v.Kind == params.Number {
		return strconv.FormatFloat(v.Num, 'g', 4, 64)
	}
	return v.String()
}

// numericFields returns the indexes in schema of the Number and Integer
// parameters, in schema order: the dimensions CMAES searches.
func numericFields(schema params.Schema) []int {
	var idx []int
	for i, f := range schema {
		if f.Kind == params.Number || f.Kind == params.Integer {
			idx = append(idx, i)
		}
	}
	return idx
}
