package render

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"evolve/params"
	"evolve/prompt"
)

// TruncationMarker ends the runtime message when the token budget cut it
// (Rendered.Truncated): the text before it is the message's first tokens.
const TruncationMarker = "\n[... runtime context truncated to fit max_prompt_tokens]"

// ErrOverBudget is returned by Turn when even with no history and the
// runtime message cut to TruncationMarker the prompt has more than
// Options.MaxPromptTokens tokens: the system message alone is too long.
var ErrOverBudget = errors.New("the prompt does not fit max_prompt_tokens")

// Options configure a Renderer. The zero Options render with the default
// guardrails, the prompt's declared sections, DefaultRegistry, no
// environment and no token budget.
type Options struct {
	// Guardrails are the rules of the guardrail layer, in order; nil means
	// DefaultGuardrails. They are literal text (never templates). An empty
	// non-nil list or a blank rule is an error (ErrGuardrails): the layer
	// cannot be removed.
	Guardrails []string
	// Layers are overlays applied in order to the layers built from the
	// prompt: each names a layer of LayerNames and appends its parts or
	// replaces the layer's parts (see Mode). Replacing the guardrail layer
	// is an error (ErrGuardrails); so is any overlay of the history layer,
	// and a replace of the sections layer that changes or drops a frozen
	// section (ErrFrozen).
	Layers []Layer
	// Sections is the declared order and kinds of the sections; nil means
	// SectionSpecs of the prompt (its metadata.render.sections).
	Sections []SectionSpec
	// Registry gives the placeholders' values; nil means DefaultRegistry.
	Registry *Registry
	// Env is what computed placeholders know of the environment.
	Env Env
	// MaxPromptTokens is the most cl100k_base tokens a turn's messages may
	// cost (see CountMessages); 0 means no limit. Over it, Turn drops
	// history oldest first, then cuts the runtime message.
	MaxPromptTokens int
}

// Runtime is one turn's input.
type Runtime struct {
	// Turn is the turn number ({{turn}}).
	Turn int `json:"turn" yaml:"turn"`
	// Observation is the turn's text observation ({{observation}}); ""
	// is no value.
	Observation string `json:"observation" yaml:"observation"`
	// History is the conversation so far, oldest first, sent between the
	// system and the runtime message; the budget drops from its front.
	History []Message `json:"history" yaml:"history"`
	// Vars are runtime values by placeholder name. They override every
	// provider, of any phase, for this turn, and give names no provider
	// has (e.g. an injected section's). Values are literal text.
	Vars map[string]string `json:"vars" yaml:"vars"`
}

// Rendered is one turn's prompt.
type Rendered struct {
	// Turn is Runtime.Turn.
	Turn int `json:"turn"`
	// System is the system message: the guardrail, task and sections
	// layers as XML blocks, in that order, separated by blank lines.
	System string `json:"system"`
	// Messages is the request: the system message, the kept history,
	// then the runtime layer as a user message.
	Messages []Message `json:"messages"`
	// Tokens is what Messages cost in cl100k_base tokens (CountMessages),
	// at most Options.MaxPromptTokens when that is set: SystemTokens +
	// HistoryTokens + RuntimeTokens + ReplyOverhead.
	Tokens int `json:"tokens"`
	// SystemTokens, HistoryTokens and RuntimeTokens are the shares of the
	// system message, the kept history and the runtime message, each
	// with its MessageOverhead and role.
	SystemTokens  int `json:"system_tokens"`
	HistoryTokens int `json:"history_tokens"`
	RuntimeTokens int `json:"runtime_tokens"`
	// Dropped is how many history messages the budget dropped (the
	// oldest), in [0, len(Runtime.History)].
	Dropped int `json:"dropped"`
	// Truncated is whether the budget cut the runtime message (which then
	// ends with TruncationMarker).
	Truncated bool `json:"truncated"`
}

