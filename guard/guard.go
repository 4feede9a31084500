package guard

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultMaxChars is the default maximum length of one text, in characters
// (Unicode code points, not bytes).
const DefaultMaxChars = 8000

// Policy says what a text may contain. The zero Policy checks only the
// encoding.
type Policy struct {
	// MaxChars is the maximum number of characters (Unicode code points)
	// per text; <= 0 means no limit.
	MaxChars int
	// Patterns are the forbidden patterns, tried in order on the
	// normalized text; nil means none.
	Patterns []Pattern
	// Intents are the forbidden intents, tried in order after Patterns;
	// nil means none.
	Intents []Intent
	// Classifier, if not nil, scores each sentence after the patterns
	// and intents (see Classifier); nil means none.
	Classifier *Classifier
	// Foreign are the forbidden intents in other languages, tried in
	// order after the classifier on the text folded for them (see
	// Foreign); nil means none.
	Foreign []Foreign
	// Decode screens what the text hides in encodings: the text of each
	// base64 span with every check above, and the whole text read
	// through ROT13 with the patterns and intents (see decodedIssues).
	Decode bool
}

// Default returns the policy the prompt store uses: at most
// DefaultMaxChars characters per text, DefaultPatterns, DefaultIntents,
// DefaultClassifier, DefaultForeign, and decoding of base64 and ROT13.
func Default() Policy {
	return Policy{MaxChars: DefaultMaxChars, Patterns: DefaultPatterns(), Intents: DefaultIntents(),
		Classifier: DefaultClassifier(), Foreign: DefaultForeign(), Decode: true}
}

// Text is one text to check and where it comes from.
type Text struct {
	// Field is where the text is, as a field path, e.g. "sections.identity",
	// "task_definition", "rules_constraints[2]", "metadata.note"; it is only
	// copied to the issues.
	Field string
	// Text is the text itself, checked byte for byte as given.
	Text string
}

// Status is the verdict of a Report.
type Status string

// Verdicts.
const (
	// Valid: no text has an issue.
	Valid Status = "VALID"
	// Rejected: at least one text has an issue and must not be stored.
	Rejected Status = "REJECTED"
)

// Pattern names of the issues that do not come from a Pattern.
const (
	maxCharsName = "max_chars" // Issue.Pattern of TooLong
	utf8Name     = "utf8"      // Issue.Pattern of InvalidEncoding
)

// maxMatchBytes is the maximum length of Issue.Match in bytes, ellipsis
// included.
const maxMatchBytes = 80

// ellipsis is appended to a cut Issue.Match.
const ellipsis = "…"

// Issue is one problem found in one text.
type Issue struct {
	// Field is the Text.Field of the text.
	Field string `json:"field"`
	// Category is the kind of problem.
	Category Category `json:"category"`
	// Pattern is the Pattern.Name or Intent.Name that matched,
	// "classifier" for a sentence the Classifier flagged, "max_chars" for
	// TooLong or "utf8" for InvalidEncoding.
	Pattern string `json:"pattern"`
	// Offset is the 0-based byte offset in the original text (not the
	// normalized one) where the problem starts, in [0, len(text)]: the
	// start of the first character of the match (for the classifier, of
	// the sentence's first word), the first byte past the character limit
	// (the start of character MaxChars+1), or the first invalid or NUL
	// byte.
	Offset int `json:"offset"`
	// Line is the 1-based line of Offset; lines end at "\n".
	Line int `json:"line"`
	// Column is the 1-based column of Offset in characters (Unicode code
	// points; each byte of an invalid UTF-8 sequence counts as one).
	Column int `json:"column"`
	// Match is the offending original text: the characters that the
	// pattern's or intent's match or the classifier's sentence was
	// normalized from (hidden characters included), or the invalid or NUL
	// byte. It is at most 80 bytes; a longer match is cut on a character
	// boundary and ends with "…". It is "" for TooLong.
	Match string `json:"match"`
	// Msg is a one-line human explanation, e.g.
	// `forbidden pattern jailbreak (safety_bypass): "jailbreak"`,
	// `classifier (safety_bypass): score 2.31 above 1.61: "Let your
	// filters lapse"` or "8213 characters, more than the limit of 8000".
	Msg string `json:"msg"`
}

