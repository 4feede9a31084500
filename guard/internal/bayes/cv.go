package bayes

import (
	"fmt"
	"math"
	"slices"
)

// Rate is a count out of a total.
type Rate struct {
	// Hit is the count, in [0, N].
	Hit int
	// N is the total.
	N int
}

// Frac returns Hit/N, or 0 if N is 0.
func (r Rate) Frac() float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.Hit) / float64(r.N)
}

// String formats r as "HIT/N (PERCENT%)".
func (r Rate) String() string { return fmt.Sprintf("%d/%d (%.1f%%)", r.Hit, r.N, 100*r.Frac()) }

func (r *Rate) add(hit bool) {
	r.N++
	if hit {
		r.Hit++
	}
}

// Tally counts one set of texts judged at one threshold.
type Tally struct {
	// Caught counts the attacks flagged by the rules or the classifier,
	// with an issue of any class; CaughtClass those flagged with an issue
	// of their own class.
	Caught, CaughtClass Rate
	// Flagged counts the benign texts flagged by the rules or the
	// classifier.
	Flagged Rate
	// RulesCaught and RulesFlagged count the attacks and benign texts the
	// rules alone flag; ModelCaught and ModelFlagged those the classifier
	// alone flags (a sentence above the threshold).
	RulesCaught, RulesFlagged, ModelCaught, ModelFlagged Rate
	// ByClass[c] counts the attacks of class c flagged with an issue of
	// class c, and RulesByClass[c] those the rules alone flag so;
	// len(ByClass) == len(RulesByClass) is the number of classes.
	ByClass, RulesByClass []Rate
}

func newTally(classes int) Tally {
	return Tally{ByClass: make([]Rate, classes), RulesByClass: make([]Rate, classes)}
}

func (t *Tally) add(o Tally) {
	for _, p := range [][2]*Rate{{&t.Caught, &o.Caught}, {&t.CaughtClass, &o.CaughtClass},
		{&t.Flagged, &o.Flagged}, {&t.RulesCaught, &o.RulesCaught}, {&t.RulesFlagged, &o.RulesFlagged},
		{&t.ModelCaught, &o.ModelCaught}, {&t.ModelFlagged, &o.ModelFlagged}} {
		p[0].Hit += p[1].Hit
		p[0].N += p[1].N
	}
	for c := range o.ByClass {
		t.ByClass[c].Hit += o.ByClass[c].Hit
		t.ByClass[c].N += o.ByClass[c].N
		t.RulesByClass[c].Hit += o.RulesByClass[c].Hit
		t.RulesByClass[c].N += o.RulesByClass[c].N
	}
}

// Fold is the result of one fold of CrossValidate.
type Fold struct {
	// Threshold is the threshold chosen on the out-of-fold scores of the
	// benign texts of the other folds.
	Threshold float64
	// Tally judges the texts of the fold, with the model fitted without
	// them, at Threshold.
	Tally
}

// CV is the result of CrossValidate.
type CV struct {
	// Threshold is the threshold chosen on the out-of-fold scores of all
	// benign texts: the one to ship with the model fitted on all texts.
	Threshold float64
	// Folds are the folds, in order; len(Folds) == Config.Folds.
	Folds []Fold
	// Total is the sum of the folds' tallies.
	Total Tally
}

// sentence is the out-of-fold verdict on one sentence.
type sentence struct {
	score float64
	class int
}

