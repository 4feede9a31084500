package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"evolve/experiment"
	"evolve/guard"
	"evolve/internal/format"
	"evolve/prompt"
	"evolve/rundir"
	"evolve/store"
)

// cmdPrompt is evolve prompt.
var cmdPrompt = &Command{
	UsageLine: "evolve prompt [--store DIR] <subcommand> [flags] [arguments]",
	Short:     "write an editable prompt; inspect and manage a prompt store: new, list, show, render, log, diff, branch, rollback, promote, migrate, validate",
	Long:      promptLong,
	SetFlags:  promptFlags,
	Commands: []*Command{
		cmdPromptNew,
		cmdPromptList,
		cmdPromptShow,
		cmdPromptRender,
		cmdPromptLog,
		cmdPromptDiff,
		cmdPromptBranch,
		cmdPromptRollback,
		cmdPromptPromote,
		cmdPromptMigrate,
		cmdPromptValidate,
	},
}

// promptFlagValues are the flags of evolve prompt before its subcommand.
type promptFlagValues struct{ store string }

// promptFlags defines the flags of evolve prompt on fs.
func promptFlags(fs *flag.FlagSet) any {
	f := new(promptFlagValues)
	fs.StringVar(&f.store, "store", "", "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)")
	return f
}

// promptOpts are the flags of every prompt subcommand and the store they
// name. A subcommand's flags embed them.
type promptOpts struct {
	writes   bool // the subcommand changes the store
	store    string
	json     bool
	maxChars int
	stderr   io.Writer
}

// define defines the flags every prompt subcommand has on fs; writes
// marks a subcommand that changes the store (branch, rollback, promote,
// migrate): without --store it uses ./prompts, never a run's store (see
// storeDir).
func (o *promptOpts) define(fs *flag.FlagSet, writes bool) {
	o.writes = writes
	storeHelp := "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)"
	if writes {
		storeHelp = "the prompt store `DIR` to change (default: ./prompts; a run's store only when named)"
	}
	fs.StringVar(&o.store, "store", "", storeHelp)
	fs.BoolVar(&o.json, "json", false, "print JSON for scripts")
	fs.IntVar(&o.maxChars, "max-chars", guard.DefaultMaxChars, "the most characters a text (section, task, rule, ...) may have when it enters the store; 0 for no limit")
}

// setup completes o for the invocation cmd of a prompt subcommand: the
// store of evolve prompt --store DIR unless the subcommand names its own,
// and cmd's stderr. A negative --max-chars is a usage error.
func (o *promptOpts) setup(cmd *Command) error {
	if o.store == "" {
		o.store = cmd.parent.Flags.(*promptFlagValues).store
	}
	o.stderr = cmd.Stderr
	if o.maxChars < 0 {
		return usagef("--max-chars must be >= 0 (0 for no limit), got %d", o.maxChars)
	}
	return nil
}

// promptReadFlags defines the flags of a prompt subcommand that only
// reads the store, and of no others.
func promptReadFlags(fs *flag.FlagSet) any {
	o := new(promptOpts)
	o.define(fs, false)
	return o
}

// promptWriteFlags defines the flags of a prompt subcommand that changes
// the store, and of no others.
func promptWriteFlags(fs *flag.FlagSet) any {
	o := new(promptOpts)
	o.define(fs, true)
	return o
}

// policy is the text policy of the store's writes and of validate.
func (o *promptOpts) policy() guard.Policy {
	p := guard.Default()
	p.MaxChars = o.maxChars
	return p
}

// promptLong is the long help of evolve prompt.
const promptLong = `
Inspect and manage a prompt store: a directory of prompts (by slug), each a
graph of immutable versions on branches (supersedes, branched_from,
inherits_from and rolled_back edges) with its index versions.json.

REF names a version: SLUG (HEAD of main), SLUG@BRANCH (its HEAD) or
SLUG@vX.Y.Z. In a store with one prompt (a run's), the slug may be left
out: vX.Y.Z, @BRANCH.

Every subcommand takes --store DIR. Commands that read default to the
prompt store of the most recent run under ./runs, else ./prompts; branch,
rollback, promote and migrate write to ./prompts unless --store names
another store, so that a run's store (part of its results) changes only
when named. Every subcommand takes --json (one JSON value on stdout for
scripts) and --max-chars N (the longest text that may enter the store,
8000 characters by default). Flags may come before or after the arguments.

Exit status: 0 success, 1 failure (including invalid input and rejected
text), 2 usage error.

Examples:

	evolve prompt new prompts/agent.yaml                # an editable copy of the embedded prompt
	evolve prompt log                                   # the most recent run's lineage
	evolve prompt diff v1.0.0 v1.0.5
	evolve prompt show --resolved --store prompts coding-agent
	evolve prompt migrate --dry-run --store prompts prompts.json
	evolve prompt rollback --store prompts --reason "val regression" coding-agent@main`

