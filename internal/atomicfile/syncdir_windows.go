//go:build windows

package atomicfile

// dirSync is false: Windows cannot flush a directory (FlushFileBuffers
// needs a handle with write access, which a directory opened by os.Open
// lacks, and fails), and NTFS journals the rename itself.
const dirSync = false
