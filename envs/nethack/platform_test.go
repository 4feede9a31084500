package nethack

import (
	"errors"
	"strings"
	"testing"
)

// TestUnsupported: the refusal of real NetHack names the platform, what
// is missing and what to do, and matches errors.ErrUnsupported.
func TestUnsupported(t *testing.T) {
	for _, goos := range []string{"windows", "plan9"} {
		err := unsupported(goos)
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%v: does not match errors.ErrUnsupported", err)
		}
		for _, w := range []string{"not supported on " + goos + ":", "pseudo-terminal", "LD_PRELOAD", "WSL 2", Package, "built-in dungeon"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v\nwant it to say %q", err, w)
			}
		}
	}
}
