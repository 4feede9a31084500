package gate

import (
	"errors"
)

// Errors returned by Compare. Each returned error wraps one of these and
// names the variant and version (or the config field) at fault.
var (
	// ErrConfig: a Config field is out of range or names an unknown test
	// or correction.
	ErrConfig = errors.New("gate: invalid config")
	// ErrSample: a Sample is malformed (Seeds or Repeats not as long as
	// Scores, a NaN or infinite score) or appears twice (two baseline
	// samples of one variant, two candidate samples of one version and
	// variant).
	ErrSample = errors.New("gate: malformed sample")
	// ErrNoBaseline: a candidate's variant has no baseline sample.
	ErrNoBaseline = errors.New("gate: no baseline for variant")
	// ErrTooFew: a sample is empty, or the test could never reject at
	// Alpha with these sample sizes (its smallest possible p-value is >=
	// Alpha), so the gate could never fail; or the A12 margin test has
	// fewer than 2 observations on a side.
	ErrTooFew = errors.New("gate: too few observations")
	// ErrUnpaired: Test is "signed-rank" (or "auto" with shared seeds) but
	// the samples cannot be paired by (seed, repeat): seeds unknown, a
	// (seed, repeat) twice in a sample, no shared seed, or more unmatched
	// observations than Config.MaxUnmatched.
	ErrUnpaired = errors.New("gate: samples cannot be paired by seed")
)
