package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"evolve/prompt"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/guard"
	"evolve/internal/flock"
	"evolve/internal/strictyaml"
	"evolve/params"
)

// ErrInvalidMigration reports a migration with at least one problem;
// nothing of it was written.
var ErrInvalidMigration = errors.New("invalid migration")

// Entry is one prompt of a migration file: what a version of a slug on a
// branch holds. Every field but Slug is optional; Type defaults to
// "system" and Branch to "main". An entry on a branch other than main
// keeps the tags, metadata and inherits_from (with override_sections) it
// leaves out from the version it follows: main's HEAD, which a new branch
// forks (as evolve prompt branch keeps them), or the branch's HEAD. An
// entry on main is the whole content of its version.
type Entry struct {
	Slug              string          `yaml:"slug" json:"slug"`                             // required (see ValidateSlug)
	Type              string          `yaml:"type" json:"type"`                             // one of Types; "" means system
	Branch            string          `yaml:"branch" json:"branch"`                         // "" means main
	Tags              []string        `yaml:"tags" json:"tags"`                             // free labels (see ValidateTag)
	Metadata          prompt.Metadata `yaml:"metadata" json:"metadata"`                     // free key-value data
	InheritsFrom      *prompt.Ref     `yaml:"inherits_from" json:"inherits_from"`           // the parent, nil for none
	OverrideSections  []string        `yaml:"override_sections" json:"override_sections"`   // sections replacing the parent's
	Sections          prompt.Sections `yaml:"sections" json:"sections"`                     // named texts, in order
	TaskDefinition    string          `yaml:"task_definition" json:"task_definition"`       // the frozen task, "" for none
	RulesConstraints  []string        `yaml:"rules_constraints" json:"rules_constraints"`   // the frozen rules
	SkillDescriptions prompt.Sections `yaml:"skill_descriptions" json:"skill_descriptions"` // skill name -> description, in order
	PolicyParameters  *params.Set     `yaml:"policy_parameters" json:"policy_parameters"`   // nil for none
}

// Prompt returns the entry as a prompt without a version (the store
// allocates it).
func (e *Entry) Prompt() *prompt.Prompt {
	p := &prompt.Prompt{Slug: e.Slug, Type: e.Type, Branch: e.Branch, Tags: slices.Clone(e.Tags), Metadata: e.Metadata.Clone(),
		OverrideSections: slices.Clone(e.OverrideSections), TaskDefinition: e.TaskDefinition,
		RulesConstraints: slices.Clone(e.RulesConstraints)}
	if e.InheritsFrom != nil {
		r := *e.InheritsFrom
		p.InheritsFrom = &r
	}
	if e.Sections != nil {
		p.Sections = append(prompt.Sections{}, e.Sections...)
	}
	if len(e.SkillDescriptions) > 0 {
		p.SkillDescriptions = append(prompt.Sections{}, e.SkillDescriptions...)
	}
	if e.PolicyParameters != nil {
		p.PolicyParameters = e.PolicyParameters.Clone()
	}
	return p
}

// Problem is one thing wrong with a migration.
type Problem struct {
	Entry int    `json:"entry"`           // 0-based index of the entry; -1 for the file as a whole
	Line  int    `json:"line,omitempty"`  // 1-based line in the file, 0 if unknown
	Field string `json:"field,omitempty"` // field path in the entry, e.g. "sections.identity"; "" for the entry as a whole
	Msg   string `json:"msg"`             // what is wrong, naming the bad value
}

// String returns "line 12: entry 3: sections.identity: MSG", leaving out
// what is unknown.
func (p Problem) String() string {
	var parts []string
	if p.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", p.Line))
	}
	if p.Entry >= 0 {
		parts = append(parts, fmt.Sprintf("entry %d", p.Entry))
	}
	if p.Field != "" {
		parts = append(parts, p.Field)
	}
	return strings.Join(append(parts, p.Msg), ": ")
}

