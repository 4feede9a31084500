package prompt

import (
	_ "embed"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"evolve/guard"
	"evolve/params"
)

// Prompt is one immutable version of a structured agent prompt: its
// identity in a store (slug, type, branch, version), free tags and
// metadata, named sections, the frozen agent parts (task, rules, skill
// descriptions), the mutable policy parameters, and the audit trail of the
// mutations that led to it.
//
// Every part but the version is optional in a document: a sectioned
// prompt may have no agent parts, and a prompt that inherits from a parent
// (InheritsFrom) takes what it lacks from the parent when resolved (see
// Merge). An empty Slug, Branch or Type means DefaultSlug, MainBranch and
// DefaultType (files written before the store held many prompts have
// none); a store fills them in when it writes.
type Prompt struct {
	// Version is the prompt's semantic version, unique among the versions
	// of its slug in a store.
	Version Version `yaml:"version" json:"version"`
	// Slug identifies the prompt in a store ("dungeon-agent"; see
	// ValidateSlug).
	Slug string `yaml:"slug" json:"slug,omitempty"`
	// Type is the prompt's role, one of Types.
	Type string `yaml:"type" json:"type,omitempty"`
	// Branch is the branch the version belongs to (see ValidateBranch).
	Branch string `yaml:"branch" json:"branch,omitempty"`
	// Timestamp is when the version was created (UTC, whole seconds).
	Timestamp time.Time `yaml:"timestamp" json:"timestamp"`
	// Tags are free labels (see ValidateTag), unique, in the order given.
	Tags []string `yaml:"tags" json:"tags,omitempty"`
	// Metadata is free key-value data (e.g. context_weights for selection).
	Metadata Metadata `yaml:"metadata" json:"metadata,omitempty"`
	// InheritsFrom names the parent prompt, nil for none.
	InheritsFrom *Ref `yaml:"inherits_from" json:"inherits_from,omitempty"`
	// OverrideSections names sections of this prompt that replace the
	// parent's sections of the same name outright instead of extending
	// them (see Merge); only with InheritsFrom.
	OverrideSections []string `yaml:"override_sections" json:"override_sections,omitempty"`
	// Sections are named blocks of text, in rendering order.
	Sections Sections `yaml:"sections" json:"sections,omitempty"`
	// TaskDefinition is the frozen task text ("" for none).
	TaskDefinition string `yaml:"task_definition" json:"task_definition,omitempty"`
	// RulesConstraints is the frozen behavioural contract, one rule each.
	RulesConstraints []string `yaml:"rules_constraints" json:"rules_constraints,omitempty"`
	// SkillDescriptions describes the agent's skills (frozen), by skill
	// name, in document order: e.g. the items of an ordering parameter
	// such as the dungeon agent's skill_priority.
	SkillDescriptions Sections `yaml:"skill_descriptions" json:"skill_descriptions,omitempty"`
	// PolicyParameters is the only mutable part, in document order; nil
	// means the prompt has none (see HasPolicy). Its schema is the
	// agent's (see package params): a prompt checks only their form
	// (valid names, finite numbers, orderings of distinct names), the
	// experiment checks them against the agent's schema.
	PolicyParameters params.Set `yaml:"policy_parameters" json:"policy_parameters,omitempty"`
	// MutationHistory lists every mutation from the base to this version,
	// oldest first; the last record is the one that made this version.
	MutationHistory []MutationRecord `yaml:"mutation_history" json:"mutation_history"`
	// ContentSHA256 is the hex SHA-256 of the canonical encoding of the
	// other fields (see Encode); "" until the prompt is encoded.
	ContentSHA256 string `yaml:"content_sha256" json:"content_sha256,omitempty"`
}

