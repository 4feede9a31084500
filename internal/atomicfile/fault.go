package atomicfile

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// The test-only fault hook. Crash consistency is proved by fault
// injection, not timing: a test runs evolve with FaultAtEnv=N and the
// process kills itself with SIGKILL at its N-th write point, exactly as
// kill -9 would at that moment; the test then resumes the run and compares
// every output with an uninterrupted run, for every N.
//
// A write point is each place where the file system changes what another
// process (or a later one) can see: in Write, after the temporary file is
// written and synced and before it is renamed over the target; and every
// other call of Point (the prompt store calls it before it links a new
// version file into place). Killing the process at point N leaves the
// state "writes 1..N-1 done, write N not visible" (plus the temporary file
// of write N), which is the state any crash between two writes leaves.
//
// The hook is read once, from the environment, at the first write point.
// It costs one mutex acquisition per write when unset.
const (
	// FaultAtEnv names the environment variable holding N >= 1: at the
	// N-th write point the process acts as FaultActionEnv says.
	FaultAtEnv = "EVOLVE_FAULT_AT"
	// FaultActionEnv names the action at point N: "kill" (the default:
	// SIGKILL to itself, so no deferred function or exit handler runs) or
	// "sigint" (SIGINT to itself, then the write goes on, as when a user
	// presses Ctrl-C at that moment).
	FaultActionEnv = "EVOLVE_FAULT_ACTION"
	// FaultLogEnv names the environment variable holding a file path: each
	// write point appends one line "N<TAB>name" to it (name is the target
	// path or what Point was given), so a test learns how many points a
	// run has and what each one writes.
	FaultLogEnv = "EVOLVE_FAULT_LOG"
)

// interrupted is closed by NoteInterrupt.
var (
	interrupted     = make(chan struct{})
	interruptedOnce sync.Once
)

// NoteInterrupt tells the fault hook that the process has acted on an
// interrupt (its context is cancelled). A signal handler calls it; the
// hook's "sigint" action waits for it before the write goes on.
func NoteInterrupt() { interruptedOnce.Do(func() { close(interrupted) }) }

var fault struct {
	sync.Mutex
	read   bool
	at     int    // 0: never
	action string // "kill" or "sigint"
	log    string
	n      int // points passed
}

// Point marks a write point named name (see FaultAtEnv). Code outside this
// package calls it just before a file-system change it makes without
// Write (a link, a removal); Write calls it itself.
func Point(name string) {
	fault.Lock()
	defer fault.Unlock()
	if !fault.read {
		fault.read = true
		fault.at, _ = strconv.Atoi(os.Getenv(FaultAtEnv))
		fault.action = os.Getenv(FaultActionEnv)
		fault.log = os.Getenv(FaultLogEnv)
	}
	if fault.at <= 0 && fault.log == "" {
		return
	}
	fault.n++
	if fault.log != "" {
		if f, err := os.OpenFile(fault.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%d\t%s\n", fault.n, name)
			f.Close()
		}
	}
	if fault.n != fault.at {
		return
	}
	switch fault.action {
	case "sigint":
		interruptSelf()
		// Go on writing only once the process has seen the signal, as a
		// user's Ctrl-C would be seen between two writes: deterministic
		// whatever the machine's load (see NoteInterrupt).
		select {
		case <-interrupted:
		case <-time.After(30 * time.Second):
		}
	default:
		killSelf()
		select {} // SIGKILL cannot be caught; never go on writing
	}
}
