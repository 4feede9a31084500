//go:build !linux

package process

import "os"

// pipe returns os.Pipe's pipe (Linux's blocking pipes are in
// proc_linux.go).
func pipe() (r, w *os.File, err error) { return os.Pipe() }

// allowedCPUs returns nil: pin_cpu is only implemented on Linux
// (affinity_linux.go); elsewhere it does nothing.
func allowedCPUs() []int { return nil }

// onCPU runs f: pin_cpu is only implemented on Linux.
func onCPU(cpu int, f func()) { f() }