// openStore opens the store o names, or the default one (announced on
// stderr). With existing, a directory without versions.json is an error
// rather than a new empty store.
func (o *promptOpts) openStore(existing bool) (*store.Store, error) {
	open := store.OpenStore
	if existing {
		open = store.OpenExisting
	}
	s, err := open(o.storeDir())
	if errors.Is(err, store.ErrNoStore) {
		hint := "give --store DIR, or create one with evolve prompt migrate"
		if o.writes && o.store == "" {
			hint = "give --store DIR (e.g. --store runs/RUN_ID/prompts to change a run's store), or create one with evolve prompt migrate"
		}
		return nil, fmt.Errorf("%w: %s", err, hint)
	}
	if err != nil {
		return nil, err
	}
	if now := clock(); now != nil {
		s.Now = now
	}
	s.TextPolicy = o.policy()
	return s, nil
}

// clock is what stamps the store's new versions and edges: the time of
// $SOURCE_DATE_EPOCH if it is set (reproducible builds and tests), else
// nil for the store's own clock (now, in whole seconds, UTC).
func clock() func() time.Time {
	if t, ok := experiment.SourceDateEpoch(); ok {
		return func() time.Time { return t }
	}
	return nil
}

// storeDir returns the store directory o names, announcing the default
// on stderr when --store is not given: for a subcommand that writes,
// ./prompts (a run's store is part of its results: it changes only when
// --store names it), else the most recent run's (defaultStoreDir).
func (o *promptOpts) storeDir() string {
	if o.store != "" {
		return o.store
	}
	if o.writes {
		fmt.Fprintf(o.stderr, "evolve prompt: writing to the prompt store %s (a run's store changes only when --store names it)\n", WriteStoreDir)
		return WriteStoreDir
	}
	dir := defaultStoreDir()
	fmt.Fprintf(o.stderr, "evolve prompt: using the prompt store %s (--store DIR to choose another)\n", dir)
	return dir
}

// openGraph opens the existing store o names and reads its graph.
func (o *promptOpts) openGraph() (*store.Store, *store.Graph, error) {
	s, err := o.openStore(true)
	if err != nil {
		return nil, nil, err
	}
	g, err := s.Graph()
	if err != nil {
		return nil, nil, err
	}
	return s, g, nil
}

// WriteStoreDir is the store that branch, rollback, promote and migrate
// write without --store.
const WriteStoreDir = "prompts"

// defaultStoreDir is the prompt store of the most recent run under ./runs
// (by the modification time of its index), else ./prompts.
func defaultStoreDir() string {
	if dir, ok := rundir.LatestPromptStore("runs"); ok {
		return dir
	}
	return WriteStoreDir
}

// cliRef parses a REF argument (store.Graph.ParseRef: in a store with one
// slug, "vX.Y.Z", "@vX.Y.Z", "@BRANCH" and "" name that slug's versions
// and branches); a malformed or ambiguous REF is a usage error.
func cliRef(g *store.Graph, s string) (prompt.Ref, error) {
	r, err := g.ParseRef(s)
	if re := (*store.RefError)(nil); errors.As(err, &re) {
		return r, usagef("%v", err)
	}
	return r, err
}

