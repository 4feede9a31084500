package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every Test* constant is registered once, in the constants' order, with
// what the callers rely on: a design, a scale, a statistic's symbol, a
// title and a doc line, a Run for every test on scores, an evidence name
// and a methods phrase for every acceptance test.
func TestRegistry(t *testing.T) {
	want := []TestName{TestMWU, TestSignedRank, TestBootstrapT, TestWelchT, TestPairedT, TestBrunnerMunzelPermutation, TestFailureIncrease}
	var got []TestName
	for _, s := range Tests() {
		got = append(got, s.Name)
		if s.Scale == "" || s.Statistic == "" || s.Title == "" || s.Doc == "" {
			t.Errorf("%s: scale %q statistic %q title %q doc %q: every one is needed", s.Name, s.Scale, s.Statistic, s.Title, s.Doc)
		}
		if (s.Run == nil) != (s.Name == TestFailureIncrease) {
			t.Errorf("%s: Run nil = %v; only the failure-share test runs on flags, not scores", s.Name, s.Run == nil)
		}
		if s.Uses&UseAcceptance != 0 && (s.Evidence == "" || s.Methods == "") {
			t.Errorf("%s: an acceptance test needs Evidence and Methods, got %q and %q", s.Name, s.Evidence, s.Methods)
		}
		if l, ok := LookupTest(s.Name); !ok || l.Name != s.Name {
			t.Errorf("LookupTest(%q) = %v, %v", s.Name, l.Name, ok)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	if _, ok := LookupTest("auto"); ok {
		t.Error(`"auto" is a choice of the gate, not a registered test`)
	}
	for _, tc := range []struct {
		uses Use
		want []TestName
	}{
		{UseAcceptance, []TestName{TestMWU, TestSignedRank}},
		{UseCompare, []TestName{TestMWU, TestSignedRank}},
		{UseGate, []TestName{TestMWU, TestSignedRank, TestBootstrapT}},
	} {
		if got := TestNames(tc.uses); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TestNames(%d) = %v, want %v", tc.uses, got, tc.want)
		}
	}
}

func TestParseTestName(t *testing.T) {
	for _, tc := range []struct {
		s     string
		uses  Use
		extra []TestName
		want  TestName
		err   string
	}{
		{s: "mwu", uses: UseAcceptance, want: TestMWU},
		{s: "signed-rank", uses: UseCompare, want: TestSignedRank},
		{s: "bootstrap-t", uses: UseGate, want: TestBootstrapT},
		{s: "auto", uses: UseGate, extra: []TestName{"auto"}, want: "auto"},
		{s: "bootstrap-t", uses: UseAcceptance, err: `unknown test "bootstrap-t" (want mwu or signed-rank)`},
		{s: "t-test", uses: UseGate, extra: []TestName{"auto"}, err: `unknown test "t-test" (want auto, mwu, signed-rank or bootstrap-t)`},
		{s: "MWU", uses: UseCompare, err: `unknown test "MWU" (want mwu or signed-rank)`},
		{s: "", uses: UseCompare, err: `unknown test "" (want mwu or signed-rank)`},
		{s: "welch-t", uses: UseGate | UseAcceptance | UseCompare, err: `unknown test "welch-t" (want mwu, signed-rank or bootstrap-t)`},
	} {
		got, err := ParseTestName(tc.s, tc.uses, tc.extra...)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseTestName(%q) = %q, %v; want error %q", tc.s, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTestName(%q) = %q, %v; want %q", tc.s, got, err, tc.want)
		}
	}
	if got := OrList(nil); got != "" {
		t.Errorf("OrList(nil) = %q", got)
	}
	if got := OrList([]TestName{"a"}); got != "a" {
		t.Errorf("OrList(a) = %q", got)
	}
	if got := CommaList([]TestName{"a", "b"}); got != "a, b" {
		t.Errorf("CommaList(a, b) = %q", got)
	}
}

// FuzzParseTestName: a name is accepted only if it is registered with
// the asked use or given as extra, and comes back unchanged; a refused
// name is quoted in the error.
func FuzzParseTestName(f *testing.F) {
	for _, s := range []string{"mwu", "signed-rank", "auto", "welch-t", "", "MWU", "signed-rank "} {
		f.Add(s, uint8(UseGate))
	}
	f.Fuzz(func(t *testing.T, s string, uses uint8) {
		n, err := ParseTestName(s, Use(uses), "auto")
		if err != nil {
			if !strings.Contains(err.Error(), "unknown test ") {
				t.Fatalf("error %q does not say the test is unknown", err)
			}
			return
		}
		if string(n) != s {
			t.Fatalf("ParseTestName(%q) = %q", s, n)
		}
		if spec, ok := LookupTest(n); n != "auto" && (!ok || spec.Uses&Use(uses) == 0) {
			t.Fatalf("%q accepted for uses %d, registered %v with uses %d", s, uses, ok, spec.Uses)
		}
	})
}

