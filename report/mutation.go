package report

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"evolve/internal/format"
)

// MaxShortMutation is the most characters ShortMutation returns.
const MaxShortMutation = 40

// shortForms rewrite the first line of a mutation description (the
// mutate package's wording) to a table cell: "Adjusted P: a → b (...)"
// to "P a→b", a rule added, replaced or removed for a cause to "+rule
// (cause)", "~rule (cause)", "-rule (cause)", and so on. The first that
// matches applies.
var shortForms = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`^(?:Adjusted|Switched) (\S+): (\S+) → (\S+).*$`), "$1 $2→$3"},
	{regexp.MustCompile(`^(?:Prioritized) '([^']*)'.*$`), "$1 first"},
	{regexp.MustCompile(`^(?:Deprioritized) '([^']*)'.*$`), "$1 last"},
	{regexp.MustCompile(`^Rotated (\S+?):.*$`), "$1 rotated"},
	{regexp.MustCompile(`^Rule written by the model for (\S+?)[:,( ].*$`), "+model rule ($1)"},
	{regexp.MustCompile(`^Added rule for (\S+?)[:,( ].*$`), "+rule ($1)"},
	{regexp.MustCompile(`^Replaced a rule for (\S+?)[:,( ].*$`), "~rule ($1)"},
	{regexp.MustCompile(`^Removed a rule for (\S+?)[:,( ].*$`), "-rule ($1)"},
	{regexp.MustCompile(`^Moved section (\S+) earlier.*$`), "$1 earlier"},
}

// paramChange matches a short form "P a→b".
var paramChange = regexp.MustCompile(`^(\S+) (\S+)→(\S+)$`)

// ShortMutation returns a candidate's mutation in at most
// MaxShortMutation characters, for a table column: the first line of
// description in a short form (see shortForms); a parameter change too
// long loses its old value, then its parameter's words are cut to four
// letters ("max_expl_step→150"); anything else too long is cut with "…". "" stays "".
func ShortMutation(description string) string {
	line, _, _ := strings.Cut(description, "\n")
	line = strings.TrimSpace(line)
	for _, f := range shortForms {
		if f.re.MatchString(line) {
			line = f.re.ReplaceAllString(line, f.repl)
			break
		}
	}
	if m := paramChange.FindStringSubmatch(line); m != nil && utf8.RuneCountInString(line) > MaxShortMutation {
		// "P a→b" too long: "P→b", then with P's words cut to 4 letters.
		line = m[1] + "→" + m[3]
		if utf8.RuneCountInString(line) > MaxShortMutation {
			words := strings.Split(m[1], "_")
			for i, w := range words {
				if r := []rune(w); len(r) > 4 {
					words[i] = string(r[:4])
				}
			}
			line = strings.Join(words, "_") + "→" + m[3]
		}
	}
	if utf8.RuneCountInString(line) > MaxShortMutation {
		r := []rune(line)
		line = strings.TrimSpace(string(r[:MaxShortMutation-1])) + "…"
	}
	return line
}

// texMutation is ShortMutation as LaTeX text: escaped, with → and … set
// in math and text mode.
func texMutation(description string) string {
	s := format.TeX(ShortMutation(description))
	s = strings.ReplaceAll(s, "→", `$\to$`)
	return strings.ReplaceAll(s, "…", `\ldots{}`)
}