// MutationRecord is one entry of the audit trail.
type MutationRecord struct {
	// Version is the version the mutation created.
	Version Version `yaml:"version" json:"version"`
	// PrevVersion is the version it was derived from.
	PrevVersion Version `yaml:"prev_version" json:"prev_version"`
	// Operator is the mutation operator, e.g. "threshold_adjustment".
	Operator string `yaml:"operator" json:"operator"`
	// Description says what changed, e.g.
	// "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)".
	Description string `yaml:"description" json:"description"`
	// Timestamp is when the mutation was recorded (UTC).
	Timestamp time.Time `yaml:"timestamp" json:"timestamp"`
	// Evidence is the statistical evidence of the evaluation on the val
	// split, nil if the version was not evaluated.
	Evidence *Evidence `yaml:"evidence,omitempty" json:"evidence,omitempty"`
}

// Evidence is the statistical record of a candidate's evaluation: the test
// that accepted (or rejected) it and the val means it compared.
type Evidence struct {
	Test             string  `yaml:"test" json:"test"`                             // e.g. "mann-whitney-u"
	Alternative      string  `yaml:"alternative" json:"alternative"`               // e.g. "greater" (candidate better)
	PValue           float64 `yaml:"p_value" json:"p_value"`                       // in [0, 1]
	AdjustedPValue   float64 `yaml:"adjusted_p_value" json:"adjusted_p_value"`     // after Correction, in [0, 1]
	Correction       string  `yaml:"correction" json:"correction"`                 // e.g. "holm"
	A12              float64 `yaml:"a12" json:"a12"`                               // Vargha-Delaney effect size in [0, 1]
	NIncumbent       int     `yaml:"n_incumbent" json:"n_incumbent"`               // val episodes of the incumbent
	NCandidate       int     `yaml:"n_candidate" json:"n_candidate"`               // val episodes of the candidate
	IncumbentValMean float64 `yaml:"incumbent_val_mean" json:"incumbent_val_mean"` // mean val score of the incumbent
	CandidateValMean float64 `yaml:"candidate_val_mean" json:"candidate_val_mean"` // mean val score of the candidate
	Generation       int     `yaml:"generation" json:"generation"`                 // 0-based generation of the evaluation
	Accepted         bool    `yaml:"accepted" json:"accepted"`                     // whether the candidate became the incumbent
}

//go:embed base/prompt_v1.0.0.yaml
var baseYAML []byte

// BaseYAML returns the embedded base prompt v1.0.0 as written.
func BaseYAML() []byte { return append([]byte(nil), baseYAML...) }

// Base returns the embedded base prompt v1.0.0: a NetHack task, its rules,
// the five skills and BaseParameters. It panics if the embedded file does
// not decode, which a test rules out.
func Base() *Prompt {
	p, err := Decode("prompt_v1.0.0.yaml (embedded)", baseYAML)
	if err != nil {
		panic(err)
	}
	return p
}

// Clone returns a deep copy of p.
func (p *Prompt) Clone() *Prompt {
	q := *p
	q.Tags = cloneStrings(p.Tags)
	q.Metadata = p.Metadata.Clone()
	if p.InheritsFrom != nil {
		r := *p.InheritsFrom
		q.InheritsFrom = &r
	}
	q.OverrideSections = cloneStrings(p.OverrideSections)
	if p.Sections != nil {
		q.Sections = append(Sections{}, p.Sections...)
	}
	q.RulesConstraints = cloneStrings(p.RulesConstraints)
	if p.SkillDescriptions != nil {
		q.SkillDescriptions = append(Sections{}, p.SkillDescriptions...)
	}
	q.PolicyParameters = p.PolicyParameters.Clone()
	if p.MutationHistory != nil {
		q.MutationHistory = make([]MutationRecord, len(p.MutationHistory))
		for i, r := range p.MutationHistory {
			if r.Evidence != nil {
				e := *r.Evidence
				r.Evidence = &e
			}
			q.MutationHistory[i] = r
		}
	}
	return &q
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}

