package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// platformErr returns nil: Linux runs process environments.
func platformErr() error { return nil }

// memoryLimitErr returns nil: Linux enforces max_memory_mb (a cgroup's
// memory.max, else RLIMIT_DATA; see containment.limitMemory).
func memoryLimitErr(mb int) error { return nil }

// noCgroups, set by tests, makes newContainment skip the cgroup, so that
// the /proc scan is tested where cgroups work too.
var noCgroups bool

// containment holds one protocol process and all its descendants, so
// that evolve can kill every one of them (see killAll) and limit their
// memory. Where a cgroup v2 directory can be created below evolve's own
// cgroup, the process is started in it (clone3 with CLONE_INTO_CGROUP,
// SysProcAttr.UseCgroupFD), and nothing it starts can leave it; else the
// descendants are found in /proc by MarkerVar and by parent.
type containment struct {
	marker string   // MarkerVar's value
	cgDir  string   // the cgroup directory, "" without one
	cgFD   *os.File // open on cgDir, for clone3; nil without one
	memory bool     // the cgroup limits memory (memory.max), so RLIMIT_DATA is not set
}

// cgroupBase returns the cgroup v2 directory evolve runs in: its
// "0::PATH" line of /proc/self/cgroup under the cgroup2 mount of
// /proc/self/mountinfo. "" if there is none (cgroup v1 only, or no
// /proc).
var cgroupBase = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	rel := ""
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fs := strings.Fields(pre)
		if len(fs) < 5 || fs[3] != "/" {
			continue
		}
		return filepath.Join(fs[4], rel)
	}
	return ""
})

// newContainment prepares the containment of one process: a fresh
// cgroup below evolve's own when it can be created (with memory.max set
// to memLimit bytes when the memory controller is there and memLimit >
// 0), else the marker only. It never fails: without a cgroup, killAll
// scans /proc.
func newContainment(memLimit uint64) *containment {
	c := &containment{marker: newMarker()}
	base := cgroupBase()
	if base == "" || noCgroups {
		return c
	}
	cleanStale.Do(func() { removeStale(base) })
	dir := filepath.Join(base, "evolve-process-"+c.marker)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return c
	}
	if memLimit > 0 {
		if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatUint(memLimit, 10)), 0); err == nil {
			c.memory = true
			// No swap: the limit is on what the process uses, not what
			// it can push out.
			os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
		}
	}
	fd, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return &containment{marker: c.marker}
	}
	c.cgDir, c.cgFD = dir, fd
	return c
}

var cleanStale sync.Once

// removeStale removes the cgroups that an evolve killed before its
// processes ended left in base: "evolve-process-PID-N" directories whose
// PID is no live process. rmdir removes only an empty cgroup, so one that
// still holds processes stays.
func removeStale(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "evolve-process-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(filepath.Join(base, e.Name()))
		}
	}
}

// attr returns the SysProcAttr of a process in c: its own process group,
// SIGKILL when evolve dies (PR_SET_PDEATHSIG), and c's cgroup if any.
func (c *containment) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if c.cgFD != nil {
		a.UseCgroupFD, a.CgroupFD = true, int(c.cgFD.Fd())
	}
	return a
}

// dropCgroup gives up c's cgroup (when starting a process in it failed,
// e.g. a kernel without clone3): the process is then started without.
func (c *containment) dropCgroup() {
	if c.cgFD != nil {
		c.cgFD.Close()
		os.Remove(c.cgDir)
		c.cgDir, c.cgFD, c.memory = "", nil, false
	}
}

// env returns the environment entry of c's marker.
func (c *containment) env() string { return MarkerVar + "=" + c.marker }

// limitMemory limits pid's data segment (RLIMIT_DATA, with prlimit(2))
// to bytes, unless c's cgroup already limits its memory. RLIMIT_DATA
// counts the private writable memory a process maps (heap, anonymous
// mappings; Linux 4.7 and later) but not address space merely reserved,
// so V8 and the JVM, which reserve large ranges at start, run under it
// where RLIMIT_AS would kill them before their first line.
func (c *containment) limitMemory(pid int, bytes uint64) error {
	if c.memory {
		return nil
	}
	lim := syscall.Rlimit{Cur: bytes, Max: bytes}
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_DATA),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// mechanism names how c holds its processes, for the stderr log.
func (c *containment) mechanism() string {
	if c.cgDir != "" {
		return "cgroup " + c.cgDir
	}
	return "process group and " + c.env()
}

// oomKilled reports whether c's cgroup's OOM killer killed a process
// (memory.events oom_kill > 0).
func (c *containment) oomKilled() bool {
	if c.cgDir == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.cgDir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok && n != "0" {
			return true
		}
	}
	return false
}

// killAll sends SIGKILL to every process of c: the process group of
// root (root 0: none, for a root already reaped), then, with a cgroup, every process in it (cgroup.kill, or
// cgroup.procs one by one on kernels before 5.14); without one, every
// process whose environment holds c's marker or whose ancestry leads to
// root, until a scan of /proc finds none (a process forking as it is
// killed is caught by the next scan; at most 20 rounds). A descendant
// that cleared its environment and was orphaned escapes this scan, not
// a cgroup.
func (c *containment) killAll(root int) {
	if root > 0 {
		syscall.Kill(-root, syscall.SIGKILL)
	}
	if c.cgDir != "" {
		if os.WriteFile(filepath.Join(c.cgDir, "cgroup.kill"), []byte("1"), 0) == nil {
			return
		}
		for range 20 {
			data, err := os.ReadFile(filepath.Join(c.cgDir, "cgroup.procs"))
			if err != nil || len(bytes.TrimSpace(data)) == 0 {
				return
			}
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		return
	}
	for range 20 {
		pids := c.members(root)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// members returns the live processes (not zombies) of /proc that carry
// c's marker or descend from root (root itself excluded).
func (c *containment) members(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(c.env() + "\x00")
	parent := map[int]int{}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		parent[pid] = ppid
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			out = append(out, pid)
		}
	}
	if root > 0 {
		for pid := range parent {
			for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
				if p == root {
					out = append(out, pid)
					break
				}
			}
		}
	}
	return out
}

// release removes c's cgroup once its processes are gone (they may take
// a moment to exit after killAll); a cgroup that stays busy for a second
// is left, and an error names it.
func (c *containment) release() error {
	if c.cgDir == "" {
		return nil
	}
	c.cgFD.Close()
	var err error
	for range 100 {
		if err = os.Remove(c.cgDir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", c.cgDir, err)
}

// cgFDSet reports whether c starts its process in a cgroup.
func (c *containment) cgFDSet() bool { return c.cgFD != nil }

// waitExited returns once process pid has exited, without reaping it
// (waitid(2) with WEXITED|WNOWAIT), so that cmd.Wait still gets its
// status; or once done is closed, if waitid fails.
func waitExited(pid int, done <-chan struct{}) {
	var info [128]byte // siginfo_t
	for {
		select {
		case <-done: // reaped already (a process that exited at once)
			return
		default:
		}
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|0x1000000 /* WNOWAIT */, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			<-done
		}
		return
	}
}
