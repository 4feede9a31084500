//go:build unix

package experiment

import "syscall"

// writableDir reports whether the process may create entries in the
// directory dir and search it (access(2) with W_OK|X_OK), without
// creating anything.
func writableDir(dir string) error { return syscall.Access(dir, 0o2|0o1) }