// Derive returns a child of p: version v, created at ts, everything else
// copied, the policy parameters replaced by params, and the history
// extended by rec. The child's hash is computed when it is encoded.
func (p *Prompt) Derive(v Version, ps params.Set, rec MutationRecord, ts time.Time) *Prompt {
	q := p.Clone()
	q.Version = v
	q.Timestamp = ts.UTC()
	q.PolicyParameters = ps.Clone()
	rec.Timestamp = rec.Timestamp.UTC()
	q.MutationHistory = append(q.MutationHistory, rec)
	q.ContentSHA256 = ""
	return q
}

// SetDefaults fills an empty Slug, Branch and Type with DefaultSlug,
// MainBranch and DefaultType, as a store does when it writes p.
func (p *Prompt) SetDefaults() {
	p.Slug, p.Branch, p.Type = p.SlugOrDefault(), p.BranchOrMain(), p.TypeOrDefault()
}

// SlugOrDefault returns p.Slug, or DefaultSlug if it is empty.
func (p *Prompt) SlugOrDefault() string { return orDefault(p.Slug, DefaultSlug) }

// BranchOrMain returns p.Branch, or MainBranch if it is empty.
func (p *Prompt) BranchOrMain() string { return orDefault(p.Branch, MainBranch) }

// TypeOrDefault returns p.Type, or DefaultType if it is empty.
func (p *Prompt) TypeOrDefault() string { return orDefault(p.Type, DefaultType) }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Ref returns the reference that pins this version: "slug@vX.Y.Z".
func (p *Prompt) Ref() Ref { return Ref{Slug: p.SlugOrDefault(), Version: p.Version} }

// HasPolicy reports whether p has policy parameters, which an agent needs
// to play it.
func (p *Prompt) HasPolicy() bool { return len(p.PolicyParameters) > 0 }

// Playable returns nil if an agent can play p as it is: it has policy
// parameters and inherits from nothing (resolve it first, see Merge);
// otherwise an error saying which.
func (p *Prompt) Playable() error {
	if p.InheritsFrom != nil {
		return fmt.Errorf("prompt %s inherits from %s: an agent plays a resolved prompt (evolve prompt show --resolved %s)", p.Ref(), p.InheritsFrom, p.Ref())
	}
	if !p.HasPolicy() {
		return fmt.Errorf("prompt %s has no policy_parameters: an agent needs them", p.Ref())
	}
	return nil
}

