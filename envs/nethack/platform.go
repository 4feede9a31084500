package nethack

import (
	"errors"
	"fmt"
)

// What each platform provides is in its own file: game_linux.go and
// game_darwin.go (how the game is started and the shim built and
// loaded), game_unix.go (what they share) and game_windows.go (refused).
// The platform table of the README says what works where.

// unsupported returns New's error on a platform (goos, as runtime.GOOS
// names it) without pseudo-terminals and preloaded libraries. It wraps
// errors.ErrUnsupported.
func unsupported(goos string) error {
	return fmt.Errorf("nethack: real NetHack is not supported on %s: evolve plays it under a pseudo-terminal and seeds it "+
		"with a preload shim (LD_PRELOAD on Linux, DYLD_INSERT_LIBRARIES on macOS), and %s has neither; "+
		"run evolve on Linux (WSL 2 on Windows, with Debian's %s) or macOS, or use the built-in dungeon environment: %w",
		goos, goos, Package, errors.ErrUnsupported)
}
