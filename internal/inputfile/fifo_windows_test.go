//go:build windows

package inputfile

import "errors"

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.ErrUnsupported }
