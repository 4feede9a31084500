// Package corpus reads the screen's labelled corpora, testdata/attacks.tsv
// and testdata/benign.txt of package guard, and turns them into the
// classifier's training examples and weights, in these steps:
//
//  1. Read each file: one text a line, "category<TAB>text" in the
//     attack file; blank lines and lines starting with "#" are skipped.
//  2. Examples: read each text as the screen does (guard.Words), cut it
//     into windows (bayes.Windows), hash their features
//     (bayes.AppendKeys), and record whether the intents and patterns
//     alone flag it.
//  3. Build: cross-validate (bayes.CrossValidate) for the threshold, fit
//     on every example (bayes.Fit), and encode.
package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"evolve/guard"
	"evolve/guard/internal/bayes"
)

// Files of a corpus directory.
const (
	AttackFile = "attacks.tsv"
	BenignFile = "benign.txt"
)

// Classes are the attack categories, in the order of the model's
// classes.
var Classes = []string{
	string(guard.MetaOverride), string(guard.SafetyBypass),
	string(guard.SystemPromptDisclosure), string(guard.RoleReassignment),
}

// Line is one text of a corpus file.
type Line struct {
	// Line is the 1-based line number in the file.
	Line int
	// Category is the attack category, "" in the benign file.
	Category string
	// Text is the text.
	Text string
}

// ErrSyntax is matched (with errors.Is) by a *SyntaxError.
var ErrSyntax = errors.New("corpus syntax error")

// SyntaxError is a malformed line of a corpus file.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

// Error returns "FILE:LINE: MSG".
func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Is reports whether target is ErrSyntax.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// Read reads the corpus file at path: one text a line, "category<TAB>text"
// if tabbed, with a category of Classes; blank lines and lines starting
// with "#" are skipped. It returns a *SyntaxError for a line with no tab
// or an unknown category, and the error of the file otherwise.
func Read(path string, tabbed bool) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := Line{Line: n, Text: l}
		if tabbed {
			var ok bool
			if c.Category, c.Text, ok = strings.Cut(l, "\t"); !ok {
				return nil, &SyntaxError{path, n, fmt.Sprintf("no tab in %q", l)}
			}
			if !slices.Contains(Classes, c.Category) {
				return nil, &SyntaxError{path, n, fmt.Sprintf("unknown category %q", c.Category)}
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

// rules is the screen without its classifier.
var rules = guard.Policy{Patterns: guard.DefaultPatterns(), Intents: guard.DefaultIntents()}

// Example returns the training example of text, of attack category
// category ("" for benign): its windows' keys, its group (a hash of its
// stems, so that obfuscated copies of a text share a fold) and whether
// the default patterns and intents flag it.
func Example(text, category string) bayes.Example {
	words := guard.Words(text)
	stems := make([]string, len(words))
	neg := make([]bool, len(words))
	h := fnv.New32a()
	for i, w := range words {
		stems[i], neg[i] = w.Stem, w.Negated
		h.Write([]byte(w.Stem))
		h.Write([]byte{' '})
	}
	e := bayes.Example{Class: slices.Index(Classes, category), Group: h.Sum32()}
	bayes.Windows(len(words), func(i int) int { return words[i].Sentence }, func(a, b int) {
		e.Sentences = append(e.Sentences, bayes.AppendKeys(nil, stems[a:b], neg[a:b]))
	})
	r := rules.Check(guard.Text{Text: text})
	e.Flagged = !r.OK()
	e.FlaggedClass = slices.ContainsFunc(r.Issues, func(i guard.Issue) bool { return string(i.Category) == category })
	return e
}

// Examples reads the corpora in dir (AttackFile and BenignFile) and
// returns their examples, attacks first, in file order, with the lines
// they come from.
func Examples(dir string) ([]bayes.Example, []Line, error) {
	attacks, err := Read(filepath.Join(dir, AttackFile), true)
	if err != nil {
		return nil, nil, err
	}
	benign, err := Read(filepath.Join(dir, BenignFile), false)
	if err != nil {
		return nil, nil, err
	}
	lines := slices.Concat(attacks, benign)
	ex := make([]bayes.Example, len(lines))
	for i, l := range lines {
		ex[i] = Example(l.Text, l.Category)
	}
	return ex, lines, nil
}

// Build reads the corpora in dir, cross-validates with cfg, and returns
// the model fitted on every example with the cross-validated threshold,
// and the cross-validation.
func Build(dir string, cfg bayes.Config) (*bayes.Model, bayes.CV, error) {
	ex, _, err := Examples(dir)
	if err != nil {
		return nil, bayes.CV{}, err
	}
	cv := bayes.CrossValidate(ex, Classes, cfg)
	m := bayes.Fit(ex, Classes, cfg)
	m.Threshold = cv.Threshold
	return m, cv, nil
}
