package atomicfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary act as a writer of three files (a.txt,
// b.txt, c.txt in $FAULT_TEST_DIR), so that the fault hook can kill a
// real process.
func TestMain(m *testing.M) {
	if dir := os.Getenv("FAULT_TEST_DIR"); dir != "" {
		for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
			if err := WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writer(t *testing.T, env ...string) (dir string, status syscall.WaitStatus) {
	t.Helper()
	dir = t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "FAULT_TEST_DIR="+dir), env...)
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return dir, cmd.ProcessState.Sys().(syscall.WaitStatus)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// The hook logs every write point; at point N it kills the process before
// the rename, leaving writes 1..N-1 and a temporary file of write N.
func TestFaultHook(t *testing.T) {
	log := filepath.Join(t.TempDir(), "points")
	dir, st := writer(t, FaultLogEnv+"="+log)
	if st.ExitStatus() != 0 {
		t.Fatalf("writer without a fault: %v", st)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "1\t" + filepath.Join(dir, "a.txt") + "\n2\t" + filepath.Join(dir, "b.txt") + "\n3\t" + filepath.Join(dir, "c.txt") + "\n"
	if string(data) != want {
		t.Errorf("points log:\n%s\nwant:\n%s", data, want)
	}

	for _, tc := range []struct {
		at        string
		signalled bool
		files     []string
	}{
		{"1", true, nil},
		{"2", true, []string{"a.txt"}},
		{"3", true, []string{"a.txt", "b.txt"}},
		{"4", false, []string{"a.txt", "b.txt", "c.txt"}},
		{"0", false, []string{"a.txt", "b.txt", "c.txt"}},
	} {
		dir, st := writer(t, FaultAtEnv+"="+tc.at)
		if st.Signaled() != tc.signalled || (tc.signalled && st.Signal() != syscall.SIGKILL) {
			t.Errorf("at %s: status %v, want signalled %v by SIGKILL", tc.at, st, tc.signalled)
		}
		var files, temps []string
		for _, n := range names(t, dir) {
			if IsTemp(n) {
				temps = append(temps, n)
			} else {
				files = append(files, n)
			}
		}
		if strings.Join(files, " ") != strings.Join(tc.files, " ") {
			t.Errorf("at %s: files %v, want %v", tc.at, files, tc.files)
		}
		if wantTemps := 0; tc.signalled {
			wantTemps = 1
			if len(temps) != wantTemps {
				t.Errorf("at %s: temporary files %v, want one (the write cut short)", tc.at, temps)
			}
		} else if len(temps) != 0 {
			t.Errorf("at %s: temporary files %v, want none", tc.at, temps)
		}
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".versions.json.tmp-123":     true,
		".v1.0.1.yaml.new.tmp-9":     true,
		"versions.json":              false,
		"v1.0.1.yaml.new":            false,
		".hidden":                    false,
		"checkpoint.json.tmp-notdot": false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
