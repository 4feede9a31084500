//go:build unix

package flock

import (
	"os"
	"syscall"
)

// ErrLocked is what TryLock's and TryRLock's error matches when another
// open file holds a conflicting lock: EWOULDBLOCK on Unix
// ("resource temporarily unavailable"), ERROR_LOCK_VIOLATION on Windows.
var ErrLocked error = syscall.EWOULDBLOCK

// lock calls flock(2) on f: LOCK_EX or LOCK_SH, with LOCK_NB unless wait.
// An interrupted wait (EINTR) is retried.
func lock(f *os.File, exclusive, wait bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
