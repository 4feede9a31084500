package mutate

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"evolve/params"
	"evolve/prompt"
)

// mixedSchema has every kind of parameter.
var mixedSchema = params.Schema{
	{Name: "x", Kind: params.Number, Min: -2, Max: 3, Step: 0.5},
	{Name: "n", Kind: params.Integer, Min: 1, Max: 4, Step: 1},
	{Name: "mode", Kind: params.Enum, Items: []string{"a", "b", "c"}},
	{Name: "order", Kind: params.Ordering, Items: []string{"p", "q", "r", "s"}},
}

var mixedBase = params.Set{
	{Name: "x", Value: params.NumberValue(0)},
	{Name: "n", Value: params.IntegerValue(2)},
	{Name: "mode", Value: params.EnumValue("a")},
	{Name: "order", Value: params.OrderingValue([]string{"p", "q", "r", "s"})},
}

func descriptions(ms []Mutation) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Description
	}
	return out
}

// Random draws K valid, distinct sets different from the incumbent,
// the same for the same seed and generation and others for another.
func TestRandomProposer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema params.Schema
		base   params.Set
		k      int
	}{{"dungeon", schema, base, 4}, {"mixed", mixedSchema, mixedBase, 8}, {"one", mixedSchema, mixedBase, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Incumbent: &prompt.Prompt{PolicyParameters: tc.base}, Schema: tc.schema, K: tc.k}
			propose := func(seed uint64, g int) []Mutation {
				t.Helper()
				ms, err := (&Random{Seed: seed, Generation: g}).Propose(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				return ms
			}
			got := propose(7, 3)
			if len(got) != tc.k {
				t.Fatalf("%d candidates, want %d", len(got), tc.k)
			}
			for i, m := range got {
				if err := tc.schema.Validate(m.Params); err != nil {
					t.Errorf("candidate %d invalid: %v", i, err)
				}
				if m.Params.Equal(tc.base) || m.Operator != OpRandom || !strings.HasPrefix(m.Description, "random draw: ") {
					t.Errorf("candidate %d = %s (%s, %q): want a random draw unlike the incumbent", i, m.Params, m.Operator, m.Description)
				}
				for j := range i {
					if got[j].Params.Equal(m.Params) {
						t.Errorf("candidates %d and %d are equal: %s", j, i, m.Params)
					}
				}
			}
			if again := propose(7, 3); !slices.Equal(descriptions(again), descriptions(got)) {
				t.Errorf("same seed and generation proposed\n%q\nthen\n%q", descriptions(got), descriptions(again))
			}
			if other := propose(7, 4); slices.Equal(descriptions(other), descriptions(got)) {
				t.Error("generation 4 proposed what generation 3 did")
			}
			if other := propose(8, 3); slices.Equal(descriptions(other), descriptions(got)) {
				t.Error("seed 8 proposed what seed 7 did")
			}
		})
	}
}

// Over many draws Random covers each kind's whole range uniformly
// enough: every integer, enum item and first item of the ordering
// appears with a share near 1/m, and numbers fill [Min, Max] (mean near
// the middle), never leaving it.
func TestRandomUniform(t *testing.T) {
	req := Request{Incumbent: &prompt.Prompt{PolicyParameters: mixedBase}, Schema: mixedSchema, K: 50}
	ints, modes, firsts := map[int]int{}, map[string]int{}, map[string]int{}
	sum, n := 0.0, 0
	for g := range 40 {
		ms, err := (&Random{Seed: 1, Generation: g}).Propose(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			x := m.Params.Number("x")
			if x < -2 || x > 3 {
				t.Fatalf("x = %v outside [-2, 3]", x)
			}
			sum += x
			n++
			ints[m.Params.Int("n")]++
			modes[m.Params.Enum("mode")]++
			firsts[m.Params.Ordering("order")[0]]++
		}
	}
	if mean := sum / float64(n); math.Abs(mean-0.5) > 0.15 {
		t.Errorf("mean x = %.3f over %d draws, want 0.5 ± 0.15", mean, n)
	}
	check := func(name string, counts map[string]int, m int) {
		if len(counts) != m {
			t.Errorf("%s: %d distinct values %v, want %d", name, len(counts), counts, m)
		}
		for v, c := range counts {
			if share := float64(c) / float64(n); math.Abs(share-1/float64(m)) > 0.05 {
				t.Errorf("%s = %s: share %.3f, want %.3f ± 0.05", name, v, share, 1/float64(m))
			}
		}
	}
	intCounts := map[string]int{}
	for k, c := range ints {
		intCounts[params.FormatNumber(float64(k))] = c
	}
	check("n", intCounts, 4)
	check("mode", modes, 3)
	check("order[0]", firsts, 4)
}

