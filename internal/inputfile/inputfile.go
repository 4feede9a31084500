package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits are the caps of one read.
type Limits struct {
	// MaxBytes is the most bytes the whole input may hold; it must be
	// positive.
	MaxBytes int64
	// MaxLine is the most bytes one line may hold, its "\n" excluded
	// (a "\r" before it counts); 0 means no cap on a line, for binary
	// formats such as Parquet.
	MaxLine int64
}

// DefaultLimits are the caps evolve applies to score, pilot and seed
// files: 256 MiB in all (about 25 million scores written one per line)
// and 1 MiB per line (a CSV row of thousands of columns).
var DefaultLimits = Limits{MaxBytes: 256 << 20, MaxLine: 1 << 20}

// ErrTooLarge is wrapped by the *LimitError of an input beyond a cap.
var ErrTooLarge = errors.New("input beyond its cap")

// ErrNotFile is wrapped by the errors of a path that is neither a regular
// file nor a pipe: a device (/dev/zero, a terminal), a directory, a
// socket.
var ErrNotFile = errors.New("not a regular file or a pipe")

// LimitError is the error of an input beyond one of its caps.
type LimitError struct {
	// Name is the input's name: its path, or "-" (standard input).
	Name string
	// Line is the 1-based line longer than Limits.MaxLine; 0 when the
	// whole input is beyond Limits.MaxBytes.
	Line int
	// Cap is the cap passed, in bytes.
	Cap int64
}

// Error says which cap the input passed: "NAME: more than 256 MiB (the
// cap on an input file)" or "NAME:LINE: a line longer than 1 MiB (the
// cap on a line)".
func (e *LimitError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: a line longer than %s (the cap on a line of an input file)", e.Name, e.Line, Size(e.Cap))
	}
	return fmt.Sprintf("%s: more than %s (the cap on an input file)", e.Name, Size(e.Cap))
}

// Unwrap returns ErrTooLarge.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

// Size writes n bytes in the largest binary unit that divides it
// ("256 MiB", "1 KiB", "1000 bytes").
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read returns the contents of path under lim: "-" reads standard input
// (os.Stdin); any other path must name a regular file or a pipe (a
// shell's <(command) is one). Errors name path: the open's error, an
// error wrapping ErrNotFile for a device, a directory or a socket, a
// *LimitError (wrapping ErrTooLarge) for an input beyond a cap. A
// regular file larger than lim.MaxBytes is refused before it is read.
// Read panics if lim.MaxBytes is not positive or lim.MaxLine is negative.
func Read(path string, lim Limits) ([]byte, error) {
	if path == "-" {
		return ReadFrom("-", os.Stdin, lim)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(path, st, lim); errors.Is(err, ErrNotFile) {
		return nil, fmt.Errorf("%w (give a file, or - for standard input)", err)
	} else if err != nil {
		return nil, err
	}
	return ReadFrom(path, f, lim)
}

// ReadFS is Read of the file name of fsys (no "-"); errors call it
// display, the name a user knows it by (a path beside its directory, say).
func ReadFS(fsys fs.FS, name, display string, lim Limits) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if err := regular(display, st, lim); err != nil {
		return nil, err
	}
	return ReadFrom(display, f, lim)
}

// regular checks the mode and, for a regular file, the size of st.
func regular(name string, st fs.FileInfo, lim Limits) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		if st.Size() > lim.MaxBytes {
			return &LimitError{Name: name, Cap: lim.MaxBytes}
		}
		return nil
	case m&fs.ModeNamedPipe != 0:
		return nil
	case m.IsDir():
		return fmt.Errorf("%s: %w: a directory", name, ErrNotFile)
	case m&fs.ModeCharDevice != 0:
		return fmt.Errorf("%s: %w: a character device", name, ErrNotFile)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%s: %w: a block device", name, ErrNotFile)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s: %w: a socket", name, ErrNotFile)
	}
	return fmt.Errorf("%s: %w (mode %v)", name, ErrNotFile, m)
}

// ReadFrom returns what r holds under lim; name names r in errors. It
// reads at most lim.MaxBytes+1 bytes of r, and stops at the first line
// longer than lim.MaxLine, returning a *LimitError. It panics if
// lim.MaxBytes is not positive or lim.MaxLine is negative.
func ReadFrom(name string, r io.Reader, lim Limits) ([]byte, error) {
	if lim.MaxBytes <= 0 || lim.MaxLine < 0 {
		panic(fmt.Sprintf("inputfile: bad limits %+v", lim))
	}
	var (
		buf     []byte
		line    = 1
		lineLen int64 // bytes of the current line read so far
		chunk   = make([]byte, 64<<10)
	)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if int64(len(buf))+int64(n) > lim.MaxBytes {
				return nil, &LimitError{Name: name, Cap: lim.MaxBytes}
			}
			if lim.MaxLine > 0 {
				for rest := chunk[:n]; ; {
					i := bytes.IndexByte(rest, '\n')
					if i < 0 {
						lineLen += int64(len(rest))
						break
					}
					if lineLen+int64(i) > lim.MaxLine {
						return nil, &LimitError{Name: name, Line: line, Cap: lim.MaxLine}
					}
					line++
					lineLen = 0
					rest = rest[i+1:]
				}
				if lineLen > lim.MaxLine {
					return nil, &LimitError{Name: name, Line: line, Cap: lim.MaxLine}
				}
			}
			buf = append(buf, chunk[:n]...)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
}
