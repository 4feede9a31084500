package trajectory

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evolve/envs"
)

func entries() []Entry {
	return []Entry{
		{Seed: 7, Format: envs.TrajectoryJSON, Data: []byte(`{"kind":"x","actions":"1111"}`)},
		{Seed: 3, Format: envs.TrajectoryAsciicast, Data: []byte("{\"version\":2,\"width\":80,\"height\":24}\n[0.1,\"o\",\"hi\"]\n")},
		{Seed: 3, Repeat: 2, Data: []byte(`[1,2,3]`)},
		{Seed: 9}, // no trajectory: skipped
	}
}

func TestWriteReadDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ph := Phase{Split: "val", Version: "v1.0.1"}
	wa, err := Write(a, ph, entries())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, ph, entries()); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(a, "trajectories", "val", "v1.0.1.zip"))
	y, _ := os.ReadFile(filepath.Join(b, "trajectories", "val", "v1.0.1.zip"))
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two writes of the same trajectories differ (%d and %d bytes)", len(x), len(y))
	}
	if wa.Entries != 3 || wa.Compressed != len(x) {
		t.Fatalf("written %+v, archive %d bytes", wa, len(x))
	}
	// A second write keeps the archive.
	w2, err := Write(a, ph, entries()[:1])
	if err != nil || !w2.Existed {
		t.Fatalf("rewrite: %+v %v", w2, err)
	}
	for _, e := range entries()[:3] {
		got, err := Read(a, ph, e.Seed, e.Repeat)
		if err != nil {
			t.Fatal(err)
		}
		want := e.Format
		if want == "" {
			want = envs.TrajectoryJSON
		}
		if !bytes.Equal(got.Data, e.Data) || got.Format != want {
			t.Fatalf("seed %d repeat %d: read %q (%s), want %q (%s)", e.Seed, e.Repeat, got.Data, got.Format, e.Data, want)
		}
	}
	if _, err := Read(a, ph, 9, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("seed 9: %v, want ErrNotFound", err)
	}
	if _, err := Read(a, Phase{Split: "test", Version: "v1.0.1"}, 7, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing archive: %v, want ErrNotFound", err)
	}
	infos, err := List(a, ph)
	if err != nil || len(infos) != 3 || infos[0].Seed != 3 || infos[1].Repeat != 2 || infos[2].Seed != 7 {
		t.Fatalf("List = %+v, %v", infos, err)
	}
}

func TestPhaseNames(t *testing.T) {
	for _, tc := range []struct {
		ph   Phase
		want string // "" for an error
	}{
		{Phase{Split: "val", Version: "v1.0.0"}, "trajectories/val/v1.0.0.zip"},
		{Phase{Split: "test", Version: "agent@v1.2.0", Variant: "short"}, "trajectories/test/short/agent@v1.2.0.zip"},
		{Phase{Split: "..", Version: "v1"}, ""},
		{Phase{Split: "val", Version: "../../etc/passwd"}, ""},
		{Phase{Split: "val", Version: "v1", Variant: "a/b"}, ""},
		{Phase{Split: "val", Version: ""}, ""},
		{Phase{Split: "val", Version: "v\x00"}, ""},
	} {
		got, err := tc.ph.Rel()
		if tc.want == "" {
			if err == nil {
				t.Errorf("%+v: %q, want an error", tc.ph, got)
			}
			continue
		}
		if err != nil || filepath.ToSlash(got) != tc.want {
			t.Errorf("%+v: %q %v, want %q", tc.ph, got, err, tc.want)
		}
	}
}

func TestWriteLimits(t *testing.T) {
	dir := t.TempDir()
	big := Entry{Seed: 1, Data: bytes.Repeat([]byte("a"), MaxBytes+1)}
	w, err := Write(dir, Phase{Split: "val", Version: "v1"}, []Entry{big})
	if err != nil || w.Dropped != 1 || w.Path != "" {
		t.Fatalf("an oversized trajectory: %+v %v", w, err)
	}
	_, err = Write(dir, Phase{Split: "val", Version: "v2"}, []Entry{{Seed: 1, Data: []byte("1")}, {Seed: 1, Data: []byte("2")}})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a seed twice: %v", err)
	}
}

func TestPolicy(t *testing.T) {
	for _, tc := range []struct {
		in           string
		record, none bool
		keepFailed   bool
		keepNone     bool
		err          bool
	}{
		{"", true, false, true, false, false},
		{"failed", true, false, true, false, false},
		{"all", true, false, true, true, false},
		{"none", false, true, false, false, false},
		{"some", false, false, false, false, true},
	} {
		p, err := ParsePolicy(tc.in)
		if (err != nil) != tc.err {
			t.Fatalf("%q: err %v", tc.in, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), `"some"`) {
				t.Errorf("error %q does not name the value", err)
			}
			continue
		}
		if p.Record() != tc.record || p.Keep("injury") != tc.keepFailed || p.Keep(envs.CauseNone) != tc.keepNone {
			t.Errorf("%q: record %v keep(injury) %v keep(none) %v", tc.in, p.Record(), p.Keep("injury"), p.Keep(envs.CauseNone))
		}
	}
}

