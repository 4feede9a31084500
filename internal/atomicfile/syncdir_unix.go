//go:build unix

package atomicfile

// dirSync is true: a directory is fsynced (SyncDir) after a rename in it.
const dirSync = true
