//go:build unix

package castore

import (
	"errors"
	"syscall"
)

// openNoFollow makes an open fail on a symbolic link (ELOOP) and not
// block on a FIFO without a writer.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// isSymlinkErr reports whether err is O_NOFOLLOW's refusal of a
// symbolic link.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