// Migration is a decoded migration file.
type Migration struct {
	File     string    // the file name as given to DecodeMigration
	Entries  []Entry   // one per entry of the file, in order; an entry that did not decode is zero
	Problems []Problem // what did not decode, by entry
	lines    []int     // the 1-based line of each entry, 0 if unknown
}

// Line returns the 1-based line of entry i in the file, 0 if unknown.
func (m *Migration) Line(i int) int {
	if i >= 0 && i < len(m.lines) {
		return m.lines[i]
	}
	return 0
}

// DecodeMigration reads a migration file: a JSON or YAML list of entries
// (JSON if file ends in ".json" or data starts with '[' after white space;
// YAML otherwise). Decoding is strict (unknown keys, duplicate keys and
// wrong types are problems) and goes on after a bad entry, so that every
// entry is either decoded or has its problems: every problem of a YAML
// entry, in line order; the first of a JSON entry (encoding/json stops
// there). A file that is not a list has one problem with Entry -1.
func DecodeMigration(file string, data []byte) *Migration {
	m := &Migration{File: file}
	if strings.EqualFold(filepath.Ext(file), ".json") || bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("[")) && !strings.EqualFold(filepath.Ext(file), ".yaml") && !strings.EqualFold(filepath.Ext(file), ".yml") {
		m.decodeJSON(data)
	} else {
		m.decodeYAML(data)
	}
	return m
}

func (m *Migration) fileProblem(line int, msg string) {
	m.Problems = append(m.Problems, Problem{Entry: -1, Line: line, Msg: msg})
}

func (m *Migration) decodeYAML(data []byte) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			m.fileProblem(0, "empty file: want a list of entries")
			return
		}
		var e *strictyaml.Error
		if errors.As(strictyaml.Decode(m.File, data, &struct{}{}), &e) {
			m.fileProblem(e.Line, e.Msg)
			return
		}
		m.fileProblem(0, "invalid YAML: "+err.Error())
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		m.fileProblem(extra.Line, "a second YAML document is not allowed")
		return
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.SequenceNode {
		m.fileProblem(root.Line, "want a list of entries (slug, type, branch, sections, ...)")
		return
	}
	for i, n := range root.Content {
		var e Entry
		m.lines = append(m.lines, n.Line)
		if err := strictyaml.DecodeNode(m.File, "", n, &e); err != nil {
			// every problem of the entry, in line order
			ses := strictyaml.List(err)
			if ses == nil {
				m.Problems = append(m.Problems, Problem{Entry: i, Line: n.Line, Msg: err.Error()})
			}
			for _, se := range ses {
				m.Problems = append(m.Problems, Problem{Entry: i, Line: se.Line, Field: se.Field, Msg: se.Msg})
			}
			e = Entry{}
		}
		m.Entries = append(m.Entries, e)
	}
}

func (m *Migration) decodeJSON(data []byte) {
	line := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		m.fileProblem(line(dec.InputOffset()), "invalid JSON: "+jsonMsg(err))
		return
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		m.fileProblem(1, "want a list of entries (slug, type, branch, sections, ...)")
		return
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The list cannot be read on: report the file alone.
			m.Entries, m.lines, m.Problems = nil, nil, nil
			m.fileProblem(line(dec.InputOffset()), "invalid JSON: "+jsonMsg(err))
			return
		}
		start := dec.InputOffset() - int64(len(raw))
		m.lines = append(m.lines, line(start))
		e, p := decodeJSONEntry(raw)
		if p != nil {
			p.Entry = i
			p.Line = line(start + int64(p.Line))
			m.Problems = append(m.Problems, *p)
			e = Entry{}
		}
		m.Entries = append(m.Entries, e)
	}
	if _, err := dec.Token(); err != nil {
		m.fileProblem(line(dec.InputOffset()), "invalid JSON: "+jsonMsg(err))
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		m.fileProblem(line(dec.InputOffset()), "unexpected data after the list of entries")
	}
}

