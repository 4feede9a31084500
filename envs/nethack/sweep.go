package nethack

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// A playground directory's name records its owner, the process that made
// it: evolve-nethack-p<pid>-s<start>-<random>, where start is the owner's
// start time (field 22 of /proc/<pid>/stat, clock ticks since boot; 0
// where there is no /proc). A process killed with SIGKILL cannot remove
// its playgrounds; the next process that opens the environment removes
// them (sweepPlaygrounds), and only them.
var playgroundName = regexp.MustCompile(`^evolve-nethack-p(\d+)-s(\d+)-\d+$`)

// playgroundPattern is the os.MkdirTemp pattern of this process's
// playgrounds.
func playgroundPattern() string {
	return fmt.Sprintf("evolve-nethack-p%d-s%d-*", os.Getpid(), startTime(os.Getpid()))
}

// startTime returns the start time of process pid (field 22 of
// /proc/<pid>/stat, clock ticks since boot), 0 if unknown.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after its last ')' start with field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// ownerAlive reports whether the process that made a playground, pid
// started at start, still runs: kill(pid, 0) finds it (EPERM: it runs
// under another user) and, when both start times are known, it started
// at start (not a later process given the same pid).
func ownerAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return true // not a pid this process can judge: keep
	}
	if !processExists(pid) {
		return false
	}
	if now := startTime(pid); start != 0 && now != 0 && now != start {
		return false
	}
	return true
}

// sweepPlaygrounds removes, from directory tmp, the playgrounds whose
// owner process is gone: directories named by playgroundName, owned by
// this user, whose owner pid no longer runs or now belongs to a process
// started at another time. Anything else (another name, a file, another
// user's directory, a live owner's) is left alone. It returns the paths
// removed; the error is the first removal that failed (the sweep goes on).
func sweepPlaygrounds(tmp string) ([]string, error) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for _, e := range ents {
		m := playgroundName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		pid, err1 := strconv.Atoi(m[1])
		start, err2 := strconv.ParseUint(m[2], 10, 64)
		if err1 != nil || err2 != nil || ownerAlive(pid, start) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if fi, err := os.Lstat(path); err != nil || !ownedByMe(fi) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		removed = append(removed, path)
	}
	return removed, first
}

var sweepOnce sync.Once

// SweepStale sweeps the system's temporary directory once per process,
// before the first playground is made. A failure is not an error of the
// environment: a stale directory left is only litter.
func SweepStale() {
	sweepOnce.Do(func() { sweepPlaygrounds(os.TempDir()) })
}
