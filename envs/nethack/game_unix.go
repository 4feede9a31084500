//go:build unix

package nethack

import (
	"os"
	"syscall"
)

// platformErr returns nil: the game runs under a pseudo-terminal with a
// preloaded shim.
func platformErr() error { return nil }

// killGame sends SIGKILL to the game's process group (the game leads its
// own session and group, see gameAttr).
func killGame(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