// Renderer renders one prompt version turn after turn. It is safe for
// concurrent use: Turn reads what New computed and shares only a cache of
// message token counts (history and runtime messages, at most 16,384,
// behind a mutex).
type Renderer struct {
	p      *prompt.Prompt
	reg    *Registry
	env    Env
	max    int
	layers []Layer // the stack after overlays, in LayerNames order

	system  []block // guardrails, task, sections
	runtime []block
	values  map[string]value // static and computed values, by name

	// staticSystem is the system message when no block is dynamic and
	// no override touches it; systemTokens its countMessage.
	staticSystem string
	systemTokens int
	dynamicSys   bool

	// counts caches countMessage by role and content: a turn's history
	// is mostly the previous turn's messages. At most maxCached entries;
	// full, it is emptied.
	mu     sync.Mutex
	counts map[Message]int
}

// maxCached is the most message counts a Renderer keeps.
const maxCached = 1 << 14

// count returns countMessage(m), cached.
func (r *Renderer) count(m Message) (int, error) {
	r.mu.Lock()
	n, ok := r.counts[m]
	r.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := countMessage(m)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	if len(r.counts) >= maxCached {
		clear(r.counts)
	}
	r.counts[m] = n
	r.mu.Unlock()
	return n, nil
}

// value is a resolved static or computed placeholder.
type value struct {
	text  string
	phase Phase
}

// block is one part ready to render.
type block struct {
	name     string
	tmpl     *Template
	tagged   bool   // an XML block of the system message
	dynamic  bool   // needs runtime values (or is an injected section)
	rendered string // the block's text when not dynamic
}

// New builds the layer stack of p (resolved: inheritance applied, see
// prompt.Merge) with opts, parses every template, and resolves the
// static and computed placeholders once. Errors: a *ParseError for a
// malformed placeholder; an *UnresolvedError for a static or computed
// placeholder without a value (e.g. {{param.nope}}, or {{env.name}} with
// no Env); ErrGuardrails, ErrFrozen or ErrLayer (wrapped, naming the
// overlay) for a bad overlay; an error naming the field for bad section
// declarations or a negative MaxPromptTokens; and the encoder's error if
// the embedded cl100k_base ranks do not load.
func New(p *prompt.Prompt, opts Options) (*Renderer, error) {
	if opts.MaxPromptTokens < 0 {
		return nil, fmt.Errorf("render: max_prompt_tokens must be >= 0 (0 for no limit), got %d", opts.MaxPromptTokens)
	}
	r := &Renderer{p: p, env: opts.Env, max: opts.MaxPromptTokens, values: map[string]value{}, counts: map[Message]int{}}
	if opts.Registry != nil {
		r.reg = opts.Registry.clone()
	} else {
		r.reg = DefaultRegistry()
	}
	layers, err := baseLayers(p, opts)
	if err != nil {
		return nil, err
	}
	for i, o := range opts.Layers {
		if layers, err = overlay(layers, o); err != nil {
			return nil, fmt.Errorf("render: layers[%d] (%s, %s): %w", i, o.Name, modeOf(o.Mode), err)
		}
	}
	r.layers = layers
	seen := map[string]string{}
	for _, l := range layers {
		for _, pt := range l.Parts {
			src := l.Name + "." + pt.Name
			if l.Name == LayerTask || l.Name == LayerSections {
				src = fieldOf(l.Name, pt.Name)
			}
			var t *Template
			if l.Name == LayerGuardrails {
				t = &Template{source: src, segs: []segment{{text: pt.Text}}}
			} else if t, err = Parse(src, pt.Text); err != nil {
				return nil, err
			}
			b := block{name: pt.Name, tmpl: t, tagged: l.Name != LayerRuntime, dynamic: pt.Kind == Injected}
			if b.tagged {
				if prev, dup := seen[pt.Name]; dup {
					return nil, fmt.Errorf("render: %w: the %s layer's part %q has the tag of the %s layer's: tags must be unique in the system message", ErrLayer, l.Name, pt.Name, prev)
				}
				seen[pt.Name] = l.Name
			}
			for _, name := range t.Names() {
				if _, done := r.values[name]; done {
					continue
				}
				pv, ok := r.reg.Lookup(name)
				if !ok || pv.Phase == PhaseRuntime {
					b.dynamic = true
					continue
				}
				v, err := pv.Value(&Scope{Prompt: p, Env: r.env}, name)
				if err != nil {
					return nil, &UnresolvedError{Name: name, Phase: pv.Phase, Source: src, Err: err}
				}
				r.values[name] = value{v, pv.Phase}
			}
			if !b.dynamic {
				var s strings.Builder
				if err := t.Execute(&s, func(name string) (string, error) { return r.values[name].text, nil }); err != nil {
					return nil, err
				}
				b.rendered = s.String()
			}
			if b.tagged {
				r.system = append(r.system, b)
				r.dynamicSys = r.dynamicSys || b.dynamic
			} else {
				r.runtime = append(r.runtime, b)
			}
		}
	}
	if !r.dynamicSys {
		texts := make([]string, len(r.system))
		for i, b := range r.system {
			texts[i] = b.rendered
		}
		r.staticSystem = joinSystem(r.system, texts)
		if r.systemTokens, err = countMessage(Message{Role: "system", Content: r.staticSystem}); err != nil {
			return nil, err
		}
	} else if _, err := encoder(); err != nil {
		return nil, err
	}
	return r, nil
}

