package process

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// allowedCPUs returns the CPUs evolve may run on (sched_getaffinity(2)
// of the calling thread), in increasing order; nil if it cannot tell.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// onCPU runs f on the calling goroutine's OS thread, locked to it and
// with its CPU affinity set to cpu alone, then restores the thread's
// affinity and unlocks it. A process started in f inherits the affinity
// (fork copies the calling thread's), and so do its descendants. If the
// affinity cannot be read or set, f runs unpinned; if it cannot be
// restored, the thread stays locked to the goroutine (and ends with it)
// rather than serve other goroutines pinned.
func onCPU(cpu int, f func()) {
	runtime.LockOSThread()
	var old, set unix.CPUSet
	if unix.SchedGetaffinity(0, &old) != nil {
		runtime.UnlockOSThread()
		f()
		return
	}
	set.Set(cpu)
	if unix.SchedSetaffinity(0, &set) != nil {
		runtime.UnlockOSThread()
		f()
		return
	}
	defer func() {
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
	}()
	f()
}
