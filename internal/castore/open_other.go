//go:build !unix

package castore

// openNoFollow is 0 where O_NOFOLLOW and O_NONBLOCK do not exist: the
// type and size checks after the open still apply.
const openNoFollow = 0

func isSymlinkErr(error) bool { return false }
