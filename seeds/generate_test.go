package seeds

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SplitMix64's first output from state 0 is 0xe220a8397b1dcdaf, the value
// of Vigna's reference splitmix64.c (and of Java's
// new SplittableRandom(0).nextLong()); the next two follow it.
func TestGenerateSplitMix64Reference(t *testing.T) {
	files, err := Generate(0, Sizes{Train: 1, Val: 1, Test: 1}, "test")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"train.txt": "16294208416658607535", // 0xe220a8397b1dcdaf
		"val.txt":   "7960286522194355700",  // 0x6e789e6aa1b965f4
		"test.txt":  "487617019471545679",   // 0x06c45d188009454f
	} {
		lines := strings.Split(strings.TrimSpace(string(files[name])), "\n")
		if got := lines[len(lines)-1]; got != want {
			t.Errorf("%s: seed %s, want %s", name, got, want)
		}
	}
}

func TestGenerateSizes(t *testing.T) {
	for _, z := range []Sizes{{0, 1, 1}, {1, -1, 1}, {1, 1, MaxSplitSize + 1}} {
		if _, err := Generate(1, z, "test"); err == nil {
			t.Errorf("Generate(%+v) succeeded, want an error", z)
		}
	}
}

func TestCreate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "set")
	set, err := Create(dir, 7, Sizes{Train: 20, Val: 30, Test: 50}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Train) != 20 || len(set.Val) != 30 || len(set.Test) != 50 {
		t.Errorf("sizes %d/%d/%d, want 20/30/50", len(set.Train), len(set.Val), len(set.Test))
	}
	// Load (called by Create) checked disjointness and hashes; the same
	// seed gives the same files.
	again, err := Create(filepath.Join(root, "b"), 7, Sizes{Train: 20, Val: 30, Test: 50}, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range Splits {
		if set.Hashes[sp] != again.Hashes[sp] {
			t.Errorf("%s: two sets from seed 7 differ", sp)
		}
	}

	// Never into a directory with files, nor over a file.
	if _, err := Create(dir, 8, DefaultSizes, "test"); !errors.Is(err, ErrDirNotEmpty) || !strings.Contains(err.Error(), dir) {
		t.Errorf("Create into a full directory: %v, want ErrDirNotEmpty naming it", err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(file, 8, DefaultSizes, "test"); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("Create over a file: %v, want an error naming it", err)
	}
	// An empty directory is fine.
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(empty, 9, Sizes{Train: 1, Val: 1, Test: 1}, "test"); err != nil {
		t.Errorf("Create into an empty directory: %v", err)
	}
}
