//go:build unix

package nethack

import (
	"errors"
	"os"
	"syscall"
)

// processExists reports whether a process pid exists: kill(pid, 0)
// finds it, or is refused (EPERM: it runs under another user). Any
// error but ESRCH counts as existing, so that a doubt keeps a playground.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM) || !errors.Is(err, syscall.ESRCH)
}

// ownedByMe reports whether fi's owner is this process's user (true where
// the owner cannot be read).
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
