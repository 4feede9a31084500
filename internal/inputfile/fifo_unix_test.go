//go:build unix

package inputfile

import "syscall"

// mkfifo makes a named pipe at path (mkfifo(3)).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
