package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"evolve/experiment"
	"evolve/guard"
	"evolve/prompt"
	"evolve/rundir"
	"evolve/store"
)

func init() {
	register(&command{
		name:     "prompt",
		synopsis: "write an editable prompt; inspect and manage a prompt store: new, list, show, render, log, diff, branch, rollback, promote, migrate, validate",
		usage:    "<new|list|show|render|log|diff|branch|rollback|promote|migrate|validate> [flags] [arguments]",
		help:     promptHelp(),
		// evolve prompt --store DIR SUB ...: flags after SUB are SUB's.
		subcommands: true,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			storeDir := fs.String("store", "", "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				if len(args) == 0 {
					return usagef("want a subcommand: %s", strings.Join(promptSubNames(), ", "))
				}
				sub, ok := promptSubs[args[0]]
				if !ok {
					return usagef("unknown subcommand %q (want one of %s)", args[0], strings.Join(promptSubNames(), ", "))
				}
				return runPromptSub(ctx, env, sub, *storeDir, args[1:])
			}
		},
	})
}

// promptSub is one subcommand of evolve prompt.
type promptSub struct {
	name  string
	usage string // argument synopsis
	help  string // what it does and prints
	// flags defines the subcommand's own flags and returns its action;
	// o holds the flags every subcommand has.
	flags func(fs *flag.FlagSet, o *promptOpts) func(env *cmdEnv, o *promptOpts, args []string) error
	// writes marks a subcommand that changes the store (branch,
	// rollback, promote, migrate): without --store it uses ./prompts,
	// never a run's store (see storeDir).
	writes bool
}

// promptOpts are the flags of every prompt subcommand and the store they
// name.
type promptOpts struct {
	writes   bool // the subcommand changes the store
	store    string
	json     bool
	maxChars int
	stderr   io.Writer
}

// policy is the text policy of the store's writes and of validate.
func (o *promptOpts) policy() guard.Policy {
	p := guard.Default()
	p.MaxChars = o.maxChars
	return p
}

var promptSubs = map[string]*promptSub{}

