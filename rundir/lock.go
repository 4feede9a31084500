package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"evolve/internal/flock"
)

// ErrInUse is wrapped by the error of LockDir when another process holds
// the directory's lock.
var ErrInUse = errors.New("in use by another evolve process")

// Lock is the exclusive lock a process holds on a run or eval directory
// while it writes there: a whole-file flock(2) (LockFileEx on Windows) on
// the directory's lock file (Kind.LockFile), which the kernel releases
// if the process dies, so a crashed run is never left locked.
type Lock struct {
	f *os.File
}

// LockDir takes the lock of dir, a directory of kind k, without waiting:
// it creates the lock file if needed. If another process holds it, the
// error (wrapping ErrInUse) names the directory and says to wait for or
// stop that process; other errors are those of opening the file.
func LockDir(dir string, k Kind) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, k.LockFile()), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock.TryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s directory %s is %w (%v); wait for it to finish or stop it first", k, dir, ErrInUse, err)
	}
	return &Lock{f: f}, nil
}

// Release releases the lock and closes its file. It is safe on a nil
// Lock and more than once.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	flock.Unlock(l.f)
	l.f.Close()
	l.f = nil
}

// Locked reports whether a process holds the lock of dir, a directory of
// kind k: a shared, non-blocking lock on its lock file fails. The shared
// lock taken to test is released at once; a missing lock file is not
// locked.
func Locked(dir string, k Kind) bool {
	f, err := os.Open(filepath.Join(dir, k.LockFile()))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock.TryRLock(f); err != nil {
		return errors.Is(err, flock.ErrLocked)
	}
	flock.Unlock(f)
	return false
}
