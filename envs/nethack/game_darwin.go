package nethack

import (
	"fmt"
	"syscall"
)

// gameAttr returns the SysProcAttr of a game: its own session with the
// pseudo-terminal as its controlling terminal. macOS has no parent-death
// signal: while evolve runs, its stall timer and the kill at the end of
// every episode end the game; if evolve itself dies, the pseudo-terminal's
// master side closes, the kernel hangs up the game's terminal (SIGHUP to
// its session) and NetHack exits.
func gameAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true, Setctty: true} }

// preloadEnv returns the environment entries that load shim into the
// game: DYLD_INSERT_LIBRARIES, with DYLD_FORCE_FLAT_NAMESPACE so that the
// game's calls bound to libSystem (fopen, time, read...) find the shim's
// functions first, as LD_PRELOAD does on Linux.
func preloadEnv(shim string) []string {
	return []string{"DYLD_INSERT_LIBRARIES=" + shim, "DYLD_FORCE_FLAT_NAMESPACE=1"}
}

// shimName is the built shim's file name in the cache directory.
const shimName = "shim.dylib"

// shimArgs returns the C compiler's arguments that build src into the
// dynamic library out (dlsym is in libSystem: no -ldl).
func shimArgs(out, src string) []string { return []string{"-dynamiclib", "-O2", "-o", out, src} }

// compilerHint says how to install a C compiler.
const compilerHint = "xcode-select --install"

// installHint says how to install the game.
func installHint() string {
	return "install NetHack 3.6 (brew install nethack, or build it from source) and set binary: to its game program, the one with nhdat beside it"
}

// shimHint says why dyld may have ignored the shim, and what to do.
func shimHint(in *Install) string {
	return fmt.Sprintf("macOS ignores DYLD_INSERT_LIBRARIES for protected programs: those under System Integrity Protection "+
		"(/usr/bin, /bin, /System) and those signed with the hardened runtime (codesign -dv %[2]s shows flags with runtime). "+
		"evolve runs its private copy %[2]s, so re-sign that copy ad hoc, which drops the hardened runtime "+
		"(codesign --force --sign - %[2]s), or use a NetHack 3.6 built from source; dyld also ignores a library built for "+
		"another architecture than the game's (compare file %[1]s %[2]s)", in.shim, in.binary)
}

// PlatformErr returns nil: the game runs under a pseudo-terminal with a
// preloaded shim.
func PlatformErr() error { return nil }
