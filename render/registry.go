package render

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"evolve/prompt"
)

// Phase is when a placeholder gets its value: PhaseStatic (at load, from the
// prompt's identity), PhaseComputed (at load, from the version and the
// environment) or PhaseRuntime (each turn). Phases are ordered: a later phase
// may use what an earlier one resolved, never the reverse.
type Phase int

// The phases, in order.
const (
	PhaseStatic   Phase = iota + 1 // at load: {{slug}}, {{version}}, {{branch}}, {{type}}
	PhaseComputed                  // at load, from the version and environment: {{param.NAME}}, {{env.name}}, {{causes}}
	PhaseRuntime                   // each turn: {{observation}}, {{turn}}, {{history}}
)

// Phases lists the phases in order.
var Phases = []Phase{PhaseStatic, PhaseComputed, PhaseRuntime}

// String returns "static", "computed" or "runtime" ("phase(N)" for
// anything else).
func (p Phase) String() string {
	switch p {
	case PhaseStatic:
		return "static"
	case PhaseComputed:
		return "computed"
	case PhaseRuntime:
		return "runtime"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// ParsePhase parses "static", "computed" or "runtime"; anything else is an
// error naming it.
func ParsePhase(s string) (Phase, error) {
	for _, p := range Phases {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown phase %q (want static, computed or runtime)", s)
}

// UnmarshalText parses a phase name (see ParsePhase).
func (p *Phase) UnmarshalText(b []byte) error {
	q, err := ParsePhase(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// MarshalText returns the phase's name.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Env is what the computed phase knows about the environment the prompt
// is played in (see envs.Info): its registry name and its failure causes
// in canonical order. The zero Env has neither, and {{env.name}} and
// {{causes}} are then unresolved.
type Env struct {
	Name   string   // e.g. "dungeon"
	Causes []string // e.g. injury, combat_loss, starvation, entrapment
}

// Scope is what a provider reads. Runtime is nil in the static and
// computed phases.
type Scope struct {
	// Prompt is the (resolved) prompt being rendered; never nil.
	Prompt *prompt.Prompt
	// Env is the environment of Options.Env.
	Env Env
	// Runtime is the turn's input, nil before the runtime phase.
	Runtime *Runtime
	// History is the part of Runtime.History kept this turn (after the
	// token budget dropped the oldest), nil before the runtime phase.
	History []Message
}

// ErrNoValue is returned by a provider that has no value for a name in
// the scope it is given (no such parameter, no observation this turn);
// the renderer turns it into an *UnresolvedError.
var ErrNoValue = errors.New("no value")

// ValueFunc returns the value of the placeholder name in scope s, or an
// error wrapping ErrNoValue if it has none. It is called once per load
// for PhaseStatic and PhaseComputed providers and once per turn for PhaseRuntime ones.
type ValueFunc func(s *Scope, name string) (string, error)

// Provider gives the values of one placeholder name, or of a family of
// names with a common prefix.
type Provider struct {
	// Name is a placeholder name ("version"), or a prefix followed by
	// ".*" ("param.*") for every name that starts with the prefix and a
	// '.' (the longest matching family wins; an exact name beats any
	// family).
	Name string
	// Phase is when the value is computed.
	Phase Phase
	// Doc says what the value is, for listings.
	Doc string
	// Value computes it.
	Value ValueFunc
}

// Registry maps placeholder names to providers. The zero Registry is
// empty; it is not safe for concurrent Register calls, and is read-only
// once given to New (New copies it).
type Registry struct {
	byName map[string]Provider
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]Provider{}} }

// Register adds p. It is an error if p.Name is not a valid name or
// family ("NAME" or "PREFIX.*", see ValidateName), the phase is not one
// of Phases, Value is nil, or the name is registered already.
func (g *Registry) Register(p Provider) error {
	base := strings.TrimSuffix(p.Name, ".*")
	if err := ValidateName(base); err != nil {
		return fmt.Errorf("render: provider %q: %v", p.Name, err)
	}
	if p.Phase < PhaseStatic || p.Phase > PhaseRuntime {
		return fmt.Errorf("render: provider %q: phase %v is not static, computed or runtime", p.Name, p.Phase)
	}
	if p.Value == nil {
		return fmt.Errorf("render: provider %q: nil Value", p.Name)
	}
	if g.byName == nil {
		g.byName = map[string]Provider{}
	}
	if _, dup := g.byName[p.Name]; dup {
		return fmt.Errorf("render: provider %q registered twice", p.Name)
	}
	g.byName[p.Name] = p
	return nil
}

// Lookup returns the provider of name: the provider registered under
// name itself, else the family ("PREFIX.*") with the longest prefix of
// name, else false.
func (g *Registry) Lookup(name string) (Provider, bool) {
	if p, ok := g.byName[name]; ok {
		return p, true
	}
	for i := strings.LastIndexByte(name, '.'); i > 0; i = strings.LastIndexByte(name[:i], '.') {
		if p, ok := g.byName[name[:i]+".*"]; ok {
			return p, true
		}
	}
	return Provider{}, false
}

// Providers returns every provider, sorted by phase, then name.
func (g *Registry) Providers() []Provider {
	out := make([]Provider, 0, len(g.byName))
	for _, p := range g.byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Phase != out[j].Phase {
			return out[i].Phase < out[j].Phase
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// clone returns a copy of g that Register on does not change g.
func (g *Registry) clone() *Registry {
	c := NewRegistry()
	for k, v := range g.byName {
		c.byName[k] = v
	}
	return c
}

// DefaultRegistry returns a registry of the providers evolve ships:
//
//	static    slug, version, branch, type       the prompt's identity (defaults filled in)
//	computed  param.NAME                        policy parameter NAME as written (0.3, [explore, fight])
//	computed  env.name                          Env.Name
//	computed  causes                            Env.Causes joined by ", "
//	runtime   observation                       Runtime.Observation (an empty one is no value)
//	runtime   turn                              Runtime.Turn in decimal
//	runtime   history                           the kept history, one "ROLE: CONTENT" block per message, separated by blank lines
func DefaultRegistry() *Registry {
	g := NewRegistry()
	must := func(p Provider) {
		if err := g.Register(p); err != nil {
			panic(err) // a broken table of this file
		}
	}
	static := func(name, doc string, f func(p *prompt.Prompt) string) {
		must(Provider{Name: name, Phase: PhaseStatic, Doc: doc, Value: func(s *Scope, _ string) (string, error) { return f(s.Prompt), nil }})
	}
	static("slug", "the prompt's slug", (*prompt.Prompt).SlugOrDefault)
	static("version", "the prompt's version, e.g. v1.0.0", func(p *prompt.Prompt) string { return p.Version.String() })
	static("branch", "the prompt's branch", (*prompt.Prompt).BranchOrMain)
	static("type", "the prompt's type", (*prompt.Prompt).TypeOrDefault)
	must(Provider{Name: "param.*", Phase: PhaseComputed, Doc: "a policy parameter's value as written", Value: func(s *Scope, name string) (string, error) {
		v, ok := s.Prompt.PolicyParameters.Get(strings.TrimPrefix(name, "param."))
		if !ok {
			return "", fmt.Errorf("the prompt has no policy parameter %q: %w", strings.TrimPrefix(name, "param."), ErrNoValue)
		}
		return v.String(), nil
	}})
	must(Provider{Name: "env.name", Phase: PhaseComputed, Doc: "the environment's name", Value: func(s *Scope, _ string) (string, error) {
		if s.Env.Name == "" {
			return "", fmt.Errorf("no environment given: %w", ErrNoValue)
		}
		return s.Env.Name, nil
	}})
	must(Provider{Name: "causes", Phase: PhaseComputed, Doc: "the environment's failure causes, comma-separated", Value: func(s *Scope, _ string) (string, error) {
		if len(s.Env.Causes) == 0 {
			return "", fmt.Errorf("the environment declares no causes: %w", ErrNoValue)
		}
		return strings.Join(s.Env.Causes, ", "), nil
	}})
	must(Provider{Name: "observation", Phase: PhaseRuntime, Doc: "this turn's observation", Value: func(s *Scope, _ string) (string, error) {
		if s.Runtime.Observation == "" {
			return "", fmt.Errorf("no observation this turn: %w", ErrNoValue)
		}
		return s.Runtime.Observation, nil
	}})
	must(Provider{Name: "turn", Phase: PhaseRuntime, Doc: "this turn's number", Value: func(s *Scope, _ string) (string, error) {
		return strconv.Itoa(s.Runtime.Turn), nil
	}})
	must(Provider{Name: "history", Phase: PhaseRuntime, Doc: "the kept history as text", Value: func(s *Scope, _ string) (string, error) {
		var b strings.Builder
		for i, m := range s.History {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(m.Role + ": " + m.Content)
		}
		return b.String(), nil
	}})
	return g
}

// UnresolvedError is a placeholder that has no value: no provider, no
// runtime value (Runtime.Vars), or a provider without a value.
type UnresolvedError struct {
	// Name is the placeholder's name, e.g. "observation".
	Name string
	// Phase is the phase in which it was to be resolved: its provider's,
	// or PhaseRuntime for a name no provider has (only Runtime.Vars can give
	// it).
	Phase Phase
	// Source is the text it is in, e.g. "sections.identity".
	Source string
	// Err says why, e.g. "no provider" or the provider's error (which
	// wraps ErrNoValue).
	Err error
}

// Error returns "SOURCE: unresolved placeholder {{NAME}} (PHASE phase): ERR".
func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("%s: unresolved placeholder {{%s}} (%s phase): %v", e.Source, e.Name, e.Phase, e.Err)
}

// Unwrap returns Err.
func (e *UnresolvedError) Unwrap() error { return e.Err }

// errNoProvider is the Err of an UnresolvedError for a name that no
// provider has and the turn's Runtime.Vars does not give.
var errNoProvider = errors.New("no provider has it and the turn's runtime values (vars) do not give it")