// Validate checks the document's invariants: a version; valid slug,
// branch and type if set; unique valid tags; valid metadata; sections with
// unique valid names and non-blank text; override_sections naming this
// prompt's own sections and only with inherits_from, which may not name
// the prompt's own slug; non-blank task and rules if set; all five skill
// descriptions if any; valid policy parameters if any; a history whose
// last record (if any) created this version; and, unless the prompt
// inherits, some content (sections, a task or policy parameters). Errors
// begin with the field path ("sections.identity: empty").
func (p *Prompt) Validate() error {
	if p.Version.IsZero() {
		return fmt.Errorf("version: missing (want e.g. v1.0.0)")
	}
	if p.Slug != "" {
		if err := ValidateSlug(p.Slug); err != nil {
			return fmt.Errorf("slug: %v", err)
		}
	}
	if p.Type != "" {
		if err := ValidateType(p.Type); err != nil {
			return fmt.Errorf("type: %v", err)
		}
	}
	if p.Branch != "" {
		if err := ValidateBranch(p.Branch); err != nil {
			return fmt.Errorf("branch: %v", err)
		}
	}
	if err := uniqueNames("tags", p.Tags, ValidateTag); err != nil {
		return err
	}
	if err := p.Metadata.Validate(); err != nil {
		return err
	}
	for i, s := range p.Sections {
		if err := ValidateSectionName(s.Name); err != nil {
			return fmt.Errorf("sections.%s: %v", s.Name, err)
		}
		for _, t := range p.Sections[:i] {
			if t.Name == s.Name {
				return fmt.Errorf("sections.%s: given twice", s.Name)
			}
		}
		if strings.TrimSpace(s.Text) == "" {
			return fmt.Errorf("sections.%s: empty", s.Name)
		}
	}
	if p.InheritsFrom != nil {
		r := p.InheritsFrom
		if err := ValidateSlug(r.Slug); err != nil {
			return fmt.Errorf("inherits_from: %v", err)
		}
		if r.Slug == p.SlugOrDefault() {
			return fmt.Errorf("inherits_from: %s is this prompt's own slug; a prompt cannot inherit from itself", r)
		}
	} else if len(p.OverrideSections) > 0 {
		return fmt.Errorf("override_sections: only a prompt with inherits_from overrides sections")
	}
	if err := uniqueNames("override_sections", p.OverrideSections, ValidateSectionName); err != nil {
		return err
	}
	for i, name := range p.OverrideSections {
		if _, ok := p.Sections.Get(name); !ok {
			return fmt.Errorf("override_sections[%d]: %q is not a section of this prompt (it overrides the parent's section of the same name)", i, name)
		}
	}
	if p.TaskDefinition != "" && strings.TrimSpace(p.TaskDefinition) == "" {
		return fmt.Errorf("task_definition: empty")
	}
	for i, r := range p.RulesConstraints {
		if strings.TrimSpace(r) == "" {
			return fmt.Errorf("rules_constraints[%d]: empty", i)
		}
	}
	for i, s := range p.SkillDescriptions {
		if !params.ValidName(s.Name) {
			return fmt.Errorf("skill_descriptions.%s: not a skill name (lower-case letters, digits and _, starting with a letter)", s.Name)
		}
		for _, t := range p.SkillDescriptions[:i] {
			if t.Name == s.Name {
				return fmt.Errorf("skill_descriptions.%s: given twice", s.Name)
			}
		}
		if strings.TrimSpace(s.Text) == "" {
			return fmt.Errorf("skill_descriptions.%s: empty", s.Name)
		}
	}
	if err := params.CheckForm(p.PolicyParameters); err != nil {
		return err
	}
	if n := len(p.MutationHistory); n > 0 && p.MutationHistory[n-1].Version != p.Version {
		return fmt.Errorf("mutation_history: last record is for %s, not this version %s", p.MutationHistory[n-1].Version, p.Version)
	}
	if p.InheritsFrom == nil && len(p.Sections) == 0 && p.TaskDefinition == "" && !p.HasPolicy() {
		return fmt.Errorf("the prompt has no content: give sections, a task_definition or policy_parameters (or inherits_from)")
	}
	return nil
}

// uniqueNames checks each name with valid and that none repeats.
func uniqueNames(field string, names []string, valid func(string) error) error {
	for i, n := range names {
		if err := valid(n); err != nil {
			return fmt.Errorf("%s[%d]: %v", field, i, err)
		}
		for j, m := range names[:i] {
			if m == n {
				return fmt.Errorf("%s[%d]: %q repeats %s[%d]", field, i, n, field, j)
			}
		}
	}
	return nil
}

// Texts returns every free text of p with its field path, in document
// order, for screening by a guard.Policy: every key and every string of
// the metadata, at any depth (keys sorted at each level; a key's field is
// its path with " (key)" appended, e.g. "metadata.owner (key)", a
// string's is its path, e.g. "metadata.notes[2]"), sections.NAME,
// task_definition, rules_constraints[i], skill_descriptions.SKILL and
// mutation_history[i].description. A key longer than 40 characters is
// cut to 40 and "…" in the field paths; the text screened is the whole
// key, so a key counts against the length limit like any text.
func (p *Prompt) Texts() []guard.Text {
	var out []guard.Text
	add := func(field, text string) { out = append(out, guard.Text{Field: field, Text: text}) }
	metaTexts("metadata", map[string]any(p.Metadata), add)
	for _, s := range p.Sections {
		add("sections."+s.Name, s.Text)
	}
	if p.TaskDefinition != "" {
		add("task_definition", p.TaskDefinition)
	}
	for i, r := range p.RulesConstraints {
		add(fmt.Sprintf("rules_constraints[%d]", i), r)
	}
	for _, s := range p.SkillDescriptions {
		add("skill_descriptions."+s.Name, s.Text)
	}
	for i, r := range p.MutationHistory {
		add(fmt.Sprintf("mutation_history[%d].description", i), r.Description)
	}
	return out
}

