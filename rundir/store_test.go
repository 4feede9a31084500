package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLatestPromptStore(t *testing.T) {
	root := t.TempDir()
	index := func(run string, age time.Duration) string {
		dir := filepath.Join(root, run, "prompts")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "versions.json")
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC).Add(-age)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if dir, ok := LatestPromptStore(filepath.Join(root, "absent")); ok {
		t.Errorf("absent root: %q, true", dir)
	}
	if dir, ok := LatestPromptStore(root); ok {
		t.Errorf("empty root: %q, true", dir)
	}
	index("a-old", time.Hour)
	newest := index("b-new", time.Minute)
	index("c-tie", time.Minute) // as new as b-new: the first in lexical order wins
	index("d-older", 2*time.Hour)
	if err := os.MkdirAll(filepath.Join(root, "e-nostore", "prompts"), 0o755); err != nil { // no index
		t.Fatal(err)
	}
	if dir, ok := LatestPromptStore(root); !ok || dir != newest {
		t.Errorf("LatestPromptStore = %q, %v; want %q", dir, ok, newest)
	}
	later := index("z-latest", 0)
	if dir, _ := LatestPromptStore(root); dir != later {
		t.Errorf("after a newer run: %q, want %q", dir, later)
	}
}
