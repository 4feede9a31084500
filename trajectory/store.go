package trajectory

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/conc/iter"

	"evolve/envs"
	"evolve/internal/atomicfile"
)

// Dir is the directory of a run or eval directory that holds its
// trajectories.
const Dir = "trajectories"

// MaxBytes is the largest trajectory stored, in bytes before compression
// (16 MiB). A larger one is not stored: Write counts it in Written.Dropped
// and the episode's page says it has no trajectory.
const MaxBytes = 16 << 20

// ErrTooLarge is wrapped by the error of Read for an archive entry
// larger than MaxBytes, which Write never stores: the archive was written
// by something else, or altered.
var ErrTooLarge = errors.New("larger than a trajectory may be")

// ErrNotFound is returned (wrapped, naming the episode) by Read for an
// episode whose trajectory was not stored.
var ErrNotFound = errors.New("no trajectory stored")

// Phase names the archive of one phase: a version on a split, and for an
// eval's variant the variant.
type Phase struct {
	Split   string // "train", "val" or "test"
	Version string // the version or an eval's label, e.g. "v1.0.3" or "dungeon-agent@v1.0.3"
	Variant string // an eval's environment variant, "" for none
}

// validName reports whether s can be one element of a path: not empty,
// not "." or "..", no '/', '\\' or NUL.
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// Rel returns the archive's path relative to a run or eval directory
// (see the package doc). It returns an error naming the field that
// cannot be a file name (empty, "." or "..", or holding '/', '\\' or
// NUL), so that no phase reaches outside DIR/trajectories.
func (ph Phase) Rel() (string, error) {
	switch {
	case !validName(ph.Split):
		return "", fmt.Errorf("trajectory: split %q is not a valid file name", ph.Split)
	case !validName(ph.Version):
		return "", fmt.Errorf("trajectory: version %q is not a valid file name", ph.Version)
	case ph.Variant != "" && !validName(ph.Variant):
		return "", fmt.Errorf("trajectory: variant %q is not a valid file name", ph.Variant)
	}
	if ph.Variant != "" {
		return filepath.Join(Dir, ph.Split, ph.Variant, ph.Version+".zip"), nil
	}
	return filepath.Join(Dir, ph.Split, ph.Version+".zip"), nil
}

// Entry is one episode's trajectory.
type Entry struct {
	Seed   uint64 // the episode's seed (an eval's seed from the seed file, before EpisodeSeed)
	Repeat int    // an eval's repeat, >= 0; 0 for a run
	// Format is envs.TrajectoryJSON ("" means it) or
	// envs.TrajectoryAsciicast.
	Format string
	// Data is the trajectory's bytes, uncompressed.
	Data []byte
}

// Ext returns the file extension of a format: ".cast" for
// envs.TrajectoryAsciicast, ".json" otherwise.
func Ext(format string) string {
	if format == envs.TrajectoryAsciicast {
		return ".cast"
	}
	return ".json"
}

// Name returns the entry's name in its archive: SEED.EXT, or
// SEED-rREPEAT.EXT for a repeat > 0.
func (e Entry) Name() string {
	s := strconv.FormatUint(e.Seed, 10)
	if e.Repeat > 0 {
		s += "-r" + strconv.Itoa(e.Repeat)
	}
	return s + Ext(e.Format)
}

// parseName is the inverse of Entry.Name, without Data.
func parseName(name string) (Entry, bool) {
	var e Entry
	base, ext, ok := strings.Cut(name, ".")
	switch {
	case !ok:
		return e, false
	case ext == "json":
		e.Format = envs.TrajectoryJSON
	case ext == "cast":
		e.Format = envs.TrajectoryAsciicast
	default:
		return e, false
	}
	seed, rep, hasRep := strings.Cut(base, "-r")
	s, err := strconv.ParseUint(seed, 10, 64)
	if err != nil {
		return e, false
	}
	e.Seed = s
	if hasRep {
		r, err := strconv.Atoi(rep)
		if err != nil || r <= 0 {
			return e, false
		}
		e.Repeat = r
	}
	return e, true
}

// Written says what Write stored.
type Written struct {
	// Path is the archive's path; "" if nothing was written.
	Path string
	// Existed is true when the archive was there already (a phase played
	// again with the same version and seeds); it is left as it is.
	Existed bool
	// Entries and Bytes count the trajectories stored and their bytes
	// before compression; Compressed is the archive's size in bytes.
	Entries, Bytes, Compressed int
	// Dropped counts trajectories larger than MaxBytes, not stored.
	Dropped int
}