func printJSON(w io.Writer, v any) error {
	b, err := format.Marshal(v, "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// cmdPromptList is evolve prompt list.
var cmdPromptList = &Command{
	UsageLine: "evolve prompt list [flags]",
	Short:     "every prompt and branch with its HEAD",
	Long: `
List every prompt of the store, one line per branch: slug, type, branch,
HEAD version, versions on the branch, what HEAD inherits from, and tags.
--json prints a list of objects with those fields.`,
	SetFlags: promptReadFlags,
	Run:      runPromptList,
}

// runPromptList is evolve prompt list.
func runPromptList(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptOpts)
	if len(args) != 0 {
		return usagef("list takes no arguments")
	}
	_, g, err := o.openGraph()
	if err != nil {
		return err
	}
	rows := g.BranchHeads()
	if o.json {
		return printJSON(cmd.Stdout, rows)
	}
	return store.WriteBranchHeads(cmd.Stdout, rows)
}

// cmdPromptShow is evolve prompt show.
var cmdPromptShow = &Command{
	UsageLine: "evolve prompt show [flags] REF",
	Short:     "a version's YAML (--resolved: with inheritance applied; --render: as text); REF embedded: the embedded base prompt",
	Long: `
Print the version REF names as stored (its YAML file, byte for byte; REF
"embedded" without --store: the embedded base prompt), or
with --resolved the prompt with its inheritance applied (parent sections
first, the child's merged on top, override_sections replacing; YAML with a
comment naming the chain), or with --render the resolved prompt as the text
a language model sees. --json prints the (resolved) prompt as JSON.`,
	SetFlags: promptShowFlags,
	Run:      runPromptShow,
}

// promptShowFlagValues are the flags of evolve prompt show.
type promptShowFlagValues struct {
	promptOpts
	resolved bool
	render   bool
}

// promptShowFlags defines the flags of evolve prompt show on fs.
func promptShowFlags(fs *flag.FlagSet) any {
	o := new(promptShowFlagValues)
	o.define(fs, false)
	fs.BoolVar(&o.resolved, "resolved", false, "apply inheritance (what rendering and agents see)")
	fs.BoolVar(&o.render, "render", false, "print the resolved prompt as text for a language model")
	return o
}

// runPromptShow is evolve prompt show.
func runPromptShow(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptShowFlagValues)
	if len(args) != 1 {
		return usagef("want one REF, got %s", plural(len(args), "argument", "arguments"))
	}
	if args[0] == "embedded" && o.store == "" { // the embedded base prompt needs no store
		p := prompt.Base()
		switch {
		case o.render:
			_, err := io.WriteString(cmd.Stdout, p.Render())
			return err
		case o.json:
			return printJSON(cmd.Stdout, p)
		}
		_, err := cmd.Stdout.Write(prompt.BaseYAML())
		return err
	}
	s, g, err := o.openGraph()
	if err != nil {
		return err
	}
	ref, err := cliRef(g, args[0])
	if err != nil {
		return err
	}
	if !o.resolved && !o.render {
		p, data, err := s.LoadFile(ref)
		if err != nil {
			return err
		}
		if o.json {
			return printJSON(cmd.Stdout, p)
		}
		_, err = cmd.Stdout.Write(data)
		return err
	}
	res, err := s.Resolve(ref)
	if err != nil {
		return err
	}
	switch {
	case o.render:
		_, err = io.WriteString(cmd.Stdout, res.Prompt.Render())
		return err
	case o.json:
		return printJSON(cmd.Stdout, struct {
			Chain  []prompt.Ref   `json:"chain"`
			Prompt *prompt.Prompt `json:"prompt"`
		}{res.Chain, res.Prompt})
	}
	data, err := res.Encode()
	if err != nil {
		return err
	}
	_, err = cmd.Stdout.Write(data)
	return err
}

// cmdPromptLog is evolve prompt log.
var cmdPromptLog = &Command{
	UsageLine: "evolve prompt log [flags] [REF]",
	Short:     "the lineage: versions, edges, mutations, acceptance evidence, online weights and rollbacks",
	Long: `
Print the lineage of a branch (REF is SLUG or SLUG@BRANCH; default main of
the store's only prompt): its chain from HEAD back to its first version,
newest first. Each version shows when it was made, how (mutation operator
and description, or branch, migration, edit), the statistical evidence of
its evaluation (test, p, adjusted p, A12, val means and n, generation,
accepted), and its edges (supersedes, superseded by, branched from,
rolled back, inherits from; an automatic rollback with its evidence), and
its online state if evolve serve observed it (weight, observations, mean
score, the last auto-rollback alarm). --all lists every version of the
prompt on every branch, candidates that were not accepted too, in the
order written. --json prints the same as a list of objects (online state
under "online", rollback evidence under the edge's "evidence").`,
	SetFlags: promptLogFlags,
	Run:      runPromptLog,
}

// promptLogFlagValues are the flags of evolve prompt log.
type promptLogFlagValues struct {
	promptOpts
	all bool
}

// promptLogFlags defines the flags of evolve prompt log on fs.
func promptLogFlags(fs *flag.FlagSet) any {
	o := new(promptLogFlagValues)
	o.define(fs, false)
	fs.BoolVar(&o.all, "all", false, "every version of the prompt (all branches, rejected candidates), in the order written")
	return o
}

