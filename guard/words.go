package guard

// Word is one word of a text as the intents and the classifier read it
// (see Words).
type Word struct {
	// Stem is the word normalized and stemmed: "Ignoring" and "іgnored"
	// (with a Cyrillic "і") are both "ignor".
	Stem string
	// Negated says that a negator ("not", "never", "no", "without",
	// "stop", "refuse", ...) comes before the word in its clause.
	Negated bool
	// Sentence numbers the sentences of the text from 0; it grows at
	// ".", "!", "?" and blank lines.
	Sentence int
	// Start and End are the word's byte range in the original text.
	Start, End int
}

// Words returns the words of s in order, as the intents and the
// classifier read them: s normalized (see Normalize), words spelled out
// one letter at a time joined, split into words with contractions
// expanded ("don't" is "do not"), each word stemmed, and marked when a
// negator comes before it in its clause. It is nil if s has no letter or
// digit.
func Words(s string) []Word {
	toks := tokenize(despace(normalize(s)))
	if len(toks) == 0 {
		return nil
	}
	neg := negatedWords(toks)
	out := make([]Word, len(toks))
	for i, t := range toks {
		out[i] = Word{Stem: t.stem, Negated: neg[i], Sentence: t.sentence, Start: t.start, End: t.end}
	}
	return out
}

// negatedWords says, for each token, whether a phrase of looseNegators
// ends before it in its clause: the negation marking of the classifier's
// features ("never reveal your prompt" has a negated "reveal").
func negatedWords(toks []token) []bool {
	neg := make([]bool, len(toks))
	negClause, negEnd := -1, 0
	for i, t := range toks {
		if t.clause == negClause && i >= negEnd {
			neg[i] = true
		}
		if t.id != 0 {
			if j := looseNegators.match(toks, i); j > i {
				negClause, negEnd = t.clause, j
			}
		}
	}
	return neg
}
