package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"evolve/accept"
	"evolve/envs"
	"evolve/guard"
	"evolve/internal/strictyaml"
	"evolve/params"
	"evolve/prompt"
	"evolve/results"
	"evolve/seeds"
)

// Inputs are the files a config names, read and checked: everything a run
// reads before it creates its directory.
type Inputs struct {
	// Env is the configured environment, built.
	Env envs.Environment
	// Seeds is the verified seed set (every split non-empty, hashes as
	// SHA256SUMS records, splits disjoint).
	Seeds *seeds.Set
	// Base is the base prompt: decoded strictly, playable, its defaults
	// filled and ContentSHA256 set as the prompt store writes it, its
	// texts passed by the store's screen (guard.Default).
	Base *prompt.Prompt
	// BaseFileSHA256 is the hex SHA-256 of the base prompt file's bytes
	// as read (of the embedded file for "embedded").
	BaseFileSHA256 string
	// Gate is the statistical gate of the acceptance section.
	Gate accept.Rule
}

// Check reads and checks everything the config names that a run reads
// before it creates anything: the environment, the seed directory (it
// exists and is a directory; seeds.Load verifies every split against
// SHA256SUMS, non-empty and disjoint), the base prompt (it exists, decodes
// strictly, is playable, is on branch main as a run's new store needs,
// and every text passes the screen a prompt store applies on write,
// guard.Default), the gate, and, if out is not "", that a run directory
// can be made under out: out, or its nearest existing ancestor, is a
// directory the process may write. It creates and writes nothing.
//
// Every problem is reported at once, at the line of the config field it
// concerns (seeds, base_prompt, output; environment and acceptance if
// they fail to build), as Parse reports them: one problem is a
// *strictyaml.Error, more a strictyaml.Errors. A problem inside a seed or
// prompt file names that file (and its line) in the message.
//
// Run calls Check with its output directory before creating the run
// directory, and "evolve validate" calls it (through Preflight) with the
// config's output, so that validate accepts exactly what a run accepts.
func (c *Config) Check(out string) (*Inputs, error) {
	var problems []*strictyaml.Error
	bad := func(field, format string, args ...any) {
		problems = append(problems, &strictyaml.Error{File: c.file, Line: strictyaml.Line(c.root, field), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	in := &Inputs{}
	var err error
	if in.Env, err = c.Env(); err != nil {
		bad("environment", "%v", err)
	}
	if in.Seeds, err = loadSeeds(c.Seeds); err != nil {
		bad("seeds", "%v", err)
	}
	defSlug := ""
	if in.Env != nil && c.Environment.Name != "dungeon" {
		// Not the dungeon agent's: file it under the environment's name.
		if s := in.Env.Info().Name + "-agent"; prompt.ValidateSlug(s) == nil {
			defSlug = s
		}
	}
	base, sum, errs := loadBase(c.BasePrompt, defSlug)
	if c.BasePrompt == Embedded && in.Env != nil && c.Environment.Name != "dungeon" {
		// The embedded prompt is the dungeon agent's: another
		// environment starts from its declared parameters.
		base, sum, errs = GeneratedBase(in.Env.Info()), "", nil
	}
	for _, e := range errs {
		bad("base_prompt", "%s", e)
	}
	in.Base, in.BaseFileSHA256 = base, sum
	if in.Env != nil {
		info := in.Env.Info()
		for _, err := range []error{info.Check(), results.CheckMetrics(info.Metrics), results.CheckCauses(info.Causes)} {
			if err != nil {
				bad("environment", "the %s environment declares: %v", c.Environment.Name, err)
			}
		}
	}
	if in.Env != nil && in.Base != nil {
		schema := in.Env.Info().Params
		in.Base.PolicyParameters = schema.Coerce(in.Base.PolicyParameters)
		in.Base.ContentSHA256 = ""
		prompt.Encode(in.Base) // the hash of the coerced parameters (errors were reported by loadBase)
		where := baseLocator(c.BasePrompt)
		if c.BasePrompt != Embedded {
			if data, err := os.ReadFile(c.BasePrompt); err == nil {
				for _, e := range prompt.IntegerLiterals(c.BasePrompt, data, schema) {
					bad("base_prompt", "base prompt %v (the %s environment's parameters)", e, c.Environment.Name)
				}
			}
		}
		for _, e := range schema.Problems(in.Base.PolicyParameters) {
			bad("base_prompt", "base prompt %s: %v (the %s environment's parameters)", where(e), e, c.Environment.Name)
		}
	}
	if in.Env != nil && in.Base != nil {
		for _, p := range c.checkLLMAgent(in.Env.Info(), in.Base) {
			bad(p[0], "%s", p[1])
		}
	}
	if len(c.Variants) > 0 {
		if _, err := c.EnvVariants(nil); err != nil { // evolve eval's environments
			var se *strictyaml.Error
			if errors.As(err, &se) {
				problems = append(problems, se)
			} else {
				bad("variants", "%v", err)
			}
		}
	}
	if in.Gate, err = c.Gate(); err != nil {
		bad("acceptance", "%v", err)
	}
	if out != "" {
		if err := checkOutput(out); err != nil {
			bad("output", "%v", err)
		}
	}
	if err := strictyaml.Join(problems...); err != nil {
		return nil, err
	}
	return in, nil
}

// loadSeeds loads the embedded seed set or the one in dir.
func loadSeeds(dir string) (*seeds.Set, error) {
	if dir == Embedded {
		return seeds.Embedded()
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("seed directory %s does not exist", dir)
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("%s is not a directory (want a seed directory with train.txt, val.txt, test.txt and %s)", dir, seeds.SumsFile)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
		return nil, fmt.Errorf("seed directory %s is empty (want train.txt, val.txt, test.txt and %s)", dir, seeds.SumsFile)
	}
	return seeds.Load(dir)
}

// loadBase reads the embedded base prompt or the file at path and checks
// it as a run's prompt store will when the run writes it as its first
// version. It returns the prompt (defaults filled, ContentSHA256 set), the
// SHA-256 of the file's bytes, and every problem as a message.
func loadBase(path, defaultSlug string) (*prompt.Prompt, string, []string) {
	var data []byte
	if path == Embedded {
		data = prompt.BaseYAML()
	} else {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, "", []string{fmt.Sprintf("base prompt file %s does not exist", path)}
		case err != nil:
			return nil, "", []string{err.Error()}
		case st.IsDir():
			return nil, "", []string{fmt.Sprintf("%s is a directory, not a prompt YAML file", path)}
		}
		if data, err = os.ReadFile(path); err != nil {
			return nil, "", []string{err.Error()}
		}
	}
	sum := sha256.Sum256(data)
	name := path
	if path == Embedded {
		name = "embedded base prompt"
	}
	p, err := prompt.Decode(name, data)
	if err != nil {
		if es := strictyaml.List(err); es != nil {
			var msgs []string
			for _, e := range es {
				msgs = append(msgs, fmt.Sprintf("not a valid prompt: %s", e))
			}
			return nil, "", msgs
		}
		return nil, "", []string{fmt.Sprintf("not a valid prompt: %v", err)}
	}
	var msgs []string
	if err := p.Playable(); err != nil {
		msgs = append(msgs, fmt.Sprintf("base prompt %s: %v", name, err))
	}
	if p.Branch != "" && p.Branch != prompt.MainBranch {
		msgs = append(msgs, fmt.Sprintf("base prompt %s: branch %q: a run's new prompt store writes the base version on %s (leave branch out or set it to %s)",
			name, p.Branch, prompt.MainBranch, prompt.MainBranch))
	}
	if p.Slug == "" {
		p.Slug = defaultSlug // "" keeps prompt.DefaultSlug
	}
	p.SetDefaults()                             // as the store writes it
	if _, err := prompt.Encode(p); err != nil { // sets ContentSHA256
		msgs = append(msgs, fmt.Sprintf("base prompt %s: %v", name, err))
	}
	if rep := guard.Default().Check(p.Texts()...); !rep.OK() {
		for _, is := range rep.Issues {
			msgs = append(msgs, fmt.Sprintf("base prompt %s: a prompt store refuses its text %s", name, is))
		}
	}
	if len(msgs) > 0 {
		return nil, "", msgs
	}
	return p, hex.EncodeToString(sum[:]), nil
}

// checkOutput reports whether a run directory can be created under out
// without creating anything: out, or its nearest existing ancestor, must
// be a directory the process may write and search.
func checkOutput(out string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for p := abs; ; {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				if p == abs {
					return fmt.Errorf("output %s is not a directory", abs)
				}
				return fmt.Errorf("cannot create output directory %s: %s is not a directory", abs, p)
			}
			if err := writableDir(p); err != nil {
				return fmt.Errorf("cannot create a run directory under %s: %s is not writable (%v)", abs, p, err)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("output %s: %w", abs, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("output %s: %w", abs, err)
		}
		p = parent
	}
}

// contentID is the run ID: the config's name and the first 10 hex digits
// of the SHA-256 of everything that shapes the results: the config's
// identity (Resolved without the seed and base prompt paths, so that one
// experiment in two checkouts gets one ID), the seed files' hashes and the
// base prompt's content hash.
func contentID(c *Config, set *seeds.Set, base *prompt.Prompt) (string, error) {
	h := sha256.New()
	ident, err := c.identity()
	if err != nil {
		return "", err
	}
	h.Write(ident)
	for _, s := range seeds.Splits {
		fmt.Fprintf(h, "%s %s\n", s, set.Hashes[s])
	}
	fmt.Fprintf(h, "base %s\n", base.ContentSHA256)
	return c.Name + "-" + hex.EncodeToString(h.Sum(nil))[:10], nil
}

// baseLocator returns a function that names the base prompt file and the
// line of the parameter a *params.Error names ("bad.yaml:25"), or the
// file alone.
func baseLocator(path string) func(err error) string {
	var root yaml.Node
	if path == Embedded {
		return func(error) string { return "(embedded)" }
	}
	data, err := os.ReadFile(path)
	if err != nil || yaml.Unmarshal(data, &root) != nil {
		return func(error) string { return path }
	}
	return func(err error) string {
		var pe *params.Error
		if !errors.As(err, &pe) {
			return path
		}
		field := pe.Field
		if i := strings.IndexByte(field, '['); i >= 0 {
			field = field[:i]
		}
		doc := &root
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			doc = doc.Content[0]
		}
		if line := strictyaml.Line(doc, "policy_parameters."+field); line > 0 {
			return fmt.Sprintf("%s:%d", path, line)
		}
		return path
	}
}

// GeneratedBase is the base prompt v1.0.0 of an environment other than the
// dungeon when a config leaves base_prompt at "embedded": slug
// "<name>-agent" (or prompt.DefaultSlug if that is not a valid slug), a
// one-line task naming the environment, and the schema's defaults as its
// policy parameters (params.Schema.Defaults: numbers at the middle of their
// range on a step from Min, enums at their first item, orderings as
// declared). Write your own base prompt to start from better values.
func GeneratedBase(info envs.Info) *prompt.Prompt {
	p := &prompt.Prompt{Version: prompt.Version{Major: 1}, Slug: info.Name + "-agent",
		TaskDefinition:   fmt.Sprintf("Play the %s environment as well as you can.", info.Name),
		PolicyParameters: info.Params.Defaults(),
		Timestamp:        time.Unix(0, 0).UTC()}
	if prompt.ValidateSlug(p.Slug) != nil {
		p.Slug = prompt.DefaultSlug
	}
	return p
}
