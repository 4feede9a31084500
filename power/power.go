package power

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"evolve/gate"
	"evolve/stats"
)

// ErrConfig is wrapped by the errors of a bad Config or Pilot.
var ErrConfig = errors.New("power: invalid config")

// Pilot holds the scores a plan resamples. Candidate[i] and Baseline[i] are
// a pair (same seed) when Paired; otherwise the samples are independent and
// may differ in length.
type Pilot struct {
	// Baseline and Candidate are finite scores, at least 2 each.
	Baseline, Candidate []float64
	// Paired reports that the samples are paired by index.
	Paired bool
}

// Config configures Plan and Curve. Zero fields take the defaults of
// DefaultConfig.
type Config struct {
	// Alpha is the one-sided level, in (0, 1); 0 means 0.05.
	Alpha float64
	// Power is the target power 1 − β, in (0, 1); 0 means 0.8.
	Power float64
	// Margin is the gate's margin D (score units) of the non-inferiority
	// designs, >= 0; 0 leaves them out.
	Margin float64
	// Reps is the number of simulated experiments per n, >= 1; 0 means
	// 1000.
	Reps int
	// MaxN is the largest n per side searched, >= 2; 0 means 5000.
	MaxN int
	// Seed seeds the simulations (the source is PCG(Seed, n)).
	Seed uint64
}

// DefaultConfig returns alpha 0.05, power 0.8, no margin, 1000 reps,
// MaxN 5000, seed 1.
func DefaultConfig() Config {
	return Config{Alpha: 0.05, Power: 0.8, Reps: 1000, MaxN: 5000, Seed: 1}
}

func (c Config) normalize() (Config, error) {
	d := DefaultConfig()
	if c.Alpha == 0 {
		c.Alpha = d.Alpha
	}
	if c.Power == 0 {
		c.Power = d.Power
	}
	if c.Reps == 0 {
		c.Reps = d.Reps
	}
	if c.MaxN == 0 {
		c.MaxN = d.MaxN
	}
	if err := stats.CheckAlpha(c.Alpha); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	switch {
	case !(c.Power > 0 && c.Power < 1):
		return c, fmt.Errorf("%w: power must be in (0, 1): %v", ErrConfig, c.Power)
	case !(c.Margin >= 0) || math.IsInf(c.Margin, 0):
		return c, fmt.Errorf("%w: margin must be finite and >= 0: %v", ErrConfig, c.Margin)
	case c.Reps < 1:
		return c, fmt.Errorf("%w: reps must be >= 1: %d", ErrConfig, c.Reps)
	case c.MaxN < 2:
		return c, fmt.Errorf("%w: max n must be >= 2: %d", ErrConfig, c.MaxN)
	}
	return c, nil
}

// Design is one decision whose sample size is planned.
type Design struct {
	// Name labels the design in tables and plots.
	Name string
	// Paired reports that the design needs paired pilot scores.
	Paired bool
	// Decide is the decision on one simulated experiment (candidate x,
	// baseline y): true when it succeeds (rejects its H0). A sequential
	// design is a Decide that looks at growing prefixes of x and y.
	Decide stats.Decision
	// Noether returns Noether's n for the pilot, or 0 when the formula
	// does not apply; nil for none.
	Noether func(p Pilot, cfg Config) int
}