// Each registered Run gives, bit for bit, what a direct call of its stats
// function gives on the same data and null value: the registry changes
// no number.
func TestRegistryRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, 30), make([]float64, 30)
	for i := range x {
		y[i] = float64(int(50 + 10*rng.NormFloat64()))
		x[i] = y[i] + float64(int(3+5*rng.NormFloat64()))
	}
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	const null = -2.5
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - y[i]
	}
	shifted := make([]float64, len(x))
	for i := range x {
		shifted[i] = x[i] - null
	}
	dShift := make([]float64, len(d))
	for i := range d {
		dShift[i] = d[i] - null
	}
	seeded := func() *rand.Rand { return rand.New(rand.NewPCG(9, 9)) }
	for _, tc := range []struct {
		name   TestName
		in     TestInput
		direct func() (stat, p float64)
	}{
		{TestMWU, TestInput{X: x, Y: y, Null: null, Alternative: Less}, func() (float64, float64) {
			r, _ := MannWhitneyU(shifted, y, MWUOptions{Alternative: Less})
			return r.U, r.P
		}},
		{TestMWU, TestInput{X: x, Y: y, XSorted: xs, YSorted: ys, Null: null, Alternative: Greater}, func() (float64, float64) {
			r, _ := MannWhitneyU(shifted, y, MWUOptions{Alternative: Greater})
			return r.U, r.P
		}},
		{TestSignedRank, TestInput{X: x, Y: y, Null: null, Alternative: Less}, func() (float64, float64) {
			r, _ := WilcoxonSignedRank(dShift, make([]float64, len(d)), SignedRankOptions{Alternative: Less})
			return r.TPlus, r.P
		}},
		{TestSignedRank, TestInput{X: x, Y: y, Alternative: Greater}, func() (float64, float64) {
			r, _ := WilcoxonSignedRank(x, y, SignedRankOptions{Alternative: Greater})
			return r.TPlus, r.P
		}},
		{TestWelchT, TestInput{X: x, Y: y, Null: null, Alternative: Less}, func() (float64, float64) {
			r, _ := WelchT(x, y, null, Less)
			return r.T, r.P
		}},
		{TestPairedT, TestInput{X: x, Y: y, Null: null, Alternative: Less}, func() (float64, float64) {
			r, _ := PairedT(x, y, null, Less)
			return r.T, r.P
		}},
		{TestBootstrapT, TestInput{X: x, Y: y, Null: null, Alternative: Less, Reps: 199, Rand: seeded()}, func() (float64, float64) {
			r, _ := BootstrapT(x, y, null, Less, 199, seeded())
			return r.T, r.P
		}},
		{TestBootstrapT, TestInput{X: x, Y: y, Paired: true, Null: null, Alternative: Less, Reps: 199, Rand: seeded()}, func() (float64, float64) {
			r, _ := BootstrapT(d, nil, null, Less, 199, seeded())
			return r.T, r.P
		}},
		{TestBrunnerMunzelPermutation, TestInput{X: x, Y: y, Null: 0.4, Alternative: Less, Reps: 199, Rand: seeded()}, func() (float64, float64) {
			r, _ := BrunnerMunzelPermutation(x, y, 0.4, Less, PermutationConfig{Reps: 199, Rand: seeded()})
			return r.T, r.P
		}},
	} {
		spec, _ := LookupTest(tc.name)
		got, err := spec.Run(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		stat, p := tc.direct()
		if got.Statistic != stat || got.P != p {
			t.Errorf("%s (%v): statistic %v p %v, direct call %v %v", tc.name, tc.in.Alternative, got.Statistic, got.P, stat, p)
		}
	}
	spec, _ := LookupTest(TestSignedRank)
	if _, err := spec.Run(TestInput{X: x, Y: y[:29]}); err == nil || !strings.Contains(err.Error(), "a paired test needs pairs") {
		t.Errorf("signed-rank of 30 and 29 observations: err = %v", err)
	}
}

// SmallestP is the exact null probability of the most extreme outcome:
// 1/C(n1+n2, n1) for U, 1/2^n for the signed-rank test; tests without a
// size-only bound have none.
func TestSmallestP(t *testing.T) {
	for _, tc := range []struct {
		name   TestName
		n1, n2 int
		want   float64
	}{
		{TestMWU, 3, 3, 1.0 / 20},
		{TestMWU, 2, 5, 1.0 / 21},
		{TestSignedRank, 4, 4, 1.0 / 16},
		{TestSignedRank, 6, 0, 1.0 / 64},
	} {
		spec, _ := LookupTest(tc.name)
		got, err := spec.SmallestP(tc.n1, tc.n2)
		if err != nil || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s SmallestP(%d, %d) = %v, %v; want %v", tc.name, tc.n1, tc.n2, got, err, tc.want)
		}
	}
	for _, name := range []TestName{TestWelchT, TestPairedT, TestBootstrapT, TestBrunnerMunzelPermutation, TestFailureIncrease} {
		if spec, _ := LookupTest(name); spec.SmallestP != nil {
			t.Errorf("%s has a SmallestP; its p has no size-only bound", name)
		}
	}
}
