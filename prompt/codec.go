package prompt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/internal/strictyaml"
	"evolve/params"
)

// ErrHashMismatch reports a prompt whose content does not match its
// recorded SHA-256: the file was edited after it was written.
var ErrHashMismatch = errors.New("content hash mismatch")

// DecodeError is a problem in a prompt file, at a line and field path.
type DecodeError = strictyaml.Error

// Encode returns the canonical YAML encoding of p: fields in schema order,
// skill descriptions and policy parameters in document order, floats in their shortest round-tripping
// form, times in RFC 3339 UTC, and last the content_sha256 line, the hex
// SHA-256 of everything before it. Equal prompts encode to equal bytes.
// Encode sets p.ContentSHA256. It returns an error if p is invalid.
func Encode(p *Prompt) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("encoding prompt %s: %w", p.Version, err)
	}
	body, err := EncodeBody(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	p.ContentSHA256 = hex.EncodeToString(sum[:])
	return append(body, "content_sha256: "+p.ContentSHA256+"\n"...), nil
}

// EncodeBody encodes every field of p but the hash, as Encode does: two
// prompts with equal bodies have equal content. The error is Encode's.
func EncodeBody(p *Prompt) ([]byte, error) {
	skills := mapping()
	for _, s := range p.SkillDescriptions {
		add(skills, s.Name, str(s.Text))
	}
	rules := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, r := range p.RulesConstraints {
		rules.Content = append(rules.Content, str(r))
	}
	policy := mapping()
	for _, pp := range p.PolicyParameters {
		add(policy, pp.Name, paramNode(pp.Value))
	}
	hist := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if len(p.MutationHistory) == 0 {
		hist.Style = yaml.FlowStyle
	}
	for _, r := range p.MutationHistory {
		m := mapping()
		add(m, "version", str(r.Version.String()))
		add(m, "prev_version", str(r.PrevVersion.String()))
		add(m, "operator", str(r.Operator))
		add(m, "description", str(r.Description))
		add(m, "timestamp", stamp(r.Timestamp))
		if e := r.Evidence; e != nil {
			ev := mapping()
			add(ev, "test", str(e.Test))
			add(ev, "alternative", str(e.Alternative))
			add(ev, "p_value", float(e.PValue))
			add(ev, "adjusted_p_value", float(e.AdjustedPValue))
			add(ev, "correction", str(e.Correction))
			add(ev, "a12", float(e.A12))
			add(ev, "n_incumbent", integer(e.NIncumbent))
			add(ev, "n_candidate", integer(e.NCandidate))
			add(ev, "incumbent_val_mean", float(e.IncumbentValMean))
			add(ev, "candidate_val_mean", float(e.CandidateValMean))
			add(ev, "generation", integer(e.Generation))
			add(ev, "accepted", boolean(e.Accepted))
			add(m, "evidence", ev)
		}
		hist.Content = append(hist.Content, m)
	}
	doc := mapping()
	add(doc, "version", str(p.Version.String()))
	for _, f := range []struct{ key, val string }{{"slug", p.Slug}, {"type", p.Type}, {"branch", p.Branch}} {
		if f.val != "" {
			add(doc, f.key, str(f.val))
		}
	}
	add(doc, "timestamp", stamp(p.Timestamp))
	if len(p.Tags) > 0 {
		add(doc, "tags", strList(p.Tags, yaml.FlowStyle))
	}
	if len(p.Metadata) > 0 {
		add(doc, "metadata", metaNode(map[string]any(p.Metadata)))
	}
	if p.InheritsFrom != nil {
		add(doc, "inherits_from", str(p.InheritsFrom.String()))
	}
	if len(p.OverrideSections) > 0 {
		add(doc, "override_sections", strList(p.OverrideSections, yaml.FlowStyle))
	}
	if len(p.Sections) > 0 {
		secs := mapping()
		for _, sec := range p.Sections {
			add(secs, sec.Name, text(sec.Text))
		}
		add(doc, "sections", secs)
	}
	if p.TaskDefinition != "" {
		add(doc, "task_definition", text(p.TaskDefinition))
	}
	if len(p.RulesConstraints) > 0 {
		add(doc, "rules_constraints", rules)
	}
	if len(p.SkillDescriptions) > 0 {
		add(doc, "skill_descriptions", skills)
	}
	if p.HasPolicy() {
		add(doc, "policy_parameters", policy)
	}
	add(doc, "mutation_history", hist)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// text is a string scalar written as a literal block if it has several
// lines (and a literal block preserves it).
func text(s string) *yaml.Node {
	n := str(s)
	if strings.Contains(s, "\n") && n.Style == 0 {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func strList(ss []string, style yaml.Style) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: style}
	for _, s := range ss {
		n.Content = append(n.Content, str(s))
	}
	return n
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func add(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, str(key), v) }

// str is a string scalar. yaml.v3 writes a multi-line string as a literal
// block by default; one that a literal block would not preserve is
// double-quoted.
func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") && !literalRoundTrips(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// paramNode encodes a policy parameter's value: a Number as float, an
// Integer as integer, an Enum as a string, an Ordering as a list.
func paramNode(v params.Value) *yaml.Node {
	switch v.Kind {
	case params.Number:
		return float(v.Num)
	case params.Integer:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: params.FormatNumber(v.Num)}
	case params.Enum:
		return str(v.Str)
	}
	return strList(v.List, 0)
}

