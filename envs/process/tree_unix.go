//go:build unix && !linux

package process

import (
	"runtime"
	"syscall"
)

// platformErr returns nil: macOS and the BSDs run process environments,
// held by their process group.
func platformErr() error { return nil }

// memoryLimitErr returns max_memory_mb's refusal: without cgroups, and
// with a kernel that applies RLIMIT_DATA and RLIMIT_AS to little or none
// of the memory programs map (macOS), no limit evolve sets would hold.
func memoryLimitErr(mb int) error { return memoryLimitUnsupported(runtime.GOOS, mb) }

// containment holds one protocol process and its descendants in its
// process group: the closest equivalent outside Linux of a cgroup. A
// descendant that leaves the group (setsid, a double-forked daemon)
// escapes it, and there is no parent-death signal: if evolve itself is
// killed, its processes see end of file on stdin (and NetHack a hangup
// of its terminal), and must exit then.
type containment struct {
	marker string // MarkerVar's value
}

func newContainment(uint64) *containment { return &containment{marker: newMarker()} }

// attr returns the SysProcAttr of a process in c: its own process group.
func (c *containment) attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// dropCgroup does nothing: there is no cgroup.
func (c *containment) dropCgroup() {}

// env returns the environment entry of c's marker.
func (c *containment) env() string { return MarkerVar + "=" + c.marker }

// mechanism names how c holds its processes, for the stderr log.
func (c *containment) mechanism() string { return "process group" }

// oomKilled returns false: no cgroup records an OOM kill.
func (c *containment) oomKilled() bool { return false }

// release does nothing: there is no cgroup to remove.
func (c *containment) release() error { return nil }

// cgFDSet returns false: there is no cgroup.
func (c *containment) cgFDSet() bool { return false }

// waitExited returns once the process has been waited for (done
// closed). Without Linux's waitid(WNOWAIT) the exit is seen when
// cmd.Wait returns, which waits up to exec.Cmd.WaitDelay (1s) more for a
// descendant that holds stderr.
func waitExited(pid int, done <-chan struct{}) { <-done }

// killAll sends SIGKILL to root's process group (root 0: none).
func (c *containment) killAll(root int) {
	if root > 0 {
		syscall.Kill(-root, syscall.SIGKILL)
	}
}

// limitMemory returns max_memory_mb's refusal (Validate refuses such a
// config before any process starts).
func (c *containment) limitMemory(pid int, bytes uint64) error {
	return memoryLimitErr(int(bytes >> 20))
}