// RuntimeTemplate is the runtime layer's message: the turn's number and
// its observation.
const RuntimeTemplate = "Turn {{turn}}.\n{{observation}}"

// ForSystem returns a Renderer for a prompt already rendered to its
// system message (such as envs.Prompt.Text, which the run renders once
// per version with the static and computed placeholders resolved): Turn
// sends system verbatim (never parsed for placeholders nor escaped, so
// nothing in it is expanded again), then the history, then the runtime
// message RuntimeTemplate, under a budget of maxPromptTokens cl100k_base
// tokens (0: no limit) with New's rules: history dropped oldest first,
// then the runtime message cut. Its Layers are empty and its Values nil:
// the layers are already in system. Errors: a negative maxPromptTokens,
// and the encoder's if the embedded ranks do not load.
func ForSystem(system string, maxPromptTokens int) (*Renderer, error) {
	if maxPromptTokens < 0 {
		return nil, fmt.Errorf("render: max_prompt_tokens must be >= 0 (0 for no limit), got %d", maxPromptTokens)
	}
	t, err := Parse("runtime.observation", RuntimeTemplate)
	if err != nil {
		return nil, err
	}
	r := &Renderer{p: &prompt.Prompt{}, reg: DefaultRegistry(), max: maxPromptTokens, values: map[string]value{},
		counts: map[Message]int{}, staticSystem: system,
		runtime: []block{{name: "observation", tmpl: t, dynamic: true}}}
	if r.systemTokens, err = countMessage(Message{Role: "system", Content: system}); err != nil {
		return nil, err
	}
	return r, nil
}

func modeOf(m Mode) Mode {
	if m == "" {
		return Append
	}
	return m
}

// fieldOf returns the prompt field a part of the task or sections layer
// comes from, for errors.
func fieldOf(layer, part string) string {
	if layer == LayerSections {
		return "sections." + part
	}
	switch part {
	case "task":
		return "task_definition"
	case "rules":
		return "rules_constraints"
	case "skills":
		return "skill_descriptions"
	}
	return part
}