// Designs returns the standard designs for a pilot under cfg, in the
// order of the table: the one-sided U test and signed-rank test in the
// direction of the pilot's effect (H1: the candidate differs as in the
// pilot), and with cfg.Margin > 0 the gate's non-inferiority checks on a
// shift (rank-sum, signed-rank) and on the mean (Welch / paired t). The
// paired designs are included only for a paired pilot.
//
// The sequential design (a group-sequential rank test with Lan-DeMets
// spending, docs/sequential.md) is not here: it lives with the evolution
// loop; pass it to Plan as a Design whose Decide runs its looks.
func Designs(p Pilot, cfg Config) []Design {
	cfg, _ = cfg.normalize()
	alt := stats.Less
	if a, err := stats.A12(p.Candidate, p.Baseline); err == nil && a > 0.5 {
		alt = stats.Greater
	}
	dir := "worse"
	if alt == stats.Greater {
		dir = "better"
	}
	ds := []Design{{
		Name: "U test (H1: candidate " + dir + ")",
		Decide: func(x, y []float64) (bool, error) {
			r, err := stats.MannWhitneyU(x, y, stats.MWUOptions{Alternative: alt})
			return r.P < cfg.Alpha, err
		},
		Noether: func(p Pilot, cfg Config) int {
			a, err := stats.A12(p.Candidate, p.Baseline)
			if err != nil {
				return 0
			}
			return stats.NoetherNRankSum(a, cfg.Alpha, cfg.Power)
		},
	}}
	if p.Paired {
		ds = append(ds, Design{
			Name: "signed-rank test (H1: candidate " + dir + ")", Paired: true,
			Decide: func(x, y []float64) (bool, error) {
				r, err := stats.WilcoxonSignedRank(x, y, stats.SignedRankOptions{Alternative: alt})
				return r.P < cfg.Alpha, err
			},
			Noether: func(p Pilot, cfg Config) int {
				return stats.NoetherNSignedRank(stats.WalshShare(diffs(p, 0)), cfg.Alpha, cfg.Power)
			},
		})
	}
	if cfg.Margin > 0 {
		D := cfg.Margin
		gateDesign := func(name string, paired bool, on string, noether func(Pilot, Config) int) Design {
			test := stats.TestMWU
			if paired {
				test = gate.TestAuto
			}
			gc := gate.Config{Alpha: cfg.Alpha, Test: test, Margin: D, MarginOn: on, Hypothesis: gate.HypothesisNonInferiority, Correction: gate.CorrectionNone}
			return Design{Name: name, Paired: paired, Noether: noether, Decide: func(x, y []float64) (bool, error) {
				b, c := gate.Sample{Version: "b", Scores: y}, gate.Sample{Version: "c", Scores: x}
				if paired {
					seeds := make([]uint64, len(x))
					for i := range seeds {
						seeds[i] = uint64(i)
					}
					b.Seeds, c.Seeds = seeds, seeds
				}
				ch, err := gate.Compare([]gate.Sample{b}, []gate.Sample{c}, gc)
				if errors.Is(err, gate.ErrTooFew) {
					return false, nil // too few to ever pass
				}
				if err != nil {
					return false, err
				}
				return !ch[0].Failed, nil
			}}
		}
		ds = append(ds, gateDesign(fmt.Sprintf("non-inferiority, shift margin %g (U test)", D), false, gate.MarginOnShift,
			func(p Pilot, cfg Config) int {
				xs := make([]float64, len(p.Candidate))
				for i, v := range p.Candidate {
					xs[i] = v + D
				}
				a, err := stats.A12(xs, p.Baseline)
				if err != nil || a <= 0.5 {
					return 0
				}
				return stats.NoetherNRankSum(a, cfg.Alpha, cfg.Power)
			}))
		if p.Paired {
			ds = append(ds, gateDesign(fmt.Sprintf("non-inferiority, shift margin %g (signed-rank)", D), true, gate.MarginOnShift,
				func(p Pilot, cfg Config) int {
					s := stats.WalshShare(diffs(p, D))
					if !(s > 0.5) {
						return 0
					}
					return stats.NoetherNSignedRank(s, cfg.Alpha, cfg.Power)
				}))
		}
		name := fmt.Sprintf("non-inferiority, mean margin %g (Welch t)", D)
		if p.Paired {
			name = fmt.Sprintf("non-inferiority, mean margin %g (paired t)", D)
		}
		ds = append(ds, gateDesign(name, p.Paired, gate.MarginOnMean, func(p Pilot, cfg Config) int {
			// Normal approximation: n = (z_α + z_β)²·V/(δ + D)², V the
			// variance of one observation's contribution.
			var delta, v float64
			if p.Paired {
				d := diffs(p, 0)
				delta, v = stats.MeanVar(d)
			} else {
				m1, v1 := stats.MeanVar(p.Candidate)
				m2, v2 := stats.MeanVar(p.Baseline)
				delta, v = m1-m2, v1+v2
			}
			if !(delta+D > 0) {
				return 0
			}
			z := zUpper(cfg.Alpha) + zUpper(1-cfg.Power)
			return int(math.Ceil(z * z * v / ((delta + D) * (delta + D))))
		}))
	}
	return ds
}

// Row is one line of a plan.
type Row struct {
	// Design names the design.
	Design string
	// NNoether is Noether's n per side (pairs for paired designs); 0 when
	// the formula does not apply or the effect is null.
	NNoether int
	// NSim is the smallest simulated n per side with power >= the target;
	// MaxN + 1 when even MaxN falls short.
	NSim int
	// PowerAtN is the simulated power at the n Plan was given (the n the
	// caller used); its zero value when that n is 0.
	PowerAtN stats.PowerEstimate
}

