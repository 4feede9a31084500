// Package flock takes advisory locks on whole open files, the same way on
// every platform evolve builds for: flock(2) on Unix (see flock_unix.go),
// LockFileEx on Windows (see flock_windows.go). A lock belongs to the
// open file (not to the process or thread); closing the file or the end
// of the process releases it, so a lock never outlives a killed evolve.
//
// The locks are advisory on Unix: they exclude only other lockers. On
// Windows they are mandatory for the bytes they cover, so lock only
// files kept for locking (run.lock, eval.lock, versions.lock), never a
// file that other processes read or write.
package flock

import "os"

// Lock takes an exclusive lock on f, waiting while another open file
// holds a lock on the same file. Errors are the system's.
func Lock(f *os.File) error { return lock(f, true, true) }

// RLock takes a shared lock on f, waiting while another open file holds
// an exclusive lock on the same file. Errors are the system's.
func RLock(f *os.File) error { return lock(f, false, true) }

// TryLock takes an exclusive lock on f without waiting. Its error
// matches ErrLocked (errors.Is) when another open file holds a lock on
// the same file; other errors are the system's.
func TryLock(f *os.File) error { return lock(f, true, false) }

// TryRLock takes a shared lock on f without waiting. Its error matches
// ErrLocked (errors.Is) when another open file holds an exclusive lock on
// the same file; other errors are the system's.
func TryRLock(f *os.File) error { return lock(f, false, false) }

// Unlock releases f's lock. Closing f releases it too.
func Unlock(f *os.File) error { return unlock(f) }
