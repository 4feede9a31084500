package gate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"evolve/stats"
)

// sides are the observations a check's test runs on, with what the
// statistics after the test share.
type sides struct {
	// x and y are the candidate's and the baseline's scores: every score,
	// or the pairs (x[k], y[k]) when the check is paired or the A12 test
	// runs on the seeds both played.
	x, y []float64
	// xs and ys are x and y sorted ascending, sorted once for every rank
	// statistic of the check (the U test, A12, the Hodges-Lehmann shift,
	// the rank-sum power).
	xs, ys []float64
	// d holds the differences x − y in R's order when the check is
	// paired; nil otherwise.
	d []float64
}

// check computes one candidate's Check without the family adjustment, in
// steps: pair the samples and choose the observations (choose), choose
// the test (chooseTest), refuse sizes at which it could never reject
// (enough), run it (runTest), then the effect sizes (effects) and the
// power (checkPower). Each sample is sorted once, for all the rank
// statistics.
func check(base, cand Sample, cfg Config) (Check, error) {
	where := fmt.Sprintf("variant %q, version %q", cand.Variant, cand.Version)
	c := Check{
		Version: cand.Version, Variant: cand.Variant,
		Hypothesis: cfg.Hypothesis, MarginOn: cfg.MarginOn,
		Margin: cfg.Margin, MarginA12: cfg.MarginA12,
		Alpha: cfg.Alpha, Correction: cfg.Correction,
	}
	s, err := choose(&c, base, cand, cfg, where)
	if err != nil {
		return c, err
	}
	c.Test = chooseTest(cfg, c.Paired)
	c.N, c.NBaseline = len(s.x), len(s.y)
	if err := enough(c.Test, len(s.x), len(s.y), cfg.Alpha); err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrTooFew, where, err)
	}
	c.Mean, c.BaselineMean = stats.MeanOf(s.x), stats.MeanOf(s.y)
	c.MeanDiff = c.Mean - c.BaselineMean
	s.xs, s.ys = sortedCopy(s.x), sortedCopy(s.y)
	if err := runTest(&c, s, cfg); err != nil {
		return c, fmt.Errorf("gate: %s: %w", where, err)
	}
	if err := effects(&c, s, cfg); err != nil {
		return c, fmt.Errorf("gate: %s: %w", where, err)
	}
	c.Power, c.PowerLoss = checkPower(c, s, cfg)
	return c, nil
}

// choose pairs cand with base by (seed, repeat) and chooses the
// observations of the test by the design of Config.Test's registration
// (stats.TestSpec.Design): the pairs for a paired test (stats.DesignPaired,
// e.g. "signed-rank"; or TestAuto and a stats.DesignEither test such as
// "bootstrap-t" when the samples pair) and for the A12 test of samples
// that pair (unless Config.Test is a test of independent samples, e.g.
// "mwu"), else every score. It sets c's NPaired, NUnmatched and Paired,
// and the warnings on pairing. Errors: ErrUnpaired, naming where, when a paired
// test is required and the samples do not pair, or have more than
// cfg.MaxUnmatched unmatched observations.
func choose(c *Check, base, cand Sample, cfg Config, where string) (sides, error) {
	pr := pairing(base, cand)
	c.NPaired = len(pr.cand)
	if base.Seeds != nil && cand.Seeds != nil {
		c.NUnmatched = pr.unmatched
	}
	pairable := pr.why == ""
	design := stats.DesignEither // TestAuto: paired when the samples pair
	if spec, ok := stats.LookupTest(cfg.Test); ok {
		design = spec.Design
	}
	wantPaired := design == stats.DesignPaired || (design == stats.DesignEither && pairable)
	if design == stats.DesignPaired && !pairable {
		return sides{}, fmt.Errorf("%w: %s: %s", ErrUnpaired, where, pr.why)
	}
	if cfg.MarginA12 > 0 {
		wantPaired = false
	}
	if wantPaired && cfg.MaxUnmatched != NoLimit && pr.unmatched > cfg.MaxUnmatched {
		return sides{}, fmt.Errorf("%w: %s: %d unmatched observations (e.g. %s), more than the %d allowed (--max-unmatched)",
			ErrUnpaired, where, pr.unmatched, pr.example, cfg.MaxUnmatched)
	}
	s := sides{x: cand.Scores, y: base.Scores}
	// Brunner-Munzel on the seeds both played, as two samples.
	a12Pairs := cfg.MarginA12 > 0 && pairable && design != stats.DesignIndependent
	if wantPaired || a12Pairs {
		s.x, s.y = make([]float64, len(pr.cand)), make([]float64, len(pr.cand))
		for k := range pr.cand {
			s.x[k], s.y[k] = cand.Scores[pr.cand[k]], base.Scores[pr.base[k]]
		}
	}
	if wantPaired {
		c.Paired = true
		if pr.unmatched > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%d unmatched observations (e.g. %s): paired on the %d both sides played", pr.unmatched, pr.example, len(s.x)))
		}
		s.d = make([]float64, len(s.x))
		for i := range s.d {
			s.d[i] = s.x[i] - s.y[i]
		}
	} else if cfg.Test == TestAuto && cfg.MarginA12 == 0 {
		c.Warnings = append(c.Warnings, "not paired ("+pr.why+"): test of independent samples")
	}
	if a12Pairs {
		c.Warnings = append(c.Warnings, "paired samples: the Brunner-Munzel A12 test treats them as independent samples")
	}
	return s, nil
}