func promptSubNames() []string {
	var names []string
	for n := range promptSubs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func promptHelp() string {
	return `
Inspect and manage a prompt store: a directory of prompts (by slug), each a
graph of immutable versions on branches (supersedes, branched_from,
inherits_from and rolled_back edges) with its index versions.json.

Subcommands (evolve prompt SUBCOMMAND --help for each):

	new [--from REF] FILE     write an editable prompt file (no content_sha256; from the embedded prompt by default)
	list                      every prompt and branch with its HEAD
	show REF                  a version's YAML (--resolved: with inheritance applied; --render: as text); REF embedded: the embedded base prompt
	render REF                the messages a model reads: layers, XML sections, placeholders, tokens
	log [REF]                 the lineage: versions, edges, mutations, acceptance evidence, online weights and rollbacks
	diff A B                  structured differences of parameters and sections
	branch REF NAME           fork a version into a new branch
	rollback REF              move a branch's HEAD back (to the previous or --to a named version)
	promote SLUG@VERSION      make a version HEAD of its branch by hand (e.g. after an automatic rollback)
	migrate FILE              bulk import from JSON or YAML, all or nothing (--dry-run)
	validate FILE...          check prompt and migration files, texts included

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
}

// runPromptSub parses a subcommand's flags (before or after its
// arguments) and runs it.
func runPromptSub(ctx context.Context, env *cmdEnv, sub *promptSub, store string, args []string) error {
	fs := flag.NewFlagSet("evolve prompt "+sub.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &promptOpts{stderr: env.stderr, writes: sub.writes}
	storeHelp := "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)"
	if sub.writes {
		storeHelp = "the prompt store `DIR` to change (default: ./prompts; a run's store only when named)"
	}
	fs.StringVar(&o.store, "store", store, storeHelp)
	fs.BoolVar(&o.json, "json", false, "print JSON for scripts")
	fs.IntVar(&o.maxChars, "max-chars", guard.DefaultMaxChars, "the most characters a text (section, task, rule, ...) may have when it enters the store; 0 for no limit")
	action := sub.flags(fs, o)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(env.stdout, "usage: evolve prompt %s [flags] %s\n\n%s\n\nFlags:\n", sub.name, sub.usage, strings.TrimSpace(sub.help))
			fs.SetOutput(env.stdout)
			fs.PrintDefaults()
			return nil
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v\nusage: evolve prompt %s [flags] %s", sub.name, err, sub.name, sub.usage)}
	}
	if o.maxChars < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: --max-chars must be >= 0 (0 for no limit), got %d", sub.name, o.maxChars)}
	}
	if err := action(env, o, pos); err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v\nusage: evolve prompt %s [flags] %s", sub.name, ue.msg, sub.name, sub.usage)}
		}
		return err
	}
	return nil
}

func registerPromptSub(s *promptSub) { promptSubs[s.name] = s }

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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func init() {
	registerPromptSub(&promptSub{
		name: "list", usage: "",
		help: `
List every prompt of the store, one line per branch: slug, type, branch,
HEAD version, versions on the branch, what HEAD inherits from, and tags.
--json prints a list of objects with those fields.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			return func(env *cmdEnv, o *promptOpts, args []string) error {
				if len(args) != 0 {
					return usagef("list takes no arguments")
				}
				_, g, err := o.openGraph()
				if err != nil {
					return err
				}
				rows := g.BranchHeads()
				if o.json {
					return printJSON(env.stdout, rows)
				}
				return store.WriteBranchHeads(env.stdout, rows)
			}
		},
	})

	registerPromptSub(&promptSub{
		name: "show", usage: "REF",
		help: `
Print the version REF names as stored (its YAML file, byte for byte; REF
"embedded" without --store: the embedded base prompt), or
with --resolved the prompt with its inheritance applied (parent sections
first, the child's merged on top, override_sections replacing; YAML with a
comment naming the chain), or with --render the resolved prompt as the text
a language model sees. --json prints the (resolved) prompt as JSON.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			resolved := fs.Bool("resolved", false, "apply inheritance (what rendering and agents see)")
			render := fs.Bool("render", false, "print the resolved prompt as text for a language model")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
				if len(args) != 1 {
					return usagef("want one REF, got %s", plural(len(args), "argument", "arguments"))
				}
				if args[0] == "embedded" && o.store == "" { // the embedded base prompt needs no store
					p := prompt.Base()
					switch {
					case *render:
						_, err := io.WriteString(env.stdout, p.Render())
						return err
					case o.json:
						return printJSON(env.stdout, p)
					}
					_, err := env.stdout.Write(prompt.BaseYAML())
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
				if !*resolved && !*render {
					p, data, err := s.LoadFile(ref)
					if err != nil {
						return err
					}
					if o.json {
						return printJSON(env.stdout, p)
					}
					_, err = env.stdout.Write(data)
					return err
				}
				res, err := s.Resolve(ref)
				if err != nil {
					return err
				}
				switch {
				case *render:
					_, err = io.WriteString(env.stdout, res.Prompt.Render())
					return err
				case o.json:
					return printJSON(env.stdout, struct {
						Chain  []prompt.Ref   `json:"chain"`
						Prompt *prompt.Prompt `json:"prompt"`
					}{res.Chain, res.Prompt})
				}
				data, err := res.Encode()
				if err != nil {
					return err
				}
				_, err = env.stdout.Write(data)
				return err
			}
		},
	})

	registerPromptSub(&promptSub{
		name: "log", usage: "[REF]",
		help: `
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
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			all := fs.Bool("all", false, "every version of the prompt (all branches, rejected candidates), in the order written")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
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
				entries, err := s.Log(ref.Slug, ref.BranchOrMain(), *all)
				if err != nil {
					return err
				}
				if o.json {
					return printJSON(env.stdout, entries)
				}
				return store.WriteLog(env.stdout, g, ref.Slug, ref.BranchOrMain(), entries, *all)
			}
		},
	})
}

