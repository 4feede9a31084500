package guard

import (
	"unicode"
	"unicode/utf8"
)

// Spelled-out words: a word written one letter at a time ("i g n o r e",
// "p-r-e-v-i-o-u-s", "i.n.s.t.r.u.c.t.i.o.n.s") is read as the word.
const (
	// minSpelled is the least number of single letters in a chain that
	// despace joins.
	minSpelled = 3
	// maxGap is the longest gap, in characters, between two letters of a
	// chain.
	maxGap = 3
)

// despace returns n with the words that are spelled out one letter at a
// time joined, for the intents to read. A chain is a run of at least
// minSpelled single letters (a letter with no letter or digit on either
// side), each separated from the next by a gap of 1 to maxGap characters
// that are neither letters, digits, apostrophes nor line breaks. In a
// chain, a gap joins the letters on either side when it is
//
//   - only spaces and tabs, no longer than the shortest such gap of the
//     chain, and not between two gaps of punctuation ("A c t   a s": the
//     single spaces join, the triple spaces break; "p-r-e-v i-n-s-t": the
//     space breaks);
//   - or punctuation equal to the gap before or after it (a uniform
//     separator: "B.y.p.a.s.s").
//
// Any other gap ends a word. The joined gaps are dropped from the text,
// and with them their sentence stops. If a chain has no gap that ends a
// word ("i g n o r e p r e v i o u s"), its joins are soft, as where a
// format character was dropped, and tokenize splits the run into
// vocabulary words; otherwise they are hard and each word is read whole.
// The map back to the original text is kept, so issues still point at the
// spelled-out letters. despace returns n itself if there is no chain.
func despace(n normalized) normalized {
	words := wordRuns(n.text)
	join := chainJoins(n.text, words)
	if join == nil {
		return n
	}
	return joinGaps(n, words, join)
}

// wordRun is a run of letters and digits of a text, s[from:to]; single
// marks a run that is one letter.
type wordRun struct {
	from, to int
	single   bool
}

// wordRuns returns the runs of letters and digits of s, in order.
func wordRuns(s string) []wordRun {
	var words []wordRun
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		w := wordRun{from: i}
		runes := 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) {
				break
			}
			runes++
			w.single = runes == 1 && unicode.IsLetter(r)
			i += size
		}
		w.to = i
		words = append(words, w)
	}
	return words
}

// How the gap between two words is joined (chainJoins).
const (
	keepGap  = iota // not joined
	hardJoin        // joined; the word is read whole
	softJoin        // joined softly; tokenize may split the run
)

// chainJoins returns, for each word of s (words from wordRuns), how the
// gap after it is joined (keepGap, hardJoin or softJoin), or nil if s has
// no chain of spelled-out letters.
func chainJoins(s string, words []wordRun) []uint8 {
	var join []uint8 // indexed by word
	for k := 0; k < len(words); {
		if !words[k].single {
			k++
			continue
		}
		// The chain words[k..m].
		m := k
		for m+1 < len(words) && words[m+1].single && chainGap(s[words[m].to:words[m+1].from]) {
			m++
		}
		if m-k+1 < minSpelled {
			k = m + 1
			continue
		}
		if join == nil {
			join = make([]uint8, len(words))
		}
		joinChain(s, words, join, k, m)
		k = m + 1
	}
	return join
}

// joinChain sets join for the gaps of the chain words[k..m] of s, by the
// rules of despace.
func joinChain(s string, words []wordRun, join []uint8, k, m int) {
	gap := func(g int) string { return s[words[g].to:words[g+1].from] } // g in [k, m)
	shortest := maxGap + 1
	for g := k; g < m; g++ {
		if blank(gap(g)) {
			shortest = min(shortest, utf8.RuneCountInString(gap(g)))
		}
	}
	breaks := false
	for g := k; g < m; g++ {
		x := gap(g)
		prevPunct := g > k && !blank(gap(g-1))
		nextPunct := g+1 < m && !blank(gap(g+1))
		var ok bool
		if blank(x) {
			ok = utf8.RuneCountInString(x) == shortest && !(prevPunct && nextPunct)
		} else {
			ok = (g > k && gap(g-1) == x) || (g+1 < m && gap(g+1) == x)
		}
		if ok {
			join[g] = hardJoin
		} else {
			breaks = true
		}
	}
	if !breaks {
		for g := k; g < m; g++ {
			join[g] = softJoin
		}
	}
}

// joinGaps returns n with the gaps that join marks dropped, keeping the
// map back to the original text and the soft boundaries (a soft join adds
// one).
func joinGaps(n normalized, words []wordRun, join []uint8) normalized {
	s := n.text
	out := normalized{
		start: make([]int, 0, len(n.start)),
		end:   make([]int, 0, len(n.end)),
	}
	text := make([]byte, 0, len(s))
	oldSoft := n.soft
	// copyRange copies s[from:to] with its map and soft boundaries.
	copyRange := func(from, to int) {
		for len(oldSoft) > 0 && oldSoft[0] < from {
			oldSoft = oldSoft[1:]
		}
		for len(oldSoft) > 0 && oldSoft[0] < to {
			addSoft(&out.soft, len(text)+oldSoft[0]-from)
			oldSoft = oldSoft[1:]
		}
		text = append(text, s[from:to]...)
		out.start = append(out.start, n.start[from:to]...)
		out.end = append(out.end, n.end[from:to]...)
	}
	pos := 0
	for g, j := range join {
		if j == keepGap {
			continue
		}
		copyRange(pos, words[g].to)
		if j == softJoin {
			addSoft(&out.soft, len(text))
		}
		pos = words[g+1].from
	}
	copyRange(pos, len(s))
	if len(oldSoft) > 0 && oldSoft[0] == len(s) {
		addSoft(&out.soft, len(text))
	}
	out.text = string(text)
	return out
}

// addSoft appends off to the sorted offsets *soft unless it is there.
func addSoft(soft *[]int, off int) {
	if k := len(*soft); k == 0 || (*soft)[k-1] != off {
		*soft = append(*soft, off)
	}
}

// isWordRune reports whether r is part of a word: a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// chainGap reports whether g may separate two letters of a chain: 1 to
// maxGap characters, none a letter, digit, apostrophe or line break.
func chainGap(g string) bool {
	if n := utf8.RuneCountInString(g); n < 1 || n > maxGap {
		return false
	}
	for _, r := range g {
		if r == '\'' || r == '\n' || r == '\r' || isWordRune(r) {
			return false
		}
	}
	return true
}

// blank reports whether g is only spaces and tabs (including no-break
// and other Unicode spaces, but not line breaks).
func blank(g string) bool {
	for _, r := range g {
		if !unicode.IsSpace(r) || r == '\n' || r == '\r' {
			return false
		}
	}
	return true
}
