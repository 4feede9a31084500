// Package atomicfile writes files so that a crash at any moment leaves
// either the old file or the new one, never a mix: the data goes to a
// temporary file in the same directory, is synced, renamed over the
// target, and the directory is synced.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile atomically replaces (or creates) path with data, with mode
// perm for a new file. Errors name the path.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// Write atomically replaces (or creates) path with what fill writes into
// the temporary file f. If fill fails, the temporary file is removed and
// path is untouched. The temporary file is named ".BASE.tmp-RANDOM" in
// path's directory (see IsTemp): a crash can leave one behind, never a
// half-written path. Write is a write point of the fault hook (FaultAtEnv)
// just before the rename.
func Write(path string, perm os.FileMode, fill func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	Point(path)
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming into %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory so that a rename in it is durable. On
// Windows it does nothing (see syncdir_windows.go).
func SyncDir(dir string) error {
	if !dirSync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// IsTemp reports whether a file name (no directory) is one of Write's
// temporary files (".BASE.tmp-RANDOM"), which only a crash leaves behind
// and which a recovering owner may remove.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
