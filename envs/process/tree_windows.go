//go:build windows

package process

import (
	"os"
	"runtime"
	"syscall"
)

// platformErr returns the refusal of process environments: Windows has
// no process groups that evolve could kill a program's descendants by,
// and job objects (their Windows equivalent) are not implemented.
func platformErr() error { return processesUnsupported(runtime.GOOS) }

// memoryLimitErr returns max_memory_mb's refusal.
func memoryLimitErr(mb int) error { return memoryLimitUnsupported(runtime.GOOS, mb) }

// containment is a stub: New and startProc refuse to start a process on
// Windows (platformErr), so none is ever held.
type containment struct{}

func newContainment(uint64) *containment             { return &containment{} }
func (c *containment) attr() *syscall.SysProcAttr    { return nil }
func (c *containment) dropCgroup()                   {}
func (c *containment) env() string                   { return MarkerVar + "=" + newMarker() }
func (c *containment) mechanism() string             { return "nothing" }
func (c *containment) oomKilled() bool               { return false }
func (c *containment) release() error                { return nil }
func (c *containment) cgFDSet() bool                 { return false }
func (c *containment) limitMemory(int, uint64) error { return platformErr() }
func waitExited(pid int, done <-chan struct{})       { <-done }

// killAll kills root alone (TerminateProcess): without a job object its
// descendants are out of reach.
func (c *containment) killAll(root int) {
	if root > 0 {
		if p, err := os.FindProcess(root); err == nil {
			p.Kill()
		}
	}
}
