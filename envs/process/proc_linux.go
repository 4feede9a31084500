package process

import (
	"os"
	"syscall"
	"unsafe"
)

// sysProcAttr puts the process in its own process group (so that killing
// the group reaches its children) and has the kernel kill it if evolve
// dies (PR_SET_PDEATHSIG).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// setMemoryLimit sets RLIMIT_AS (soft and hard) of process pid to bytes,
// with prlimit(2).
func setMemoryLimit(pid int, bytes uint64) error {
	lim := syscall.Rlimit{Cur: bytes, Max: bytes}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_AS),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// pipe returns a pipe whose ends are in blocking mode (not in Go's
// poller): a blocked read is a thread in read(2) that the kernel wakes
// directly, which halves the round-trip time of small messages.
func pipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