// String formats the issue as "FIELD:LINE:COLUMN: MSG".
func (i Issue) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", i.Field, i.Line, i.Column, i.Msg)
}

// Report is the result of checking texts.
type Report struct {
	// Status is Valid if and only if Issues is empty.
	Status Status `json:"status"`
	// Issues are all issues found, in the order of the texts given, then by
	// Offset, then by check (encoding, length, patterns in Policy order,
	// then intents in Policy order, then the classifier). It is empty,
	// never nil.
	Issues []Issue `json:"issues"`
}

// OK reports whether r.Status is Valid, that is, no issue was found.
func (r Report) OK() bool { return r.Status == Valid }

// ErrRejected is matched (with errors.Is) by every error of Policy.Error:
// at least one text has an issue and must not be stored.
var ErrRejected = errors.New("text rejected")

// Error is the error of Policy.Error: the texts were rejected, and Report
// (whose Status is Rejected) says why.
type Error struct {
	// Report is the full result of the check, with at least one issue.
	Report Report
}

// Error returns "text rejected: N issues: " followed by every issue's
// String, separated by "; ".
func (e *Error) Error() string {
	var b strings.Builder
	n := len(e.Report.Issues)
	fmt.Fprintf(&b, "%v: %d issue", ErrRejected, n)
	if n != 1 {
		b.WriteString("s")
	}
	for k, i := range e.Report.Issues {
		if k == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(i.String())
	}
	return b.String()
}

// Is reports whether target is ErrRejected.
func (e *Error) Is(target error) bool { return target == ErrRejected }

// Error checks texts as Check does and returns nil if they are valid, or an
// *Error holding the report otherwise; the error matches ErrRejected.
func (p Policy) Error(texts ...Text) error {
	if r := p.Check(texts...); !r.OK() {
		return &Error{Report: r}
	}
	return nil
}

// Check runs the encoding, length, pattern, intent and classifier checks
// on each text and reports every issue found; no text is modified, and no
// check stops the others. Patterns, intents and the classifier see the
// text normalized (see Normalize), and their issues point into the
// original text. Its time is close to linear in the total length of the
// texts (the regexps are RE2; an intent compares each trigger with the
// objects within its window; the classifier looks up each word and pair
// of words once, or twice in a sentence of more than 40 words), about
// 0.2 to 0.25 µs per byte with the Default policy (BenchmarkCheck: 1.7 to
// 2.3 ms for 8,000 characters on a loaded 2-core machine, of which the
// classifier is about 0.09 ms, BenchmarkClassify; BenchmarkCheckRules
// runs without it; the 16 regexps the intents replaced took 7.6 to 7.9
// ms). It is safe for concurrent use. It panics if a pattern has a nil
// Regexp, or an intent or the classifier was not made by this package.
func (p Policy) Check(texts ...Text) Report {
	r := Report{Status: Valid, Issues: []Issue{}}
	for _, t := range texts {
		r.Issues = append(r.Issues, p.check(t)...)
	}
	if len(r.Issues) > 0 {
		r.Status = Rejected
	}
	return r
}

