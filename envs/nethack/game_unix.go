//go:build unix

package nethack

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killGame sends SIGKILL to the game's process group (the game leads its
// own session and group, see gameAttr).
func killGame(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

// waitReadable waits at most d for fd to have input (or a hang-up, which
// the next read reports). The error is poll(2)'s, other than EINTR.
func waitReadable(fd int, d time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d.Milliseconds())+1)
	if err == unix.EINTR {
		return false, nil
	}
	return n > 0, err
}

// readFD reads from fd (in blocking mode) into b, retrying EINTR.
func readFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}
