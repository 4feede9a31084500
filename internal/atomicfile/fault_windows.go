//go:build windows

package atomicfile

import (
	"fmt"
	"os"
)

// killSelf ends the process with TerminateProcess (os.Process.Kill): no
// deferred function or exit handler runs, as under SIGKILL on Unix.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	os.Exit(137) // not reached unless TerminateProcess failed
}

// interruptSelf cannot send itself an interrupt on Windows (no signals):
// the "sigint" fault action is for the Unix tests only. It says so on
// stderr and ends the process as killSelf does.
func interruptSelf() {
	fmt.Fprintf(os.Stderr, "evolve: %s=sigint is not supported on Windows (a process cannot interrupt itself there); killing instead\n", FaultActionEnv)
	killSelf()
}