// baseLayers builds the five layers from p: guardrails, the task parts,
// the sections in declared order, history (no parts), and the runtime
// message "Turn {{turn}}.\n{{observation}}".
func baseLayers(p *prompt.Prompt, opts Options) ([]Layer, error) {
	rules := opts.Guardrails
	if rules == nil {
		rules = DefaultGuardrails()
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("render: %w: Options.Guardrails is empty", ErrGuardrails)
	}
	for i, g := range rules {
		if strings.TrimSpace(g) == "" {
			return nil, fmt.Errorf("render: %w: guardrail %d is blank", ErrGuardrails, i)
		}
	}
	guard := Layer{Name: LayerGuardrails, Mode: Append, Parts: []Part{{Name: "guardrails", Text: bullets(rules)}}}

	task := Layer{Name: LayerTask, Mode: Append}
	if p.TaskDefinition != "" {
		task.Parts = append(task.Parts, Part{Name: "task", Text: p.TaskDefinition})
	}
	if len(p.RulesConstraints) > 0 {
		for i, rule := range p.RulesConstraints { // errors name the rule
			if _, err := Parse(fmt.Sprintf("rules_constraints[%d]", i), rule); err != nil {
				return nil, err
			}
		}
		task.Parts = append(task.Parts, Part{Name: "rules", Text: bullets(p.RulesConstraints)})
	}
	if len(p.SkillDescriptions) > 0 {
		task.Parts = append(task.Parts, Part{Name: "skills", Text: skills(p)})
	}
	if p.HasPolicy() {
		var b strings.Builder
		for i, pp := range p.PolicyParameters {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "- %s: %s", pp.Name, escapeBraces(pp.Value.String()))
		}
		task.Parts = append(task.Parts, Part{Name: "policy_parameters", Text: b.String()})
	}

	specs := opts.Sections
	if specs == nil {
		var err error
		if specs, err = SectionSpecs(p); err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
	} else if err := checkSpecs(p, specs); err != nil {
		return nil, err
	}
	secs := Layer{Name: LayerSections, Mode: Append}
	for _, sp := range specs {
		text, ok := p.Sections.Get(sp.Name)
		if !ok { // an injected section without text: the runtime value of its name
			text = "{{" + sp.Name + "}}"
		}
		secs.Parts = append(secs.Parts, Part{Name: sp.Name, Text: text, Kind: sp.Kind})
	}
	return []Layer{
		guard, task, secs,
		{Name: LayerHistory, Mode: Append},
		{Name: LayerRuntime, Mode: Append, Parts: []Part{{Name: "observation", Text: RuntimeTemplate}}},
	}, nil
}

// checkSpecs checks Options.Sections: valid unique names and kinds, each
// non-injected one a section of p.
func checkSpecs(p *prompt.Prompt, specs []SectionSpec) error {
	seen := map[string]bool{}
	for i, sp := range specs {
		path := fmt.Sprintf("render: Options.Sections[%d]", i)
		if err := prompt.ValidateSectionName(sp.Name); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if seen[sp.Name] {
			return fmt.Errorf("%s: %q is declared twice", path, sp.Name)
		}
		seen[sp.Name] = true
		switch sp.Kind {
		case Mutable, Frozen, Injected:
		default:
			return fmt.Errorf("%s: unknown kind %q (want mutable, frozen or injected)", path, sp.Kind)
		}
		if _, has := p.Sections.Get(sp.Name); !has && sp.Kind != Injected {
			return fmt.Errorf("%s: %q is not a section of the prompt (only an injected section may be absent)", path, sp.Name)
		}
	}
	return nil
}

