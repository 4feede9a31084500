package nethack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// deadPid returns the pid of a process that has exited (and been
// reaped).
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Skipf("no /bin/sh: %v", err)
	}
	return cmd.Process.Pid
}

// TestSweepPlaygrounds fills a directory with playgrounds of dead and
// live owners and other entries: only the dead owners' playgrounds go.
func TestSweepPlaygrounds(t *testing.T) {
	root := t.TempDir()
	dead, me := deadPid(t), os.Getpid()
	myStart := startTime(me)
	type entry struct {
		name   string
		file   bool
		remove bool
	}
	entries := []entry{
		{fmt.Sprintf("evolve-nethack-p%d-s0-1", dead), false, true},
		{fmt.Sprintf("evolve-nethack-p%d-s12345-2", dead), false, true},
		{fmt.Sprintf("evolve-nethack-p%d-s%d-3", me, myStart), false, false},
		{fmt.Sprintf("evolve-nethack-p%d-s0-4", me), false, false},                   // start unknown: the pid decides
		{fmt.Sprintf("evolve-nethack-p%d-s0-5", dead), true, false},                  // a file, not a playground
		{"evolve-nethack-123456", false, false},                                      // another naming: not provably ours
		{fmt.Sprintf("evolve-cache-p%d-s0-6", dead), false, false},                   // another prefix
		{fmt.Sprintf("evolve-nethack-p%d-s0-7-x", dead), false, false},               // not the pattern
		{"evolve-nethack-p1-s0-8", false, false},                                     // init runs
		{fmt.Sprintf("evolve-nethack-p%d-s%d-9x", dead, myStart), false, false},      // not the pattern
		{fmt.Sprintf("evolve-nethack-p%d-s%d-10", 1<<22+dead, myStart), false, true}, // a pid above pid_max: none runs
	}
	if myStart != 0 {
		// The same pid started at another time: a later process reused it.
		entries = append(entries, entry{fmt.Sprintf("evolve-nethack-p%d-s%d-11", me, myStart+1), false, true})
	}
	for _, e := range entries {
		p := filepath.Join(root, e.name)
		var err error
		if e.file {
			err = os.WriteFile(p, []byte("x"), 0o644)
		} else if err = os.Mkdir(p, 0o755); err == nil {
			err = os.WriteFile(filepath.Join(p, "xlogfile"), nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	removed, err := sweepPlaygrounds(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(root, e.name)
		_, statErr := os.Stat(p)
		gone := os.IsNotExist(statErr)
		if gone != e.remove || slices.Contains(removed, p) != e.remove {
			t.Errorf("%s: removed %v (listed %v), want %v", e.name, gone, slices.Contains(removed, p), e.remove)
		}
	}
	if _, err := sweepPlaygrounds(filepath.Join(root, "missing")); err == nil {
		t.Error("sweeping a missing directory: no error")
	}
}

// TestPlaygroundNamesItsOwner: a player's playground is named for this
// process, so a sweep by another process keeps it while this one runs.
func TestPlaygroundNamesItsOwner(t *testing.T) {
	dir, err := testInstall(t).NewPlayground()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	m := playgroundName.FindStringSubmatch(filepath.Base(dir))
	if m == nil || m[1] != fmt.Sprint(os.Getpid()) {
		t.Fatalf("playground %s is not named for pid %d", dir, os.Getpid())
	}
	if _, err := sweepPlaygrounds(filepath.Dir(dir)); err != nil {
		t.Logf("sweep: %v", err) // another user's entry may refuse removal
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the live player's playground was swept: %v", err)
	}
}

// TestKill9PlaygroundSwept kills (SIGKILL) a subprocess that made a
// playground: it stays in its temporary directory; the next sweep in a
// process with the same temporary directory (SweepStale, at a player's
// New) removes it.
func TestKill9PlaygroundSwept(t *testing.T) {
	testInstall(t) // skips without the game
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKill9$")
	cmd.Env = append(os.Environ(), "EVOLVE_NH_HELPER=kill9", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe() // the helper waits on it; it closes if this test dies
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	dir := ""
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "playground "); ok {
			dir = d
			break
		}
	}
	if dir == "" || filepath.Dir(dir) != tmp {
		t.Fatalf("the helper printed playground %q, want one in %s", dir, tmp)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("after SIGKILL the playground is already gone (%v): the test proves nothing", err)
	}
	removed, err := sweepPlaygrounds(tmp)
	if err != nil || !slices.Equal(removed, []string{dir}) {
		t.Errorf("sweep removed %v (err %v), want [%s]", removed, err, dir)
	}
}

// TestHelperKill9 is the helper of TestKill9PlaygroundSwept: it makes a
// playground, prints it and waits to be killed (or for its stdin to
// close); it does nothing in a normal test run.
func TestHelperKill9(t *testing.T) {
	if os.Getenv("EVOLVE_NH_HELPER") != "kill9" {
		t.Skip("helper process of TestKill9PlaygroundSwept")
	}
	in, err := Prepare(DefaultBinary)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := in.NewPlayground()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("playground %s\n", dir)
	io.Copy(io.Discard, os.Stdin)
}
