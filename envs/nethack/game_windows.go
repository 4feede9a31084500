package nethack

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// PlatformErr returns the refusal of real NetHack: Windows has neither
// the pseudo-terminals (as Unix has them) nor the preloaded libraries the
// game is played and seeded with.
func PlatformErr() error { return unsupported(runtime.GOOS) }

// The rest is never reached (New refuses, see PlatformErr); it keeps the
// package building.

func gameAttr() *syscall.SysProcAttr { return nil }
func preloadEnv(string) []string     { return nil }
func killGame(p *os.Process)         { p.Kill() }

func waitReadable(int, time.Duration) (bool, error) { return false, PlatformErr() }
func readFD(int, []byte) (int, error)               { return 0, PlatformErr() }

const (
	shimName     = "shim.dll"
	compilerHint = "a C compiler"
)

func shimArgs(out, src string) []string { return nil }
func installHint() string               { return PlatformErr().Error() }
func shimHint(*Install) string          { return PlatformErr().Error() }
