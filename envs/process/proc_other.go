//go:build !linux

package process

import (
	"errors"
	"os"
	"syscall"
)

// sysProcAttr puts the process in its own process group, so that killing
// the group reaches its children.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// setMemoryLimit is only implemented on Linux.
func setMemoryLimit(pid int, bytes uint64) error {
	return errors.New("max_memory_mb is only supported on Linux")
}

// pipe returns os.Pipe's pipe.
func pipe() (r, w *os.File, err error) { return os.Pipe() }
