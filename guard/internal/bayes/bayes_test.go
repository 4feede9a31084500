package bayes

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// toy is a corpus of four texts: two attacks of class 0 and 1, two benign.
func toy() []Example {
	k := func(words ...string) []uint32 { return AppendKeys(nil, words, make([]bool, len(words))) }
	return []Example{
		{Sentences: [][]uint32{k("ignor", "rule")}, Class: 0, Group: 0},
		{Sentences: [][]uint32{k("reveal", "prompt")}, Class: 1, Group: 1},
		{Sentences: [][]uint32{k("ignor", "monster")}, Class: -1, Group: 2},
		{Sentences: [][]uint32{k("read", "scroll")}, Class: -1, Group: 3},
	}
}

// TestFit checks Fit against the multinomial naive Bayes estimates of
// Manning et al. (2008, eq. 13.7 with α for 1), computed by hand for the
// toy corpus: 11 distinct keys (7 words, 4 pairs); attacks have 6 key
// occurrences, benign texts 6. The tolerance is the rounding to 1/Scale.
func TestFit(t *testing.T) {
	cfg := Config{Alpha: 0.5, PriorKeys: 0, Folds: 2}
	m := Fit(toy(), []string{"a", "b"}, cfg)
	if len(m.Keys) != 11 {
		t.Fatalf("%d keys, want 11", len(m.Keys))
	}
	a, v := 0.5, 11.0
	ignor := AppendKeys(nil, []string{"ignor"}, []bool{false})[0]
	rule := AppendKeys(nil, []string{"rule"}, []bool{false})[0]
	i, _ := slices.BinarySearch(m.Keys, ignor)
	j, _ := slices.BinarySearch(m.Keys, rule)
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"Attack[ignor]", float64(m.Attack[i]) / Scale, math.Log((1+a)/(6+a*v)) - math.Log((1+a)/(6+a*v))},
		{"Attack[rule]", float64(m.Attack[j]) / Scale, math.Log((1+a)/(6+a*v)) - math.Log(a/(6+a*v))},
		{"Bias", float64(m.Bias) / Scale, math.Log(2.0 / 2.0)},
		{"Class[0][rule]", float64(m.Class[0][j]) / Scale, math.Log(1 + 1/a)},
		{"Class[1][rule]", float64(m.Class[1][j]) / Scale, 0},
		{"Prior[0]", float64(m.Prior[0]) / Scale, math.Log(0.5)},
		{"Unseen[0]", float64(m.Unseen[0]) / Scale, math.Log(a / (3 + a*v))},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 0.5/Scale {
			t.Errorf("%s = %v, want %v ± %v", tt.name, tt.got, tt.want, 0.5/Scale)
		}
	}
	// "ignore the rules" against "reveal the prompt": class 0 wins.
	s, c := m.Score(AppendKeys(nil, []string{"ignor", "rule"}, []bool{false, false}))
	if c != 0 || !(s > 0) {
		t.Errorf("Score(ignor rule) = %v, %d; want > 0, class 0", s, c)
	}
	if s, c := m.Score(nil); s != 0 || c != 0 {
		t.Errorf("Score(nil) = %v, %d; want Bias 0, class 0", s, c)
	}
}

// TestAppendKeys checks that negation and pairs give distinct keys.
func TestAppendKeys(t *testing.T) {
	plain := AppendKeys(nil, []string{"reveal", "prompt"}, []bool{false, false})
	neg := AppendKeys(nil, []string{"reveal", "prompt"}, []bool{true, false})
	if len(plain) != 3 || len(neg) != 3 {
		t.Fatalf("got %d and %d keys, want 3 (two words, one pair)", len(plain), len(neg))
	}
	if plain[0] == neg[0] || plain[2] == neg[2] || plain[1] != neg[1] {
		t.Errorf("keys %x and %x: a negated word and its pair must differ, the other word must not", plain, neg)
	}
	if AppendKeys(nil, []string{"ab"}, []bool{false})[0] == AppendKeys(nil, []string{"a", "b"}, []bool{false, false})[2] {
		t.Error("the word \"ab\" and the pair \"a b\" have one key")
	}
}

