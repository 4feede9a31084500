package mutate

import (
	"context"
	"testing"

	"evolve/params"
	"evolve/prompt"
)

// Composed without a rule library is the structured proposer; after a
// stalled generation it gives the next k of the longer list, and nothing
// when the list is exhausted.
func TestComposedStructured(t *testing.T) {
	a := analysis(map[string]int{"entrapment": 40, "injury": 30, "combat_loss": 15, "starvation": 5, "none": 10})
	inc := &prompt.Prompt{PolicyParameters: base}
	c := &Composed{Remedies: info.Remedies, Fill: info.Fill}
	all, err := Propose(a, base, schema, Config{Candidates: 12}, info.Remedies, info.Fill)
	if err != nil {
		t.Fatal(err)
	}
	for stall := range 4 {
		got, err := c.Propose(context.Background(), Request{Analysis: a, Incumbent: inc, Schema: schema, K: 4, Stall: stall})
		if err != nil {
			t.Fatal(err)
		}
		var want []Mutation
		if 4*stall < len(all) {
			want = all[4*stall : min(len(all), 4*stall+4)]
		}
		if len(got) != len(want) {
			t.Fatalf("stall %d: %d mutations, want %d", stall, len(got), len(want))
		}
		for i := range got {
			if got[i].Description != want[i].Description {
				t.Errorf("stall %d: mutation %d = %q, want %q", stall, i, got[i].Description, want[i].Description)
			}
		}
	}
}

// The model's rule goes after the library's rule additions, at most at
// the k-th place, and the list is cut to n.
func TestInsertLLMRule(t *testing.T) {
	m := func(op string) Mutation { return Mutation{Operator: op} }
	llm := m(OpLLMRule)
	ops := func(ms []Mutation) (s []string) {
		for _, x := range ms {
			s = append(s, x.Operator)
		}
		return s
	}
	for _, tc := range []struct {
		in   []Mutation
		k, n int
		want []string
	}{
		{[]Mutation{m(OpAddRule), m(OpAdjust), m(OpAdjust)}, 4, 4, []string{OpAddRule, OpLLMRule, OpAdjust, OpAdjust}},
		{[]Mutation{m(OpAddRule), m(OpAddRule), m(OpAddRule), m(OpAddRule)}, 4, 4, []string{OpAddRule, OpAddRule, OpAddRule, OpLLMRule}},
		{[]Mutation{m(OpAdjust), m(OpAdjust)}, 2, 4, []string{OpLLMRule, OpAdjust, OpAdjust}},
		{nil, 4, 4, []string{OpLLMRule}},
	} {
		got := ops(insertLLMRule(tc.in, &llm, tc.k, tc.n))
		if len(got) != len(tc.want) {
			t.Errorf("%v k=%d n=%d: %v, want %v", ops(tc.in), tc.k, tc.n, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v k=%d n=%d: %v, want %v", ops(tc.in), tc.k, tc.n, got, tc.want)
				break
			}
		}
	}
	if got := insertLLMRule([]Mutation{m(OpAdjust)}, nil, 4, 4); len(got) != 1 {
		t.Errorf("no rule: %v", ops(got))
	}
}

// The proposer never simply undoes the incumbent's last accepted change:
// with the parent known, a candidate that sets risk_tolerance back to the
// parent's value is proposed only when the incumbent scores lower than
// its parent on the train seeds; the other candidates fill its place.
func TestComposedNoUndo(t *testing.T) {
	parent := base.With("risk_tolerance", params.NumberValue(0.2))
	incumbent := parent.With("risk_tolerance", params.NumberValue(0.4)) // the accepted "risk_tolerance+"
	inc := &prompt.Prompt{PolicyParameters: incumbent}
	a := analysis(map[string]int{"combat_loss": 20, "injury": 10, "none": 10})
	incTrain := []float64{120, 80, 100}
	c := &Composed{Remedies: info.Remedies, Fill: info.Fill}
	for _, tc := range []struct {
		name        string
		parent      params.Set
		parentTrain []float64
		wantUndone  bool
	}{
		{"no parent (a base version)", nil, nil, true},
		{"parent, its train scores unknown", parent, nil, false},
		{"parent scored lower on train", parent, []float64{90, 70, 80}, false},
		{"parent scored the same on train", parent, []float64{100, 100, 100}, false},
		{"parent scored higher on train", parent, []float64{150, 90, 100}, true},
	} {
		got, err := c.Propose(context.Background(), Request{Analysis: a, Incumbent: inc, Schema: schema, K: 4,
			Parent: tc.parent, TrainScores: incTrain, ParentTrainScores: tc.parentTrain})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 {
			t.Errorf("%s: %d candidates, want 4", tc.name, len(got))
		}
		undone := false
		for _, m := range got {
			if m.Params.Number("risk_tolerance") == 0.2 {
				undone = true
				if m.Cause != "combat_loss" {
					t.Errorf("%s: the undo %q answers %q, want combat_loss", tc.name, m.Description, m.Cause)
				}
			}
		}
		if undone != tc.wantUndone {
			t.Errorf("%s: risk_tolerance back to 0.2 proposed = %v, want %v (%v)", tc.name, undone, tc.wantUndone, descriptions(got))
		}
	}
}

func TestUndoes(t *testing.T) {
	parent := base.With("risk_tolerance", params.NumberValue(0.2))
	inc := parent.With("risk_tolerance", params.NumberValue(0.4))
	for _, tc := range []struct {
		name   string
		m      Mutation
		parent params.Set
		want   bool
	}{
		{"back to the parent's value", Mutation{Params: inc.With("risk_tolerance", params.NumberValue(0.2))}, parent, true},
		{"further on", Mutation{Params: inc.With("risk_tolerance", params.NumberValue(0.6))}, parent, false},
		{"another parameter", Mutation{Params: inc.With("health_threshold", params.NumberValue(0.9))}, parent, false},
		{"no parent", Mutation{Params: inc.With("risk_tolerance", params.NumberValue(0.2))}, nil, false},
		{"a text mutation", Mutation{TextEdit: true}, parent, false},
	} {
		if got := Undoes(tc.m, inc, tc.parent); got != tc.want {
			t.Errorf("%s: Undoes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
