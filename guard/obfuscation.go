package guard

// Leetspeak and hyphenated line splits, undone by normalize.

// leetLetters maps each digit or sign that leetspeak writes for a letter
// to that letter: 0 o, 1 i, 3 e, 4 a, 5 s, 7 t, @ a, $ s. 1 is read as
// "i", the more frequent letter in the vocabulary the screen reads
// ("1gnore", "1nstructions"); "f1lters" still reads as "filters" only to
// the classifier's character-blind features, so the intents also list the
// common "l" words where it matters.
var leetLetters = [256]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// foldLeet rewrites, in place, every word of b (a maximal run of ASCII
// letters, digits, '@' and '$') that has at least one letter and at least
// one leetspeak sign, replacing each sign by its letter (leetLetters).
// Words of digits only ("100", "3"), and words without a mapped sign
// ("2nd", "d20"), are left alone, so numbers in game rules keep their
// meaning; a mixed word that is not leetspeak ("v1", "hp30") becomes a
// non-word that no intent lists. Each byte maps to one byte, so offsets
// into the original text are unchanged.
func foldLeet(b []byte) {
	for i := 0; i < len(b); {
		if !leetWordByte(b[i]) {
			i++
			continue
		}
		j, letters, signs := i, 0, 0
		for ; j < len(b) && leetWordByte(b[j]); j++ {
			switch c := b[j]; {
			case 'a' <= c && c <= 'z':
				letters++
			case leetLetters[c] != 0:
				signs++
			}
		}
		if letters > 0 && signs > 0 {
			for k := i; k < j; k++ {
				if l := leetLetters[b[k]]; l != 0 {
					b[k] = l
				}
			}
		}
		i = j
	}
}

// leetWordByte reports whether c can be part of a leetspeak word: a
// lowercase ASCII letter (normalize has lowercased the text), a digit, '@'
// or '$'.
func leetWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '@' || c == '$'
}

// lineSplit reports whether the '-' at s[off] breaks a word across lines:
// out (the text folded so far) ends with a letter, and after the hyphen
// come only spaces or tabs, one line break ("\n" or "\r\n"), spaces or
// tabs, and a letter. It returns the offset of that letter, where
// normalize continues, dropping the hyphen, the break and the indentation.
func lineSplit(s string, off int, out []byte) (int, bool) {
	if len(out) == 0 || !isASCIILetter(out[len(out)-1]) {
		return 0, false
	}
	i := off + 1
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '\r' {
		i++
	}
	if i >= len(s) || s[i] != '\n' {
		return 0, false
	}
	i++
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || !isASCIILetter(s[i]|0x20) {
		return 0, false
	}
	return i, true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
