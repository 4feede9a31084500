//go:build !linux

package process

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// MarkerVar is the environment variable every protocol process is
// started with (see the Linux build; elsewhere only the process group is
// killed).
const MarkerVar = "EVOLVE_PROCESS_GROUP"

// containment is, outside Linux, the process group only.
type containment struct{}

func newContainment(uint64) *containment { return &containment{} }

func (c *containment) attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
func (c *containment) dropCgroup()                {}
func (c *containment) env() string                { return MarkerVar + "=" + strconv.Itoa(os.Getpid()) }
func (c *containment) mechanism() string          { return "process group" }
func (c *containment) oomKilled() bool            { return false }
func (c *containment) release() error             { return nil }

func (c *containment) cgFDSet() bool { return false }

// waitExited returns once the process has been waited for.
func waitExited(pid int, done <-chan struct{}) { <-done }

// killAll kills root's process group.
func (c *containment) killAll(root int) {
	if root > 0 {
		syscall.Kill(-root, syscall.SIGKILL)
	}
}

// limitMemory is only implemented on Linux.
func (c *containment) limitMemory(pid int, bytes uint64) error {
	return errors.New("max_memory_mb is only supported on Linux")
}

// pipe returns os.Pipe's pipe.
func pipe() (r, w *os.File, err error) { return os.Pipe() }

// allowedCPUs returns nil: pin_cpu is only implemented on Linux.
func allowedCPUs() []int { return nil }

// onCPU runs f: pin_cpu is only implemented on Linux.
func onCPU(cpu int, f func()) { f() }
