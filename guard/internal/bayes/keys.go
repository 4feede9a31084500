package bayes

// FNV-1a, 32 bits (Fowler, Noll and Vo; RFC draft-eastlake-fnv).
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// Bytes that keep the kinds of key apart: a word and a pair with the same
// letters, or a word with and without a negator before it, hash
// differently.
const (
	kindWord = 'w'
	kindPair = 'p'
	negMark  = '!'
	pairSep  = ' '
)

func fnvByte(h uint32, c byte) uint32 { return (h ^ uint32(c)) * fnvPrime }

func fnvWord(h uint32, stem string, negated bool) uint32 {
	if negated {
		h = fnvByte(h, negMark)
	}
	for i := 0; i < len(stem); i++ {
		h = fnvByte(h, stem[i])
	}
	return h
}

// AppendKeys appends to dst the feature keys of one run of words (a
// sentence) and returns the extended slice: for each word i, the key of
// its stem (marked if negated[i]), then, for i > 0, the key of the pair
// of words i-1 and i (each marked as it is). stems are word stems as the
// screen reads them (see guard.Words); negated says which follow a negator
// in their clause. len(negated) must equal len(stems); it panics
// otherwise. A key may repeat, and each occurrence counts.
func AppendKeys(dst []uint32, stems []string, negated []bool) []uint32 {
	if len(stems) != len(negated) {
		panic("bayes: AppendKeys: len(stems) != len(negated)")
	}
	for i, s := range stems {
		dst = append(dst, fnvWord(fnvByte(fnvOffset, kindWord), s, negated[i]))
		if i > 0 {
			h := fnvWord(fnvByte(fnvOffset, kindPair), stems[i-1], negated[i-1])
			h = fnvByte(h, pairSep)
			dst = append(dst, fnvWord(h, s, negated[i]))
		}
	}
	return dst
}

// WindowWords is the most words scored at once: a longer sentence is
// scored in windows of WindowWords words that start every WindowWords/2
// words.
const WindowWords = 40

// Windows calls yield(from, to) for each window [from, to) of a run of n
// words, in order, where sentence(i) is the sentence number of word i
// (non-decreasing): each sentence of at most WindowWords words is one
// window, and a longer one is covered by windows of WindowWords words
// starting every WindowWords/2 words, the last ending with the sentence.
func Windows(n int, sentence func(i int) int, yield func(from, to int)) {
	for from := 0; from < n; {
		to := from + 1
		for to < n && sentence(to) == sentence(from) {
			to++
		}
		for a := from; ; a += WindowWords / 2 {
			b := min(to, a+WindowWords)
			yield(a, b)
			if b == to {
				break
			}
		}
		from = to
	}
}
