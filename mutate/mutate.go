package mutate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"evolve/params"
	"evolve/prompt"
	"evolve/render"
)

// Operator names, as recorded in a prompt's mutation history and in
// candidates.parquet: one per kind of parameter.
const (
	OpAdjust  = "adjust"  // a Number or Integer moved by its step
	OpSwitch  = "switch"  // an Enum moved to the next or previous item
	OpReorder = "reorder" // an Ordering changed: an item moved to the front or back, or rotated
)

// ErrNoChange is returned by a remedy whose result equals its input (for
// example a number already at its bound).
var ErrNoChange = errors.New("mutation leaves the parameters unchanged")

// Mutation is one proposed change of policy parameters.
type Mutation struct {
	// Operator is the operator's name, one of the Op constants.
	Operator string
	// Remedy is the remedy that made it, e.g. "health_threshold+".
	Remedy string
	// Params are the complete new parameters (valid for the schema,
	// different from the input's).
	Params params.Set
	// Description says what changed, e.g.
	// "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)".
	Description string
	// Reorder is true when an ordering changed: a candidate version gets
	// a minor bump then, a patch bump otherwise.
	Reorder bool
	// Cause is the failure cause this mutation addresses ("injury", ...),
	// or "" when it was proposed to fill up the candidates.
	Cause string
	// TextEdit is true for a text mutation (ProposeText, ProposeRules):
	// Rules holds the prompt's complete new rules_constraints, Params is
	// nil (the parameters are unchanged), and a candidate version gets a
	// major bump (a frozen part changed, see prompt.BumpFor). ApplyText
	// makes a prompt what it proposes.
	TextEdit bool
	Rules    []string
	// Sections are the prompt's complete new sections for a text mutation
	// of ProposeText (nil: unchanged); never a frozen section changed.
	Sections prompt.Sections
	// SectionOrder is the new declared order of the sections for
	// OpReorderSections (every section of render.SectionSpecs, with its
	// kind), nil otherwise.
	SectionOrder []render.SectionSpec
}

// The remedy operations.
const (
	Increase     = "+"            // a Number or Integer up by its step, an Enum to its next item
	Decrease     = "-"            // down by its step, an Enum to its previous item
	Prioritize   = "prioritize"   // move an item of an Ordering to the front
	Deprioritize = "deprioritize" // move an item of an Ordering to the back
	Rotate       = "rotate"       // move the first item of an Ordering to the back
)

// Remedy is one structured change of one parameter, written in a config
// or an environment's declaration as text:
//
//	NAME+  NAME-                   a Number or Integer by its step (clamped to its range), an Enum to the next/previous item
//	prioritize NAME ITEM           ITEM of the Ordering NAME to the front
//	deprioritize NAME ITEM         ITEM to the back
//	rotate NAME                    the first item of NAME to the back
type Remedy struct {
	Op    string // one of Increase, Decrease, Prioritize, Deprioritize, Rotate
	Param string // the parameter's name
	Item  string // the item moved (Prioritize, Deprioritize), else ""
}

// String writes r in the syntax ParseRemedy reads.
func (r Remedy) String() string {
	switch r.Op {
	case Increase, Decrease:
		return r.Param + r.Op
	case Rotate:
		return "rotate " + r.Param
	}
	return r.Op + " " + r.Param + " " + r.Item
}

// ParseRemedy reads a remedy (see Remedy). The error names the text.
func ParseRemedy(s string) (Remedy, error) {
	f := strings.Fields(s)
	switch {
	case len(f) == 1 && (strings.HasSuffix(f[0], "+") || strings.HasSuffix(f[0], "-")):
		r := Remedy{Op: f[0][len(f[0])-1:], Param: f[0][:len(f[0])-1]}
		if params.ValidName(r.Param) {
			return r, nil
		}
	case len(f) == 3 && (f[0] == Prioritize || f[0] == Deprioritize):
		return Remedy{Op: f[0], Param: f[1], Item: f[2]}, nil
	case len(f) == 2 && f[0] == Rotate:
		return Remedy{Op: Rotate, Param: f[1]}, nil
	}
	return Remedy{}, fmt.Errorf("remedy %q: want NAME+, NAME-, prioritize NAME ITEM, deprioritize NAME ITEM or rotate NAME", s)
}

