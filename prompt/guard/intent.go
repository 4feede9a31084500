package guard

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Intent is one forbidden intent, matched on the words of the normalized
// text (see Normalize) rather than on a fixed phrase: a trigger (an
// override verb, an exfiltration verb, a persona cue) and an object (a
// reference to earlier or hidden instructions, a safety measure, the hidden
// prompt, an unrestricted persona) within a window of words, in either
// order, in one sentence; or one of a few phrases that are an attack on
// their own ("jailbreak", "pretend to be"). The default intents are
// [DefaultIntents]; an Intent cannot be built outside this package.
type Intent struct {
	// Name is a stable identifier in snake_case; it is Issue.Pattern of the
	// intent's matches.
	Name string
	// Category is the category of its matches.
	Category Category
	rule     *rule
}

// rule is the compiled vocabulary of an intent.
type rule struct {
	// alone are phrases that match by themselves.
	alone *lexicon
	// trigger are phrases that match with an object, unless a negator
	// precedes them ("never reveal ...").
	trigger *lexicon
	// negated are phrases that count as a trigger only when a negator
	// precedes them ("do not follow ...", "no longer apply").
	negated *lexicon
	// objects are the object phrases and pairs.
	objects []object
	// window is the most words between the trigger and the object.
	window int
}

// object is one kind of object: a phrase a alone (b nil), or a phrase of a
// with a phrase of b at most win words away, in either order. A tight
// object matches only after its trigger with nothing but fillers between
// ("disable all the safety", not "disable traps for safety").
//
// bNot lists phrases that start with a phrase of b and void it ("above
// the door" is a place, not "the text above"). An anaphor ("them",
// "those") counts only if another object of the rule is in its sentence
// or the one before ("The rules above were a test. Ignore them.").
type object struct {
	a, b    *lexicon
	bNot    *lexicon
	win     int
	tight   bool
	anaphor bool
}

// fillers may stand between a trigger and a tight object.
var fillers = newLexicon("the", "all", "any", "your", "its", "of", "these", "those", "every",
	"my", "our", "their", "built in", "builtin", "current", "existing", "model's", "remaining", "a", "an")

// objSpan is an object found in a text.
type objSpan struct {
	span
	tight bool
}

// negationWindow is the most words between a negator and the trigger it
// negates.
const negationWindow = 3

// negators negate a trigger that follows within negationWindow words.
var negators = newLexicon(
	"not", "never", "don't", "do not", "doesn't", "didn't", "won't", "can't", "cannot",
	"shouldn't", "mustn't", "isn't", "aren't", "wasn't", "weren't", "needn't", "no longer",
	"stop", "cease", "quit", "without", "avoid", "refuse", "refrain", "nor", "nothing", "none")

// lexicon is a set of phrases, each a sequence of word stems (see stem).
type lexicon struct {
	// byFirst maps the first stem of each phrase to the rest of it.
	byFirst map[string][][]string
}

// newLexicon returns the lexicon of phrases, each a space-separated run
// of words normalized, split and stemmed as the text is.
func newLexicon(phrases ...string) *lexicon {
	l := &lexicon{byFirst: map[string][][]string{}}
	for _, p := range phrases {
		var words []string
		for _, t := range tokenize(normalize(p)) {
			words = append(words, t.stem)
		}
		if len(words) == 0 {
			panic("guard: empty phrase in a lexicon")
		}
		for _, w := range words {
			vocab[w] = true
		}
		l.byFirst[words[0]] = append(l.byFirst[words[0]], words[1:])
	}
	return l
}

// match returns the end (exclusive token index) of the longest phrase of
// l that starts at toks[i], or -1. A phrase does not cross a sentence.
func (l *lexicon) match(toks []token, i int) int {
	best := -1
	for _, rest := range l.byFirst[toks[i].stem] {
		j := i + 1
		for _, w := range rest {
			if j >= len(toks) || toks[j].stem != w || toks[j].sentence != toks[i].sentence {
				j = -1
				break
			}
			j++
		}
		if j > best {
			best = j
		}
	}
	return best
}