func FuzzParseName(f *testing.F) {
	f.Add("42.json")
	f.Add("42-r3.cast")
	f.Fuzz(func(t *testing.T, name string) {
		e, ok := parseName(name)
		if ok && e.Name() != name {
			// Names with leading zeros or "+" parse but print differently;
			// what must hold is that a parsed name's entry round-trips.
			if e2, ok2 := parseName(e.Name()); !ok2 || e2.Seed != e.Seed || e2.Repeat != e.Repeat || e2.Format != e.Format {
				t.Fatalf("%q -> %+v -> %q does not round-trip", name, e, e.Name())
			}
		}
	})
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	if err := RemoveTemps(dir); err != nil {
		t.Fatalf("no trajectories: %v", err)
	}
	if _, err := Write(dir, Phase{Split: "val", Version: "v1"}, entries()); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, Dir, "val", ".v2.zip.tmp-123")
	os.WriteFile(tmp, []byte("partial"), 0o644)
	if err := RemoveTemps(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("the temporary file is still there")
	}
	if _, err := Read(dir, Phase{Split: "val", Version: "v1"}, 7, 0); err != nil {
		t.Errorf("the finished archive is gone: %v", err)
	}
}

// TestWriteMatchesZipWriter checks that the archive Write builds from
// entries compressed concurrently is, byte for byte, the archive
// archive/zip's own Deflate compressor writes from the same entries in the
// same order (so that the bytes stored by earlier versions do not change).
func TestWriteMatchesZipWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var es []Entry
	for i := range 40 {
		var b strings.Builder
		for range rng.IntN(20000) {
			b.WriteByte("..#@+-|d\n"[rng.IntN(9)])
		}
		es = append(es, Entry{Seed: uint64(i), Format: envs.TrajectoryJSON, Data: []byte(b.String())})
	}
	dir := t.TempDir()
	ph := Phase{Split: "val", Version: "v1.2.3"}
	if _, err := Write(dir, ph, es); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "trajectories", "val", "v1.2.3.zip"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	zw := zip.NewWriter(&want)
	for _, e := range es {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name(), Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(e.Data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("Write's archive (%d bytes) differs from zip.Writer's (%d bytes)", len(got), want.Len())
	}
}

// TestReadTooLarge: an archive entry beyond MaxBytes (one just past it,
// one whose header says 2 GiB) is refused naming its size and the cap,
// not cut to MaxBytes+1 bytes that then fail to parse.
func TestReadTooLarge(t *testing.T) {
	dir := t.TempDir()
	ph := Phase{Split: "test", Version: "v1"}
	rel, err := ph.Rel()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(path), 0o755)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("1.json")
	w.Write(bytes.Repeat([]byte(" "), MaxBytes))
	w.Write([]byte("1"))
	// A header that claims 2 GiB over a few bytes of data.
	var small bytes.Buffer
	sw := zip.NewWriter(&small)
	sf, _ := sw.Create("x")
	sf.Write([]byte("[]"))
	sw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(small.Bytes()), int64(small.Len()))
	raw, _ := zr.File[0].OpenRaw()
	rw, err := zw.CreateRaw(&zip.FileHeader{Name: "2.json", Method: zip.Deflate, CRC32: zr.File[0].CRC32,
		CompressedSize64: zr.File[0].CompressedSize64, UncompressedSize64: 2 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Write(mustRead(t, raw)); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	os.WriteFile(path, buf.Bytes(), 0o644)

	for seed, size := range map[uint64]int64{1: MaxBytes + 1, 2: 2 << 30} {
		_, err := Read(dir, ph, seed, 0)
		want := "bytes: larger than a trajectory may be (the cap is 16 MiB, trajectory.MaxBytes)"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.FormatInt(size, 10)+" bytes") {
			t.Errorf("seed %d: %v, want an error naming %d bytes and the cap", seed, err, size)
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("seed %d: %v does not wrap ErrTooLarge", seed, err)
		}
	}
}

func mustRead(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTranscriptBesideRecording stores an LLM agent's transcript beside
// an environment's asciicast recording: FromOutcomes gives both entries,
// the archive holds SEED.cast and SEED.json, Read returns the recording
// and ReadFormat the transcript; a JSON trajectory keeps its own name and
// no transcript is added beside it.
func TestTranscriptBesideRecording(t *testing.T) {
	cast := []byte("{\"version\":2,\"width\":80,\"height\":24}\n[0.0,\"o\",\"hi\"]\n")
	tr := []byte(`{"kind":"llm-transcript/v1","system":"s","turns":[]}`)
	outs := []envs.Outcome{
		{Seed: 5, Cause: "injury", Trajectory: cast, TrajectoryFormat: envs.TrajectoryAsciicast, Transcript: tr},
		{Seed: 6, Cause: "injury", Trajectory: []byte(`{"a":1}`), Transcript: tr},
	}
	p, err := ParsePolicy("all")
	if err != nil {
		t.Fatal(err)
	}
	es := FromOutcomes(p, outs, nil, nil)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "5.cast 5.json 6.json"; got != want {
		t.Fatalf("entries %s, want %s", got, want)
	}
	dir := t.TempDir()
	ph := Phase{Split: "test", Version: "v1.0.0"}
	if _, err := Write(dir, ph, es); err != nil {
		t.Fatal(err)
	}
	rec, err := Read(dir, ph, 5, 0)
	if err != nil || rec.Format != envs.TrajectoryAsciicast || !bytes.Equal(rec.Data, cast) {
		t.Fatalf("Read seed 5: %s %q %v, want the recording", rec.Format, rec.Data, err)
	}
	got, err := ReadFormat(dir, ph, 5, 0, envs.TrajectoryJSON)
	if err != nil || !bytes.Equal(got.Data, tr) {
		t.Fatalf("ReadFormat seed 5 json: %q %v, want the transcript", got.Data, err)
	}
	if _, err := ReadFormat(dir, ph, 6, 0, envs.TrajectoryAsciicast); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ReadFormat seed 6 cast: %v, want ErrNotFound", err)
	}
}