// chooseTest returns the test of a check under cfg, paired or not
// (Check.Test): the test cfg.Test names when its scale
// (stats.TestSpec.Scale) is the margin's (marginScale); else, for
// TestAuto or a test of another scale, the gate's test of the margin's
// scale for the design: the Brunner-Munzel permutation test on A12, the
// paired or Welch t test on the mean, the signed-rank or U test on the
// shift.
func chooseTest(cfg Config, paired bool) stats.TestName {
	spec, named := stats.LookupTest(cfg.Test)
	scale := marginScale(cfg)
	switch {
	case named && spec.Scale == scale:
		return cfg.Test
	case scale == stats.ScaleA12:
		return stats.TestBrunnerMunzelPermutation
	case scale == stats.ScaleMean && paired:
		return stats.TestPairedT
	case scale == stats.ScaleMean:
		return stats.TestWelchT
	case paired:
		return stats.TestSignedRank
	}
	return stats.TestMWU
}

// marginScale is the scale of cfg's margin: A12 with MarginA12 > 0, else
// MarginOn's (the shift or the mean).
func marginScale(cfg Config) stats.Scale {
	switch {
	case cfg.MarginA12 > 0:
		return stats.ScaleA12
	case cfg.MarginOn == MarginOnMean:
		return stats.ScaleMean
	}
	return stats.ScaleShift
}

// runTest runs c.Test on s at cfg's margin through its registration
// (stats.LookupTest), one-sided in the direction of cfg's hypothesis,
// and sets c's Statistic and P and adds the test's warnings to c's (but
// not those that ties were present: routine with integer scores, and
// handled exactly by stats). The null value is −Margin on the shift and
// mean scales, 0.5 − MarginA12 on the A12 scale. Resampling tests draw
// from a source seeded with BootstrapSeed (BootstrapReps resamples), the
// A12 permutation test from permutationRand (Config.PermutationReps).
// The error is stats'.
func runTest(c *Check, s sides, cfg Config) error {
	spec, ok := stats.LookupTest(c.Test)
	if !ok || spec.Run == nil {
		return fmt.Errorf("test %q does not run on scores", c.Test)
	}
	alt := stats.Less
	if cfg.Hypothesis == HypothesisNonInferiority {
		alt = stats.Greater
	}
	in := stats.TestInput{X: s.x, Y: s.y, XSorted: s.xs, YSorted: s.ys, Paired: c.Paired,
		Null: -cfg.Margin, Alternative: alt, Reps: BootstrapReps, Rand: rand.New(rand.NewPCG(BootstrapSeed, 0))}
	if spec.Scale == stats.ScaleA12 {
		in.Null, in.Reps, in.Rand = 0.5-cfg.MarginA12, cfg.PermutationReps, permutationRand(s.x, s.y)
	}
	r, err := spec.Run(in)
	if err != nil {
		return err
	}
	c.Statistic, c.P = r.Statistic, r.P
	for _, w := range r.Warnings {
		if errors.Is(w, stats.WarnTiesExact) || errors.Is(w, stats.WarnTiesAsymptotic) {
			continue
		}
		c.Warnings = append(c.Warnings, w.Error())
	}
	return nil
}

