package nethack

import (
	"errors"
	"strings"
	"testing"
)

// TestUnsupported: the refusal of real NetHack names the platform, what
// is missing and what to do, and matches errors.ErrUnsupported; on a
// platform that refuses, New returns it.
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
	if perr := platformErr(); perr != nil {
		if _, err := New(DefaultConfig()); err == nil || err.Error() != perr.Error() {
			t.Errorf("New: %v, want the platform's refusal %v", err, perr)
		}
	}
}
