package main

import (
	"context"
	"encoding/json"
	"errors"
	"evolve/store"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"evolve/experiment"
	"evolve/guard"
	"evolve/prompt"
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
	dir := o.storeDir()
	if existing {
		if _, err := os.Stat(filepath.Join(dir, "versions.json")); err != nil {
			hint := "give --store DIR, or create one with evolve prompt migrate"
			if o.writes && o.store == "" {
				hint = "give --store DIR (e.g. --store runs/RUN_ID/prompts to change a run's store), or create one with evolve prompt migrate"
			}
			return nil, fmt.Errorf("no prompt store in %s (no versions.json): %s", dir, hint)
		}
	}
	s, err := store.OpenStore(dir)
	if err != nil {
		return nil, err
	}
	if t, ok := experiment.SourceDateEpoch(); ok {
		s.Now = func() time.Time { return t }
	}
	s.TextPolicy = o.policy()
	return s, nil
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
	matches, _ := filepath.Glob(filepath.Join("runs", "*", "prompts", "versions.json"))
	best, bestTime := "prompts", time.Time{}
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.ModTime().After(bestTime) {
			best, bestTime = filepath.Dir(m), st.ModTime()
		}
	}
	return best
}

// cliRef parses a REF argument; in a store with one slug, "vX.Y.Z",
// "@vX.Y.Z", "@BRANCH" and "" name that slug's versions and branches.
func cliRef(g *store.Graph, s string) (prompt.Ref, error) {
	if s == "" || strings.HasPrefix(s, "@") || strings.HasPrefix(s, "v") && strings.Count(s, ".") == 2 && !strings.Contains(s, "@") {
		slugs := g.Slugs()
		if len(slugs) != 1 {
			if len(slugs) == 0 {
				return prompt.Ref{}, fmt.Errorf("the store has no prompts")
			}
			return prompt.Ref{}, usagef("%q names no prompt, and the store has %d (%s): write SLUG%s", s, len(slugs), strings.Join(slugs, ", "), withAt(s))
		}
		return prompt.ParseRef(slugs[0] + withAt(s))
	}
	r, err := prompt.ParseRef(s)
	if err != nil {
		return r, usagef("%v", err)
	}
	return r, nil
}

func withAt(s string) string {
	if s == "" || strings.HasPrefix(s, "@") {
		return s
	}
	return "@" + s
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

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
				type row struct {
					Slug         string   `json:"slug"`
					Type         string   `json:"type"`
					Branch       string   `json:"branch"`
					Head         string   `json:"head"`
					Versions     int      `json:"versions"`
					InheritsFrom string   `json:"inherits_from,omitempty"`
					Tags         []string `json:"tags"`
				}
				rows := []row{}
				for _, slug := range g.Slugs() {
					for _, b := range g.Branches(slug) {
						head, _ := g.Head(slug, b)
						vi, _ := g.Find(slug, head)
						r := row{Slug: slug, Type: vi.Type, Branch: b, Head: head.String(), Versions: len(g.VersionsOf(slug, b)), Tags: vi.Tags}
						if r.Tags == nil {
							r.Tags = []string{}
						}
						for _, e := range g.EdgesOf(slug, head) {
							if e.Kind == store.InheritsFrom && e.From == vi.Ref() {
								r.InheritsFrom = e.To.String()
							}
						}
						rows = append(rows, r)
					}
				}
				if o.json {
					return printJSON(env.stdout, rows)
				}
				tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "slug\ttype\tbranch\thead\tversions\tinherits from\ttags")
				for _, r := range rows {
					inh := r.InheritsFrom
					if inh == "" {
						inh = "-"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Slug, r.Type, r.Branch, r.Head, r.Versions, inh, strings.Join(r.Tags, ","))
				}
				return tw.Flush()
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
					p, err := s.LoadRef(ref)
					if err != nil {
						return err
					}
					if o.json {
						return printJSON(env.stdout, p)
					}
					vi, _ := g.Find(p.SlugOrDefault(), p.Version)
					data, err := os.ReadFile(filepath.Join(s.Dir(), filepath.FromSlash(vi.File)))
					if err != nil {
						return err
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
				data, err := prompt.Encode(res.Prompt)
				if err != nil {
					return err
				}
				chain := make([]string, len(res.Chain))
				for i, r := range res.Chain {
					chain[i] = r.String()
				}
				fmt.Fprintf(env.stdout, "# resolved: %s\n", strings.Join(chain, " ← "))
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
				head, _ := g.Head(ref.Slug, ref.BranchOrMain())
				what := fmt.Sprintf("%d versions on the chain", len(entries))
				if *all {
					what = fmt.Sprintf("%d versions on %d branches", len(entries), len(g.Branches(ref.Slug)))
				}
				fmt.Fprintf(env.stdout, "%s@%s: HEAD %s, %s\n", ref.Slug, ref.BranchOrMain(), head, what)
				for _, e := range entries {
					writeLogEntry(env.stdout, g, e, *all)
				}
				return nil
			}
		},
	})
}

