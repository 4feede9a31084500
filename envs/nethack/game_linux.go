package nethack

import (
	"fmt"
	"syscall"
)

// gameAttr returns the SysProcAttr of a game: its own session with the
// pseudo-terminal as its controlling terminal, and SIGKILL when evolve
// dies (PR_SET_PDEATHSIG).
func gameAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
}

// preloadEnv returns the environment entries that load shim into the
// game: LD_PRELOAD.
func preloadEnv(shim string) []string { return []string{"LD_PRELOAD=" + shim} }

// shimName is the built shim's file name in the cache directory.
const shimName = "shim.so"

// shimArgs returns the C compiler's arguments that build src into the
// shared library out.
func shimArgs(out, src string) []string {
	return []string{"-shared", "-fPIC", "-O2", "-o", out, src, "-ldl"}
}

// compilerHint says how to install a C compiler.
const compilerHint = "apt-get install gcc"

// installHint says how to install the game.
func installHint() string {
	return fmt.Sprintf("install the Debian package %s: apt-get install %s", Package, Package)
}

// shimHint says why the dynamic loader may have ignored the shim, and
// what to do.
func shimHint(in *Install) string {
	return fmt.Sprintf("the dynamic loader ignored LD_PRELOAD=%s, as it does for a setuid or setgid program (evolve's private copy is "+
		"neither) and for a library built for another architecture than the game's (compare file %s %s; set CC to a compiler for the game's)",
		in.shim, in.shim, in.binary)
}

// PlatformErr returns nil: the game runs under a pseudo-terminal with a
// preloaded shim.
func PlatformErr() error { return nil }