// decodeJSONEntry decodes one entry strictly; a problem's Line holds the
// byte offset of the problem in raw (0 if unknown) for the caller to turn
// into a line.
func decodeJSONEntry(raw []byte) (Entry, *Problem) {
	var e Entry
	if path := jsonDuplicateKey(raw); path != "" {
		return e, &Problem{Field: path, Msg: "key given twice"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return e, &Problem{Line: int(te.Offset), Field: te.Field, Msg: fmt.Sprintf("%s is not %s", jsonValueKind(te.Value), jsonTypeName(te.Type.String()))}
		}
		var fe *prompt.FieldError
		if errors.As(err, &fe) {
			return e, &Problem{Field: fe.Field, Msg: fe.Msg}
		}
		msg := jsonMsg(err)
		if k, ok := strings.CutPrefix(msg, "unknown field "); ok {
			return e, &Problem{Msg: fmt.Sprintf("unknown key %s (known: %s)", k, strings.Join(entryKeys(), ", "))}
		}
		return e, &Problem{Msg: msg}
	}
	return e, nil
}

// jsonDuplicateKey returns the path of the first key repeated in an
// object of raw (encoding/json would keep the last silently), or "" if
// there is none or raw is not valid JSON (which decoding reports).
func jsonDuplicateKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func(path string, depth int) string
	walk = func(path string, depth int) string {
		tok, err := dec.Token()
		if err != nil || depth > prompt.MaxMetadataDepth+8 {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return ""
				}
				k, _ := kt.(string)
				p := k
				if path != "" {
					p = path + "." + k
				}
				if seen[k] {
					return p
				}
				seen[k] = true
				if d := walk(p, depth+1); d != "" {
					return d
				}
			}
			dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d := walk(fmt.Sprintf("%s[%d]", path, i), depth+1); d != "" {
					return d
				}
			}
			dec.Token()
		}
		return ""
	}
	return walk("", 0)
}

func entryKeys() []string {
	return []string{"branch", "inherits_from", "metadata", "override_sections", "policy_parameters", "rules_constraints",
		"sections", "skill_descriptions", "slug", "tags", "task_definition", "type"}
}

func jsonMsg(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }

func jsonValueKind(v string) string {
	switch v {
	case "string":
		return "text"
	case "number":
		return "a number"
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "bool":
		return "a boolean"
	}
	return v
}

func jsonTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "text"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "bool":
		return "a boolean"
	}
	return "an object"
}

// Action is what a migration entry does to the store.
type Action string

// The actions of a migration entry.
const (
	ActionCreate    Action = "create"    // the first version of a new slug, on main
	ActionAppend    Action = "append"    // a new version of an existing branch, made its HEAD
	ActionBranch    Action = "branch"    // the first version of a new branch, forked from main's HEAD
	ActionUnchanged Action = "unchanged" // HEAD already holds this content: nothing is written
	ActionInvalid   Action = "invalid"   // the entry has problems
)

// PlannedEntry is what one entry of a migration does (or would do).
type PlannedEntry struct {
	Entry        int             `json:"entry"`                   // 0-based index in the file
	Line         int             `json:"line,omitempty"`          // 1-based line of the entry, 0 if unknown
	Slug         string          `json:"slug"`                    // the entry's slug ("" if it did not decode)
	Branch       string          `json:"branch"`                  // its branch
	Type         string          `json:"type"`                    // its type
	Action       Action          `json:"action"`                  // what it does
	Version      *prompt.Version `json:"version,omitempty"`       // the version written; nil for unchanged and invalid entries
	Bump         string          `json:"bump,omitempty"`          // patch, minor or major, for append and branch
	Supersedes   *prompt.Version `json:"supersedes,omitempty"`    // the HEAD it replaces (append), or HEAD already (unchanged)
	BranchedFrom *prompt.Ref     `json:"branched_from,omitempty"` // the fork point (branch)
	InheritsFrom *prompt.Ref     `json:"inherits_from,omitempty"` // its parent, if any
	Sections     []string        `json:"sections,omitempty"`      // its section names, in order
	Problems     []Problem       `json:"problems,omitempty"`      // what is wrong with it
}

