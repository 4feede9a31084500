package prompt

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"evolve/guard"
	"evolve/internal/strictyaml"
	"evolve/params"
)

// Checker is the one check that every entry point applies to a prompt
// file before it uses the prompt: evolve validate FILE, evolve prompt
// validate FILE, evolve eval FILE and a run's base prompt. It decodes the
// file strictly (Decode), requires policy parameters if Playable unless
// the prompt inherits them (inherits_from), checks the parameters against the
// environment's schema (kind, range, declared names, every item of an
// ordering) and screens every text with the policy a prompt store applies
// on write. The zero Checker only decodes.
type Checker struct {
	// Playable requires policy parameters unless the prompt inherits
	// them: set it where an agent will play the prompt (evolve validate,
	// evolve eval, a run's base prompt). evolve prompt validate leaves it
	// off, as a store holds prompts of agents without parameters too.
	Playable bool
	// Schema is the parameter schema of the environment that will play
	// the prompt; nil skips the schema check (CheckForm still applies).
	Schema params.Schema
	// Env names that environment in messages ("dungeon"); "" for none.
	Env string
	// Policy is the text screen; the zero Policy checks only encodings.
	// Use guard.Default(), the policy of a prompt store's writes.
	Policy guard.Policy
}

// FileCheck is a Checker's verdict on one prompt file.
type FileCheck struct {
	// Prompt is the decoded prompt with its parameters coerced to the
	// schema's kinds (an integer written for a number field becomes a
	// number); nil if the file does not decode.
	Prompt *Prompt
	// Problems are the file's decoding and parameter problems, each
	// naming the file, the line, the field and the bad value, in line
	// order; empty if there are none.
	Problems []*strictyaml.Error
	// Issues are the text screen's issues (the field and the line and
	// column inside that text); empty if there are none.
	Issues []guard.Issue

	decodeErr error // Decode's error when it has no location (a hash mismatch)
}

// OK reports whether the file has neither problems nor issues.
func (r *FileCheck) OK() bool { return len(r.Problems) == 0 && len(r.Issues) == 0 }

// Err returns nil if r is OK. Otherwise it returns the problems as
// strictyaml.Join does (one *DecodeError, or a strictyaml.Errors in line
// order; Decode's own error if it has no line, such as a content hash
// mismatch wrapping ErrHashMismatch) followed by the screen's rejection, a *guard.Error matching
// guard.ErrRejected under errors.Is, joined by errors.Join when both are
// present.
func (r *FileCheck) Err() error {
	var errs []error
	if r.decodeErr != nil {
		return r.decodeErr
	}
	if err := strictyaml.Join(r.Problems...); err != nil {
		errs = append(errs, err)
	}
	if len(r.Issues) > 0 {
		errs = append(errs, &guard.Error{Report: guard.Report{Status: guard.Rejected, Issues: r.Issues}})
	}
	return errors.Join(errs...)
}

// Check reads the prompt in data, the contents of file, and reports
// every problem at once (see FileCheck). Decoding problems stop the
// check (nothing else can be said of an undecodable file); if Playable, a
// prompt without policy_parameters that does not inherit is a problem at
// line 1 (an agent needs them); every parameter problem is placed at its line.
func (c Checker) Check(file string, data []byte) *FileCheck {
	r := &FileCheck{Problems: []*strictyaml.Error{}, Issues: []guard.Issue{}}
	p, err := Decode(file, data)
	if err != nil {
		if r.Problems = strictyaml.List(err); r.Problems == nil {
			r.decodeErr = err // keeps errors.Is(err, ErrHashMismatch)
			r.Problems = []*strictyaml.Error{{File: file, Msg: strings.TrimPrefix(err.Error(), file+": ")}}
		}
		return r
	}
	r.Prompt = p
	if c.Playable && !p.HasPolicy() && p.InheritsFrom == nil {
		r.Problems = append(r.Problems, &strictyaml.Error{File: file, Line: 1, Field: "policy_parameters",
			Msg: "missing: an agent needs its policy parameters (give policy_parameters, or inherits_from a prompt that has them)"})
	}
	if c.Schema != nil && p.HasPolicy() {
		p.PolicyParameters = c.Schema.Coerce(p.PolicyParameters)
		r.Problems = append(r.Problems, ParamProblems(file, data, p.PolicyParameters, c.Schema, c.Env)...)
	}
	if rep := c.Policy.Check(p.Texts()...); !rep.OK() {
		r.Issues = rep.Issues
	}
	if es := strictyaml.List(strictyaml.Join(r.Problems...)); es != nil {
		r.Problems = es // sorted by line
	}
	return r
}

// ParamProblems checks set, the policy parameters read from file (whose
// bytes are data), against schema (Schema.Problems: a value of the wrong
// kind, out of range, an undeclared or missing name, an ordering missing
// or repeating an item) and returns each problem at the line of its
// parameter in data (0 if data is nil or not YAML), with the field
// "policy_parameters.NAME" and the message naming env's parameters if
// env is not "". It returns nil if set fits schema.
//
// A whole number written as a float ("1e1", "2.0") for an Integer
// parameter is a problem too, as strictyaml refuses it for an integer
// field (see IntegerLiterals).
func ParamProblems(file string, data []byte, set params.Set, schema params.Schema, env string) []*strictyaml.Error {
	out := IntegerLiterals(file, data, schema)
	errs := schema.Problems(set)
	if len(errs) == 0 {
		return out
	}
	var root = strictyaml.Root(data)
	if data == nil {
		root = nil
	}
	for _, e := range errs {
		field, msg := "", e.Error()
		var pe *params.Error
		if errors.As(e, &pe) {
			field, msg = "policy_parameters."+pe.Field, pe.Detail()
		}
		if env != "" {
			msg += " (the " + env + " environment's parameters)"
		}
		out = append(out, &strictyaml.Error{File: file, Line: strictyaml.Line(root, field), Field: field, Msg: msg})
	}
	return out
}

// IntegerLiterals returns a problem, at its line, for each Integer
// parameter of schema that the prompt file data (named file) writes as a
// whole float: "1e1" or "2.0" would be read as the integer 10 or 2, so it is
// refused as strictyaml refuses it for an integer field ("write integers
// in decimal digits"). It returns nil if data is nil or not YAML.
func IntegerLiterals(file string, data []byte, schema params.Schema) []*strictyaml.Error {
	if data == nil {
		return nil
	}
	root := strictyaml.Root(data)
	pp := mappingValue(root, "policy_parameters")
	if pp == nil {
		return nil
	}
	var out []*strictyaml.Error
	for i := 0; i+1 < len(pp.Content); i += 2 {
		k, v := pp.Content[i], pp.Content[i+1]
		f := schema.Field(k.Value)
		if f == nil || f.Kind != params.Integer || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!float" {
			continue
		}
		if x, err := strconv.ParseFloat(v.Value, 64); err != nil || x != math.Trunc(x) || math.IsInf(x, 0) {
			continue // not a whole number: the schema says "is not an integer"
		}
		out = append(out, &strictyaml.Error{File: file, Line: v.Line, Field: "policy_parameters." + k.Value,
			Msg: fmt.Sprintf("%q is not a decimal integer (write integers in decimal digits, without a leading zero, exponent, point or base prefix)", v.Value)})
	}
	return out
}

// mappingValue returns the value of key in the mapping node n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