// Plan computes a Row per design (Designs(p, cfg) plus extra, in order):
// Noether's n and the simulated n for power cfg.Power at cfg.Alpha, and
// the simulated power at atN observations per side when atN > 0.
//
// Errors: ErrConfig for a bad cfg, fewer than 2 pilot scores per side, or
// a paired pilot of unequal lengths; errors of a Decide.
func Plan(p Pilot, cfg Config, atN int, extra ...Design) ([]Row, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if err := checkPilot(p); err != nil {
		return nil, err
	}
	var rows []Row
	for _, d := range append(Designs(p, cfg), extra...) {
		if d.Paired && !p.Paired {
			continue
		}
		row := Row{Design: d.Name}
		if d.Noether != nil {
			row.NNoether = d.Noether(p, cfg)
		}
		pw := func(n int) (float64, error) {
			est, err := simulate(p, d, cfg, n)
			return est.Power, err
		}
		if row.NSim, err = stats.NForPower(cfg.Power, 2, cfg.MaxN, pw); err != nil {
			return nil, fmt.Errorf("power: %s: %w", d.Name, err)
		}
		if atN > 0 {
			if row.PowerAtN, err = simulate(p, d, cfg, atN); err != nil {
				return nil, fmt.Errorf("power: %s: %w", d.Name, err)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Curve returns the simulated power of design d at each n of ns.
func Curve(p Pilot, d Design, cfg Config, ns []int) ([]stats.PowerEstimate, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if err := checkPilot(p); err != nil {
		return nil, err
	}
	out := make([]stats.PowerEstimate, len(ns))
	for i, n := range ns {
		if out[i], err = simulate(p, d, cfg, n); err != nil {
			return nil, fmt.Errorf("power: %s: %w", d.Name, err)
		}
	}
	return out, nil
}

// simulate runs cfg.Reps experiments of n per side with the source
// PCG(cfg.Seed, 0): the same draws for every n and design (common random
// numbers).
func simulate(p Pilot, d Design, cfg Config, n int) (stats.PowerEstimate, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	return stats.SimulatedPower(p.Candidate, p.Baseline, p.Paired && d.Paired, n, cfg.Reps, d.Decide, rng)
}

func checkPilot(p Pilot) error {
	if len(p.Baseline) < 2 || len(p.Candidate) < 2 {
		return fmt.Errorf("%w: the pilot needs >= 2 scores per side, got %d baseline and %d candidate", ErrConfig, len(p.Baseline), len(p.Candidate))
	}
	if p.Paired && len(p.Baseline) != len(p.Candidate) {
		return fmt.Errorf("%w: a paired pilot needs as many baseline as candidate scores, got %d and %d", ErrConfig, len(p.Baseline), len(p.Candidate))
	}
	for _, s := range [][]float64{p.Baseline, p.Candidate} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: pilot score %v is not finite", ErrConfig, v)
			}
		}
	}
	return nil
}

// diffs returns Candidate − Baseline + shift, paired by index.
func diffs(p Pilot, shift float64) []float64 {
	d := make([]float64, len(p.Candidate))
	for i := range d {
		d[i] = p.Candidate[i] - p.Baseline[i] + shift
	}
	return d
}

func pow(a, b float64) float64 { return math.Pow(a, b) }

func zUpper(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(1-2*p)
}

// FromEffect builds a pilot for a target effect without data: a baseline
// of n standard normal quantiles scaled by sd (Blom's plotting positions
// (i − 3/8)/(n + 1/4), deterministic), and a candidate moved by shift
// (score units; negative is worse), paired by index. For a target A12,
// shift = sd·√2·Φ⁻¹(A12) (normal location model).
//
// Errors: ErrConfig for n < 2 or sd not > 0.
func FromEffect(shift, sd float64, n int) (Pilot, error) {
	if n < 2 || !(sd > 0) || math.IsNaN(shift) || math.IsInf(shift, 0) {
		return Pilot{}, fmt.Errorf("%w: effect pilot needs n >= 2, sd > 0 and a finite shift (n %d, sd %v, shift %v)", ErrConfig, n, sd, shift)
	}
	p := Pilot{Baseline: make([]float64, n), Candidate: make([]float64, n)}
	for i := range n {
		q := (float64(i+1) - 0.375) / (float64(n) + 0.25)
		v := sd * math.Sqrt2 * math.Erfinv(2*q-1)
		p.Baseline[i] = v
	}
	// Candidate: the same quantiles in another order (independent of the
	// baseline's) moved by shift; not paired.
	for i := range n {
		p.Candidate[i] = p.Baseline[(i*7919+13)%n] + shift
	}
	return p, nil
}

// ShiftForA12 is the shift of a normal location model with standard
// deviation sd at which P(X > Y) = a12: sd·√2·Φ⁻¹(a12).
func ShiftForA12(a12, sd float64) float64 {
	return sd * math.Sqrt2 * math.Sqrt2 * math.Erfinv(2*a12-1)
}