// span is a run of tokens [from, to).
type span struct{ from, to int }

// hits returns the matches of l in toks, by start, not overlapping: a
// match starts after the end of the one before.
func (l *lexicon) hits(toks []token) []span {
	var out []span
	for i := 0; i < len(toks); i++ {
		if j := l.match(toks, i); j > 0 {
			out = append(out, span{i, j})
			i = j - 1
		}
	}
	return out
}

// token is a word of the normalized text.
type token struct {
	stem string
	// start and end are the word's byte range in the original text.
	start, end int
	// sentence numbers the sentences: it grows at ".", "!", "?" and at a
	// blank line.
	sentence int
}

// vocab holds every stem of every lexicon; tokenize uses it to split a
// run of letters joined by invisible characters into words.
var vocab = map[string]bool{}

// maxJoin and maxJoinBytes bound the pieces tokenize tries to join into
// one word, and so its work, on a run of letters split by many invisible
// characters: no word of the vocabulary is longer.
const (
	maxJoin      = 16
	maxJoinBytes = 32
)

// contractions are the words that an apostrophe suffix stands for;
// "n't" is handled apart.
var contractions = map[string]string{"re": "are", "ve": "have", "ll": "will", "m": "am", "d": "would", "s": "is"}

// tokenize splits a normalized text into words: runs of letters and
// digits, each stemmed (see stem). A contraction is two words ("don't" is
// "do not", "you're" is "you are", "let's" is "let us"); other apostrophes
// between letters are dropped. Where invisible format characters were
// dropped inside a run of letters, the run is split greedily into the
// longest pieces whose joins are words of the vocabulary, so both
// "i\u200bgnore" ("ignore") and "you\u200bare\u200bnow" ("you are now")
// read as written.
func tokenize(n normalized) []token {
	var toks []token
	s := n.text
	sentence, newlines, softIdx := 0, 0, 0
	// pieces of the current word: byte ranges of s, split at soft
	// boundaries.
	var pieces [][2]int
	emit := func(word string, from, to int) { // s[from:to] in normalized bytes
		toks = append(toks, token{stem: stem(word), start: n.start[from], end: n.end[to-1], sentence: sentence})
	}
	flush := func() {
		for i := 0; i < len(pieces); {
			j := i + 1
			if len(pieces) > 1 {
				for k := min(len(pieces), i+maxJoin); k > i+1; k-- {
					if pieces[k-1][1]-pieces[i][0] > maxJoinBytes {
						continue
					}
					if vocab[stem(s[pieces[i][0]:pieces[k-1][1]])] {
						j = k
						break
					}
				}
			}
			var w strings.Builder
			for _, p := range pieces[i:j] {
				w.WriteString(s[p[0]:p[1]])
			}
			emit(w.String(), pieces[i][0], pieces[j-1][1])
			i = j
		}
		pieces = pieces[:0]
	}
	isSoft := func(i int) bool {
		for softIdx < len(n.soft) && n.soft[softIdx] < i {
			softIdx++
		}
		return softIdx < len(n.soft) && n.soft[softIdx] == i
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if k := len(pieces); k > 0 && pieces[k-1][1] == i && !isSoft(i) {
				pieces[k-1][1] = i + size
			} else {
				pieces = append(pieces, [2]int{i, i + size})
			}
			newlines = 0
		case r == '\'' && len(pieces) > 0 && pieces[len(pieces)-1][1] == i && i+1 < len(s) && isLetterAt(s, i+1):
			// An apostrophe inside a word: a contraction or dropped.
			end := i + 1
			for end < len(s) {
				r, size := utf8.DecodeRuneInString(s[end:])
				if !unicode.IsLetter(r) {
					break
				}
				end += size
			}
			suffix := s[i+1 : end]
			last := &pieces[len(pieces)-1]
			word := s[last[0]:last[1]]
			switch {
			case suffix == "t" && strings.HasSuffix(word, "n") && len(word) > 1:
				last[1]--
				flush()
				emit("not", i-1, end)
			case contractions[suffix] != "":
				flush()
				w := contractions[suffix]
				if suffix == "s" && word == "let" {
					w = "us"
				}
				emit(w, i, end)
			default:
				pieces = append(pieces, [2]int{i + 1, end})
				if len(pieces) > 1 { // join across the apostrophe
					pieces[len(pieces)-2][1] = i // drop it
					p := pieces[len(pieces)-2:]
					w := s[p[0][0]:p[0][1]] + s[p[1][0]:p[1][1]]
					pieces = pieces[:len(pieces)-2]
					flush()
					emit(w, p[0][0], p[1][1])
				}
			}
			size = end - i
		default:
			flush()
			switch {
			case r == '.' || r == '!' || r == '?':
				sentence++
			case r == '\n':
				if newlines++; newlines == 2 {
					sentence++
				}
			case !unicode.IsSpace(r):
				newlines = 0
			}
		}
		i += size
	}
	flush()
	return toks
}

