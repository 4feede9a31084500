package seeds

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbedded(t *testing.T) {
	set, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Train) != 200 || len(set.Val) != 300 || len(set.Test) != 1000 {
		t.Errorf("sizes %d/%d/%d, want 200/300/1000", len(set.Train), len(set.Val), len(set.Test))
	}
	seen := map[uint64]Split{}
	for _, s := range Splits {
		for _, x := range set.Seeds(s) {
			if prev, ok := seen[x]; ok {
				t.Fatalf("seed %d in %s and %s", x, prev, s)
			}
			seen[x] = s
		}
		data, err := os.ReadFile(s.File())
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if set.Hashes[s] != hex.EncodeToString(h[:]) {
			t.Errorf("%s: hash %s, file hashes to %x", s, set.Hashes[s], h)
		}
	}
	// The directory's files load to the same set.
	disk, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Splits {
		if !equal(disk.Seeds(s), set.Seeds(s)) || disk.Hashes[s] != set.Hashes[s] {
			t.Errorf("%s: Load(.) differs from Embedded()", s)
		}
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The generator still writes exactly the committed files (the constants
// are seeds/internal/gen's, which imports this package).
func TestGeneratorReproducesFiles(t *testing.T) {
	files, err := Generate(0x65766f6c7665, DefaultSizes, "seeds/internal/gen")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"train.txt", "val.txt", "test.txt", SumsFile} {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(files[name], want) {
			t.Errorf("%s: the generator writes %d bytes that differ from the committed %d", name, len(files[name]), len(want))
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		data string
		want []uint64
		err  string
	}{
		{"1\n2\n3\n", []uint64{1, 2, 3}, ""},
		{"# header\n\n  7  \n18446744073709551615\n", []uint64{7, 18446744073709551615}, ""},
		{"1\r\n2\r\n", []uint64{1, 2}, ""},
		{"1\n2\nx3\n", nil, `s.txt:3: "x3" is not a seed (want an unsigned 64-bit integer)`},
		{"-4\n", nil, `s.txt:1: "-4" is not a seed (want an unsigned 64-bit integer)`},
		{"18446744073709551616\n", nil, `s.txt:1: "18446744073709551616" is not a seed (want an unsigned 64-bit integer)`},
		{"1 2\n", nil, `s.txt:1: "1 2" is not a seed (want an unsigned 64-bit integer)`},
		{"5\n6\n5\n", nil, "s.txt:3: seed 5 repeats line 1"},
		// bufio.Scanner stopped at 64 KiB: "bufio.Scanner: token too long", no line.
		{"1\n" + strings.Repeat("7", 10<<20) + "\n", nil, `s.txt:2: "7777777777777777777777777777777777777777"... (10485760 bytes) is not a seed (want an unsigned 64-bit integer)`},
		{"1\n#" + strings.Repeat("c", 10<<20) + "\n2", []uint64{1, 2}, ""},
		{"1\n\xff\n", nil, `s.txt:2: "\xff" is not a seed (want an unsigned 64-bit integer)`},
		{"# only a comment\n", nil, "s.txt: no seeds"},
		{"", nil, "s.txt: no seeds"},
	}
	for _, tt := range tests {
		got, err := Parse("s.txt", []byte(tt.data))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Parse(%q): err = %v, want %s", tt.data, err, tt.err)
			}
			continue
		}
		if err != nil || !equal(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.data, got, err, tt.want)
		}
	}
}

// writeSet writes a seed set directory; sums overrides SHA256SUMS lines.
func writeSet(t *testing.T, files map[string]string, sums string) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, s := range Splits {
		data, ok := files[s.File()]
		if !ok {
			continue
		}
		os.WriteFile(filepath.Join(dir, s.File()), []byte(data), 0o644)
		h := sha256.Sum256([]byte(data))
		b.WriteString(hex.EncodeToString(h[:]) + "  " + s.File() + "\n")
	}
	if sums == "" {
		sums = b.String()
	}
	os.WriteFile(filepath.Join(dir, SumsFile), []byte(sums), 0o644)
	return dir
}

func TestLoadErrors(t *testing.T) {
	good := map[string]string{"train.txt": "1\n2\n", "val.txt": "3\n", "test.txt": "4\n"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	h := func(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }
	tests := []struct {
		name  string
		files map[string]string
		sums  string
		want  string // with DIR for the directory
	}{
		{"overlap", with("val.txt", "3\n2\n"), "", "DIR/val.txt: seed 2 is also in the train split: splits must be disjoint"},
		{"bad line", with("test.txt", "4\nfour\n"), "", `DIR/test.txt:2: "four" is not a seed (want an unsigned 64-bit integer)`},
		{"missing file", with("test.txt", ""), "", "DIR/test.txt: open test.txt: no such file or directory"},
		{"edited", good, h("1\n2\n") + "  train.txt\n" + h("3\n") + "  val.txt\n" + strings.Repeat("0", 64) + "  test.txt\n",
			"DIR/test.txt: sha256 is " + h("4\n") + ", SHA256SUMS records " + strings.Repeat("0", 64) + ": seed files are frozen; restore the file or create a new seed set"},
		{"no entry", good, h("1\n2\n") + "  train.txt\n" + h("3\n") + "  val.txt\n", "DIR/SHA256SUMS: no entry for test.txt"},
		{"line beyond the cap", with("val.txt", "3\n"+strings.Repeat("9", 1<<20+1)+"\n"), "",
			"DIR/val.txt:2: a line longer than 1 MiB (the cap on a line of an input file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSet(t, tt.files, tt.sums)
			_, err := Load(dir)
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	// A split file that is a device is refused before it is read.
	dev := writeSet(t, good, "")
	os.Remove(filepath.Join(dev, "test.txt"))
	if err := os.Symlink("/dev/zero", filepath.Join(dev, "test.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dev); err == nil || err.Error() != dev+"/test.txt: not a regular file or a pipe: a character device" {
		t.Errorf("test.txt -> /dev/zero: err = %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing dir: err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"))
	f.Add([]byte("# c\n\n18446744073709551615\r\n"))
	f.Add([]byte("5\n5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seeds, err := Parse("f.txt", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(seeds) == 0 {
			t.Fatal("no error and no seeds")
		}
		seen := map[uint64]bool{}
		for _, s := range seeds {
			if seen[s] {
				t.Fatalf("duplicate seed %d accepted", s)
			}
			seen[s] = true
		}
	})
}
