package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"evolve/eval"
	"evolve/internal/atomicfile"
	"evolve/prompt"
)

// cmdPromptNew is evolve prompt new.
var cmdPromptNew = &Command{
	UsageLine: "evolve prompt new [--from REF] [flags] FILE",
	Short:     "write an editable prompt file (no content_sha256; from the embedded prompt by default)",
	Long: `
Write an editable prompt file FILE: a copy of the embedded base prompt, or
with --from of another prompt (a prompt file, RUN_DIR:VERSION, or with
--store DIR a store ref SLUG, SLUG@BRANCH or SLUG@vX.Y.Z), its inheritance
resolved and its defaults filled in. The file has no content_sha256 line:
edit it freely, and evolve computes the hash whenever it reads it. (A
prompt store's version files carry the hash and are immutable: a copy of
one edited with its old hash is refused.) FILE must not exist, unless
--force is given.

Then check it and evaluate it:

	evolve prompt new prompts/agent.yaml
	evolve validate prompts/agent.yaml
	evolve eval --split test prompts/agent.yaml

Examples:

	evolve prompt new prompts/agent.yaml
	evolve prompt new --from runs/default-f9d1953275:v1.0.5 prompts/agent.yaml
	evolve prompt new --store prompts --from coding-agent@main coding.yaml`,
	SetFlags: promptNewFlags,
	Run:      runPromptNew,
}

// promptNewFlagValues are the flags of evolve prompt new.
type promptNewFlagValues struct {
	promptOpts
	from  string
	force bool
}

// promptNewFlags defines the flags of evolve prompt new on fs.
func promptNewFlags(fs *flag.FlagSet) any {
	o := new(promptNewFlagValues)
	o.define(fs, false)
	fs.StringVar(&o.from, "from", "embedded", "the prompt to copy: `REF` (embedded, a prompt file, RUN_DIR:VERSION, or a store ref with --store)")
	fs.BoolVar(&o.force, "force", false, "replace FILE if it exists")
	return o
}

// runPromptNew is evolve prompt new.
func runPromptNew(ctx context.Context, cmd *Command, args []string) error {
	o := cmd.Flags.(*promptNewFlagValues)
	if len(args) != 1 {
		return usagef("want one FILE, got %s", plural(len(args), "argument", "arguments"))
	}
	file, err := newFilePath(args[0])
	if err != nil {
		return err
	}
	if _, err := os.Stat(file); err == nil && !o.force {
		return fmt.Errorf("%s exists: evolve prompt new does not overwrite a file without --force", file)
	} else if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return err
	}
	v, err := eval.ResolvePrompt(o.from, o.store)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	data, err := prompt.EncodeEditable(v.Prompt)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	if o.json {
		return printJSON(cmd.Stdout, map[string]string{"file": file, "from": o.from, "version": v.Label, "content_sha256": v.Prompt.ContentSHA256})
	}
	fmt.Fprintf(cmd.Stdout, "wrote %s: prompt %s from %s, editable (no content_sha256: evolve computes it when it reads the file; now %.12s…)\n",
		file, v.Label, o.from, v.Prompt.ContentSHA256)
	return nil
}

// newFilePath returns file cleaned (filepath.Clean), or a usage error if
// a ".." in it follows a directory name ("a/../../x.yaml"): such a path
// leaves a directory it names, which the kernel resolves through that
// directory (a symbolic link, say) while creating the missing ones would
// make it first. Leading ".." elements are kept.
func newFilePath(file string) (string, error) {
	depth := 0
	for _, el := range strings.Split(filepath.ToSlash(file), "/") {
		switch el {
		case "", ".":
		case "..":
			if depth > 0 {
				return "", usagef("%s: a \"..\" after a directory name; write the path without it (%s)", file, filepath.Clean(file))
			}
		default:
			depth++
		}
	}
	return filepath.Clean(file), nil
}
