package inputfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless reader of zero bytes, as /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestReadFrom(t *testing.T) {
	lim := Limits{MaxBytes: 100, MaxLine: 10}
	tests := []struct {
		name    string
		in      string
		lim     Limits
		wantErr string // "" for success
	}{
		{"empty", "", lim, ""},
		{"lines at the cap", "0123456789\n0123456789\n", lim, ""},
		{"last line at the cap, no newline", "1\n0123456789", lim, ""},
		{"second line one past", "1\n01234567890\n", lim, "in:2: a line longer than 10 bytes"},
		{"last line one past, no newline", "1\n2\n01234567890", lim, "in:3: a line longer than 10 bytes"},
		{"\\r counts", "0123456789\r\n", lim, "in:1: a line longer than 10 bytes"},
		{"total at the cap", strings.Repeat("123456789\n", 10), lim, ""},
		{"total one past", strings.Repeat("123456789\n", 10) + "1", lim, "in: more than 100 bytes"},
		{"no line cap", strings.Repeat("x", 100), Limits{MaxBytes: 100}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A one-byte reader splits lines across reads.
			for _, r := range []io.Reader{strings.NewReader(tt.in), io.LimitReader(&oneByte{strings.NewReader(tt.in)}, 1<<20)} {
				got, err := ReadFrom("in", r, tt.lim)
				if tt.wantErr == "" {
					if err != nil || string(got) != tt.in {
						t.Fatalf("ReadFrom = %q, %v; want %q", got, err, tt.in)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrTooLarge) {
					t.Fatalf("ReadFrom error %v, want one containing %q wrapping ErrTooLarge", err, tt.wantErr)
				}
			}
		})
	}
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// TestReadFromEndless: an endless input stops at the first cap it
// passes, having read little more than the cap.
func TestReadFromEndless(t *testing.T) {
	z := &zeros{}
	_, err := ReadFrom("z", z, DefaultLimits)
	var le *LimitError
	if !errors.As(err, &le) || le.Line != 1 || le.Cap != DefaultLimits.MaxLine {
		t.Fatalf("error %v, want the line cap on line 1", err)
	}
	if z.n > DefaultLimits.MaxLine+64<<10 {
		t.Errorf("read %d bytes, want at most the line cap and one chunk", z.n)
	}
	z = &zeros{}
	_, err = ReadFrom("z", z, Limits{MaxBytes: 1 << 20})
	if !errors.As(err, &le) || le.Line != 0 || err.Error() != "z: more than 1 MiB (the cap on an input file)" {
		t.Fatalf("error %v, want the total cap", err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.txt")
	os.WriteFile(ok, []byte("1\n2\n"), 0o644)
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, bytes.Repeat([]byte("1\n"), 100), 0o644)
	tests := []struct {
		path    string
		lim     Limits
		want    string
		wantIs  error
		wantMsg string
	}{
		{ok, DefaultLimits, "1\n2\n", nil, ""},
		{"/dev/zero", DefaultLimits, "", ErrNotFile, "/dev/zero: not a regular file or a pipe: a character device (give a file, or - for standard input)"},
		{"/dev/null", DefaultLimits, "", ErrNotFile, "character device"},
		{dir, DefaultLimits, "", ErrNotFile, dir + ": not a regular file or a pipe: a directory"},
		{big, Limits{MaxBytes: 199, MaxLine: 10}, "", ErrTooLarge, big + ": more than 199 bytes (the cap on an input file)"},
		{filepath.Join(dir, "missing"), DefaultLimits, "", os.ErrNotExist, "missing"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			got, err := Read(tt.path, tt.lim)
			if tt.wantIs == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Read error %v, want %v with %q", err, tt.wantIs, tt.wantMsg)
			}
		})
	}
}

// TestReadPipes: a named pipe and "-" (standard input) are read, under
// the caps.
func TestReadPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("3\n4\n")
		f.Close()
	}()
	got, err := Read(fifo, DefaultLimits)
	if err != nil || string(got) != "3\n4\n" {
		t.Fatalf("Read(fifo) = %q, %v", got, err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = old; r.Close() })
	go func() {
		w.Write(bytes.Repeat([]byte("5"), 2000))
		w.Close()
	}()
	_, err = Read("-", Limits{MaxBytes: 1 << 20, MaxLine: 1000})
	if err == nil || err.Error() != "-:1: a line longer than 1000 bytes (the cap on a line of an input file)" {
		t.Fatalf("Read(-) error %v, want the line cap", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 1000: "1000 bytes", 1024: "1 KiB", 1 << 20: "1 MiB", 256 << 20: "256 MiB", 3 << 30: "3 GiB", 1025: "1025 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