// overlay applies o to layers.
func overlay(layers []Layer, o Layer) ([]Layer, error) {
	idx := -1
	for i, l := range layers {
		if l.Name == o.Name {
			idx = i
		}
	}
	mode := modeOf(o.Mode)
	switch {
	case idx < 0:
		return nil, fmt.Errorf("%w: no layer %q (want one of %s)", ErrLayer, o.Name, strings.Join(LayerNames, ", "))
	case mode != Append && mode != Replace:
		return nil, fmt.Errorf("%w: unknown mode %q (want append or replace)", ErrLayer, o.Mode)
	case o.Name == LayerGuardrails && mode == Replace:
		return nil, ErrGuardrails
	case o.Name == LayerHistory:
		return nil, fmt.Errorf("%w: the history layer holds Runtime.History and takes no parts", ErrLayer)
	}
	for i, pt := range o.Parts {
		if err := prompt.ValidateSectionName(pt.Name); err != nil {
			return nil, fmt.Errorf("%w: parts[%d]: %v", ErrLayer, i, err)
		}
		if strings.TrimSpace(pt.Text) == "" {
			return nil, fmt.Errorf("%w: parts[%d] (%s): empty text", ErrLayer, i, pt.Name)
		}
		var k SectionKind
		if err := k.UnmarshalText([]byte(pt.Kind)); err != nil {
			return nil, fmt.Errorf("%w: parts[%d] (%s): %v", ErrLayer, i, pt.Name, err)
		}
		o.Parts[i].Kind = k
	}
	l := layers[idx]
	var parts []Part
	if mode == Append {
		parts = append(append([]Part{}, l.Parts...), o.Parts...)
	} else {
		parts = append([]Part{}, o.Parts...)
		for _, old := range l.Parts {
			if old.Kind != Frozen {
				continue
			}
			kept := false
			for _, n := range parts {
				kept = kept || n == old
			}
			if !kept {
				return nil, fmt.Errorf("%w: the replace drops or changes frozen section %q", ErrFrozen, old.Name)
			}
		}
	}
	for i, a := range parts {
		for _, b := range parts[:i] {
			if a.Name == b.Name {
				return nil, fmt.Errorf("%w: the %s layer would have two parts %q", ErrLayer, o.Name, a.Name)
			}
		}
	}
	out := append([]Layer{}, layers...)
	out[idx] = Layer{Name: l.Name, Mode: l.Mode, Parts: parts}
	return out, nil
}

// bullets writes items as "- item" lines.
func bullets(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + strings.TrimSpace(it))
	}
	return b.String()
}

// skills writes the skill descriptions as "N. skill: text" lines, in the
// order of the first ordering parameter whose items are exactly the
// skills (a skill priority, as prompt.Render orders them), else in
// document order.
func skills(p *prompt.Prompt) string {
	order := p.SkillDescriptions.Names()
	for _, pp := range p.PolicyParameters {
		if pp.Value.Kind != params.Ordering || len(pp.Value.List) != len(order) {
			continue
		}
		all := true
		for _, it := range pp.Value.List {
			_, has := p.SkillDescriptions.Get(it)
			all = all && has
		}
		if all {
			order = pp.Value.List
			break
		}
	}
	var b strings.Builder
	for i, s := range order {
		d, _ := p.SkillDescriptions.Get(s)
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s: %s", i+1, s, strings.TrimSpace(d))
	}
	return b.String()
}

// joinSystem writes the system blocks as XML blocks separated by blank
// lines, block i's text being texts[i] (len(texts) == len(bs)).
func joinSystem(bs []block, texts []string) string {
	var b strings.Builder
	for i, bl := range bs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("<" + bl.name + ">\n")
		b.WriteString(Escape(strings.TrimSpace(texts[i])))
		b.WriteString("\n</" + bl.name + ">")
	}
	return b.String()
}

// Layers returns the layer stack after the overlays, in LayerNames order:
// its first layer is always the guardrails. The parts' texts are the
// templates as given, before resolution.
func (r *Renderer) Layers() []Layer {
	out := make([]Layer, len(r.layers))
	for i, l := range r.layers {
		out[i] = Layer{Name: l.Name, Mode: l.Mode, Parts: append([]Part(nil), l.Parts...)}
	}
	return out
}

// Values returns the static and computed placeholder values New
// resolved, by name (only those the templates use).
func (r *Renderer) Values() map[string]string {
	out := make(map[string]string, len(r.values))
	for k, v := range r.values {
		out[k] = v.text
	}
	return out
}

// lookup returns the value of name this turn: a runtime value
// (rt.Vars) first, then a static or computed value, then a runtime
// provider's; else an *UnresolvedError naming the source.
func (r *Renderer) lookup(rt *Runtime, hist []Message, src string) func(string) (string, error) {
	return func(name string) (string, error) {
		if v, ok := rt.Vars[name]; ok {
			return v, nil
		}
		if v, ok := r.values[name]; ok {
			return v.text, nil
		}
		pv, ok := r.reg.Lookup(name)
		if !ok {
			return "", &UnresolvedError{Name: name, Phase: PhaseRuntime, Source: src, Err: errNoProvider}
		}
		v, err := pv.Value(&Scope{Prompt: r.p, Env: r.env, Runtime: rt, History: hist}, name)
		if err != nil {
			return "", &UnresolvedError{Name: name, Phase: pv.Phase, Source: src, Err: err}
		}
		return v, nil
	}
}

