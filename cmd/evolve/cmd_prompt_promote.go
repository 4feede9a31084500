package main

import (
	"context"
	"evolve/store"
	"flag"
	"fmt"
)

// cmdPromptPromote is evolve prompt promote.
var cmdPromptPromote = &Command{
	UsageLine: "evolve prompt promote [flags] SLUG@VERSION",
	Short:     "make a version HEAD of its branch by hand (e.g. after an automatic rollback)",
	Long: `
Make a version HEAD of its branch by hand. This is how a version that an
automatic rollback (evolve serve) excluded from selection comes back: it
becomes HEAD again with a rolled_back edge from the current HEAD (--reason
is recorded on it), online selection offers it again, and its rollback
detector starts a new baseline at its next observation. A version that was
never HEAD of its branch (a candidate) is promoted with a supersedes edge,
as an accepted candidate is. Prints the move.`,
	SetFlags: promptPromoteFlags,
	Run:      runPromptPromote,
}

// promptPromoteFlagValues are the flags of evolve prompt promote.
type promptPromoteFlagValues struct {
	promptOpts
	reason string
}

// promptPromoteFlags defines the flags of evolve prompt promote on fs.
func promptPromoteFlags(fs *flag.FlagSet) any {
	o := new(promptPromoteFlagValues)
	o.define(fs, true)
	fs.StringVar(&o.reason, "reason", "promoted by hand", "why, recorded on the edge")
	return o
}

// runPromptPromote is evolve prompt promote.
func runPromptPromote(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptPromoteFlagValues)
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
	pr, err := s.Promote(ref.Slug, ref.Version, o.reason)
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(cmd.Stdout, map[string]any{"slug": ref.Slug, "branch": pr.Branch, "from": pr.From, "head": ref.Version, "was_excluded": pr.WasExcluded})
	}
	note := ""
	if pr.WasExcluded {
		note = " (it had been rolled back automatically; online selection offers it again)"
	}
	fmt.Fprintf(cmd.Stdout, "%s@%s: HEAD %s → %s%s\n", ref.Slug, pr.Branch, pr.From, ref.Version, note)
	return nil
}
