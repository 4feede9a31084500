//go:build unix && !linux && !darwin

package nethack

import (
	"runtime"
	"syscall"
)

// PlatformErr returns the refusal of real NetHack on the other Unix
// systems (the BSDs, illumos): evolve builds and preloads its seeding
// shim only with Linux's and macOS's loaders, and never plays an unseeded
// game.
func PlatformErr() error { return unsupported(runtime.GOOS) }

// The rest is never reached (New refuses, see PlatformErr); it keeps the
// package building.

func gameAttr() *syscall.SysProcAttr { return nil }
func preloadEnv(string) []string     { return nil }

const (
	shimName     = "shim.so"
	compilerHint = "a C compiler"
)

func shimArgs(out, src string) []string { return nil }
func installHint() string               { return PlatformErr().Error() }
func shimHint(*Install) string          { return PlatformErr().Error() }
