package process

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
)

// What each platform provides is in its own file: tree_linux.go (a
// cgroup v2 or a /proc scan, memory limits, PR_SET_PDEATHSIG),
// tree_unix.go (macOS and the BSDs: the process group only) and
// tree_windows.go (refused). The platform table of the README says what
// works where.

// MarkerVar is the environment variable every protocol process is
// started with: its value names the process's containment
// ("<evolve pid>-<n>"), and descendants inherit it, so that on Linux
// evolve finds and kills those that left the process group (setsid,
// double forks) where no cgroup holds them. Elsewhere it only marks the
// processes (for pkill -f or ps eww).
const MarkerVar = "EVOLVE_PROCESS_GROUP"

var containSeq atomic.Uint64

// newMarker returns a fresh MarkerVar value: evolve's pid, a dash and a
// sequence number unique within this evolve.
func newMarker() string {
	return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(containSeq.Add(1), 10)
}

// processesUnsupported returns the error of New and of every process
// start on a platform (goos, as runtime.GOOS names it) without the
// process groups and signals evolve holds processes with. It wraps
// errors.ErrUnsupported.
func processesUnsupported(goos string) error {
	return fmt.Errorf("process environments are not supported on %s: evolve holds each program and all its descendants "+
		"in a Unix process group (and on Linux a cgroup) so that it can kill them all on a timeout, a crash or its own exit, "+
		"and it has no %s equivalent (a job object) yet; run evolve on Linux (WSL 2 on Windows) or macOS, "+
		"or use the built-in dungeon environment: %w", goos, goos, errors.ErrUnsupported)
}

// memoryLimitUnsupported returns Validate's error for max_memory_mb mb on
// a platform (goos, as runtime.GOOS names it) whose kernel evolve cannot
// make enforce a memory limit. It wraps errors.ErrUnsupported.
func memoryLimitUnsupported(goos string, mb int) error {
	return fmt.Errorf("max_memory_mb: %d: not supported on %s: evolve enforces it only on Linux, with a cgroup v2's memory.max "+
		"or RLIMIT_DATA (which Linux applies to all the private memory a program maps); the %s kernel has no cgroups and "+
		"does not apply RLIMIT_DATA or RLIMIT_AS to the memory allocators map, so the limit would be a promise evolve cannot keep. "+
		"Remove max_memory_mb (or set it to 0) to run without a limit, or run on Linux: %w", mb, goos, goos, errors.ErrUnsupported)
}