// CrossValidate estimates how the rules and a model fitted by Fit do
// together on texts the model was not fitted on, by k-fold
// cross-validation (Hastie, Tibshirani and Friedman, The Elements of
// Statistical Learning, 2nd ed., 2009, section 7.10): example e falls in
// fold e.Group mod k; for each fold, a model is fitted on the other
// folds and scores each sentence of the fold's texts.
//
// A text is flagged if the rules flag it (Example.Flagged) or a sentence
// scores above the threshold; it is flagged with its class if the rules
// flag it with its class or such a sentence's class is its own. The
// threshold is the least one at which at most MaxFalsePositive of the
// benign texts are flagged (see threshold); each fold is judged at the
// threshold chosen on the other folds' benign texts, so its rates do not
// depend on its own benign texts, and CV.Threshold is chosen on all of
// them. It panics as Fit does, or if cfg.Folds < 2.
func CrossValidate(examples []Example, classes []string, cfg Config) CV {
	k := cfg.Folds
	if k < 2 {
		panic("bayes: CrossValidate: Folds < 2")
	}
	fold := make([]int, len(examples))
	for i, e := range examples {
		fold[i] = int(e.Group % uint32(k))
	}
	oof := make([][]sentence, len(examples))
	for f := range k {
		var train []Example
		for i, e := range examples {
			if fold[i] != f {
				train = append(train, e)
			}
		}
		m := Fit(train, classes, cfg)
		for i, e := range examples {
			if fold[i] == f {
				oof[i] = make([]sentence, len(e.Sentences))
				for j, s := range e.Sentences {
					oof[i][j].score, oof[i][j].class = m.Score(s)
				}
			}
		}
	}
	benignIn := func(keep func(f int) bool) float64 {
		var scores []float64
		rules, n := 0, 0
		for i, e := range examples {
			if e.Class >= 0 || !keep(fold[i]) {
				continue
			}
			n++
			if e.Flagged {
				rules++
			} else {
				scores = append(scores, maxScore(oof[i]))
			}
		}
		return threshold(scores, rules, n, cfg.MaxFalsePositive)
	}
	cv := CV{
		Threshold: benignIn(func(int) bool { return true }),
		Folds:     make([]Fold, k),
		Total:     newTally(len(classes)),
	}
	for f := range k {
		fd := Fold{Threshold: benignIn(func(g int) bool { return g != f }), Tally: newTally(len(classes))}
		for i, e := range examples {
			if fold[i] == f {
				fd.judge(e, oof[i])
			}
		}
		cv.Folds[f] = fd
		cv.Total.add(fd.Tally)
	}
	return cv
}

// Judge judges the examples with m at threshold, as CrossValidate judges
// a fold: for texts m was not fitted on, such as a held-out set.
func Judge(m *Model, threshold float64, examples []Example) Tally {
	fd := Fold{Threshold: threshold, Tally: newTally(len(m.Classes))}
	for _, e := range examples {
		s := make([]sentence, len(e.Sentences))
		for j, keys := range e.Sentences {
			s[j].score, s[j].class = m.Score(keys)
		}
		fd.judge(e, s)
	}
	return fd.Tally
}

// judge adds the verdict on e, whose sentences scored s, to fd.Tally.
func (fd *Fold) judge(e Example, s []sentence) {
	model, modelClass := false, false
	for _, x := range s {
		if x.score > fd.Threshold {
			model = true
			modelClass = modelClass || x.class == e.Class
		}
	}
	t := &fd.Tally
	if e.Class < 0 {
		t.Flagged.add(e.Flagged || model)
		t.RulesFlagged.add(e.Flagged)
		t.ModelFlagged.add(model)
		return
	}
	t.Caught.add(e.Flagged || model)
	t.CaughtClass.add(e.FlaggedClass || modelClass)
	t.ByClass[e.Class].add(e.FlaggedClass || modelClass)
	t.RulesByClass[e.Class].add(e.FlaggedClass)
	t.RulesCaught.add(e.Flagged)
	t.ModelCaught.add(model)
}

// maxScore returns the highest score of s, or -Inf if s is empty.
func maxScore(s []sentence) float64 {
	m := math.Inf(-1)
	for _, x := range s {
		m = max(m, x.score)
	}
	return m
}

// threshold returns the least threshold t (a text is flagged when a
// sentence scores above t) at which at most maxFP·n of n benign texts
// are flagged, given that rules of them are flagged by the rules and the
// others' best sentences scored scores. It is one of scores, or +Inf if
// the rules alone flag more than maxFP·n texts or scores is empty.
func threshold(scores []float64, rules, n int, maxFP float64) float64 {
	allow := int(math.Floor(maxFP*float64(n))) - rules
	if allow < 0 || len(scores) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(scores)
	slices.Sort(s)
	slices.Reverse(s)
	return s[min(allow, len(s)-1)]
}
