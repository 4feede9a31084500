package main

import (
	"os/exec"
	"strings"
	"testing"
)

// A binary built without VCS stamping (go test, go run) records the
// revision of its source tree: the manifest's evolve_version is not a
// bare "(devel)".
func TestVersionRecordsRevision(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git work tree, or no git: %v", err)
	}
	rev := strings.TrimSpace(string(out))
	if v := Version(); !strings.Contains(v, rev) {
		t.Errorf("Version() = %q, want the source revision %s in it", v, rev)
	}
}
