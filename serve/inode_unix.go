//go:build unix

package serve

import (
	"io/fs"
	"syscall"
)

// inode returns st's inode number (0 if the system does not say).
func inode(st fs.FileInfo) int64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Ino)
	}
	return 0
}
