package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"evolve/prompt"
)

// ErrNoStore: a directory holds no prompt store (no versions.json). See
// OpenExisting.
var ErrNoStore = errors.New("no prompt store")

// ErrNoPrompts: the store holds no prompt, so a reference that leaves
// the slug out names nothing. See Graph.ParseRef.
var ErrNoPrompts = errors.New("the store has no prompts")

// OpenExisting opens the store in dir as OpenStore does, but only if dir
// already holds one: without dir/versions.json (or if it cannot be
// stat'ed) the error wraps ErrNoStore and reads "no prompt store in DIR
// (no versions.json)", so that a reader never creates an empty store by
// mistake. Other errors are OpenStore's.
func OpenExisting(dir string) (*Store, error) {
	if _, err := os.Stat(filepath.Join(dir, "versions.json")); err != nil {
		return nil, fmt.Errorf("%w in %s (no versions.json)", ErrNoStore, dir)
	}
	return OpenStore(dir)
}

// RefError is a reference argument its writer got wrong: text that is not
// a reference (prompt.ParseRef's message), or one that leaves the slug out
// in a store with several prompts. The caller should show it as a usage
// error: the store is fine, the argument is not.
type RefError struct {
	Arg string // the argument as given
	msg string
}

func (e *RefError) Error() string { return e.msg }

// ParseRef parses a reference argument against the graph's prompts:
// "SLUG", "SLUG@BRANCH" or "SLUG@vX.Y.Z" (prompt.ParseRef), or, in a
// store with exactly one prompt, the same without the slug: "" (HEAD of
// main), "@BRANCH", "@vX.Y.Z" or "vX.Y.Z". It checks only the form and
// the slug's presence in shorthand; whether the slug, branch or version
// exists is the loader's check (ErrNoVersion, ErrNoBranch).
//
// Errors: a *RefError when arg is not a reference, or leaves the slug out
// in a store with several prompts (the message lists them); ErrNoPrompts
// when it leaves the slug out in an empty store; prompt.ParseRef's error,
// unwrapped, when shorthand completed with the only slug does not parse
// (a bad branch name after "@").
func (g *Graph) ParseRef(arg string) (prompt.Ref, error) {
	short := arg == "" || strings.HasPrefix(arg, "@") ||
		strings.HasPrefix(arg, "v") && strings.Count(arg, ".") == 2 && !strings.Contains(arg, "@")
	if !short {
		r, err := prompt.ParseRef(arg)
		if err != nil {
			return r, &RefError{Arg: arg, msg: err.Error()}
		}
		return r, nil
	}
	at := arg
	if arg != "" && !strings.HasPrefix(arg, "@") {
		at = "@" + arg
	}
	slugs := g.Slugs()
	switch len(slugs) {
	case 0:
		return prompt.Ref{}, ErrNoPrompts
	case 1:
		return prompt.ParseRef(slugs[0] + at)
	}
	return prompt.Ref{}, &RefError{Arg: arg, msg: fmt.Sprintf("%q names no prompt, and the store has %d (%s): write SLUG%s", arg, len(slugs), strings.Join(slugs, ", "), at)}
}
