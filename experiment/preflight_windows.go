//go:build windows

package experiment

// writableDir returns nil: Windows decides by the directory's access
// control list, which only creating an entry tests, and the preflight
// creates nothing; the run directory's creation names a directory that
// refuses it.
func writableDir(dir string) error { return nil }
