package gate

import (
	"fmt"
	"math"

	"evolve/stats"
)

// NoLimit as Config.MaxUnmatched accepts any number of unmatched
// observations.
const NoLimit = -1

// BootstrapSeed seeds the bootstrap-t test's resamples (the p-value is a
// function of the samples and this seed); BootstrapReps is its number of
// resamples.
const (
	BootstrapSeed = 20261125
	BootstrapReps = 9999
)

// PermutationSeed seeds the random permutations of the A12-margin test
// (stats.TestBrunnerMunzelPermutation), together with a hash of the two samples (permutationRand):
// the p-value is a function of the samples, this seed and
// Config.PermutationReps. Hashing the samples in makes the draws differ
// between data sets, so the Monte Carlo error of the permutation p-value
// averages out across checks instead of repeating (with untied scores the
// permuted statistics depend on the ranks only: one fixed seed would give
// every check of the same n the same 9,999 draws).
const PermutationSeed = 20070723

// Config configures Compare. The zero value means DefaultConfig().
type Config struct {
	// Alpha is the family-wise significance level, in (0, 1); 0 means
	// 0.05.
	Alpha float64
	// Test is TestAuto ("auto", the default; also "") or a test
	// registered with stats.UseGate: stats.TestMWU ("mwu"),
	// stats.TestSignedRank ("signed-rank") or stats.TestBootstrapT
	// ("bootstrap-t", with MarginOn "mean").
	Test stats.TestName
	// Margin is the non-inferiority margin D in score units, finite and
	// >= 0: with D > 0 a regression is "worse by more than D" (see
	// Compare). 0 means no margin: "worse at all".
	Margin float64
	// MarginA12 is the non-inferiority margin m in A12 units, in
	// [0, 0.5): with m > 0 a regression is "A12 = P(candidate > baseline)
	// + P(tie)/2 < 0.5 − m" (see Compare). At most one of Margin and
	// MarginA12 may be > 0.
	MarginA12 float64
	// Correction is CorrectionHolm ("holm", the default; also ""),
	// CorrectionHochberg, CorrectionBonferroni (each across every check
	// of the call), CorrectionNonePerVariant (Holm within each variant)
	// or CorrectionNone.
	Correction string
	// Hypothesis is HypothesisRegression ("regression", the default;
	// also "") or HypothesisNonInferiority ("non-inferiority", which
	// needs Margin or MarginA12 > 0).
	Hypothesis string
	// MarginOn is MarginOnShift ("shift", the default; also "") or
	// MarginOnMean ("mean"; not with MarginA12).
	MarginOn string
	// MaxUnmatched is the largest number of unmatched candidate
	// observations (a (seed, repeat) the baseline did not play) a paired
	// check accepts; pairing is on the observations both sides played.
	// 0 (the default) refuses any; NoLimit (−1) accepts any number.
	MaxUnmatched int
	// PermutationReps is the number of random permutations of the
	// A12-margin test (stats.TestBrunnerMunzelPermutation), >= 0; 0 means
	// stats.DefaultPermutationReps (9,999). Samples with at most this many
	// splits are enumerated (an exact p-value).
	PermutationReps int
}

// DefaultConfig returns the defaults the zero Config stands for: Alpha
// 0.05, Test "auto", no margin, Correction "holm" across every check,
// Hypothesis "regression", MarginOn "shift", MaxUnmatched 0.
func DefaultConfig() Config {
	return Config{Alpha: 0.05, Test: TestAuto, Correction: CorrectionHolm, Hypothesis: HypothesisRegression, MarginOn: MarginOnShift}
}

// Validate returns the error Compare would return for cfg (wrapping
// ErrConfig), so that a command can refuse a bad config before it plays
// anything.
func (cfg Config) Validate() error {
	_, err := cfg.normalize()
	return err
}

