package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"evolve/prompt"
)

// ResolvePrompt resolves one PROMPT argument of evolve eval:
//
//   - RUN_DIR:VERSION: that version of the run's prompt store
//     (RUN_DIR/prompts), e.g. runs/default-651436c4dc:v1.0.5; with a
//     store of several prompts, RUN_DIR:SLUG@VERSION;
//   - a prompt YAML file, e.g. prompts/dungeon-agent/v1.0.0.yaml, or
//     "embedded" for the embedded base prompt v1.0.0;
//   - a store ref SLUG, SLUG@BRANCH or SLUG@vX.Y.Z in store (the --store
//     directory), e.g. dungeon-agent@v1.0.3.
//
// The version is resolved (inheritance applied: a prompt that inherits is
// merged with its ancestors in the store), its defaults set and its
// content hash computed; it must be playable (have policy parameters).
// The returned Version's Label is the prompt's version. Errors name the
// argument and what was looked for.
func ResolvePrompt(arg, store string) (*Version, error) {
	p, err := resolve(arg, store)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", arg, err)
	}
	p.InheritsFrom, p.OverrideSections = nil, nil
	p.SetDefaults()
	if err := p.Playable(); err != nil {
		return nil, fmt.Errorf("prompt %q: %w", arg, err)
	}
	if _, err := prompt.Encode(p); err != nil {
		return nil, fmt.Errorf("prompt %q: %w", arg, err)
	}
	return &Version{Label: p.Version.String(), Source: arg, Prompt: p}, nil
}

func resolve(arg, store string) (*prompt.Prompt, error) {
	if arg == "embedded" {
		return prompt.Base(), nil
	}
	if dir, ref, ok := strings.Cut(arg, ":"); ok && dir != "" {
		if st, err := os.Stat(filepath.Join(dir, "prompts")); err == nil && st.IsDir() {
			return fromStore(filepath.Join(dir, "prompts"), ref)
		}
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		p, err := prompt.Decode(arg, data)
		if err != nil {
			return nil, err
		}
		if p.InheritsFrom != nil {
			return nil, fmt.Errorf("it inherits from %s: name it in its store instead (--store DIR %s@%s)", p.InheritsFrom, p.SlugOrDefault(), p.Version)
		}
		return p, nil
	}
	if store == "" {
		return nil, errors.New("not a file, not RUN_DIR:VERSION, and no --store DIR for a store ref")
	}
	return fromStore(store, arg)
}

// fromStore resolves ref (SLUG[@BRANCH|@vX.Y.Z], or a bare vX.Y.Z in a
// store of one prompt) in the store in dir.
func fromStore(dir, ref string) (*prompt.Prompt, error) {
	if _, err := os.Stat(filepath.Join(dir, "versions.json")); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a prompt store (no versions.json)", dir)
	}
	s, err := prompt.OpenStore(dir)
	if err != nil {
		return nil, err
	}
	if v, err := prompt.ParseVersion(ref); err == nil {
		vis, err := s.List()
		if err != nil {
			return nil, err
		}
		var slugs []string
		for _, vi := range vis {
			if vi.Version == v {
				slugs = append(slugs, vi.Slug)
			}
		}
		switch len(slugs) {
		case 0:
			return nil, fmt.Errorf("the store %s has no version %s", dir, v)
		case 1:
			ref = slugs[0] + "@" + v.String()
		default:
			return nil, fmt.Errorf("the store %s has %s of several prompts %v: name one as SLUG@%s", dir, v, slugs, v)
		}
	}
	r, err := prompt.ParseRef(ref)
	if err != nil {
		return nil, err
	}
	res, err := s.Resolve(r)
	if err != nil {
		return nil, err
	}
	return res.Prompt, nil
}