// renderBlock returns b's text this turn.
func (r *Renderer) renderBlock(b block, rt *Runtime, hist []Message) (string, error) {
	if !b.dynamic && !overridden(b.tmpl, rt.Vars) {
		return b.rendered, nil
	}
	var s strings.Builder
	err := b.tmpl.Execute(&s, r.lookup(rt, hist, b.tmpl.source))
	return s.String(), err
}

// overridden reports whether vars gives a value for a name t uses.
func overridden(t *Template, vars map[string]string) bool {
	if len(vars) == 0 {
		return false
	}
	for _, s := range t.segs {
		if _, ok := vars[s.name]; ok && s.name != "" {
			return true
		}
	}
	return false
}

// messages renders the system and runtime messages with history hist.
func (r *Renderer) messages(rt *Runtime, hist []Message) (sys, user string, sysStatic bool, err error) {
	sysStatic = !r.dynamicSys
	for _, b := range r.system {
		if overridden(b.tmpl, rt.Vars) {
			sysStatic = false
		}
	}
	if sysStatic {
		sys = r.staticSystem
	} else {
		texts := make([]string, len(r.system))
		for i, b := range r.system {
			if texts[i], err = r.renderBlock(b, rt, hist); err != nil {
				return "", "", false, err
			}
		}
		sys = joinSystem(r.system, texts)
	}
	var u strings.Builder
	for i, b := range r.runtime {
		t, err := r.renderBlock(b, rt, hist)
		if err != nil {
			return "", "", false, err
		}
		if i > 0 {
			u.WriteString("\n\n")
		}
		u.WriteString(strings.TrimSpace(t))
	}
	return sys, u.String(), sysStatic, nil
}

// Turn renders one turn: the system message (with injected sections and
// any runtime placeholders filled from rt), the history, and the runtime
// message, and counts their tokens. With Options.MaxPromptTokens set and
// exceeded, it drops history oldest first until the prompt fits, a turn
// at a time (a message and the non-user messages after it, so that the
// history left starts with a user message), then cuts the runtime message to its first tokens and appends
// TruncationMarker. Errors: an *UnresolvedError naming the placeholder,
// its phase and its text; ErrOverBudget (wrapped, with the counts) if the
// prompt cannot fit.
func (r *Renderer) Turn(rt Runtime) (Rendered, error) {
	hist := rt.History
	out := Rendered{Turn: rt.Turn}
	sys, user, sysStatic, err := r.messages(&rt, hist)
	if err != nil {
		return out, err
	}
	sysTok := r.systemTokens
	if !sysStatic {
		if sysTok, err = countMessage(Message{Role: "system", Content: sys}); err != nil {
			return out, err
		}
	}
	histTok := make([]int, len(hist))
	histSum := 0
	for i, m := range hist {
		if histTok[i], err = r.count(m); err != nil {
			return out, err
		}
		histSum += histTok[i]
	}
	userTok, err := r.count(Message{Role: "user", Content: user})
	if err != nil {
		return out, err
	}
	total := func() int { return sysTok + histSum + userTok + ReplyOverhead }
	usesHistory := r.usesHistory()
	for r.max > 0 && total() > r.max && out.Dropped < len(hist) {
		// Drop a turn: the oldest message and the replies after it, so
		// that the history left starts with a user message and the
		// request alternates (the chat templates of Llama 2, Mistral
		// and Gemma reject system, assistant, user).
		histSum -= histTok[out.Dropped]
		out.Dropped++
		for out.Dropped < len(hist) && hist[out.Dropped].Role != "user" {
			histSum -= histTok[out.Dropped]
			out.Dropped++
		}
		if usesHistory { // {{history}} shrinks with it
			if sys, user, sysStatic, err = r.messages(&rt, hist[out.Dropped:]); err != nil {
				return out, err
			}
			if !sysStatic {
				if sysTok, err = countMessage(Message{Role: "system", Content: sys}); err != nil {
					return out, err
				}
			}
			if userTok, err = r.count(Message{Role: "user", Content: user}); err != nil {
				return out, err
			}
		}
	}
	if r.max > 0 && total() > r.max {
		fixed := sysTok + histSum + ReplyOverhead // history is empty here
		bare, err := r.count(Message{Role: "user", Content: TruncationMarker})
		if err != nil {
			return out, err
		}
		avail := r.max - fixed - bare // tokens left for the message's text
		if avail < 0 {
			return out, fmt.Errorf("render: %w: the system message alone costs %d tokens, and the budget is %d", ErrOverBudget, sysTok, r.max)
		}
		for {
			head, err := truncateTokens(user, avail)
			if err != nil {
				return out, err
			}
			cutMsg := head + TruncationMarker
			if userTok, err = countMessage(Message{Role: "user", Content: cutMsg}); err != nil {
				return out, err
			}
			if total() <= r.max {
				user, out.Truncated = cutMsg, true
				break
			}
			avail -= max(1, total()-r.max) // a token boundary merged: cut more
		}
	}
	out.System = sys
	out.Messages = make([]Message, 0, len(hist)-out.Dropped+2)
	out.Messages = append(out.Messages, Message{Role: "system", Content: sys})
	out.Messages = append(out.Messages, hist[out.Dropped:]...)
	out.Messages = append(out.Messages, Message{Role: "user", Content: user})
	out.SystemTokens, out.HistoryTokens, out.RuntimeTokens = sysTok, histSum, userTok
	out.Tokens = total()
	return out, nil
}