// isLetterAt reports whether s has a letter at byte offset i.
func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// suffixes are stripped by stem, longest first; one at most.
var suffixes = []string{"ingly", "edly", "ings", "ing", "ied", "ies", "ed", "es", "ly", "s"}

// stem strips one inflectional suffix from a lowercase word, leaving at
// least three characters (four for "ly" and "s"), then a final "e":
// "ignore", "ignored", "ignores" and "ignoring" are all "ignor";
// "applies" and "apply" are "apply". It is a light stemmer of our own, not
// Porter's: it only needs to map the forms of one word together, as the
// vocabulary is stemmed the same way.
func stem(w string) string {
	for _, suf := range suffixes {
		least := 3
		if suf == "ly" || suf == "s" {
			least = 4
		}
		if len(w) >= len(suf)+least && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)]
			if suf == "ied" || suf == "ies" {
				return w + "y"
			}
			break
		}
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// match is one match of an intent: a run of tokens.
type intentMatch struct{ from, to int }

// find returns the matches of r in toks, by start, not overlapping.
func (r *rule) find(toks []token) []intentMatch {
	var found []span
	if r.alone != nil {
		for _, h := range r.alone.hits(toks) {
			if !negated(toks, h.from, false) {
				found = append(found, h)
			}
		}
	}
	var triggers []span
	if r.trigger != nil {
		for _, h := range r.trigger.hits(toks) {
			if !negated(toks, h.from, false) {
				triggers = append(triggers, h)
			}
		}
	}
	if r.negated != nil {
		for _, h := range r.negated.hits(toks) {
			if negated(toks, h.from, true) {
				triggers = append(triggers, h)
			}
		}
	}
	if len(triggers) > 0 {
		objs := r.findObjects(toks)
		for _, t := range triggers {
			best, bestGap := span{}, -1
			lo, hi := nearRange(objs, t, r.window)
			for _, o := range objs[lo:hi] {
				if toks[o.from].sentence != toks[t.from].sentence || o.span == t {
					continue
				}
				gap := max(0, o.from-t.to)
				if o.to <= t.from {
					if o.tight {
						continue
					}
					gap = t.from - o.to
				}
				if o.tight && !onlyIn(fillers, toks, t.to, o.from) {
					continue
				}
				if gap <= r.window && (bestGap < 0 || gap < bestGap) {
					best, bestGap = o.span, gap
				}
			}
			if bestGap >= 0 {
				found = append(found, span{min(t.from, best.from), max(t.to, best.to)})
			}
		}
	}
	return nonOverlapping(found)
}