func TestWindows(t *testing.T) {
	sent := make([]int, 0, 100)
	for range 3 {
		sent = append(sent, 0)
	}
	for range 90 {
		sent = append(sent, 1)
	}
	sent = append(sent, 2)
	var got [][2]int
	Windows(len(sent), func(i int) int { return sent[i] }, func(a, b int) { got = append(got, [2]int{a, b}) })
	want := [][2]int{{0, 3}, {3, 43}, {23, 63}, {43, 83}, {63, 93}, {93, 94}}
	if !slices.Equal(got, want) {
		t.Errorf("Windows = %v, want %v", got, want)
	}
}

func TestEncodeDecode(t *testing.T) {
	m := Fit(toy(), []string{"meta_override", "role_reassignment"}, Config{Alpha: 0.1, PriorKeys: 16})
	m.Threshold = 1.25
	data := m.Encode()
	d, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Encode(), data) || d.Threshold != 1.25 || d.PriorKeys != 16 || !slices.Equal(d.Classes, m.Classes) {
		t.Errorf("Decode(Encode(m)) differs from m")
	}
	for _, e := range toy() {
		s1, c1 := m.Score(e.Sentences[0])
		s2, c2 := d.Score(e.Sentences[0])
		if s1 != s2 || c1 != c2 {
			t.Errorf("decoded model scores %v, %d; want %v, %d", s2, c2, s1, c1)
		}
	}
	bad := map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("GUARDNB0"), data[8:]...),
		"truncated": data[:len(data)-1],
		"trailing":  append(slices.Clone(data), 0),
	}
	for name, b := range bad {
		if _, err := Decode(b); !errors.Is(err, ErrFormat) {
			t.Errorf("Decode(%s) error %v, want ErrFormat", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Fit(toy(), []string{"a", "b"}, Config{Alpha: 0.1}).Encode())
	f.Add([]byte("GUARDNB1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not match ErrFormat", err)
			}
			return
		}
		if !slices.Equal(m.Encode(), data) {
			t.Fatal("Encode(Decode(data)) != data")
		}
		m.Score([]uint32{1, 2, 3})
	})
}

func TestThreshold(t *testing.T) {
	scores := []float64{3, -1, 2, 0.5, 1}
	tests := []struct {
		rules, n int
		maxFP    float64
		want     float64
	}{
		{0, 200, 0.005, 2},           // one flag allowed: only 3 > 2
		{0, 400, 0.005, 1},           // two allowed
		{1, 200, 0.005, 3},           // the rules used the one allowed
		{2, 200, 0.005, math.Inf(1)}, // the rules alone exceed it
		{0, 200, 1, -1},              // all allowed: all but the lowest
	}
	for _, tt := range tests {
		if got := threshold(scores, tt.rules, tt.n, tt.maxFP); got != tt.want {
			t.Errorf("threshold(rules %d, n %d, %v) = %v, want %v", tt.rules, tt.n, tt.maxFP, got, tt.want)
		}
	}
}

// TestCrossValidate checks the bookkeeping on two copies of the toy
// corpus, one a fold: every text is judged once, by a model fitted on the
// other copy.
func TestCrossValidate(t *testing.T) {
	ex := append(toy(), toy()...)
	for i := range ex {
		ex[i].Group = uint32(i / 4)
	}
	cv := CrossValidate(ex, []string{"a", "b"}, Config{Alpha: 0.5, Folds: 2, MaxFalsePositive: 0.5})
	if len(cv.Folds) != 2 || cv.Total.Caught.N != 4 || cv.Total.Flagged.N != 4 || cv.Total.ByClass[0].N != 2 {
		t.Errorf("CV totals %+v", cv.Total)
	}
	if cv.Total.Flagged.Hit > 2 {
		t.Errorf("flagged %v benign texts, want at most half", cv.Total.Flagged)
	}
}