// usesHistory reports whether a template uses {{history}}, whose text
// changes as history is dropped.
func (r *Renderer) usesHistory() bool {
	for _, bs := range [][]block{r.system, r.runtime} {
		for _, b := range bs {
			for _, s := range b.tmpl.segs {
				if s.name == "history" {
					return true
				}
			}
		}
	}
	return false
}

// Preview renders the prompt resolved up to phase upTo (PhaseStatic or
// PhaseComputed) with no turn: placeholders of later phases stay as written
// ("{{observation}}"), and the messages are the system message and the
// runtime message's template. Tokens count that text. It is for showing
// a prompt; Turn renders one to send. An upTo of Runtime is an error (a
// runtime render needs a Runtime: use Turn).
func (r *Renderer) Preview(upTo Phase) (Rendered, error) {
	if upTo != PhaseStatic && upTo != PhaseComputed {
		return Rendered{}, fmt.Errorf("render: Preview renders the static or computed phase, not %s (use Turn)", upTo)
	}
	val := func(b block) string {
		var s strings.Builder
		for _, sg := range b.tmpl.segs {
			v, ok := r.values[sg.name]
			switch {
			case sg.name == "":
				s.WriteString(sg.text)
			case ok && v.phase <= upTo:
				s.WriteString(v.text)
			default:
				s.WriteString(sg.text)
			}
		}
		return s.String()
	}
	texts := make([]string, len(r.system))
	for i, b := range r.system {
		texts[i] = val(b)
	}
	sys := joinSystem(r.system, texts)
	var u strings.Builder
	for i, b := range r.runtime {
		if i > 0 {
			u.WriteString("\n\n")
		}
		u.WriteString(strings.TrimSpace(val(b)))
	}
	out := Rendered{System: sys, Messages: []Message{{Role: "system", Content: sys}, {Role: "user", Content: u.String()}}}
	var err error
	if out.SystemTokens, err = r.count(out.Messages[0]); err != nil {
		return out, err
	}
	if out.RuntimeTokens, err = r.count(out.Messages[1]); err != nil {
		return out, err
	}
	out.Tokens = out.SystemTokens + out.RuntimeTokens + ReplyOverhead
	return out, nil
}