// MigrationPlan is the outcome of Store.Migrate.
type MigrationPlan struct {
	File     string         `json:"file"`     // the migration file
	DryRun   bool           `json:"dry_run"`  // whether it was a dry run
	Applied  bool           `json:"applied"`  // whether the versions were written
	Entries  []PlannedEntry `json:"entries"`  // one per entry, in file order
	Problems []Problem      `json:"problems"` // every problem, of the file and of each entry, in entry order
}

// Migrate imports m into the store, all or nothing. Under the store's
// lock it first plans every entry in order, as a dry run of exactly the
// writes it would make (each entry sees the ones before it): an entry on
// an existing (slug, branch) appends a version (allocated as Append
// does) unless HEAD already holds its content; a new slug gets v1.0.0 on
// main; an entry on a new branch of an existing slug forks it from main's
// HEAD. Every entry is checked (decoding, document validation, every text
// against TextPolicy, names, inheritance and cycles), and every problem is
// collected with its entry index and field. If there is any problem, or
// dryRun is true, nothing is written and the plan says what would have
// been; problems make the error wrap ErrInvalidMigration. Otherwise the
// entries are written and the index updated once; if writing fails part
// way, the files already written are removed and the index is unchanged.
//
// A dry run writes nothing at all: it reads the index under a shared lock
// if the store's lock file exists (without it, there is no store to lock
// yet), and creates neither the store's directory nor its lock file. See
// PlanMigration for a store that may not exist.
func (s *Store) Migrate(m *Migration, dryRun bool) (*MigrationPlan, error) {
	plan := &MigrationPlan{File: m.File, DryRun: dryRun, Entries: []PlannedEntry{}, Problems: []Problem{}}
	if dryRun {
		err := s.view(func(ix *index, now time.Time) {
			planEntries(&txn{s: s, ix: ix, now: now, dry: true, cache: map[prompt.Ref]*prompt.Prompt{}}, m, plan)
		})
		if err != nil {
			return plan, err
		}
		if n := len(plan.Problems); n > 0 {
			return plan, fmt.Errorf("migration %s: %w: %d problem(s); nothing was written", m.File, ErrInvalidMigration, n)
		}
		return plan, nil
	}
	err := s.update(func(tx *txn) error {
		dry := &txn{s: s, ix: tx.ix.copy(), now: tx.now, dry: true, cache: map[prompt.Ref]*prompt.Prompt{}}
		planEntries(dry, m, plan)
		if len(plan.Problems) > 0 || dryRun {
			return nil
		}
		applied := &MigrationPlan{}
		planEntries(tx, m, applied)
		if len(applied.Problems) > 0 { // only I/O can fail here: the dry run took the same path
			return fmt.Errorf("migration %s: writing failed: %s", m.File, applied.Problems[0])
		}
		plan.Applied = true
		return nil
	})
	if err != nil {
		return plan, err
	}
	if n := len(plan.Problems); n > 0 {
		return plan, fmt.Errorf("migration %s: %w: %d problem(s); nothing was written", m.File, ErrInvalidMigration, n)
	}
	return plan, nil
}

// PlanMigration is the dry run of Store.Migrate on the store in dir,
// which need not exist (an absent store is empty): it returns the plan
// and writes nothing, creating neither dir nor the store's lock file.
// policy screens texts as Store.TextPolicy does; now stamps the versions
// planned, as Store.Now (nil means the current time in whole seconds,
// UTC). Errors are Migrate's, and an index that cannot be read.
func PlanMigration(dir string, m *Migration, policy guard.Policy, now func() time.Time) (*MigrationPlan, error) {
	if now == nil {
		now = func() time.Time { return time.Now().UTC().Truncate(time.Second) }
	}
	s := &Store{dir: dir, TextPolicy: policy, Now: now}
	return s.Migrate(m, true)
}

