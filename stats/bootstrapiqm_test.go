package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBootstrapIQMMatchesBootstrapCI: BootstrapIQM is BootstrapCI with
// AggregateIQM on one column, bit for bit, for samples with and without
// ties, negative values and n = 1.
func TestBootstrapIQMMatchesBootstrapCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for _, g := range sampleGens {
		for _, n := range []int{1, 2, 3, 4, 7, 10, 101, 1000} {
			t.Run(fmt.Sprintf("%s/n=%d", g.name, n), func(t *testing.T) {
				x := g.draw(rng, n)
				col := make([][]float64, n)
				for i := range x {
					col[i] = x[i : i+1]
				}
				seed := rng.Uint64()
				cfg := func() BootstrapConfig {
					return BootstrapConfig{Reps: 300, ConfLevel: 0.9, Rand: rand.New(rand.NewPCG(seed, 0))}
				}
				want, err := BootstrapCI(col, AggregateIQM, cfg())
				if err != nil {
					t.Fatal(err)
				}
				got, err := BootstrapIQM(x, cfg())
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("BootstrapIQM = %+v, want %+v", got, want)
				}
			})
		}
	}
}

func TestBootstrapIQMErrors(t *testing.T) {
	cfg := BootstrapConfig{Rand: rand.New(rand.NewPCG(1, 1))}
	for _, c := range []struct {
		x    []float64
		cfg  BootstrapConfig
		want error
	}{
		{nil, cfg, ErrSampleSize},
		{[]float64{1, math.NaN()}, cfg, ErrNaN},
		{[]float64{1}, BootstrapConfig{Reps: -1, Rand: cfg.Rand}, ErrOption},
		{[]float64{1}, BootstrapConfig{ConfLevel: 1, Rand: cfg.Rand}, ErrOption},
	} {
		if _, err := BootstrapIQM(c.x, c.cfg); !errors.Is(err, c.want) {
			t.Errorf("BootstrapIQM(%v, %+v) error %v, want %v", c.x, c.cfg, err, c.want)
		}
	}
}
