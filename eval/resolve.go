package eval

import (
	"errors"
	"evolve/store"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"evolve/guard"
	"evolve/internal/strictyaml"
	"evolve/params"
	"evolve/prompt"
)

// ResolvePrompt resolves one PROMPT argument of evolve eval:
//
//   - RUN_DIR:VERSION: that version of the run's prompt store
//     (RUN_DIR/prompts), e.g. runs/default-1275011f00:v1.0.5; with a
//     store of several prompts, RUN_DIR:SLUG@VERSION;
//   - a prompt YAML file, e.g. prompts/dungeon-agent/v1.0.0.yaml, or
//     "embedded" for the embedded base prompt v1.0.0;
//   - a store ref SLUG, SLUG@BRANCH or SLUG@vX.Y.Z in store (the --store
//     directory), e.g. dungeon-agent@v1.0.3.
//
// The version is resolved (inheritance applied: a prompt that inherits is
// merged with its ancestors in the store), its defaults set and its
// content hash computed; it must be playable (have policy parameters) and
// its texts must pass guard.Default(), the screen of a run's base prompt
// and of a store's writes; a file gets prompt.Checker's check, every
// problem at its line.
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
	// One check everywhere: the texts pass the screen a run's base
	// prompt and a store's writes pass (also those of a store version,
	// which may predate today's screen).
	if err := guard.Default().Error(p.Texts()...); err != nil {
		return nil, fmt.Errorf("prompt %q: %w (evolve prompt validate lists the issues; a run and a prompt store refuse it too)", arg, err)
	}
	v := &Version{Label: p.Version.String(), Source: arg, Prompt: p}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		v.file = arg
	}
	return v, nil
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
		// The check of every entry point (prompt.Checker): strict
		// decoding, policy parameters, the text screen. The schema is
		// checked by Run, against each environment variant's.
		r := prompt.Checker{Playable: true, Policy: guard.Default()}.Check(arg, data)
		if err := r.Err(); err != nil {
			return nil, err
		}
		p := r.Prompt
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
	s, err := store.OpenStore(dir)
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

// paramProblems checks ver's policy parameters against schema, the
// parameters of the environment env, and returns every problem at once
// (strictyaml.Join: one *strictyaml.Error or a strictyaml.Errors), each
// at its line in ver's prompt file, or naming ver.Source when the version
// comes from a store or is embedded; nil if they fit.
func paramProblems(ver Version, schema params.Schema, env string) error {
	var data []byte
	file := ver.Source
	if ver.file != "" {
		data, _ = os.ReadFile(ver.file) // nil on error: the problems keep no line
	}
	return strictyaml.Join(prompt.ParamProblems(file, data, ver.Prompt.PolicyParameters, schema, env)...)
}