// runPromptLog is evolve prompt log.
func runPromptLog(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptLogFlagValues)
	if len(args) > 1 {
		return usagef("want at most one REF, got %s", plural(len(args), "argument", "arguments"))
	}
	s, g, err := o.openGraph()
	if err != nil {
		return err
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	ref, err := cliRef(g, arg)
	if err != nil {
		return err
	}
	if ref.Pinned() {
		return usagef("log takes SLUG or SLUG@BRANCH, not a version (%s)", ref)
	}
	entries, err := s.Log(ref.Slug, ref.BranchOrMain(), o.all)
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(cmd.Stdout, entries)
	}
	return store.WriteLog(cmd.Stdout, g, ref.Slug, ref.BranchOrMain(), entries, o.all)
}

// cmdPromptDiff is evolve prompt diff.
var cmdPromptDiff = &Command{
	UsageLine: "evolve prompt diff [flags] A B",
	Short:     "structured differences of parameters and sections",
	Long: `
Print the differences from version A to version B (each a REF; in a run's
store just vX.Y.Z): identity, tags, metadata by key, inheritance, each
section (as a line diff), the task, rules and skill descriptions (line
diffs), each policy parameter (old → new), and the mutation records one
has beyond the other. --resolved compares the prompts with inheritance
applied. --json prints {"a", "b", "changes": [{"field", "kind", "old",
"new", "text"}]}. The exit status is 0 whether or not they differ.`,
	SetFlags: promptDiffFlags,
	Run:      runPromptDiff,
}

// promptDiffFlagValues are the flags of evolve prompt diff.
type promptDiffFlagValues struct {
	promptOpts
	resolved bool
}

// promptDiffFlags defines the flags of evolve prompt diff on fs.
func promptDiffFlags(fs *flag.FlagSet) any {
	o := new(promptDiffFlagValues)
	o.define(fs, false)
	fs.BoolVar(&o.resolved, "resolved", false, "compare the prompts with inheritance applied")
	return o
}

// runPromptDiff is evolve prompt diff.
func runPromptDiff(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptDiffFlagValues)
	if len(args) != 2 {
		return usagef("want two REFs, got %s", plural(len(args), "argument", "arguments"))
	}
	s, g, err := o.openGraph()
	if err != nil {
		return err
	}
	var ps [2]*prompt.Prompt
	for i, a := range args {
		ref, err := cliRef(g, a)
		if err != nil {
			return err
		}
		if o.resolved {
			res, err := s.Resolve(ref)
			if err != nil {
				return err
			}
			ps[i] = res.Prompt
		} else if ps[i], err = s.LoadRef(ref); err != nil {
			return err
		}
	}
	changes := prompt.Diff(ps[0], ps[1])
	if o.json {
		if changes == nil {
			changes = []prompt.Change{}
		}
		return printJSON(cmd.Stdout, struct {
			A       prompt.Ref      `json:"a"`
			B       prompt.Ref      `json:"b"`
			Changes []prompt.Change `json:"changes"`
		}{ps[0].Ref(), ps[1].Ref(), changes})
	}
	return prompt.WriteDiff(cmd.Stdout, ps[0], ps[1], changes)
}

// cmdPromptBranch is evolve prompt branch.
var cmdPromptBranch = &Command{
	UsageLine: "evolve prompt branch [flags] REF NAME",
	Short:     "fork a version into a new branch",
	Long: `
Fork the version REF names (SLUG@vX.Y.Z, or SLUG / SLUG@BRANCH for that
branch's HEAD) into a new branch NAME of the same prompt. The branch's first
version is a copy at the next free patch version, recorded with a
branched_from edge; after the fork the two branches share nothing. Branch
names are lowercase letters and digits in words joined by '.', '_' or '-',
and not like a version. Prints the new version.`,
	SetFlags: promptWriteFlags,
	Run:      runPromptBranch,
}

// runPromptBranch is evolve prompt branch.
func runPromptBranch(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptOpts)
	if len(args) != 2 {
		return usagef("want REF and NAME, got %s", plural(len(args), "argument", "arguments"))
	}
	s, g, err := o.openGraph()
	if err != nil {
		return err
	}
	ref, err := cliRef(g, args[0])
	if err != nil {
		return err
	}
	v, err := s.Branch(ref, args[1])
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(cmd.Stdout, map[string]any{"slug": ref.Slug, "branch": args[1], "version": v, "from": ref})
	}
	fmt.Fprintf(cmd.Stdout, "created branch %s of %s at %s (from %s)\n", args[1], ref.Slug, v, ref)
	return nil
}