func integer(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// float formats x in its shortest round-tripping form, always with a '.'
// or an exponent so that it reads back as a float ("1.0", "0.3", "1e-09").
func float(x float64) *yaml.Node {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	switch {
	case math.IsInf(x, 1):
		s = ".inf"
	case math.IsInf(x, -1):
		s = "-.inf"
	case math.IsNaN(x):
		s = ".nan"
	case !strings.ContainsAny(s, ".e"):
		s += ".0"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
}

func stamp(t time.Time) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: t.UTC().Format(time.RFC3339)}
}

// Decode reads a prompt from data, the contents of file, strictly: unknown
// or duplicate keys, wrong types, a bad version, parameters out of range
// and missing frozen parts are *DecodeError values naming the file, line,
// field path and bad value. If the document has content_sha256, it must
// equal the hash of the canonical encoding of the decoded fields, else
// the error wraps ErrHashMismatch, names both hashes and says to delete
// the line to use an edited file as a new prompt. A document without
// content_sha256 (an editable file, EncodeEditable) is accepted and its
// ContentSHA256 left "" (Encode computes it; a store refuses such a file
// among its versions).
func Decode(file string, data []byte) (*Prompt, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		// Let strictyaml format the syntax error with its line.
		var p Prompt
		return nil, strictyaml.Decode(file, data, &p)
	}
	p := &Prompt{}
	if err := strictyaml.Decode(file, data, p); err != nil {
		return nil, err
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if err := p.Validate(); err != nil {
		return nil, locate(file, doc, err)
	}
	if err := checkGiven(p, doc); err != nil {
		return nil, locate(file, doc, err)
	}
	if p.ContentSHA256 != "" {
		want := p.ContentSHA256
		q := p.Clone()
		if _, err := Encode(q); err != nil {
			return nil, &DecodeError{File: file, Msg: err.Error()}
		}
		if q.ContentSHA256 != want {
			return nil, fmt.Errorf("%s: %w: content_sha256 records %s, the content hashes to %s (the file was edited after it was written, and a stored version is immutable; "+
				"to use the edited file as a new prompt, delete its content_sha256 line and evolve computes the hash, or start from evolve prompt new)",
				file, ErrHashMismatch, want, q.ContentSHA256)
		}
	}
	return p, nil
}

// optionalKeys are the document's optional keys. A key that is given must
// have a value: "tags: []" or "task_definition: \"\"" is an error rather
// than a silent "none", so that every document has one canonical form.
var optionalKeys = []string{"slug", "type", "branch", "tags", "metadata", "inherits_from",
	"override_sections", "sections", "task_definition", "rules_constraints", "skill_descriptions", "policy_parameters"}

// checkGiven reports an optional key of doc given with an empty value,
// and validates policy_parameters whenever the key is given (its zero
// value would otherwise read as "no parameters").
func checkGiven(p *Prompt, doc *yaml.Node) error {
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i].Value, doc.Content[i+1]
		if !slices.Contains(optionalKeys, k) {
			continue
		}
		if v.Tag == "!!null" || (v.Kind == yaml.ScalarNode && v.Value == "") || (v.Kind != yaml.ScalarNode && len(v.Content) == 0) {
			return fmt.Errorf("%s: empty (leave the key out, or give a value)", k)
		}
		if k == "policy_parameters" {
			if err := params.CheckForm(p.PolicyParameters); err != nil {
				return err
			}
		}
	}
	return nil
}

// locate turns a Validate error into a *DecodeError at the line of the
// field it names ("policy_parameters.health_threshold: ...",
// "skill_descriptions: ...").
func locate(file string, doc *yaml.Node, err error) error {
	path, msg := SplitFieldError(err)
	return &DecodeError{File: file, Line: strictyaml.Line(doc, path), Field: path, Msg: msg}
}

// SplitFieldError splits a Validate error into the field path it names
// ("policy_parameters.health_threshold", "sections.identity"; "" for
// none) and the rest of its message.
func SplitFieldError(err error) (field, msg string) {
	var pe *params.Error
	if errors.As(err, &pe) {
		return "policy_parameters." + pe.Field, pe.Detail()
	}
	msg = err.Error()
	if k, rest, ok := strings.Cut(msg, ": "); ok && !strings.Contains(k, " ") {
		return k, rest
	}
	return "", msg
}

// literalRoundTrips reports whether s survives a YAML literal block
// unchanged. yaml.v3 loses some strings in that style (e.g. a leading
// empty line); those are written double-quoted instead.
func literalRoundTrips(s string) bool {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.LiteralStyle}
	doc := mapping()
	doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "s"}, n)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2) // as EncodeBody: the loss depends on the indent
	if enc.Encode(doc) != nil || enc.Close() != nil {
		return false
	}
	var back struct{ S string }
	return yaml.Unmarshal(buf.Bytes(), &back) == nil && back.S == s
}
