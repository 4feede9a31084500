package mutate

import (
	"context"
	"testing"

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