// cmdPromptRollback is evolve prompt rollback.
var cmdPromptRollback = &Command{
	UsageLine: "evolve prompt rollback [flags] REF",
	Short:     "move a branch's HEAD back (to the previous or --to a named version)",
	Long: `
Move HEAD of the branch REF names (SLUG or SLUG@BRANCH) back to the version
it superseded, or with --to to a named version that was HEAD of the branch
before. A rolled_back edge records the move (with --reason); no version is
deleted, and a later rollback --to can return to the abandoned HEAD.
Prints the new HEAD.`,
	SetFlags: promptRollbackFlags,
	Run:      runPromptRollback,
}

// promptRollbackFlagValues are the flags of evolve prompt rollback.
type promptRollbackFlagValues struct {
	promptOpts
	to     string
	reason string
}

// promptRollbackFlags defines the flags of evolve prompt rollback on fs.
func promptRollbackFlags(fs *flag.FlagSet) any {
	o := new(promptRollbackFlagValues)
	o.define(fs, true)
	fs.StringVar(&o.to, "to", "", "the `VERSION` to return to (default: the version HEAD superseded)")
	fs.StringVar(&o.reason, "reason", "", "why, recorded on the rolled_back edge")
	return o
}

// runPromptRollback is evolve prompt rollback.
func runPromptRollback(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptRollbackFlagValues)
	if len(args) != 1 {
		return usagef("want one REF (SLUG or SLUG@BRANCH), got %s", plural(len(args), "argument", "arguments"))
	}
	var target prompt.Version
	if o.to != "" {
		v, err := prompt.ParseVersion(o.to)
		if err != nil {
			return usagef("--to: %v", err)
		}
		target = v
	}
	s, g, err := o.openGraph()
	if err != nil {
		return err
	}
	ref, err := cliRef(g, args[0])
	if err != nil {
		return err
	}
	if ref.Pinned() {
		return usagef("rollback takes SLUG or SLUG@BRANCH (and --to VERSION), not %s", ref)
	}
	old, _ := g.Head(ref.Slug, ref.BranchOrMain())
	v, err := s.Rollback(ref.Slug, ref.BranchOrMain(), target, o.reason)
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(cmd.Stdout, map[string]any{"slug": ref.Slug, "branch": ref.BranchOrMain(), "from": old, "head": v})
	}
	fmt.Fprintf(cmd.Stdout, "%s@%s: HEAD %s → %s\n", ref.Slug, ref.BranchOrMain(), old, v)
	return nil
}

// cmdPromptMigrate is evolve prompt migrate.
var cmdPromptMigrate = &Command{
	UsageLine: "evolve prompt migrate [flags] FILE",
	Short:     "bulk import from JSON or YAML, all or nothing (--dry-run)",
	Long: `
Import the prompts of FILE, a JSON or YAML list of entries:

	[{"slug": "coding-agent", "type": "system", "branch": "main",
	  "inherits_from": "base-agent", "override_sections": ["tools"],
	  "sections": {"tools": "...", "style": "..."},
	  "metadata": {"context_weights": {"task_coding": 0.8}},
	  "tags": ["coding"], "policy_parameters": {...}}]

Every field but slug is optional (type: system, branch: main by default);
task_definition, rules_constraints and skill_descriptions are accepted too.
Entries apply in order: a new slug gets v1.0.0 on main; an entry on an
existing branch becomes its next version and HEAD (the bump follows what
changed: major for sections and frozen parts, minor for skill priority,
patch for parameters, tags and metadata), unless HEAD already holds the
same content ("unchanged"); an entry on a new branch forks it from main's
HEAD. On a branch other than main, the tags, metadata and inherits_from
an entry leaves out are kept from the version it follows (the fork point,
or the branch's HEAD).

It is all or nothing: every entry is checked first (schema, names, every
text against the 8,000-character limit and the forbidden patterns,
inheritance and cycles), every problem is reported with its line, entry
index (from 0) and field, and if there is any, nothing is written (exit 1).
--dry-run prints exactly what would be created, writing nothing.
--json prints the plan as {"file", "dry_run", "applied", "entries":
[{"entry", "line", "slug", "branch", "type", "action", "version", "bump",
"supersedes", "branched_from", "inherits_from", "sections", "problems"}],
"problems"}.`,
	SetFlags: promptMigrateFlags,
	Run:      runPromptMigrate,
}

