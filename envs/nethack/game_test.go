package nethack

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// valkyrie is the character of evolve's default config: a neutral human
// female Valkyrie.
var valkyrie = Character{Role: "valkyrie", Race: "human", Gender: "female", Alignment: "neutral"}

// testInstall prepares Debian's game for a test, and skips the test where
// real NetHack cannot run (PlatformErr) or is not installed.
func testInstall(t testing.TB) *Install {
	t.Helper()
	if err := PlatformErr(); err != nil {
		t.Skip(err)
	}
	in, err := Prepare(DefaultBinary)
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("NetHack is not installed (Debian package %s): %v", Package, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestNotInstalled: a missing binary is an error saying how to install
// the game on this platform (on Linux, naming the Debian package).
func TestNotInstalled(t *testing.T) {
	if err := PlatformErr(); err != nil {
		t.Skip(err)
	}
	_, err := Prepare(filepath.Join(t.TempDir(), "no-nethack"))
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), installHint()) {
		t.Fatalf("err = %v, want ErrNotInstalled saying %q", err, installHint())
	}
}
