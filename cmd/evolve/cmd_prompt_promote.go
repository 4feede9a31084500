package main

import (
	"evolve/store"
	"flag"
	"fmt"
)

func init() {
	registerPromptSub(&promptSub{
		name: "promote", usage: "SLUG@VERSION", writes: true,
		help: `
Make a version HEAD of its branch by hand. This is how a version that an
automatic rollback (evolve serve) excluded from selection comes back: it
becomes HEAD again with a rolled_back edge from the current HEAD (--reason
is recorded on it), online selection offers it again, and its rollback
detector starts a new baseline at its next observation. A version that was
never HEAD of its branch (a candidate) is promoted with a supersedes edge,
as an accepted candidate is. Prints the move.`,
		flags: func(fs *flag.FlagSet, o *promptOpts) func(*cmdEnv, *promptOpts, []string) error {
			reason := fs.String("reason", "promoted by hand", "why, recorded on the edge")
			return func(env *cmdEnv, o *promptOpts, args []string) error {
				if len(args) != 1 {
					return usagef("want one SLUG@VERSION, got %s", plural(len(args), "argument", "arguments"))
				}
				s, g, err := o.openGraph()
				if err != nil {
					return err
				}
				ref, err := cliRef(g, args[0])
				if err != nil {
					return err
				}
				if !ref.Pinned() {
					return usagef("promote takes a version (SLUG@vX.Y.Z), not %s", ref)
				}
				if _, ok := g.Find(ref.Slug, ref.Version); !ok {
					return fmt.Errorf("%s: %w", ref, store.ErrNoVersion)
				}
				pr, err := s.Promote(ref.Slug, ref.Version, *reason)
				if err != nil {
					return err
				}
				if o.json {
					return printJSON(env.stdout, map[string]any{"slug": ref.Slug, "branch": pr.Branch, "from": pr.From, "head": ref.Version, "was_excluded": pr.WasExcluded})
				}
				note := ""
				if pr.WasExcluded {
					note = " (it had been rolled back automatically; online selection offers it again)"
				}
				fmt.Fprintf(env.stdout, "%s@%s: HEAD %s → %s%s\n", ref.Slug, pr.Branch, pr.From, ref.Version, note)
				return nil
			}
		},
	})
}