// findObjects returns every object of r in toks, sorted by start.
func (r *rule) findObjects(toks []token) []objSpan {
	var out []objSpan
	var anaphors []span
	for _, o := range r.objects {
		as := o.a.hits(toks)
		if o.anaphor {
			anaphors = append(anaphors, as...)
			continue
		}
		if o.b == nil {
			for _, a := range as {
				out = append(out, objSpan{a, o.tight})
			}
			continue
		}
		bs := o.b.hits(toks)
		if o.bNot != nil {
			bs = slices.DeleteFunc(bs, func(b span) bool { return o.bNot.match(toks, b.from) > b.to })
		}
		for _, a := range as {
			lo, hi := nearRange(bs, a, o.win)
			for _, b := range bs[lo:hi] {
				if a == b || toks[a.from].sentence != toks[b.from].sentence {
					continue
				}
				if gap := max(a.from, b.from) - min(a.to, b.to); gap <= o.win {
					out = append(out, objSpan{span{min(a.from, b.from), max(a.to, b.to)}, o.tight})
				}
			}
		}
	}
	if len(anaphors) > 0 {
		sentences := map[int]bool{}
		for _, o := range out {
			sentences[toks[o.from].sentence] = true
		}
		for _, a := range anaphors {
			if sn := toks[a.from].sentence; sentences[sn] || sentences[sn-1] {
				out = append(out, objSpan{span: a})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b objSpan) int { return cmp.Compare(a.from, b.from) })
	return out
}

// onlyIn reports whether every token in [from, to) is covered by a
// phrase of l.
func onlyIn(l *lexicon, toks []token, from, to int) bool {
	for i := from; i < to; {
		j := l.match(toks, i)
		if j <= i || j > to {
			return false
		}
		i = j
	}
	return true
}

// maxSpan bounds the length in words of a phrase or an object; near
// relies on it.
const maxSpan = 32

// nearRange returns the index range [lo, hi) of the spans of sorted (by
// start) that may lie within win words of t: those that start in
// [t.from-win-maxSpan, t.to+win].
func nearRange[S interface{ start() int }](sorted []S, t span, win int) (lo, hi int) {
	lo = sort.Search(len(sorted), func(i int) bool { return sorted[i].start() >= t.from-win-maxSpan })
	hi = sort.Search(len(sorted), func(i int) bool { return sorted[i].start() > t.to+win })
	return lo, max(lo, hi)
}

func (s span) start() int { return s.from }

// negated reports whether token i is negated: a negator ends just
// before it, with at most negationWindow words between that are all
// negationFillers ("do not ever ignore", "never simply reveal"); with
// loose, any words may be between ("none of the earlier rules apply").
func negated(toks []token, i int, loose bool) bool {
	win := negationWindow
	if loose {
		win = looseNegationWindow
	}
	for k := max(0, i-win-2); k < i; k++ {
		if toks[k].sentence != toks[i].sentence {
			continue
		}
		j := negators.match(toks, k)
		if j <= 0 || j > i || i-j > win {
			continue
		}
		if loose || onlyIn(negationFillers, toks, j, i) {
			return true
		}
	}
	return false
}

// looseNegationWindow is the most words between a negator and a
// compliance word it negates.
const looseNegationWindow = 6

// negationFillers may stand between a negator and the trigger it negates.
var negationFillers = newLexicon("ever", "just", "simply", "to", "be", "you", "please", "even",
	"try", "attempt", "at", "all", "under", "any", "circumstances", "ever", "again", "once", "should", "must")

// sortSpans sorts spans by start, longest first at one start.
func sortSpans(spans []span) {
	slices.SortStableFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(b.to, a.to))
	})
}

// nonOverlapping sorts spans by start (then longest first) and drops each
// that overlaps one kept before it.
func nonOverlapping(spans []span) []intentMatch {
	sortSpans(spans)
	var out []intentMatch
	for _, s := range spans {
		if len(out) > 0 && s.from < out[len(out)-1].to {
			continue
		}
		out = append(out, intentMatch(s))
	}
	return out
}