// Render returns the prompt as text for a language model: the task, the
// sections in order, the rules, the skills in priority order and the
// parameters, leaving out what p lacks. It is a pure function of p;
// render a resolved prompt (see Merge) to include inherited parts.
func (p *Prompt) Render() string {
	var b strings.Builder
	if p.TaskDefinition != "" {
		fmt.Fprintf(&b, "# Task (prompt %s)\n%s\n", p.Version, strings.TrimSpace(p.TaskDefinition))
	} else {
		fmt.Fprintf(&b, "# %s %s\n", p.SlugOrDefault(), p.Version)
	}
	for _, s := range p.Sections {
		title := strings.ReplaceAll(s.Name, "_", " ")
		fmt.Fprintf(&b, "\n# %s%s\n%s\n", strings.ToUpper(title[:1]), title[1:], strings.TrimSpace(s.Text))
	}
	if len(p.RulesConstraints) > 0 {
		b.WriteString("\n# Rules\n")
		for _, r := range p.RulesConstraints {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	if !p.HasPolicy() {
		return b.String()
	}
	if len(p.SkillDescriptions) > 0 {
		b.WriteString("\n# Skills")
		order := p.SkillDescriptions.Names()
		if o := p.skillOrder(); o != nil {
			b.WriteString(", in priority order")
			order = o
		}
		b.WriteString("\n")
		for i, s := range order {
			d, _ := p.SkillDescriptions.Get(s)
			fmt.Fprintf(&b, "%d. %s: %s\n", i+1, s, d)
		}
	}
	b.WriteString("\n# Policy parameters\n")
	for _, pp := range p.PolicyParameters {
		fmt.Fprintf(&b, "- %s: %s\n", pp.Name, pp.Value)
	}
	return b.String()
}

// maxKeyInPath is the most characters of a metadata key shown in a field
// path.
const maxKeyInPath = 40

// skillOrder returns the items of the first ordering parameter whose
// items are exactly the skills described (a skill priority), or nil.
func (p *Prompt) skillOrder() []string {
	names := p.SkillDescriptions.Names()
	for _, pp := range p.PolicyParameters {
		if pp.Value.Kind == params.Ordering && len(pp.Value.List) == len(names) {
			ok := true
			for _, it := range pp.Value.List {
				if _, has := p.SkillDescriptions.Get(it); !has {
					ok = false
				}
			}
			if ok {
				return pp.Value.List
			}
		}
	}
	return nil
}

// metaTexts calls add with the field path and text of every key and
// string in v, keys sorted at each level.
func metaTexts(path string, v any, add func(field, text string)) {
	switch x := v.(type) {
	case string:
		add(path, x)
	case map[string]any:
		for _, k := range sortedKeys(x) {
			kp := path + "." + shortKey(k)
			add(kp+" (key)", k)
			metaTexts(kp, x[k], add)
		}
	case []any:
		for i, e := range x {
			metaTexts(fmt.Sprintf("%s[%d]", path, i), e, add)
		}
	}
}

// shortKey returns k cut to maxKeyInPath characters, with "…" if cut.
func shortKey(k string) string {
	if utf8.RuneCountInString(k) <= maxKeyInPath {
		return k
	}
	return string([]rune(k)[:maxKeyInPath]) + "…"
}
