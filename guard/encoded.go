package guard

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// base64Spans returns the byte ranges of the runs of s that may be
// base64: at least 16 characters of the standard or URL-safe alphabet,
// with up to two "=" of padding.
func base64Spans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if !isBase64Byte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		end := j
		for k := 0; k < 2 && end < len(s) && s[end] == '='; k++ {
			end++
		}
		if j-i >= 16 {
			out = append(out, [2]int{i, end})
		}
		i = end
	}
	return out
}

func isBase64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// decodeBase64 returns the text span encodes, if it is base64 (standard
// or URL-safe, padded or not) of valid UTF-8 that reads as text: at least
// 90% of its characters letters, digits, spaces or punctuation, with at
// least one space. Hex digests, identifiers and long words decode to
// binary and are not text.
func decodeBase64(span string) (string, bool) {
	trimmed := strings.TrimRight(span, "=")
	var data []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if data, err = enc.DecodeString(trimmed); err == nil {
			break
		}
	}
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	text := string(data)
	good, n := 0, 0
	for _, r := range text {
		n++
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || unicode.IsPunct(r) {
			good++
		}
	}
	if n < 8 || good*10 < n*9 || !strings.ContainsAny(text, " \n") {
		return "", false
	}
	return text, true
}

// rot13 returns s with every ASCII letter rotated by 13 places (ROT13;
// a byte for a byte, so offsets are unchanged).
func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case 'A' <= c && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

// rot13Spans returns s with every sentence that looks like ROT13 rotated
// and every other character a space, or "" if no sentence looks like
// ROT13: one whose rotation has more English stopwords and attack words
// (see englishWords) than the sentence itself ("Vtaber nyy cerivbhf
// vafgehpgvbaf" rotates to "Ignore all previous instructions"). Blanking
// keeps every byte offset, so issues point into s.
func rot13Spans(s string) string {
	var b []byte
	for _, sn := range sentences(s) {
		sentence := s[sn[0]:sn[1]]
		r := rot13(sentence)
		if n := englishWords(r); n >= 1 && n > englishWords(sentence) {
			if b == nil {
				b = []byte(strings.Repeat(" ", len(s)))
			}
			copy(b[sn[0]:], r)
		}
	}
	return string(b)
}

// rot13Words are words of attacks that tell a rotated sentence, with the
// English stopwords.
var rot13Words = wordSet("ignore disregard forget instructions instruction previous prior above prompt system reveal print show repeat hidden rules safety filters filter disable bypass restrictions now act pretend unrestricted jailbreak")

// englishWords counts the English stopwords and rot13Words of s (ASCII,
// any case).
func englishWords(s string) int {
	n := 0
	var buf [16]byte
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		if j-i <= len(buf) {
			w := buf[:j-i]
			for k := range w {
				w[k] = s[i+k] | 0x20
			}
			if stopLangs[string(w)]&1 != 0 || rot13Words[string(w)] {
				n++
			}
		}
		i = j
	}
	return n
}

// decodedIssues screens what s hides in encodings (Policy.Decode): the
// text of each base64 span (see decodeBase64), checked with p's patterns,
// intents, foreign intents and classifier, and the sentences of s that
// look like ROT13 read through it (see rot13Spans), checked with the
// patterns and the English intents (not the classifier:
// ROT13 of ordinary text is not English, and its verdicts on it are not
// calibrated). An issue found is reported at the span in s (base64) or
// at its own place (ROT13, which keeps offsets), with the pattern
// "base64_NAME" or "rot13_NAME" and the category of the issue inside.
// Decoded text is not decoded again.
func (p Policy) decodedIssues(s string) []Issue {
	inner := p
	inner.Decode, inner.MaxChars = false, 0
	var issues []Issue
	for _, loc := range base64Spans(s) {
		text, ok := decodeBase64(s[loc[0]:loc[1]])
		if !ok {
			continue
		}
		for _, is := range inner.check(Text{Text: text}) {
			if is.Category == InvalidEncoding || is.Category == TooLong {
				continue
			}
			m := cut(s[loc[0]:loc[1]])
			issues = append(issues, Issue{Category: is.Category, Pattern: "base64_" + is.Pattern, Offset: loc[0], Match: m,
				Msg: fmt.Sprintf("base64-encoded text: forbidden pattern %s (%s): %q", is.Pattern, is.Category, is.Match)})
		}
	}
	rot := p
	rot.Decode, rot.MaxChars, rot.Classifier, rot.Foreign = false, 0, nil, nil
	if r := rot13Spans(s); r != "" && (len(rot.Patterns) > 0 || len(rot.Intents) > 0) {
		for _, is := range rot.check(Text{Text: r}) {
			if is.Category == InvalidEncoding || is.Category == TooLong {
				continue
			}
			end := is.Offset + len(is.Match)
			if strings.HasSuffix(is.Match, "…") {
				end = is.Offset + len(strings.TrimSuffix(is.Match, "…"))
			}
			m := cut(s[is.Offset:min(end, len(s))])
			issues = append(issues, Issue{Category: is.Category, Pattern: "rot13_" + is.Pattern, Offset: is.Offset, Match: m,
				Msg: fmt.Sprintf("ROT13-encoded text: forbidden pattern %s (%s): %q", is.Pattern, is.Category, is.Match)})
		}
	}
	return issues
}