// Check returns an error if r does not fit schema: an undeclared
// parameter, an operation its kind does not have, or an unknown item.
func (r Remedy) Check(schema params.Schema) error {
	f := schema.Field(r.Param)
	if f == nil {
		return fmt.Errorf("remedy %q: %q is not a declared parameter (declared: %v)", r, r.Param, schema.Names())
	}
	switch r.Op {
	case Increase, Decrease:
		if f.Kind == params.Ordering {
			return fmt.Errorf("remedy %q: %s is an ordering; use prioritize, deprioritize or rotate", r, r.Param)
		}
	default:
		if f.Kind != params.Ordering {
			return fmt.Errorf("remedy %q: %s is a %s; use %s+ or %s-", r, r.Param, f.Kind, r.Param, r.Param)
		}
		if r.Op != Rotate && !slices.Contains(f.Items, r.Item) {
			return fmt.Errorf("remedy %q: %q is not an item of %s (items: %v)", r, r.Item, r.Param, f.Items)
		}
	}
	return nil
}

// Apply applies r to p under schema, with step overriding the field's
// declared step when > 0. It returns ErrNoChange when the result equals
// p (a bound reached, an item already in place), and an error if r does
// not fit the schema (see Check) or p lacks the parameter. Numbers are
// clamped to the field's range and rounded to 3 decimals, so that
// repeated steps of 0.1 stay exact in YAML.
func Apply(r Remedy, p params.Set, schema params.Schema, step float64) (Mutation, error) {
	if err := r.Check(schema); err != nil {
		return Mutation{}, err
	}
	f := schema.Field(r.Param)
	old, ok := p.Get(r.Param)
	if !ok {
		return Mutation{}, fmt.Errorf("remedy %q: the parameters have no %s", r, r.Param)
	}
	if step <= 0 {
		step = f.Step
	}
	m := Mutation{Remedy: r.String()}
	var nv params.Value
	switch f.Kind {
	case params.Number, params.Integer:
		d := step
		dir := "increase"
		if r.Op == Decrease {
			d, dir = -step, "decrease"
		}
		x := math.Max(f.Min, math.Min(f.Max, old.Num+d))
		if f.Kind == params.Number {
			x = math.Round(x*1000) / 1000
			nv = params.NumberValue(x)
			m.Description = fmt.Sprintf("Adjusted %s: %.3f → %.3f (%s, Δ=%.3f)", r.Param, old.Num, x, dir, math.Abs(x-old.Num))
		} else {
			x = math.Round(x)
			nv = params.Value{Kind: params.Integer, Num: x}
			m.Description = fmt.Sprintf("Adjusted %s: %s → %s", r.Param, params.FormatNumber(old.Num), params.FormatNumber(x))
		}
		m.Operator = OpAdjust
	case params.Enum:
		i := slices.Index(f.Items, old.Str)
		j := i + 1
		if r.Op == Decrease {
			j = i - 1
		}
		if i < 0 || j < 0 || j >= len(f.Items) {
			return Mutation{}, ErrNoChange
		}
		nv = params.EnumValue(f.Items[j])
		m.Operator = OpSwitch
		m.Description = fmt.Sprintf("Switched %s: %s → %s", r.Param, old.Str, f.Items[j])
	case params.Ordering:
		list := slices.Clone(old.List)
		var verb string
		switch r.Op {
		case Prioritize, Deprioritize:
			i := slices.Index(list, r.Item)
			if i < 0 {
				return Mutation{}, fmt.Errorf("remedy %q: %s has no item %q", r, r.Param, r.Item)
			}
			list = slices.Delete(list, i, i+1)
			if r.Op == Prioritize {
				list = slices.Insert(list, 0, r.Item)
				verb = fmt.Sprintf("Prioritized '%s'", r.Item)
			} else {
				list = append(list, r.Item)
				verb = fmt.Sprintf("Deprioritized '%s'", r.Item)
			}
		case Rotate:
			if len(list) > 0 {
				list = append(list[1:], list[0])
			}
			verb = "Rotated " + r.Param
		}
		nv = params.OrderingValue(list)
		m.Operator, m.Reorder = OpReorder, true
		m.Description = fmt.Sprintf("%s: %s → %s", verb, old, nv)
	}
	if nv.Equal(old) {
		return Mutation{}, ErrNoChange
	}
	m.Params = p.With(r.Param, nv)
	return m, nil
}