// writeLogEntry prints one version of a lineage.
func writeLogEntry(w io.Writer, g *store.Graph, e store.LogEntry, all bool) {
	var tags []string
	if e.Head {
		tags = append(tags, "HEAD")
	}
	if all {
		tags = append(tags, "branch "+e.Branch)
		if !g.WasHead(e.Slug, e.Branch, e.Version) {
			tags = append(tags, "never HEAD")
		}
	}
	label := ""
	if len(tags) > 0 {
		label = " (" + strings.Join(tags, ", ") + ")"
	}
	fmt.Fprintf(w, "\n%s%s  %s\n", e.Version, label, fmtTime(e.Created))
	switch {
	case e.Record != nil:
		fmt.Fprintf(w, "    %s: %s\n", e.Record.Operator, e.Record.Description)
		if ev := e.Record.Evidence; ev != nil {
			verdict := "rejected"
			if ev.Accepted {
				verdict = "accepted"
			}
			fmt.Fprintf(w, "    evidence: %s (%s), p %.3g, adjusted p %.3g (%s), A12 %.3f, val mean %.1f → %.1f (n %d, %d), generation %d, %s\n",
				ev.Test, ev.Alternative, ev.PValue, ev.AdjustedPValue, ev.Correction, ev.A12,
				ev.IncumbentValMean, ev.CandidateValMean, ev.NIncumbent, ev.NCandidate, ev.Generation, verdict)
		}
	case e.Operator != "":
		fmt.Fprintf(w, "    %s: %s\n", e.Operator, e.Description)
	default:
		fmt.Fprintf(w, "    root\n")
	}
	self := e.Ref()
	for _, ed := range e.Edges {
		var line string
		switch {
		case ed.Kind == store.Supersedes && ed.From == self:
			line = "supersedes " + ed.To.Version.String()
		case ed.Kind == store.Supersedes:
			line = "superseded by " + ed.From.Version.String()
		case ed.Kind == store.BranchedFrom && ed.From == self:
			line = "branched from " + ed.To.String() + " into branch " + ed.Branch
		case ed.Kind == store.BranchedFrom:
			line = "forked into branch " + ed.Branch + " as " + ed.From.Version.String()
		case ed.Kind == store.RolledBack && ed.From == self:
			line = "rolled back to " + ed.To.Version.String()
		case ed.Kind == store.RolledBack:
			line = "HEAD rolled back here from " + ed.From.Version.String()
		case ed.Kind == store.InheritsFrom && ed.From == self:
			line = "inherits from " + ed.To.String()
		default:
			line = "inherited by " + ed.From.String()
		}
		switch {
		case ed.Evidence != nil:
			ev := ed.Evidence
			line += fmt.Sprintf(" automatically: window of %d mean %.4f < baseline (%d) mean %.4f - %g sigma (%.4f) sqrt(1/%d + 1/%d) = %.4f, after %d observations (log event %d)",
				ev.Window, ev.RecentMean, ev.Baseline, ev.BaselineMean, ev.K, ev.Sigma, ev.Window, ev.Baseline, ev.Threshold, ev.Observations, ev.LogSeq)
		case ed.Reason != "":
			line += fmt.Sprintf(" (%q)", ed.Reason)
		}
		fmt.Fprintf(w, "    %s  %s\n", line, fmtTime(ed.Time))
	}
	if o := e.Online; o != nil {
		fmt.Fprintf(w, "    online: weight %.4f, %d observations, mean score %.4f", o.Weight, o.Observations, o.MeanScore())
		if o.Resets > 0 {
			fmt.Fprintf(w, ", detector reset %d times", o.Resets)
		}
		fmt.Fprintln(w)
		if a := o.Alarm; a != nil {
			what := a.Note
			if a.RolledBackTo != nil {
				what = "HEAD of " + a.Branch + " rolled back to " + a.RolledBackTo.String()
			}
			fmt.Fprintf(w, "    alarm at observation %d: window mean %.4f < %.4f: %s  %s\n", a.Evidence.Observations, a.Evidence.RecentMean, a.Evidence.Threshold, what, fmtTime(a.Time))
		}
	}
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
				fmt.Fprintf(env.stdout, "--- %s (branch %s)\n+++ %s (branch %s)\n", ps[0].Ref(), ps[0].BranchOrMain(), ps[1].Ref(), ps[1].BranchOrMain())
				if len(changes) == 0 {
					fmt.Fprintln(env.stdout, "no differences")
				}
				for _, c := range changes {
					switch {
					case c.Text:
						fmt.Fprintf(env.stdout, "%s: %s\n", c.Field, c.Kind)
						for _, l := range strings.SplitAfter(prompt.TextDiff(c.Old, c.New), "\n") {
							if l != "" {
								fmt.Fprintf(env.stdout, "    %s", l)
							}
						}
					case c.Kind == prompt.Added:
						fmt.Fprintf(env.stdout, "%s: + %s\n", c.Field, c.New)
					case c.Kind == prompt.Removed:
						fmt.Fprintf(env.stdout, "%s: - %s\n", c.Field, c.Old)
					default:
						fmt.Fprintf(env.stdout, "%s: %s → %s\n", c.Field, c.Old, c.New)
					}
				}
				return nil
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
					now := func() time.Time { return time.Now().UTC().Truncate(time.Second) }
					if t, ok := experiment.SourceDateEpoch(); ok {
						now = func() time.Time { return t }
					}
					plan, err = store.PlanMigration(dir, m, o.policy(), now)
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
					writePlan(env.stdout, plan, dir)
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
				cfg := experiment.DefaultConfig()
				if *config != "" {
					var err error
					if cfg, err = experiment.Load(*config); err != nil {
						return err
					}
				}
				e, err := cfg.Env()
				if err != nil {
					return err
				}
				info := e.Info()
				checker := prompt.Checker{Schema: info.Params, Env: info.Name, Policy: o.policy()}
				var results []fileCheck
				rejected := 0
				for _, a := range args {
					r := checkFile(a, checker)
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

// fileCheck is the verdict of evolve prompt validate on one file.
type fileCheck struct {
	File     string        `json:"file"`
	Kind     string        `json:"kind"`   // "prompt v1.0.1", "migration, 10 entries"
	Status   guard.Status  `json:"status"` // VALID or REJECTED
	Issues   []guard.Issue `json:"issues"` // the text issues of a prompt file
	Problems []string      `json:"problems"`
}

// checkFile validates one prompt or migration file: a prompt with
// checker (prompt.Checker, the check of every entry point), a migration's
// entries with its policy.
func checkFile(path string, checker prompt.Checker) fileCheck {
	r := fileCheck{File: path, Kind: "file", Status: guard.Valid, Issues: []guard.Issue{}, Problems: []string{}}
	reject := func(msg string) { r.Status, r.Problems = guard.Rejected, append(r.Problems, msg) }
	data, err := os.ReadFile(path)
	if err != nil {
		reject(err.Error())
		return r
	}
	policy := checker.Policy
	if isPrompt(data) {
		r.Kind = "prompt"
		c := checker.Check(path, data)
		if c.Prompt != nil {
			r.Kind = "prompt " + c.Prompt.Ref().String()
		}
		for _, p := range c.Problems {
			reject(p.Error())
		}
		if len(c.Issues) > 0 {
			r.Status, r.Issues = guard.Rejected, c.Issues
		}
		return r
	}
	m := store.DecodeMigration(path, data)
	r.Kind = "migration, " + plural(len(m.Entries), "entry", "entries")
	for _, p := range m.Problems {
		reject(fmt.Sprintf("%s: %s", path, p))
	}
	bad := map[int]bool{}
	for _, p := range m.Problems {
		bad[p.Entry] = true
	}
	for i := range m.Entries {
		if bad[i] {
			continue
		}
		for _, p := range store.CheckEntry(&m.Entries[i], policy) {
			p.Entry, p.Line = i, m.Line(i)
			reject(fmt.Sprintf("%s: %s", path, p))
		}
	}
	return r
}

// writePlan prints a migration plan as a table and its problems.
func writePlan(w io.Writer, plan *store.MigrationPlan, dir string) {
	written := 0
	for _, e := range plan.Entries {
		if e.Version != nil {
			written++
		}
	}
	switch {
	case len(plan.Problems) > 0 && plan.DryRun:
		fmt.Fprintf(w, "migration %s: %s, %s (dry run: nothing written)\n", plan.File, plural(len(plan.Entries), "entry", "entries"), plural(len(plan.Problems), "problem", "problems"))
	case len(plan.Problems) > 0:
		fmt.Fprintf(w, "migration %s: %s, %s: nothing was written\n", plan.File, plural(len(plan.Entries), "entry", "entries"), plural(len(plan.Problems), "problem", "problems"))
	case plan.DryRun:
		fmt.Fprintf(w, "migration %s: %s (dry run: would write %s to %s)\n", plan.File, plural(len(plan.Entries), "entry", "entries"), plural(written, "version", "versions"), dir)
	default:
		fmt.Fprintf(w, "migration %s: %s: wrote %s to %s\n", plan.File, plural(len(plan.Entries), "entry", "entries"), plural(written, "version", "versions"), dir)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "entry\tline\taction\tprompt\tversion\tdetails")
	for _, e := range plan.Entries {
		v := "-"
		if e.Version != nil {
			v = e.Version.String()
		}
		var details []string
		switch {
		case e.Action == store.ActionInvalid:
			details = append(details, fmt.Sprintf("%d problem(s), below", len(e.Problems)))
		case e.Action == store.ActionUnchanged:
			details = append(details, "HEAD "+e.Supersedes.String()+" holds this content")
		case e.BranchedFrom != nil:
			details = append(details, fmt.Sprintf("forked from %s (%s)", e.BranchedFrom, e.Bump))
		case e.Supersedes != nil:
			details = append(details, fmt.Sprintf("supersedes %s (%s)", e.Supersedes, e.Bump))
		}
		if e.Action != store.ActionInvalid && e.Action != store.ActionUnchanged {
			details = append(details, e.Type)
			if e.InheritsFrom != nil {
				details = append(details, "inherits "+e.InheritsFrom.String())
			}
			if len(e.Sections) > 0 {
				details = append(details, "sections "+strings.Join(e.Sections, ", "))
			}
		}
		name := e.Slug + "@" + e.Branch
		if e.Slug == "" {
			name = "?"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", e.Entry, e.Line, e.Action, name, v, strings.Join(details, "; "))
	}
	tw.Flush()
	if len(plan.Problems) > 0 {
		fmt.Fprintln(w, "\nproblems:")
		for _, p := range plan.Problems {
			fmt.Fprintf(w, "    %s: %s\n", plan.File, p)
		}
	}
}