// promptMigrateFlagValues are the flags of evolve prompt migrate.
type promptMigrateFlagValues struct {
	promptOpts
	dry bool
}

// promptMigrateFlags defines the flags of evolve prompt migrate on fs.
func promptMigrateFlags(fs *flag.FlagSet) any {
	o := new(promptMigrateFlagValues)
	o.define(fs, true)
	fs.BoolVar(&o.dry, "dry-run", false, "print what would be created; write nothing")
	return o
}

// runPromptMigrate is evolve prompt migrate.
func runPromptMigrate(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptMigrateFlagValues)
	if len(args) != 1 {
		return usagef("want one migration FILE, got %s", plural(len(args), "argument", "arguments"))
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	m := store.DecodeMigration(args[0], data)
	var plan *store.MigrationPlan
	var dir string
	if o.dry {
		// A dry run creates nothing: not even the store's
		// directory or lock file (store.PlanMigration).
		dir = o.storeDir()
		plan, err = store.PlanMigration(dir, m, o.policy(), clock())
	} else {
		s, serr := o.openStore(false)
		if serr != nil {
			return serr
		}
		dir = s.Dir()
		plan, err = s.Migrate(m, false)
	}
	if plan == nil {
		return err
	}
	if o.json {
		if jerr := printJSON(cmd.Stdout, plan); jerr != nil {
			return jerr
		}
	} else {
		plan.WriteText(cmd.Stdout, dir)
	}
	if err != nil {
		if errors.Is(err, store.ErrInvalidMigration) {
			return &exitError{code: exitFailure, err: err}
		}
		return err
	}
	return nil
}

// cmdPromptValidate is evolve prompt validate.
var cmdPromptValidate = &Command{
	UsageLine: "evolve prompt validate [flags] FILE...",
	Short:     "check prompt and migration files, texts included",
	Long: `
Check each FILE as the store would before writing it: a prompt version
(YAML with a version key: strict schema, content hash if present, policy
parameters present unless it inherits them, and each of the kind, range
and items the environment of --config declares: by default the embedded
default's, the dungeon's scripted agent)
or a migration (a JSON or YAML list of entries: each entry on its own,
without a store). Every text (sections, task, rules, skill descriptions,
metadata strings, mutation descriptions) must have at most 8,000
characters and no forbidden pattern: meta-override ("ignore previous
instructions"), safety bypass ("disable safety"), system-prompt disclosure
("reveal your system prompt"), role reassignment ("you are now ...").

Each file is VALID, or REJECTED with its issues: the field, the line and
column in the text, the pattern and its category, the byte offset. --json
prints a list of {"file", "kind", "status", "issues", "problems"}. Exit
status 1 if any file is REJECTED.`,
	SetFlags: promptValidateFlags,
	Run:      runPromptValidate,
}

// promptValidateFlagValues are the flags of evolve prompt validate.
type promptValidateFlagValues struct {
	promptOpts
	config string
}

// promptValidateFlags defines the flags of evolve prompt validate on fs.
func promptValidateFlags(fs *flag.FlagSet) any {
	o := new(promptValidateFlagValues)
	o.define(fs, false)
	fs.StringVar(&o.config, "config", "", "check policy parameters against the parameter schema of the environment of config `FILE` (default: the embedded default's, the dungeon)")
	return o
}

// runPromptValidate is evolve prompt validate.
func runPromptValidate(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptValidateFlagValues)
	if len(args) == 0 {
		return usagef("want at least one FILE")
	}
	info, err := configEnv(o.config)
	if err != nil {
		return err
	}
	checker := prompt.Checker{Schema: info.Params, Env: info.Name, Policy: o.policy()}
	var results []store.FileCheck
	rejected := 0
	for _, a := range args {
		r := store.CheckFile(a, checker)
		if r.Status != guard.Valid {
			rejected++
		}
		results = append(results, r)
	}
	if o.json {
		if err := printJSON(cmd.Stdout, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(cmd.Stdout, "%s: %s (%s)\n", r.File, r.Status, r.Kind)
			for _, is := range r.Issues {
				fmt.Fprintf(cmd.Stdout, "    %s (byte offset %d)\n", is, is.Offset)
			}
			for _, p := range r.Problems {
				fmt.Fprintf(cmd.Stdout, "    %s\n", p)
			}
		}
	}
	if rejected > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %s rejected", rejected, plural(len(args), "file", "files"))}
	}
	return nil
}