// CMAES proposes K valid candidates that change only the numeric
// parameters, deterministically for a seed and history; the history
// moves its samples; a history of the wrong length is an error.
func TestCMAESProposer(t *testing.T) {
	inc := mixedBase.With("mode", params.EnumValue("c")).With("order", params.OrderingValue([]string{"s", "r", "q", "p"}))
	req := Request{Incumbent: &prompt.Prompt{PolicyParameters: inc}, Schema: mixedSchema, K: 4}
	propose := func(c *CMAES) []Mutation {
		t.Helper()
		ms, err := c.Propose(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	hist := [][]float64{{1, 5, 3, 2}, {4, math.NaN(), 0, 6}}
	got := propose(&CMAES{Seed: 3, Start: mixedBase, History: hist})
	if len(got) != 4 {
		t.Fatalf("%d candidates, want 4", len(got))
	}
	for i, m := range got {
		if err := mixedSchema.Validate(m.Params); err != nil {
			t.Errorf("candidate %d invalid: %v", i, err)
		}
		if m.Params.Enum("mode") != "c" || !slices.Equal(m.Params.Ordering("order"), []string{"s", "r", "q", "p"}) {
			t.Errorf("candidate %d = %s: want the incumbent's mode and order", i, m.Params)
		}
		if m.Operator != OpCMAES || m.Reorder {
			t.Errorf("candidate %d: operator %q reorder %v, want cmaes, false", i, m.Operator, m.Reorder)
		}
	}
	if again := propose(&CMAES{Seed: 3, Start: mixedBase, History: hist}); !slices.Equal(descriptions(again), descriptions(got)) {
		t.Errorf("same seed and history proposed\n%q\nthen\n%q", descriptions(got), descriptions(again))
	}
	if other := propose(&CMAES{Seed: 3, Start: mixedBase, History: hist[:1]}); slices.Equal(descriptions(other), descriptions(got)) {
		t.Error("a shorter history proposed the same samples")
	}
	if other := propose(&CMAES{Seed: 4, Start: mixedBase, History: hist}); slices.Equal(descriptions(other), descriptions(got)) {
		t.Error("seed 4 proposed what seed 3 did")
	}
	_, err := (&CMAES{Seed: 3, Start: mixedBase, History: [][]float64{{1, 2, 3}}}).Propose(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "generation 0 recorded 3 candidates") {
		t.Errorf("err = %v, want the history's bad length named", err)
	}
	req.K = 1
	if _, err := (&CMAES{Seed: 3, Start: mixedBase}).Propose(context.Background(), req); err == nil || !strings.Contains(err.Error(), "candidates >= 2") {
		t.Errorf("K = 1: err = %v, want candidates >= 2", err)
	}
}

// CMA-ES improves: told the val means of a concave objective peaked at
// x = 2.5, n = 3 (near the box's corner: (0.9, 0.67) normalised), its
// samples' mean moves from the start towards the peak.
func TestCMAESConverges(t *testing.T) {
	req := Request{Incumbent: &prompt.Prompt{PolicyParameters: mixedBase}, Schema: mixedSchema, K: 6}
	score := func(s params.Set) float64 {
		dx, dn := s.Number("x")-2.5, float64(s.Int("n")-3)
		return 100 - dx*dx - dn*dn
	}
	c := &CMAES{Seed: 11, Start: mixedBase}
	var first, last float64
	for g := range 25 {
		ms, err := c.Propose(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 6 {
			t.Fatalf("generation %d: %d candidates, want 6", g, len(ms))
		}
		means := make([]float64, len(ms))
		sum := 0.0
		for i, m := range ms {
			means[i] = score(m.Params)
			sum += m.Params.Number("x")
		}
		if g == 0 {
			first = sum / 6
		}
		last = sum / 6
		c.History = append(c.History, means)
	}
	t.Logf("mean x of the samples: generation 0 %.3f, generation 24 %.3f", first, last)
	if !(math.Abs(last-2.5) < 0.3) || !(math.Abs(first-2.5) > 1) {
		t.Errorf("mean x of the samples: generation 0 %.3f, generation 24 %.3f; want it to move from about 0 to 2.5 ± 0.3", first, last)
	}
}

// CheckProposer accepts the three families and refuses others by name.
func TestCheckProposer(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    int
		sc   params.Schema
		want string
	}{
		{"", 1, schema, ""}, {"failure", 1, schema, ""}, {"random", 1, schema, ""}, {"cmaes", 2, schema, ""},
		{"cmaes", 1, schema, "candidates >= 2"},
		{"cmaes", 4, params.Schema{mixedSchema[2]}, "the schema has none"},
		{"bayes", 4, schema, `"bayes" is not one of failure, random, cmaes`},
	} {
		err := CheckProposer(tc.name, tc.k, tc.sc)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckProposer(%q, %d) = %v, want %q", tc.name, tc.k, err, tc.want)
		}
	}
}

// reflect folds a coordinate into [0, 1] at the bounds.
func TestReflect(t *testing.T) {
	for _, tc := range [][2]float64{{0.3, 0.3}, {1.2, 0.8}, {-0.3, 0.3}, {2.4, 0.4}, {-1.5, 0.5}, {1, 1}, {0, 0}, {3, 1}} {
		if got := reflect(tc[0]); math.Abs(got-tc[1]) > 1e-12 {
			t.Errorf("reflect(%v) = %v, want %v", tc[0], got, tc[1])
		}
	}
}