func init() {
	registerPromptSub(&promptSub{
		name: "diff", usage: "A B",
		help: `
Print the differences from version A to version B (each a REF; in a run's
store just vX.Y.Z): identity, tags, metadata by key, inheritance, each
section (as a line diff), the task, rules and skill descriptions (line
diffs), each policy parameter (old → new), and the mutation records one
has beyond the other. --resolved compares the prompts with inheritance
applied. --json prints {"a", "b", "changes": [{"field", "kind", "old",
"new", "text"}]}. The exit status is 0 whether or not they differ.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			resolved := fs.Bool("resolved", false, "compare the prompts with inheritance applied")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
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
					if *resolved {
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
					return printJSON(env.stdout, struct {
						A       prompt.Ref      `json:"a"`
						B       prompt.Ref      `json:"b"`
						Changes []prompt.Change `json:"changes"`
					}{ps[0].Ref(), ps[1].Ref(), changes})
				}
				return prompt.WriteDiff(env.stdout, ps[0], ps[1], changes)
			}
		},
	})

	registerPromptSub(&promptSub{
		name: "branch", usage: "REF NAME", writes: true,
		help: `
Fork the version REF names (SLUG@vX.Y.Z, or SLUG / SLUG@BRANCH for that
branch's HEAD) into a new branch NAME of the same prompt. The branch's first
version is a copy at the next free patch version, recorded with a
branched_from edge; after the fork the two branches share nothing. Branch
names are lowercase letters and digits in words joined by '.', '_' or '-',
and not like a version. Prints the new version.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			return func(env *cmdEnv, o *promptOpts, args []string) error {
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
					return printJSON(env.stdout, map[string]any{"slug": ref.Slug, "branch": args[1], "version": v, "from": ref})
				}
				fmt.Fprintf(env.stdout, "created branch %s of %s at %s (from %s)\n", args[1], ref.Slug, v, ref)
				return nil
			}
		},
	})

	registerPromptSub(&promptSub{
		name: "rollback", usage: "REF", writes: true,
		help: `
Move HEAD of the branch REF names (SLUG or SLUG@BRANCH) back to the version
it superseded, or with --to to a named version that was HEAD of the branch
before. A rolled_back edge records the move (with --reason); no version is
deleted, and a later rollback --to can return to the abandoned HEAD.
Prints the new HEAD.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			to := fs.String("to", "", "the `VERSION` to return to (default: the version HEAD superseded)")
			reason := fs.String("reason", "", "why, recorded on the rolled_back edge")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
				if len(args) != 1 {
					return usagef("want one REF (SLUG or SLUG@BRANCH), got %s", plural(len(args), "argument", "arguments"))
				}
				var target prompt.Version
				if *to != "" {
					v, err := prompt.ParseVersion(*to)
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
				v, err := s.Rollback(ref.Slug, ref.BranchOrMain(), target, *reason)
				if err != nil {
					return err
				}
				if o.json {
					return printJSON(env.stdout, map[string]any{"slug": ref.Slug, "branch": ref.BranchOrMain(), "from": old, "head": v})
				}
				fmt.Fprintf(env.stdout, "%s@%s: HEAD %s → %s\n", ref.Slug, ref.BranchOrMain(), old, v)
				return nil
			}
		},
	})
}

func init() {
	registerPromptSub(&promptSub{
		name: "migrate", usage: "FILE", writes: true,
		help: `
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
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			dry := fs.Bool("dry-run", false, "print what would be created; write nothing")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
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
				if *dry {
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
					if jerr := printJSON(env.stdout, plan); jerr != nil {
						return jerr
					}
				} else {
					plan.WriteText(env.stdout, dir)
				}
				if err != nil {
					if errors.Is(err, store.ErrInvalidMigration) {
						return &exitError{code: exitFailure, err: err}
					}
					return err
				}
				return nil
			}
		},
	})

	registerPromptSub(&promptSub{
		name: "validate", usage: "FILE...",
		help: `
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
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			config := fs.String("config", "", "check policy parameters against the parameter schema of the environment of config `FILE` (default: the embedded default's, the dungeon)")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
				if len(args) == 0 {
					return usagef("want at least one FILE")
				}
				info, err := configEnv(*config)
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
					if err := printJSON(env.stdout, results); err != nil {
						return err
					}
				} else {
					for _, r := range results {
						fmt.Fprintf(env.stdout, "%s: %s (%s)\n", r.File, r.Status, r.Kind)
						for _, is := range r.Issues {
							fmt.Fprintf(env.stdout, "    %s (byte offset %d)\n", is, is.Offset)
						}
						for _, p := range r.Problems {
							fmt.Fprintf(env.stdout, "    %s\n", p)
						}
					}
				}
				if rejected > 0 {
					return &exitError{code: exitFailure, err: fmt.Errorf("%d of %s rejected", rejected, plural(len(args), "file", "files"))}
				}
				return nil
			}
		},
	})
}