// view runs f on a snapshot of the index, read under a shared lock of the
// store when its lock file exists; it creates nothing.
func (s *Store) view(f func(ix *index, now time.Time)) error {
	lock, err := os.Open(filepath.Join(s.dir, "versions.lock"))
	switch {
	case err == nil:
		defer lock.Close()
		if err := flock.RLock(lock); err != nil {
			return s.errorf("locking: %w", err)
		}
		defer flock.Unlock(lock)
	case !errors.Is(err, fs.ErrNotExist):
		return s.errorf("%w", err)
	}
	ix, err := s.readIndex()
	if err != nil {
		return err
	}
	f(ix, s.Now().UTC())
	return nil
}

// planEntries runs every entry of m through tx, recording in plan what
// each does or what is wrong with it.
func planEntries(tx *txn, m *Migration, plan *MigrationPlan) {
	for _, p := range m.Problems {
		if p.Entry < 0 {
			plan.Problems = append(plan.Problems, p)
		}
	}
	for i := range m.Entries {
		pe := PlannedEntry{Entry: i, Line: m.Line(i), Action: ActionInvalid}
		for _, p := range m.Problems {
			if p.Entry == i {
				pe.Problems = append(pe.Problems, p)
			}
		}
		if len(pe.Problems) == 0 {
			pe.Problems = tx.migrateEntry(m, i, &pe)
		}
		if len(pe.Problems) > 0 {
			pe.Action, pe.Version, pe.Bump, pe.Supersedes, pe.BranchedFrom = ActionInvalid, nil, "", nil, nil
		}
		plan.Problems = append(plan.Problems, pe.Problems...)
		plan.Entries = append(plan.Entries, pe)
	}
}

// migrateEntry checks entry i of m and writes it through tx, filling pe;
// it returns the entry's problems.
func (tx *txn) migrateEntry(m *Migration, i int, pe *PlannedEntry) []Problem {
	e := &m.Entries[i]
	line := pe.Line
	problem := func(field, msg string) Problem { return Problem{Entry: i, Line: line, Field: field, Msg: msg} }
	p := e.Prompt()
	p.SetDefaults()
	pe.Slug, pe.Branch, pe.Type, pe.InheritsFrom, pe.Sections = p.Slug, p.Branch, p.Type, p.InheritsFrom, p.Sections.Names()
	if probs := CheckEntry(e, tx.s.TextPolicy); len(probs) > 0 {
		for k := range probs {
			probs[k].Entry, probs[k].Line = i, line
		}
		return probs
	}
	g := tx.graph()
	desc := fmt.Sprintf("imported from %s entry %d", filepath.Base(m.File), i)
	head, hasHead := g.Head(p.Slug, p.Branch)
	var err error
	switch {
	case hasHead:
		hp, lerr := tx.lookup(prompt.Ref{Slug: p.Slug, Version: head})
		if lerr != nil {
			return []Problem{problem("", lerr.Error())}
		}
		pe.Supersedes = &head
		if p.Branch != prompt.MainBranch {
			keepForkFields(p, e, hp) // as the branch's first version kept them
			pe.InheritsFrom = p.InheritsFrom
		}
		if sameContent(hp, p) {
			pe.Action = ActionUnchanged
			return nil
		}
		pe.Action, pe.Bump = ActionAppend, prompt.BumpFor(hp, p).String()
		err = tx.append(p, "migration", desc)
	case p.Branch == prompt.MainBranch:
		pe.Action = ActionCreate
		err = tx.append(p, "migration", desc)
	default:
		mainHead, ok := g.Head(p.Slug, prompt.MainBranch)
		if !ok {
			return []Problem{problem("branch", fmt.Sprintf("%q: the slug %s has no main branch to fork it from (give an entry on main first)", p.Branch, p.Slug))}
		}
		from := prompt.Ref{Slug: p.Slug, Version: mainHead}
		fp, lerr := tx.lookup(from)
		if lerr != nil {
			return []Problem{problem("", lerr.Error())}
		}
		keepForkFields(p, e, fp)
		pe.InheritsFrom = p.InheritsFrom
		pe.Action, pe.Bump, pe.BranchedFrom = ActionBranch, prompt.BumpFor(fp, p).String(), &from
		p.Version = prompt.NextVersion(mainHead, prompt.BumpFor(fp, p), tx.existing(p.Slug))
		p.MutationHistory = []prompt.MutationRecord{{Version: p.Version, PrevVersion: mainHead, Operator: "migration",
			Description: desc + fmt.Sprintf(" (branch %s forked from %s)", p.Branch, from), Timestamp: tx.now}}
		p.Timestamp = tx.now
		err = tx.write(p, writeOpts{fork: &from})
	}
	if err != nil {
		return []Problem{problem(errorField(err), strings.TrimPrefix(err.Error(), fmt.Sprintf("prompt store %s: ", tx.s.dir)))}
	}
	v := p.Version
	pe.Version = &v
	return nil
}

