//go:build unix

package nethack

import (
	"os"
	"syscall"
)

// killGame sends SIGKILL to the game's process group (the game leads its
// own session and group, see gameAttr).
func killGame(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
