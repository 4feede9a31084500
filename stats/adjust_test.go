package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdjustOracle compares Adjust with R 4.2.2 p.adjust (oracle key
// p_adjust_R) to tolOracle (the values agree to ~1e-16).
func TestAdjustOracle(t *testing.T) {
	o := loadOracle(t).PAdjust
	p := o["p"]
	for _, tc := range []struct {
		key string
		m   Correction
	}{
		{"holm", Holm}, {"hochberg", Hochberg}, {"BH", BH}, {"BY", BY}, {"bonferroni", Bonferroni},
	} {
		t.Run(tc.key, func(t *testing.T) {
			want, ok := o[tc.key]
			if !ok {
				t.Fatalf("oracle key %q missing", tc.key)
			}
			got, err := Adjust(p, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !near(got[i], want[i], tolOracle) {
					t.Errorf("[%d] = %.17g, want %.17g", i, got[i], want[i])
				}
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		got, _ := Adjust(p, None)
		for i := range p {
			if got[i] != p[i] {
				t.Errorf("[%d] = %v, want %v", i, got[i], p[i])
			}
		}
	})
}

// TestAdjustProperties: adjusted >= raw, in [0, 1], Bonferroni >= Holm >=
// Hochberg >= BH, and BY >= BH, on seeded random vectors with ties.
func TestAdjustProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		n := 1 + rng.IntN(30)
		p := make([]float64, n)
		for i := range p {
			p[i] = math.Round(rng.Float64()*50) / 50 // ties
		}
		res := map[Correction][]float64{}
		for c := None; c <= BY; c++ {
			adj, err := Adjust(p, c)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range adj {
				if v < p[i]-1e-15 || v < 0 || v > 1 {
					t.Fatalf("trial %d %v: adj[%d] = %v for p = %v", trial, c, i, v, p[i])
				}
			}
			res[c] = adj
		}
		for i := range p {
			const eps = 1e-12
			if res[Bonferroni][i] < res[Holm][i]-eps || res[Holm][i] < res[Hochberg][i]-eps ||
				res[Hochberg][i] < res[BH][i]-eps || res[BY][i] < res[BH][i]-eps {
				t.Fatalf("trial %d: ordering violated at %d: %v", trial, i, res)
			}
		}
	}
}

func TestAdjustErrors(t *testing.T) {
	if _, err := Adjust([]float64{0.1, math.NaN()}, Holm); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN: err = %v", err)
	}
	if _, err := Adjust([]float64{1.5}, Holm); !errors.Is(err, ErrProbability) {
		t.Errorf("1.5: err = %v", err)
	}
	if _, err := Adjust([]float64{0.5}, Correction(42)); !errors.Is(err, ErrOption) {
		t.Errorf("bad method: err = %v", err)
	}
	if got, err := Adjust(nil, BH); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
}

func TestParseCorrection(t *testing.T) {
	for c := None; c <= BY; c++ {
		got, err := ParseCorrection(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCorrection(%q) = %v, %v", c.String(), got, err)
		}
		var u Correction
		b, _ := c.MarshalText()
		if err := u.UnmarshalText(b); err != nil || u != c {
			t.Errorf("text round trip of %v: %v, %v", c, u, err)
		}
	}
	for in, want := range map[string]Correction{"BH": BH, "fdr": BH, " Holm ": Holm, "BY": BY} {
		if got, err := ParseCorrection(in); err != nil || got != want {
			t.Errorf("ParseCorrection(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseCorrection("hommel"); !errors.Is(err, ErrOption) {
		t.Errorf("hommel: err = %v", err)
	}
}

func TestParseOptions(t *testing.T) {
	for a := TwoSided; a <= Less; a++ {
		if got, err := ParseAlternative(a.String()); err != nil || got != a {
			t.Errorf("ParseAlternative(%q) = %v, %v", a, got, err)
		}
	}
	if got, _ := ParseAlternative("two.sided"); got != TwoSided {
		t.Errorf("two.sided -> %v", got)
	}
	for m := Auto; m <= Asymptotic; m++ {
		if got, err := ParseMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	for z := Wilcox; z <= ZSplit; z++ {
		if got, err := ParseZeroMethod(z.String()); err != nil || got != z {
			t.Errorf("ParseZeroMethod(%q) = %v, %v", z, got, err)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := ParseAlternative("up"); return err },
		func() error { _, err := ParseMethod("magic"); return err },
		func() error { _, err := ParseZeroMethod("drop"); return err },
	} {
		if err := bad(); !errors.Is(err, ErrOption) {
			t.Errorf("err = %v, want ErrOption", err)
		}
	}
}
