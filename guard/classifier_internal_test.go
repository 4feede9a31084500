package guard

import (
	"strings"
	"testing"
)

// BenchmarkClassify times the classifier alone on a benign text of about
// 8,000 characters (the repo's base prompt repeated), its words already
// read.
func BenchmarkClassify(b *testing.B) {
	text := strings.Repeat("You are an expert NetHack player. Descend as deep as you can into the dungeon and survive: "+
		"explore each level, fight what you can beat, flee what you cannot, keep yourself fed and healed, and take "+
		"the down staircase when a level has given what it can. Your score counts experience, depth and gold.\n", 27)
	c := DefaultClassifier()
	toks := tokenize(despace(normalize(text)))
	if issues := c.classify(text, toks, nil, nil); len(issues) != 0 {
		b.Fatalf("bench text flagged: %v", issues)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.classify(text, toks, nil, nil)
	}
}
