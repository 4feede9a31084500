//go:build windows

package flock

import (
	"os"

	"golang.org/x/sys/windows"
)

// ErrLocked is what TryLock's and TryRLock's error matches when another
// open file holds a conflicting lock: EWOULDBLOCK on Unix
// ("resource temporarily unavailable"), ERROR_LOCK_VIOLATION on Windows.
var ErrLocked error = windows.ERROR_LOCK_VIOLATION

// allBytes is the length of the locked range, in both halves of its
// 64-bit length: the whole file, whatever it grows to (as cmd/go's
// lockedfile does).
const allBytes = ^uint32(0)

// lock calls LockFileEx on f's whole range: LOCKFILE_EXCLUSIVE_LOCK or a
// shared lock, with LOCKFILE_FAIL_IMMEDIATELY unless wait. Files that os
// opens are synchronous handles, on which LockFileEx returns once the
// lock is held.
func lock(f *os.File, exclusive, wait bool) error {
	var flags uint32
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, allBytes, allBytes, new(windows.Overlapped))
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
}
