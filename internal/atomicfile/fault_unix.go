//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// killSelf sends SIGKILL to the process: no deferred function or exit
// handler runs, as under kill -9.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// interruptSelf sends SIGINT to the process, as Ctrl-C in its terminal
// would.
func interruptSelf() { syscall.Kill(os.Getpid(), syscall.SIGINT) }