// normalize fills defaults and validates cfg.
func (cfg Config) normalize() (Config, error) {
	def := DefaultConfig()
	if cfg.Alpha == 0 {
		cfg.Alpha = def.Alpha
	}
	if err := stats.CheckAlpha(cfg.Alpha); err != nil {
		return cfg, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	switch cfg.Test {
	case "":
		cfg.Test = def.Test
	default:
		if _, err := stats.ParseTestName(string(cfg.Test), stats.UseGate, TestAuto); err != nil {
			return cfg, fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	switch cfg.Correction {
	case "":
		cfg.Correction = def.Correction
	case CorrectionHolm, CorrectionHochberg, CorrectionBonferroni, CorrectionNonePerVariant, CorrectionNone:
	default:
		return cfg, fmt.Errorf("%w: unknown correction %q (want %s, %s, %s, %s or %s)", ErrConfig, cfg.Correction,
			CorrectionHolm, CorrectionHochberg, CorrectionBonferroni, CorrectionNonePerVariant, CorrectionNone)
	}
	switch cfg.Hypothesis {
	case "":
		cfg.Hypothesis = def.Hypothesis
	case HypothesisRegression, HypothesisNonInferiority:
	default:
		return cfg, fmt.Errorf("%w: unknown hypothesis %q (want %s or %s)", ErrConfig, cfg.Hypothesis, HypothesisRegression, HypothesisNonInferiority)
	}
	switch cfg.MarginOn {
	case "":
		cfg.MarginOn = def.MarginOn
	case MarginOnShift, MarginOnMean:
	default:
		return cfg, fmt.Errorf("%w: unknown margin scale %q (want %s or %s)", ErrConfig, cfg.MarginOn, MarginOnShift, MarginOnMean)
	}
	if cfg.PermutationReps < 0 {
		return cfg, fmt.Errorf("%w: permutation reps must be >= 0 (0: %d): %d", ErrConfig, stats.DefaultPermutationReps, cfg.PermutationReps)
	}
	if cfg.MaxUnmatched < NoLimit {
		return cfg, fmt.Errorf("%w: max unmatched must be >= 0, or %d for no limit: %d", ErrConfig, NoLimit, cfg.MaxUnmatched)
	}
	if spec, ok := stats.LookupTest(cfg.Test); ok && spec.Scale == stats.ScaleMean && cfg.MarginOn != MarginOnMean {
		return cfg, fmt.Errorf("%w: test %q is a test of means; it needs margin scale %q", ErrConfig, cfg.Test, MarginOnMean)
	} else if ok && spec.Scale == stats.ScaleA12 && !(cfg.MarginA12 > 0) {
		return cfg, fmt.Errorf("%w: test %q is a test of A12; it needs an A12 margin > 0", ErrConfig, cfg.Test)
	}
	if cfg.MarginOn == MarginOnMean && cfg.MarginA12 > 0 {
		return cfg, fmt.Errorf("%w: an A12 margin is not a margin on the mean; use margin scale %q", ErrConfig, MarginOnShift)
	}
	if cfg.Hypothesis == HypothesisNonInferiority && !(cfg.Margin > 0 || cfg.MarginA12 > 0) {
		return cfg, fmt.Errorf("%w: hypothesis %q needs a margin > 0 (without one it is a superiority test)", ErrConfig, HypothesisNonInferiority)
	}
	if !(cfg.Margin >= 0) || math.IsInf(cfg.Margin, 0) {
		return cfg, fmt.Errorf("%w: margin must be finite and >= 0: %v", ErrConfig, cfg.Margin)
	}
	if !(cfg.MarginA12 >= 0 && cfg.MarginA12 < 0.5) {
		return cfg, fmt.Errorf("%w: A12 margin must be in [0, 0.5): %v", ErrConfig, cfg.MarginA12)
	}
	if cfg.Margin > 0 && cfg.MarginA12 > 0 {
		return cfg, fmt.Errorf("%w: margin %v and A12 margin %v both set; use one", ErrConfig, cfg.Margin, cfg.MarginA12)
	}
	return cfg, nil
}
