package stats

import "fmt"

// CheckAlpha returns nil when alpha is a significance level, in the open
// interval (0, 1), and otherwise an error reading "alpha must be in (0,
// 1), got X" (X as %v writes alpha; NaN is out of range) that matches
// ErrOption under errors.Is. It is the one range check of every test's,
// gate's and command's alpha; a caller adds its context ("gate: invalid
// config: ...", "--alpha ...").
func CheckAlpha(alpha float64) error {
	if alpha > 0 && alpha < 1 {
		return nil
	}
	return alphaError{alpha}
}

// alphaError is CheckAlpha's error: its text names the value alone, so
// that a caller's prefix reads naturally, and errors.Is finds ErrOption.
type alphaError struct{ alpha float64 }

func (e alphaError) Error() string { return fmt.Sprintf("alpha must be in (0, 1), got %v", e.alpha) }

func (alphaError) Is(target error) bool { return target == ErrOption }
