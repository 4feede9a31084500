package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputFilesBounded: score, pilot and seed files are regular files,
// pipes or "-", under a cap on a line and on the whole: a device is
// refused before a byte is read, a line beyond the cap is an error
// naming the file, the line and the cap.
func TestInputFilesBounded(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, bytes.Repeat([]byte{'0'}, 2<<20), 0o644)
	longCSV := filepath.Join(dir, "long.csv")
	os.WriteFile(longCSV, append([]byte("seed,score\n1,"), bytes.Repeat([]byte{'5'}, 2<<20)...), 0o644)
	zeroCSV := filepath.Join(dir, "zero.csv")
	if err := os.Symlink("/dev/zero", zeroCSV); err != nil {
		t.Fatal(err)
	}
	device := "/dev/zero: not a regular file or a pipe: a character device (give a file, or - for standard input)"
	tests := []struct {
		name string
		args []string
		code int
		want string // the stderr line
	}{
		{"compare device", []string{"compare", "/dev/zero", cmpBase}, exitFailure, "evolve compare: " + device},
		{"compare device candidate", []string{"compare", cmpBase, "/dev/zero"}, exitFailure, "evolve compare: " + device},
		{"compare key device", []string{"compare", "--key", "task", zeroCSV, cmpMain}, exitFailure,
			"evolve compare: " + zeroCSV + ": not a regular file or a pipe: a character device (give a file, or - for standard input)"},
		{"compare long line", []string{"compare", long, cmpBase}, exitFailure, "evolve compare: " + long + ":1: a line longer than 1 MiB (the cap on a line of an input file)"},
		{"compare long CSV row", []string{"compare", cmpMain, longCSV}, exitFailure, "evolve compare: " + longCSV + ":2: a line longer than 1 MiB (the cap on a line of an input file)"},
		{"compare stdin twice", []string{"compare", "-", "-"}, exitUsage, "evolve compare: - (standard input) can be given for one sample only"},
		{"power device", []string{"power", "/dev/zero", cmpBase}, exitFailure, "evolve power: " + device},
		{"power one device", []string{"power", "--shift", "1", "/dev/zero"}, exitFailure, "evolve power: " + device},
		{"power stdin twice", []string{"power", "-", "-"}, exitUsage, "evolve power: - (standard input) can be given for one sample only"},
		{"eval seeds device", []string{"eval", "--quiet", "--no-cache", "--dir", filepath.Join(dir, "eval"), "--seeds", "/dev/zero", "embedded"}, exitFailure,
			"evolve eval: --seeds: " + device},
		{"eval seeds long line", []string{"eval", "--quiet", "--no-cache", "--dir", filepath.Join(dir, "eval2"), "--seeds", long, "embedded"}, exitFailure,
			"evolve eval: --seeds: " + long + ":1: a line longer than 1 MiB (the cap on a line of an input file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := evolve(t, tt.args...)
			if code != tt.code || strings.SplitN(stderr, "\n", 2)[0] != tt.want {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and the line\n%s", code, stderr, tt.code, tt.want)
			}
		})
	}
}

// TestInputStdin: "-" reads a sample from standard input.
func TestInputStdin(t *testing.T) {
	data, err := os.ReadFile(cmpCand)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = old; r.Close() })
	go func() { w.Write(data); w.Close() }()
	code, got, stderr := evolve(t, "compare", "--json", cmpBase, "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, want, _ := evolve(t, "compare", "--json", cmpBase, cmpCand)
	if got = strings.ReplaceAll(got, `"-"`, `"`+cmpCand+`"`); got != want {
		t.Errorf("compare BASE - with the candidate on stdin:\n%s\nwant that of compare BASE CANDIDATE:\n%s", got, want)
	}
}

// TestCSVByteOrderMark: a CSV file saved with a UTF-8 byte-order mark
// (as spreadsheets write it) has its first column's name without it.
func TestCSVByteOrderMark(t *testing.T) {
	data, err := os.ReadFile(cmpMain)
	if err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(t.TempDir(), "main.csv")
	os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), data...), 0o644)
	keyed := filepath.Join(t.TempDir(), "keyed.csv")
	os.WriteFile(keyed, []byte("\xef\xbb\xbftask,seed,score\na,1,1\na,2,2\na,3,3\nb,1,4\nb,2,5\nb,3,6\n"), 0o644)
	_, want, _ := evolve(t, "compare", "--json", "--test", "signed-rank", cmpMain, cmpWorse)
	code, got, stderr := evolve(t, "compare", "--json", "--test", "signed-rank", bom, cmpWorse)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ReplaceAll(got, bom, cmpMain) != want {
		t.Errorf("with a byte-order mark:\n%s\nwant\n%s", got, want)
	}
	if code, _, stderr := evolve(t, "compare", "--key", "task", keyed, keyed); code != exitOK {
		t.Errorf("--key with a byte-order mark: exit %d: %s", code, stderr)
	}
}