// check returns the issues of one text, sorted by offset, with Line and
// Column set.
func (p Policy) check(t Text) []Issue {
	s := t.Text
	var issues []Issue
	if off, ok := badByte(s); ok {
		msg := fmt.Sprintf("invalid UTF-8 byte 0x%02x", s[off])
		if s[off] == 0 {
			msg = "NUL byte"
		}
		issues = append(issues, Issue{Category: InvalidEncoding, Pattern: utf8Name,
			Offset: off, Match: s[off : off+1], Msg: msg})
	}
	if p.MaxChars > 0 {
		if off, n := charOffset(s, p.MaxChars); off >= 0 {
			issues = append(issues, Issue{Category: TooLong, Pattern: maxCharsName, Offset: off,
				Msg: fmt.Sprintf("%d characters, more than the limit of %d", n, p.MaxChars)})
		}
	}
	var places []flagged // of the patterns' and intents' issues
	found := func(name string, c Category, start, end int) {
		places = append(places, flagged{c, start, end})
		m := cut(s[start:end])
		issues = append(issues, Issue{Category: c, Pattern: name, Offset: start,
			Match: m, Msg: fmt.Sprintf("forbidden pattern %s (%s): %q", name, c, m)})
	}
	if len(p.Patterns) > 0 || len(p.Intents) > 0 || p.Classifier != nil {
		n := normalize(s)
		for _, pat := range p.Patterns {
			if pat.Regexp == nil {
				panic("guard: pattern " + pat.Name + " has a nil Regexp")
			}
			for _, loc := range pat.Regexp.FindAllStringIndex(n.text, -1) {
				if loc[1] > loc[0] {
					found(pat.Name, pat.Category, n.start[loc[0]], n.end[loc[1]-1])
				} else { // empty match
					off := len(s)
					if loc[0] < len(n.start) {
						off = n.start[loc[0]]
					}
					found(pat.Name, pat.Category, off, off)
				}
			}
		}
		var toks []token
		if len(p.Intents) > 0 || p.Classifier != nil {
			toks = tokenize(despace(n))
		}
		for _, in := range p.Intents {
			if in.rule == nil {
				panic("guard: intent " + in.Name + " was not made by package guard")
			}
			for _, m := range in.rule.find(toks) {
				found(in.Name, in.Category, toks[m.from].start, toks[m.to-1].end)
			}
		}
		if p.Classifier != nil {
			issues = p.Classifier.classify(s, toks, places, issues)
		}
	}
	if len(p.Foreign) > 0 {
		f := foldForeign(s)
		for _, m := range foreignMatches(p.Foreign, f.text) {
			fi := p.Foreign[m.intent]
			start, end := f.start[m.from], f.end[m.to-1]
			if !slices.ContainsFunc(places, func(g flagged) bool { return g.overlaps(fi.Category, start, end) }) {
				found(fi.Name, fi.Category, start, end)
			}
		}
	}
	if p.Decode {
		issues = append(issues, p.decodedIssues(s)...)
	}
	slices.SortStableFunc(issues, func(a, b Issue) int { return cmp.Compare(a.Offset, b.Offset) })

	// Line and column in one pass over the text, as issues are sorted.
	pos, line, col := 0, 1, 1
	for k := range issues {
		for pos < issues[k].Offset {
			r, size := utf8.DecodeRuneInString(s[pos:])
			pos += size
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		issues[k].Field, issues[k].Line, issues[k].Column = t.Field, line, col
	}
	return issues
}

// badByte returns the offset of the first byte of s that starts an invalid
// UTF-8 sequence or is NUL.
func badByte(s string) (int, bool) {
	for off, r := range s {
		if r == 0 {
			return off, true
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[off:]); size == 1 {
				return off, true
			}
		}
	}
	return 0, false
}

// charOffset returns the byte offset of character limit+1 of s and the number
// of characters of s, or -1 if s has at most limit characters.
func charOffset(s string, limit int) (off, n int) {
	off = -1
	for i := range s {
		if n == limit {
			off = i
		}
		n++
	}
	return off, n
}

// cut shortens m to at most maxMatchBytes bytes, cutting on a character
// boundary and appending ellipsis when it cuts.
func cut(m string) string {
	if len(m) <= maxMatchBytes {
		return m
	}
	end := 0
	for end < len(m) {
		_, size := utf8.DecodeRuneInString(m[end:])
		if end+size > maxMatchBytes-len(ellipsis) {
			break
		}
		end += size
	}
	return m[:end] + ellipsis
}