// CheckEntry checks one entry on its own, without a store: a slug is
// given, the prompt it makes is a valid document (see Prompt.Validate),
// policy_parameters if given is not empty, and every text passes policy.
// It returns every problem found (Entry and Line left 0 for the caller).
func CheckEntry(e *Entry, policy guard.Policy) []Problem {
	var probs []Problem
	problem := func(field, msg string) { probs = append(probs, Problem{Field: field, Msg: msg}) }
	if e.Slug == "" {
		problem("slug", "missing: every entry names its prompt's slug")
	}
	p := e.Prompt()
	p.Version = prompt.Version{Major: 1, Minor: 0, Patch: 0}
	if err := p.Validate(); err != nil {
		problem(prompt.SplitFieldError(err))
	}
	if e.PolicyParameters != nil && len(*e.PolicyParameters) == 0 {
		problem("policy_parameters", "empty (leave the key out, or give every parameter)")
	}
	if r := policy.Check(p.Texts()...); !r.OK() {
		for _, is := range r.Issues {
			problem(is.Field, textProblem(is))
		}
	}
	return probs
}

// errorField guesses the entry field a store error is about.
func errorField(err error) string {
	switch {
	case errors.Is(err, prompt.ErrCycle), strings.Contains(err.Error(), "inherits_from"):
		return "inherits_from"
	case errors.Is(err, ErrNoBranch), errors.Is(err, ErrBranchExists):
		return "branch"
	}
	return ""
}

// textProblem is a guard issue as a problem message, with its place in
// the text.
func textProblem(is guard.Issue) string {
	return fmt.Sprintf("%s (line %d, column %d of the text)", is.Msg, is.Line, is.Column)
}

// sameContent reports whether a and b hold the same content: equal but
// for version, timestamp, mutation history and hash.
func sameContent(a, b *prompt.Prompt) bool {
	norm := func(p *prompt.Prompt) []byte {
		q := p.Clone()
		q.SetDefaults()
		q.Version, q.Timestamp, q.MutationHistory, q.ContentSHA256 = prompt.Version{Major: 1, Minor: 0, Patch: 0}, time.Time{}, nil, ""
		data, err := prompt.EncodeBody(q)
		if err != nil {
			return nil
		}
		return data
	}
	x, y := norm(a), norm(b)
	return x != nil && slices.Equal(x, y)
}

// copy returns a copy of ix that appends do not share.
func (ix *index) copy() *index {
	c := *ix
	c.Versions = slices.Clone(ix.Versions)
	c.Edges = slices.Clone(ix.Edges)
	return &c
}
