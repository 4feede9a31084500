package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// sourceRevision returns the git revision of the source tree this binary
// was compiled from, "3f2a9c1" or "3f2a9c1+dirty", for a binary built
// without VCS stamping (go run, go test, -buildvcs=false): the tree is
// found from this file's compile-time path, and asked with git. It
// returns "" when the source is not there (a binary copied elsewhere,
// -trimpath), is not a git work tree, or git is missing or takes more
// than 2 s.
func sourceRevision() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(file)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}
