package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The checkpoints under testdata/ were written by evolve run and evolve
// eval before this package owned their types (the default run, finished:
// settings, a session, the stop reason; an eval of two versions on two
// config variants and a --seeds file: its gate and verdict): reading one
// and writing it back gives the same bytes, so the types keep the file
// format, field for field and in order.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file string
		read func(dir string) (any, error)
	}{
		{"run.checkpoint.json", func(dir string) (any, error) { return ReadRun(dir) }},
		{"eval.checkpoint.json", func(dir string) (any, error) { return ReadEval(dir) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			write(t, filepath.Join(dir, CheckpointFile), string(want))
			ck, err := tc.read(dir)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			if err := WriteCheckpoint(out, ck); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, CheckpointFile))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("written back:\n%s\nwant the file as read:\n%s", got, want)
			}
		})
	}
}

// Each bad checkpoint is refused with an error naming the file and what
// is wrong with it.
func TestReadCheckpointErrors(t *testing.T) {
	const run = `{"schema":1,"run_id":"r","config":"name: x\n"`
	const eval = `{"schema":1,"id":"x-eval-0123456789","config":"name: x\n"`
	for _, tc := range []struct {
		name, data string
		eval       bool
		want       []string // substrings of the error
		is         error
	}{
		{"missing", "", false, []string{CheckpointFile}, fs.ErrNotExist},
		{"not JSON", "{", false, []string{CheckpointFile, "unexpected end of JSON"}, nil},
		{"run field type", run + `,"generations":"3"}`, false, []string{CheckpointFile, "field generations", "string", "int"}, nil},
		{"run schema", `{"schema":2,"run_id":"r"}`, false, []string{CheckpointFile, "checkpoint schema 2, this evolve reads 1"}, nil},
		{"run without ID", `{"schema":1}`, false, []string{CheckpointFile, "run_id: missing"}, nil},
		{"eval read as run", eval + `}`, false, []string{CheckpointFile, "an eval's (id x-eval-0123456789)"}, ErrKind},
		{"run read as eval", run + `}`, true, []string{CheckpointFile, `id "" is not an eval's`}, ErrKind},
		{"eval field type", eval + `,"done":"all"}`, true, []string{CheckpointFile, "field done", "string", "[]string"}, nil},
		{"eval schema", `{"schema":0,"id":"x-eval-0123456789"}`, true, []string{CheckpointFile, "checkpoint schema 0, this evolve reads 1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.data != "" {
				write(t, filepath.Join(dir, CheckpointFile), tc.data)
			}
			var err error
			if tc.eval {
				_, err = ReadEval(dir)
			} else {
				_, err = ReadRun(dir)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
		})
	}
}

// A held lock refuses a second holder, naming the directory and
// wrapping ErrInUse, and Locked sees it; released, it is free again.
func TestLock(t *testing.T) {
	for _, k := range []Kind{KindRun, KindEval} {
		dir := t.TempDir()
		if Locked(dir, k) {
			t.Fatalf("%s: a directory without a lock file is locked", k)
		}
		l, err := LockDir(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, k.LockFile())); err != nil {
			t.Errorf("%s: no lock file: %v", k, err)
		}
		if !Locked(dir, k) {
			t.Errorf("%s: held, Locked says free", k)
		}
		_, err = LockDir(dir, k)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), string(k)+" directory "+dir+" is in use by another evolve process") {
			t.Errorf("%s: second LockDir: %v, want ErrInUse naming the directory", k, err)
		}
		l.Release()
		l.Release() // a second release does nothing
		if Locked(dir, k) {
			t.Errorf("%s: released, Locked says held", k)
		}
		l2, err := LockDir(dir, k)
		if err != nil {
			t.Errorf("%s: LockDir after Release: %v", k, err)
		}
		l2.Release()
	}
	var none *Lock
	none.Release() // a nil lock releases nothing
}

func TestStopText(t *testing.T) {
	for reason, want := range map[string]string{
		StopPatience:       "patience: 2 generation(s) in a row without an accepted candidate",
		StopMaxGenerations: "max_generations: 7 generation(s) ran",
		StopNoFailures:     "no failures left to fix: the incumbent failed no train episode",
		StopNoCandidates:   "no candidate proposed",
		StopBudget:         "budget: the next generation could exceed budget.episodes",
		StopInterrupted:    "interrupted (resume with evolve run --resume DIR)",
		"crashed":          "crashed",
	} {
		if got := StopText(reason, 2, 7); got != want {
			t.Errorf("StopText(%q) = %q, want %q", reason, got, want)
		}
	}
}