// Write stores the trajectories of one phase in the archive of ph under
// dir (a run or eval directory), in the order given (seed order, so that
// the bytes do not depend on which worker finished first). Entries with
// empty Data are skipped. It writes nothing when no entry is left, and
// keeps an archive that exists. Errors are a bad phase name (Phase.Rel),
// two entries of one name, or the file system's.
func Write(dir string, ph Phase, entries []Entry) (Written, error) {
	rel, err := ph.Rel()
	if err != nil {
		return Written{}, err
	}
	var w Written
	keep := entries[:0:0]
	seen := map[string]bool{}
	for _, e := range entries {
		switch {
		case len(e.Data) == 0:
			continue
		case len(e.Data) > MaxBytes:
			w.Dropped++
			continue
		case seen[e.Name()]:
			return Written{}, fmt.Errorf("trajectory: %s holds %s twice", rel, e.Name())
		}
		seen[e.Name()] = true
		keep = append(keep, e)
	}
	if len(keep) == 0 {
		return w, nil
	}
	path := filepath.Join(dir, rel)
	if st, err := os.Stat(path); err == nil {
		w.Path, w.Existed, w.Compressed = path, true, int(st.Size())
		return w, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Written{}, err
	}
	// The entries are compressed concurrently, then the archive is written
	// in order with the compressed bytes (precompressed).
	deflated := iter.Map(keep, func(e *Entry) []byte { return deflate(e.Data) })
	err = atomicfile.Write(path, 0o644, func(f *os.File) error {
		zw := zip.NewWriter(f)
		next := 0
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
			next++
			return &precompressed{w: w, data: deflated[next-1]}, nil
		})
		for _, e := range keep {
			// Modified stays zero: no time field, no extra field, the same
			// bytes on every machine.
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name(), Method: zip.Deflate})
			if err != nil {
				return err
			}
			if _, err := fw.Write(e.Data); err != nil {
				return err
			}
			w.Entries++
			w.Bytes += len(e.Data)
		}
		return zw.Close()
	})
	if err != nil {
		return Written{}, fmt.Errorf("writing trajectories %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		w.Compressed = int(st.Size())
	}
	w.Path = path
	return w, nil
}

// zipDeflateLevel is the compression level of archive/zip's Deflate
// compressor (archive/zip's newFlateWriter), which deflate must match for
// the archive's bytes to be those zip.Writer alone would write.
const zipDeflateLevel = 5

// flateWriters holds *flate.Writer of zipDeflateLevel for reuse (a new
// one allocates about 1 MB), as archive/zip pools its own.
var flateWriters sync.Pool

// deflate returns data compressed as archive/zip's Deflate method
// compresses an entry.
func deflate(data []byte) []byte {
	var b bytes.Buffer
	fw, ok := flateWriters.Get().(*flate.Writer)
	if ok {
		fw.Reset(&b)
	} else {
		var err error
		if fw, err = flate.NewWriter(&b, zipDeflateLevel); err != nil {
			panic(err) // the level is valid
		}
	}
	fw.Write(data) // a bytes.Buffer does not fail
	fw.Close()
	flateWriters.Put(fw)
	return b.Bytes()
}

// precompressed is a zip compressor whose output was computed before:
// it discards what is written (zip.Writer computes the CRC-32 and size from
// it) and writes data to w on Close.
type precompressed struct {
	w    io.Writer
	data []byte
}

func (p *precompressed) Write(b []byte) (int, error) { return len(b), nil }

func (p *precompressed) Close() error {
	_, err := p.w.Write(p.data)
	return err
}

// Info describes one stored trajectory without its bytes.
type Info struct {
	Seed       uint64 // the episode's seed
	Repeat     int    // an eval's repeat
	Format     string // envs.TrajectoryJSON or envs.TrajectoryAsciicast
	Bytes      int64  // size before compression
	Compressed int64  // size in the archive
}

