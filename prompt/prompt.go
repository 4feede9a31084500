package prompt

import (
	_ "embed"
	"fmt"
	"strings"
	"time"
)

// Prompt is one immutable version of a structured agent prompt: frozen
// parts (task, rules, skill descriptions), the mutable policy parameters,
// and the audit trail of the mutations that led to it.
type Prompt struct {
	// Version is the prompt's semantic version, unique in a store.
	Version Version `yaml:"version"`
	// Timestamp is when the version was created (UTC, whole seconds).
	Timestamp time.Time `yaml:"timestamp"`
	// TaskDefinition is the frozen task text.
	TaskDefinition string `yaml:"task_definition"`
	// RulesConstraints is the frozen behavioural contract, one rule each.
	RulesConstraints []string `yaml:"rules_constraints"`
	// SkillDescriptions describes each of the five skills (frozen); it has
	// exactly the keys of Skills.
	SkillDescriptions map[Skill]string `yaml:"skill_descriptions"`
	// PolicyParameters is the only mutable part.
	PolicyParameters PolicyParameters `yaml:"policy_parameters"`
	// MutationHistory lists every mutation from the base to this version,
	// oldest first; the last record is the one that made this version.
	MutationHistory []MutationRecord `yaml:"mutation_history"`
	// ContentSHA256 is the hex SHA-256 of the canonical encoding of the
	// other fields (see Encode); "" until the prompt is encoded.
	ContentSHA256 string `yaml:"content_sha256"`
}

// MutationRecord is one entry of the audit trail.
type MutationRecord struct {
	// Version is the version the mutation created.
	Version Version `yaml:"version"`
	// PrevVersion is the version it was derived from.
	PrevVersion Version `yaml:"prev_version"`
	// Operator is the mutation operator, e.g. "threshold_adjustment".
	Operator string `yaml:"operator"`
	// Description says what changed, e.g.
	// "Adjusted health_threshold: 0.300 → 0.400 (increase, Δ=0.100)".
	Description string `yaml:"description"`
	// Timestamp is when the mutation was recorded (UTC).
	Timestamp time.Time `yaml:"timestamp"`
	// Evidence is the statistical evidence of the evaluation on the val
	// split, nil if the version was not evaluated.
	Evidence *Evidence `yaml:"evidence,omitempty"`
}

// Evidence is the statistical record of a candidate's evaluation: the test
// that accepted (or rejected) it and the val means it compared.
type Evidence struct {
	Test             string  `yaml:"test"`               // e.g. "mann-whitney-u"
	Alternative      string  `yaml:"alternative"`        // e.g. "greater" (candidate better)
	PValue           float64 `yaml:"p_value"`            // in [0, 1]
	AdjustedPValue   float64 `yaml:"adjusted_p_value"`   // after Correction, in [0, 1]
	Correction       string  `yaml:"correction"`         // e.g. "holm"
	A12              float64 `yaml:"a12"`                // Vargha-Delaney effect size in [0, 1]
	NIncumbent       int     `yaml:"n_incumbent"`        // val episodes of the incumbent
	NCandidate       int     `yaml:"n_candidate"`        // val episodes of the candidate
	IncumbentValMean float64 `yaml:"incumbent_val_mean"` // mean val score of the incumbent
	CandidateValMean float64 `yaml:"candidate_val_mean"` // mean val score of the candidate
	Generation       int     `yaml:"generation"`         // 0-based generation of the evaluation
	Accepted         bool    `yaml:"accepted"`           // whether the candidate became the incumbent
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
	q.RulesConstraints = append([]string(nil), p.RulesConstraints...)
	q.SkillDescriptions = make(map[Skill]string, len(p.SkillDescriptions))
	for k, v := range p.SkillDescriptions {
		q.SkillDescriptions[k] = v
	}
	q.PolicyParameters = p.PolicyParameters.Clone()
	q.MutationHistory = make([]MutationRecord, len(p.MutationHistory))
	for i, r := range p.MutationHistory {
		if r.Evidence != nil {
			e := *r.Evidence
			r.Evidence = &e
		}
		q.MutationHistory[i] = r
	}
	return &q
}

// Derive returns a child of p: version v, created at ts, the frozen parts
// copied, the policy parameters replaced by params, and the history
// extended by rec. The child's hash is computed when it is encoded.
func (p *Prompt) Derive(v Version, params PolicyParameters, rec MutationRecord, ts time.Time) *Prompt {
	q := p.Clone()
	q.Version = v
	q.Timestamp = ts.UTC()
	q.PolicyParameters = params.Clone()
	rec.Timestamp = rec.Timestamp.UTC()
	q.MutationHistory = append(q.MutationHistory, rec)
	q.ContentSHA256 = ""
	return q
}

// Validate checks the document's invariants: a version, the five skill
// descriptions, non-empty frozen parts, valid parameters, and a history
// whose last record (if any) created this version.
func (p *Prompt) Validate() error {
	if p.Version.IsZero() {
		return fmt.Errorf("version: missing (want e.g. v1.0.0)")
	}
	if strings.TrimSpace(p.TaskDefinition) == "" {
		return fmt.Errorf("task_definition: empty")
	}
	if len(p.RulesConstraints) == 0 {
		return fmt.Errorf("rules_constraints: empty")
	}
	for _, s := range Skills {
		if strings.TrimSpace(p.SkillDescriptions[s]) == "" {
			return fmt.Errorf("skill_descriptions: missing %q", s)
		}
	}
	for s := range p.SkillDescriptions {
		if !s.Valid() {
			return fmt.Errorf("skill_descriptions: unknown skill %q (allowed: explore, fight, eat, use_item, flee)", s)
		}
	}
	if err := p.PolicyParameters.Validate(); err != nil {
		return err
	}
	if n := len(p.MutationHistory); n > 0 && p.MutationHistory[n-1].Version != p.Version {
		return fmt.Errorf("mutation_history: last record is for %s, not this version %s", p.MutationHistory[n-1].Version, p.Version)
	}
	return nil
}

// Render returns the prompt as text for a language model: the task, the
// rules, the skills in priority order and the parameters. It is a pure
// function of p.
func (p *Prompt) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task (prompt %s)\n%s\n", p.Version, strings.TrimSpace(p.TaskDefinition))
	b.WriteString("\n# Rules\n")
	for _, r := range p.RulesConstraints {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	b.WriteString("\n# Skills, in priority order\n")
	for i, s := range p.PolicyParameters.SkillPriority {
		fmt.Fprintf(&b, "%d. %s: %s\n", i+1, s, p.SkillDescriptions[s])
	}
	pp := p.PolicyParameters
	b.WriteString("\n# Policy parameters\n")
	fmt.Fprintf(&b, "- Flee or heal when health falls below %.0f%% (health_threshold %.3f).\n", 100*pp.HealthThreshold, pp.HealthThreshold)
	fmt.Fprintf(&b, "- Eat when hunger exceeds %.0f%% (hunger_threshold %.3f).\n", 100*pp.HungerThreshold, pp.HungerThreshold)
	fmt.Fprintf(&b, "- Explore a level for at most %d turns before heading for the stairs (max_exploration_steps).\n", pp.MaxExplorationSteps)
	fmt.Fprintf(&b, "- Give up a fight after %d exchanges (max_combat_attempts).\n", pp.MaxCombatAttempts)
	fmt.Fprintf(&b, "- Risk tolerance %.3f (0 conservative, 1 aggressive).\n", pp.RiskTolerance)
	return b.String()
}
