package seeds

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"evolve/internal/inputfile"
)

// Split names a seed split.
type Split string

// The three splits: failures on train drive mutations, val decides
// acceptance, test reports the final version.
const (
	Train Split = "train"
	Val   Split = "val"
	Test  Split = "test"
)

// Splits lists the splits in their canonical order.
var Splits = []Split{Train, Val, Test}

// File returns the split's file name, e.g. "val.txt".
func (s Split) File() string { return string(s) + ".txt" }

// SumsFile is the name of the file recording each split's SHA-256, in the
// format of sha256sum(1).
const SumsFile = "SHA256SUMS"

// Set is a verified seed set.
type Set struct {
	// Dir is where the set was loaded from ("embedded" for the built-in).
	Dir string
	// Train, Val and Test hold the seeds of each split in file order.
	Train, Val, Test []uint64
	// Hashes maps each split to the hex SHA-256 of its file.
	Hashes map[Split]string
}

// Seeds returns the seeds of split s.
func (set *Set) Seeds(s Split) []uint64 {
	switch s {
	case Train:
		return set.Train
	case Val:
		return set.Val
	case Test:
		return set.Test
	}
	return nil
}

//go:embed train.txt val.txt test.txt SHA256SUMS
var embedded embed.FS

// Embedded returns the built-in seed sets, verified.
func Embedded() (*Set, error) { return load(embedded, "embedded", "seeds/") }

// Load reads and verifies the seed set in dir: train.txt, val.txt,
// test.txt and SHA256SUMS. Every problem is an error naming the file (and
// line): a hash that differs from SHA256SUMS, a line that is not an
// unsigned 64-bit integer, a duplicate seed, a seed in two splits, an
// empty split, a missing file, a file that is not a regular file or is
// beyond the caps of inputfile.DefaultLimits (256 MiB, lines of 1 MiB).
func Load(dir string) (*Set, error) { return load(os.DirFS(dir), dir, dir+"/") }

func load(fsys fs.FS, dir, prefix string) (*Set, error) {
	sums, err := readCapped(fsys, SumsFile, prefix+SumsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (a seed set records each split's sha256 there)", err)
	}
	if err != nil {
		return nil, err
	}
	want, err := parseSums(prefix+SumsFile, sums)
	if err != nil {
		return nil, err
	}
	set := &Set{Dir: dir, Hashes: map[Split]string{}}
	owner := map[uint64]Split{}
	for _, sp := range Splits {
		name := prefix + sp.File()
		data, err := readCapped(fsys, sp.File(), name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		w, ok := want[sp.File()]
		if !ok {
			return nil, fmt.Errorf("%s%s: no entry for %s", prefix, SumsFile, sp.File())
		}
		if got != w {
			return nil, fmt.Errorf("%s: sha256 is %s, %s records %s: seed files are frozen; restore the file or create a new seed set",
				name, got, SumsFile, w)
		}
		seeds, err := Parse(name, data)
		if err != nil {
			return nil, err
		}
		for _, s := range seeds {
			if other, dup := owner[s]; dup {
				return nil, fmt.Errorf("%s: seed %d is also in the %s split: splits must be disjoint", name, s, other)
			}
			owner[s] = sp
		}
		set.Hashes[sp] = got
		switch sp {
		case Train:
			set.Train = seeds
		case Val:
			set.Val = seeds
		case Test:
			set.Test = seeds
		}
	}
	return set, nil
}

// readCapped reads name of fsys under inputfile.DefaultLimits, so that a
// seed set's file cannot be a device or grow without bound. Errors start
// with display, the file's name as the user knows it.
func readCapped(fsys fs.FS, name, display string) ([]byte, error) {
	return inputfile.ReadFS(fsys, name, display, inputfile.DefaultLimits)
}

// quoteShort quotes s, cut to its first 40 characters with the length
// of the rest when longer: "aaaa..." (10485760 bytes).
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return fmt.Sprintf("%q... (%d bytes)", string(r[:40]), len(s))
	}
	return strconv.Quote(s)
}

// parseSums reads sha256sum(1) lines "HEX  NAME".
func parseSums(name string, data []byte) (map[string]string, error) {
	m := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || len(f[0]) != 64 {
			return nil, fmt.Errorf("%s:%d: want \"<64 hex digits>  <file>\", got %q", name, i+1, line)
		}
		m[strings.TrimPrefix(f[1], "*")] = strings.ToLower(f[0])
	}
	return m, nil
}

// Parse reads one split file: one unsigned 64-bit seed per line, blank
// lines and lines starting with '#' ignored. A bad line (of any length:
// lines are not read with a bounded buffer), a duplicate seed or no seed
// at all is an error naming name and the line; a bad line is quoted up to
// its first 40 characters.
func Parse(name string, data []byte) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]int{}
	for n := 1; len(data) > 0; n++ {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line := strings.TrimSpace(string(raw))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s is not a seed (want an unsigned 64-bit integer)", name, n, quoteShort(line))
		}
		if first, dup := seen[v]; dup {
			return nil, fmt.Errorf("%s:%d: seed %d repeats line %d", name, n, v, first)
		}
		seen[v] = n
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no seeds", name)
	}
	return out, nil
}