// List returns the trajectories stored for ph under dir, sorted by seed
// and repeat; none (and no error) if the phase has no archive.
func List(dir string, ph Phase) ([]Info, error) {
	rel, err := ph.Rel()
	if err != nil {
		return nil, err
	}
	zr, err := zip.OpenReader(filepath.Join(dir, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading trajectories %s: %w", filepath.Join(dir, rel), err)
	}
	defer zr.Close()
	var out []Info
	for _, f := range zr.File {
		e, ok := parseName(f.Name)
		if !ok {
			continue
		}
		out = append(out, Info{Seed: e.Seed, Repeat: e.Repeat, Format: e.Format, Bytes: int64(f.UncompressedSize64), Compressed: int64(f.CompressedSize64)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Seed != out[j].Seed {
			return out[i].Seed < out[j].Seed
		}
		return out[i].Repeat < out[j].Repeat
	})
	return out, nil
}

// Read returns the trajectory of the episode (seed, repeat) of phase ph
// under dir: its asciicast recording if one is stored, else its JSON
// trajectory (ReadFormat reads an LLM agent's transcript stored beside a
// recording). It returns an error wrapping ErrNotFound if the phase has no
// archive or the archive no such entry, an error wrapping ErrTooLarge
// (naming the entry, its size and the cap) for an entry larger than
// MaxBytes, which is not read, an error naming the archive if it cannot
// be read, and a bad phase name's error (Phase.Rel).
func Read(dir string, ph Phase, seed uint64, repeat int) (Entry, error) {
	return read(dir, ph, seed, repeat, envs.TrajectoryAsciicast, envs.TrajectoryJSON)
}

// ReadFormat is Read of the entry of one format (envs.TrajectoryJSON or
// envs.TrajectoryAsciicast) only, e.g. the transcript beside a recording;
// its errors are Read's.
func ReadFormat(dir string, ph Phase, seed uint64, repeat int, format string) (Entry, error) {
	return read(dir, ph, seed, repeat, format)
}

// read returns the first of formats stored for (seed, repeat).
func read(dir string, ph Phase, seed uint64, repeat int, formats ...string) (Entry, error) {
	rel, err := ph.Rel()
	if err != nil {
		return Entry{}, err
	}
	path := filepath.Join(dir, rel)
	zr, err := zip.OpenReader(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, fmt.Errorf("%s seed %d: %w", rel, seed, ErrNotFound)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("reading trajectories %s: %w", path, err)
	}
	defer zr.Close()
	for _, format := range formats {
		e := Entry{Seed: seed, Repeat: repeat, Format: format}
		f, err := zr.Open(e.Name())
		if err != nil {
			continue
		}
		tooLarge := func(size int64) error {
			return fmt.Errorf("reading %s from %s: %d bytes: %w (the cap is %d MiB, trajectory.MaxBytes)", e.Name(), path, size, ErrTooLarge, MaxBytes>>20)
		}
		if st, err := f.Stat(); err == nil && st.Size() > MaxBytes {
			f.Close()
			return Entry{}, tooLarge(st.Size())
		}
		e.Data, err = io.ReadAll(io.LimitReader(f, MaxBytes+1))
		f.Close()
		if err != nil {
			return Entry{}, fmt.Errorf("reading %s from %s: %w", e.Name(), path, err)
		}
		if len(e.Data) > MaxBytes {
			return Entry{}, tooLarge(int64(len(e.Data)))
		}
		return e, nil
	}
	return Entry{}, fmt.Errorf("%s seed %d: %w", rel, seed, ErrNotFound)
}

// FromOutcomes returns the entries that outcomes keep under p, in their
// order: an outcome with a trajectory whose cause p keeps, followed by its
// Transcript (format envs.TrajectoryJSON, so SEED.json beside SEED.cast)
// when it has one and its trajectory is not JSON itself. repeat, if not
// nil, gives outcome i's repeat (an eval's); seed is outs[i].Seed unless
// seeds is not nil.
func FromOutcomes(p Policy, outs []envs.Outcome, seeds []uint64, repeat func(i int) int) []Entry {
	var es []Entry
	for i := range outs {
		o := &outs[i]
		if len(o.Trajectory) == 0 || !p.Keep(o.Cause) {
			continue
		}
		e := Entry{Seed: o.Seed, Format: o.TrajectoryFormat, Data: o.Trajectory}
		if seeds != nil {
			e.Seed = seeds[i]
		}
		if repeat != nil {
			e.Repeat = repeat(i)
		}
		if e.Format == "" {
			e.Format = envs.TrajectoryJSON
		}
		es = append(es, e)
		if len(o.Transcript) > 0 && e.Format != envs.TrajectoryJSON {
			// The agent's transcript beside the environment's recording.
			t := e
			t.Format, t.Data = envs.TrajectoryJSON, o.Transcript
			es = append(es, t)
		}
	}
	return es
}

// RemoveTemps removes the temporary files an interrupted Write left under
// dir/trajectories (atomicfile's), so that a resumed run or eval holds
// only finished archives. A missing directory is not an error.
func RemoveTemps(dir string) error {
	root := filepath.Join(dir, Dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && atomicfile.IsTemp(d.Name()) {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("removing unfinished trajectory archives under %s: %w", root, err)
	}
	return nil
}
