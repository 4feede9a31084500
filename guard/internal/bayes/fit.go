package bayes

import (
	"math"
	"slices"
)

// Example is one labelled text of a corpus.
type Example struct {
	// Sentences holds the feature keys of each sentence of the text (see
	// AppendKeys); a text with no words has none.
	Sentences [][]uint32
	// Class is the index of the text's attack class in the classes given
	// to Fit, or -1 for a benign text.
	Class int
	// Group puts examples in folds: examples with equal Group fall in
	// the same fold, so that copies of one text (an attack and its
	// obfuscated copies, which read the same once normalized) are never
	// split between training and test.
	Group uint32
	// Flagged says the rules flag the text; FlaggedClass says they flag
	// it with an issue of its Class.
	Flagged, FlaggedClass bool
}

// Config holds the tunables of Fit and CrossValidate.
type Config struct {
	// Alpha is the Lidstone smoothing pseudo-count α added to every
	// key's count in each class (Manning et al. 2008, eq. 13.7, with α
	// for 1); > 0.
	Alpha float64
	// Folds is the number of folds k of CrossValidate; >= 2.
	Folds int
	// PriorKeys is Model.PriorKeys, in [0, 65535].
	PriorKeys int
	// MaxFalsePositive is the largest share, in [0, 1], of benign texts
	// that the rules and the classifier together may flag, at which
	// CrossValidate sets the threshold.
	MaxFalsePositive float64
}

// DefaultConfig is the Config of the committed weights: α = 0.1, 16
// prior keys, 10 folds, at most 0.5% of benign texts flagged. α was
// picked among 0.03, 0.1, 0.3 and 1 by cross-validated detection at 0.5%
// false positives, so the rates it gives are slightly optimistic;
// PriorKeys among 0, 4, 8, 16 and 32 by the false positives on the
// repo's own prose outside the corpora (one-word sentences such as
// "request" scored high at 0), where the corpora's rates barely moved.
var DefaultConfig = Config{Alpha: 0.1, PriorKeys: 16, Folds: 10, MaxFalsePositive: 0.005}

// quantize returns round(w·Scale) as an int16, clamped to its range.
func quantize(w float64) int16 {
	return int16(max(math.MinInt16, min(math.MaxInt16, math.Round(w*Scale))))
}

// quantize32 returns round(w·Scale) as an int32, clamped to its range.
func quantize32(w float64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, math.Round(w*Scale))))
}

// Fit fits a multinomial naive Bayes model (Manning et al. 2008, section
// 13.2) on the examples, each one bag of the keys of all its sentences:
// a binary model, attack (Class >= 0) against benign, and a model of the
// attack classes, fitted on the attacks only. With V the number of
// distinct keys, n_A(k) and n_B(k) the counts of key k in the attacks
// and the benign texts, and T_A, T_B their totals,
//
//	Attack[k] = log((n_A(k)+α)/(T_A+αV)) − log((n_B(k)+α)/(T_B+αV))
//	Bias      = log(attacks/benign texts)
//
// and for class c, with n_c(k) and T_c its counts,
//
//	Class[c][k] = log(1 + n_c(k)/α), Unseen[c] = log(α/(T_c+αV)),
//	Prior[c] = log(attacks of class c / attacks).
//
// Every value is rounded to a multiple of 1/Scale. Threshold is 0. Fit
// is deterministic: counts are exact and the only other operations are
// logarithms, rounded to 1/1024, so the result is the same on every
// platform unless a logarithm differs by an ulp right at a rounding
// boundary (math.Log is assembly on amd64 and s390x). It panics if an
// example's Class is outside [-1, len(classes)), if classes is empty,
// if a class or either side has no example, or if cfg is invalid.
func Fit(examples []Example, classes []string, cfg Config) *Model {
	nc := len(classes)
	if nc == 0 || !(cfg.Alpha > 0) || cfg.PriorKeys < 0 || cfg.PriorKeys > math.MaxUint16 {
		panic("bayes: Fit: no classes, Alpha <= 0 or PriorKeys out of range")
	}
	var keys []uint32
	for _, e := range examples {
		if e.Class < -1 || e.Class >= nc {
			panic("bayes: Fit: class out of range")
		}
		for _, s := range e.Sentences {
			keys = append(keys, s...)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	idx := func(k uint32) int { i, _ := slices.BinarySearch(keys, k); return i }

	nA, nB := make([]float64, len(keys)), make([]float64, len(keys))
	nC := make([][]float64, nc)
	for c := range nC {
		nC[c] = make([]float64, len(keys))
	}
	var tA, tB float64
	tC := make([]float64, nc)
	docsA, docsB := 0, 0
	docsC := make([]int, nc)
	for _, e := range examples {
		if e.Class < 0 {
			docsB++
		} else {
			docsA++
			docsC[e.Class]++
		}
		for _, s := range e.Sentences {
			for _, k := range s {
				i := idx(k)
				if e.Class < 0 {
					nB[i]++
					tB++
				} else {
					nA[i]++
					tA++
					nC[e.Class][i]++
					tC[e.Class]++
				}
			}
		}
	}
	if docsA == 0 || docsB == 0 || slices.Contains(docsC, 0) {
		panic("bayes: Fit: a class or side has no example")
	}
	a, v := cfg.Alpha, float64(len(keys))
	m := &Model{
		Classes:   slices.Clone(classes),
		Keys:      keys,
		Attack:    make([]int16, len(keys)),
		Bias:      quantize32(math.Log(float64(docsA) / float64(docsB))),
		PriorKeys: cfg.PriorKeys,
		Class:     make([][]int16, nc),
		Prior:     make([]int32, nc),
		Unseen:    make([]int32, nc),
	}
	for i := range keys {
		m.Attack[i] = quantize(math.Log((nA[i]+a)/(tA+a*v)) - math.Log((nB[i]+a)/(tB+a*v)))
	}
	for c := range nc {
		m.Class[c] = make([]int16, len(keys))
		for i := range keys {
			m.Class[c][i] = quantize(math.Log1p(nC[c][i] / a))
		}
		m.Prior[c] = quantize32(math.Log(float64(docsC[c]) / float64(docsA)))
		m.Unseen[c] = quantize32(math.Log(a / (tC[c] + a*v)))
	}
	m.index()
	return m
}
