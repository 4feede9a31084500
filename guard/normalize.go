package guard

import (
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"
)

// normalized is a text folded for matching, with a map from each of its
// bytes back to the original text.
type normalized struct {
	// text is the folded text (see Normalize).
	text string
	// start[i] and end[i] are the byte range, in the original text, of the
	// character that produced byte i of text; len(start) == len(end) ==
	// len(text).
	start, end []int
	// soft lists, in increasing order, the byte offsets in text where at
	// least one format character (Cf) was dropped: a word may continue
	// across them ("i\u200bgnore") or end there ("you\u200bare").
	soft []int
}

// Normalize returns the form of s that the default patterns and intents
// match: each character of s is
//
//  1. decomposed by compatibility (NFKD, the decomposed form of NFKC, so
//     fullwidth "ｉｇｎｏｒｅ", ligatures and mathematical letters become
//     plain letters);
//  2. dropped if it is an invisible format character (Unicode category
//     Cf: zero-width space and joiners, soft hyphen, bidi controls) or a
//     combining mark (Mn, Me: accents, variation selectors, strike-through
//     overlays); a Unicode tag character U+E0020..U+E007E, an invisible
//     copy of an ASCII character, becomes that ASCII character instead, so
//     text smuggled in tags is screened too;
//  3. if not ASCII, replaced by its confusable prototype from Unicode's
//     confusables.txt (the per-character mapping of the skeleton of UTS #39
//     section 4, https://www.unicode.org/reports/tr39/#Confusable_Detection,
//     table from go.mau.fi/util/confusable): Cyrillic "і" and "о", Greek
//     "ο" become "i" and "o". The prototype of the lowercase form is
//     preferred (UTS #39 maps "I" to "l"), and a prototype that is itself
//     ASCII is preferred to one that is not;
//  4. lowercased (Unicode simple lowercase mapping).
//
// Two spellings that hide a word are undone as well: a word broken across
// lines with a hyphen ("Ig-\nnore", "sys-\n  tem") is joined, the hyphen,
// the line break and the indentation dropped; and in a word that mixes
// letters with the digits and signs of leetspeak, those are read as the
// letters they stand for (see foldLeet: "Ign0re", "pr0mpt", "1nstruct10n5",
// "@dmin" become "ignore", "prompt", "instructions", "admin").
//
// ASCII characters are only lowercased: unlike a full UTS #39 skeleton,
// "m" stays "m" (not "rn") and "1" stays "1". An invalid UTF-8 byte
// becomes U+FFFD. The result is not for display; Normalize is a pure
// function of s.
func Normalize(s string) string { return normalize(s).text }

// normalize folds s as Normalize does and keeps the map back to s.
func normalize(s string) normalized {
	out := make([]byte, 0, len(s))
	start := make([]int, 0, len(s))
	end := make([]int, 0, len(s))
	var dec []byte
	var runes []rune
	var soft []int
	for off := 0; off < len(s); {
		c := s[off]
		if c < utf8.RuneSelf {
			if c == '-' {
				if next, ok := lineSplit(s, off, out); ok {
					off = next // "Ig-\nnore" reads "Ignore"
					continue
				}
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			start = append(start, off)
			end = append(end, off+1)
			off++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[off:])
		if unicode.Is(unicode.Cf, r) && !(0xE0020 <= r && r <= 0xE007E) {
			if k := len(soft); k == 0 || soft[k-1] != len(out) {
				soft = append(soft, len(out))
			}
			off += size
			continue
		}
		runes = foldRune(runes[:0], r, &dec)
		for _, f := range runes {
			n := len(out)
			out = utf8.AppendRune(out, f)
			for range len(out) - n {
				start = append(start, off)
				end = append(end, off+size)
			}
		}
		off += size
	}
	foldLeet(out)
	return normalized{text: string(out), start: start, end: end, soft: soft}
}

// foldRune appends to dst the characters a non-ASCII character r folds to
// (steps 1 to 4 of Normalize); dec is scratch space.
func foldRune(dst []rune, r rune, dec *[]byte) []rune {
	if r == utf8.RuneError {
		return append(dst, r)
	}
	if 0xE0020 <= r && r <= 0xE007E { // tag characters
		return append(dst, unicode.ToLower(r-0xE0000))
	}
	*dec = norm.NFKD.AppendString((*dec)[:0], string(r))
	for _, d := range string(*dec) {
		if ignorable(d) {
			continue
		}
		if d < utf8.RuneSelf {
			dst = append(dst, unicode.ToLower(d))
			continue
		}
		for _, p := range prototype(d) {
			if !ignorable(p) {
				dst = append(dst, unicode.ToLower(p))
			}
		}
	}
	return dst
}

// ignorable reports whether r is dropped: a format character or a
// combining mark.
func ignorable(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me)
}

// prototype returns the confusable prototype of r: of its lowercase form,
// of r itself or of its uppercase form, the first that is ASCII once its
// marks are dropped, else the first that exists, else r.
func prototype(r rune) string {
	var first string
	for _, c := range [3]rune{unicode.ToLower(r), r, unicode.ToUpper(r)} {
		p := confusable.GetReplacement(c)
		if p == "" {
			continue
		}
		if first == "" {
			first = p
		}
		if asciiOrMarks(p) {
			return p
		}
	}
	if first == "" {
		return string(r)
	}
	return first
}

// asciiOrMarks reports whether every character of s is ASCII or ignorable.
func asciiOrMarks(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && !ignorable(r) {
			return false
		}
	}
	return true
}