// effects sets c's A12 and its Hodges-Lehmann estimate and interval (of
// the differences when paired), with a warning when the interval cannot
// be computed. After a U test without a margin A12 is its U/(n1·n2);
// otherwise it is counted on the sorted samples. The error is stats'.
func effects(c *Check, s sides, cfg Config) error {
	if c.Test == stats.TestMWU && cfg.Margin == 0 {
		// The U test ranked x itself against y: the same U as stats.A12's.
		c.A12 = c.Statistic / (float64(len(s.x)) * float64(len(s.y)))
	} else {
		a12, err := stats.A12Sorted(s.xs, s.ys)
		if err != nil {
			return err
		}
		c.A12 = a12
	}
	if c.Paired {
		hl, err := stats.HodgesLehmannOneSample(s.d, stats.ShiftOptions{ConfLevel: HLConfLevel})
		if err != nil {
			return err
		}
		c.HLShift, c.HLLow, c.HLHigh = hl.Estimate, hl.CILow, hl.CIHigh
		if slices.ContainsFunc(hl.Warnings, func(w error) bool { return errors.Is(w, stats.WarnNoCI) }) {
			c.Warnings = append(c.Warnings, "Hodges-Lehmann estimate: "+stats.WarnNoCI.Error())
			c.HLShift = stats.Median(s.d)
		}
		return nil
	}
	hl, err := stats.HodgesLehmannSorted(s.xs, s.ys, stats.ShiftOptions{ConfLevel: HLConfLevel})
	if err != nil {
		return err
	}
	c.HLShift, c.HLLow, c.HLHigh = hl.Estimate, hl.CILow, hl.CIHigh
	for _, w := range hl.Warnings {
		if errors.Is(w, stats.WarnNoCI) {
			c.Warnings = append(c.Warnings, "Hodges-Lehmann shift: "+w.Error())
		}
	}
	return nil
}

// sortedCopy returns a copy of x sorted ascending.
func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// permutationRand returns the random source of the A12-margin test on
// x (candidate) and y (baseline): a PCG seeded with PermutationSeed and
// the FNV-1a hash of the sizes and float64 bits of x then y.
func permutationRand(x, y []float64) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	for _, s := range [][]float64{x, y} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		for _, v := range s {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return rand.New(rand.NewPCG(PermutationSeed, h.Sum64()))
}

// enough reports (as a non-nil error) why n1 candidate and n2 baseline
// observations (n1 pairs for a paired test) are too few for test at
// level alpha: the test's smallest possible p-value at these sizes
// (stats.TestSpec.SmallestP, for the rank tests) is not below alpha, or,
// for a test without such a bound, a sample has fewer than 2
// observations.
func enough(test stats.TestName, n1, n2 int, alpha float64) error {
	spec, _ := stats.LookupTest(test)
	if spec.SmallestP == nil {
		if n1 < 2 || n2 < 2 {
			return fmt.Errorf("the %s test needs at least 2 observations per sample, got %d candidate and %d baseline", test, n1, n2)
		}
		return nil
	}
	minP, err := spec.SmallestP(n1, n2)
	if err != nil {
		return err
	}
	if minP >= alpha {
		unit := fmt.Sprintf("%d candidate and %d baseline observations", n1, n2)
		if spec.Design == stats.DesignPaired {
			unit = fmt.Sprintf("%d pairs", n1)
		}
		return fmt.Errorf("with %s the smallest possible one-sided p-value of the %s test is %s >= alpha %v: the gate could never fail", unit, test, pfmt(minP), alpha)
	}
	return nil
}
