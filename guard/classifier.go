package guard

import (
	_ "embed"
	"fmt"
	"sync"

	"evolve/guard/internal/bayes"
)

//go:generate go run ./internal/train -o weights.bin

// weights is the default classifier's model, written by
// internal/train from testdata/attacks.tsv and testdata/benign.txt (see
// bayes.Model.Encode for the format).
//
//go:embed weights.bin
var weights []byte

// classifierName is Issue.Pattern of the classifier's issues.
const classifierName = "classifier"

// Classifier is a learned screen that complements the intents: a
// multinomial naive Bayes model over the words and pairs of adjacent
// words of each sentence (a sentence of more than 40 words in windows of
// 40 words every 20; see package internal/bayes), fitted on
// testdata/attacks.tsv and testdata/benign.txt. A sentence whose score
// exceeds Threshold is an issue of the attack category most likely for
// it, with Issue.Pattern "classifier", unless an issue of the same
// category from a pattern or intent already overlaps it. A Classifier
// can only be made by DefaultClassifier; its model is shared and
// immutable.
type Classifier struct {
	// Threshold is the score above which a sentence is flagged: a naive
	// Bayes log-likelihood ratio, attack to benign, divided by the square
	// root of the sentence's number of features plus 16 (see
	// bayes.Model.Score). Raising it flags fewer sentences.
	Threshold float64
	model     *bayes.Model
}

// defaultModel decodes weights once, on first use.
var defaultModel = sync.OnceValue(func() *bayes.Model {
	m, err := bayes.Decode(weights)
	if err != nil {
		panic("guard: embedded weights.bin: " + err.Error())
	}
	for _, c := range m.Classes {
		switch Category(c) {
		case MetaOverride, SafetyBypass, SystemPromptDisclosure, RoleReassignment:
		default:
			panic("guard: embedded weights.bin: unknown class " + c)
		}
	}
	return m
})

// DefaultClassifier returns the classifier of the default policy, with
// the threshold chosen by 10-fold cross-validation on the corpora so that
// the intents and the classifier together flag at most 0.5% of the
// benign lines of the folds not fitted on (docs/screening.md gives the
// rates). The first call decodes the embedded weights (about 0.2 ms).
func DefaultClassifier() *Classifier {
	m := defaultModel()
	return &Classifier{Threshold: m.Threshold, model: m}
}

// flagged is the place of an issue of a pattern or intent: its category
// and byte range in the original text.
type flagged struct {
	cat        Category
	start, end int
}

// classify appends to issues an issue for each window of toks whose score
// exceeds c.Threshold and that no issue of the same category in prev or
// from an earlier window overlaps; s is the original text.
func (c *Classifier) classify(s string, toks []token, prev []flagged, issues []Issue) []Issue {
	if c.model == nil {
		panic("guard: classifier was not made by package guard")
	}
	if len(toks) == 0 {
		return issues
	}
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = t.stem
	}
	neg := negatedWords(toks)
	var keys []uint32
	bayes.Windows(len(toks), func(i int) int { return toks[i].sentence }, func(a, b int) {
		keys = bayes.AppendKeys(keys[:0], stems[a:b], neg[a:b])
		score, class := c.model.Score(keys)
		if score <= c.Threshold {
			return
		}
		cat := Category(c.model.Classes[class])
		start, end := toks[a].start, toks[b-1].end
		if overlaps(prev, cat, start, end) {
			return
		}
		prev = append(prev, flagged{cat, start, end})
		m := cut(s[start:end])
		issues = append(issues, Issue{Category: cat, Pattern: classifierName, Offset: start, Match: m,
			Msg: fmt.Sprintf("classifier (%s): score %.2f above %.2f: %q", cat, score, c.Threshold, m)})
	})
	return issues
}

// overlaps reports whether an issue of category cat in issues overlaps
// the byte range [start, end).
func overlaps(issues []flagged, cat Category, start, end int) bool {
	for _, i := range issues {
		if i.cat == cat && i.start < end && start < i.end {
			return true
		}
	}
	return false
}
