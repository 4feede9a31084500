package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestProgress: WriteProgress and ReadProgress round-trip; a missing
// file is fs.ErrNotExist, a damaged one an error naming the file and
// the bad value; RemoveProgress removes it and tolerates none.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadProgress(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no file: %v, want fs.ErrNotExist", err)
	}
	t0 := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	want := &Progress{RunID: "tiny-1", Generation: 2, Split: "val", Versions: []string{"v1.0.3", "v1.0.4"}, Done: 30, Total: 120,
		PhaseStarted: t0, RunStarted: t0.Add(-time.Hour), Updated: t0.Add(10 * time.Second)}
	if err := WriteProgress(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadProgress(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; wrote %+v", got, err, want)
	}
	if got.Rate() != 3 || got.ETA() != 30*time.Second {
		t.Errorf("rate %v, ETA %v; want 3 a second, 30s", got.Rate(), got.ETA())
	}
	for _, c := range []struct{ body, want string }{
		{`{"done":5,"total":4}`, "done 5 of total 4"},
		{`{"done":-1,"total":4}`, "done -1 of total 4"},
		{`{"done":"x"}`, "progress.json"},
	} {
		if err := os.WriteFile(filepath.Join(dir, ProgressFile), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadProgress(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), ProgressFile) {
			t.Errorf("%s: %v, want an error naming %s and %q", c.body, err, ProgressFile, c.want)
		}
	}
	for range 2 {
		if err := RemoveProgress(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ProgressFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after RemoveProgress: %v", err)
	}
}
