package process

import (
	"errors"
	"strings"
	"testing"
)

// TestUnsupportedErrors: the refusals of process environments (Windows)
// and of max_memory_mb (outside Linux) name the platform, what is
// missing and what to do instead, and match errors.ErrUnsupported. They
// are built here on Linux for each platform the refusals are made on.
func TestUnsupportedErrors(t *testing.T) {
	for _, goos := range []string{"darwin", "windows", "freebsd"} {
		t.Run(goos, func(t *testing.T) {
			for _, tc := range []struct {
				err  error
				want []string
			}{
				{processesUnsupported(goos), []string{
					"process environments are not supported on " + goos + ":",
					"process group", "job object", "WSL 2", "built-in dungeon"}},
				{memoryLimitUnsupported(goos, 256), []string{
					"max_memory_mb: 256: not supported on " + goos + ":",
					"RLIMIT_DATA", "the " + goos + " kernel", "Remove max_memory_mb", "run on Linux"}},
			} {
				if !errors.Is(tc.err, errors.ErrUnsupported) {
					t.Errorf("%v: does not match errors.ErrUnsupported", tc.err)
				}
				for _, w := range tc.want {
					if !strings.Contains(tc.err.Error(), w) {
						t.Errorf("%v\nwant it to hold %q", tc.err, w)
					}
				}
			}
		})
	}
}

// TestPlatformSupport: this platform's answers agree with its build:
// process environments run wherever platformErr is nil, and a memory
// limit is refused exactly where the platform cannot enforce it, by
// Validate, before any process starts.
func TestPlatformSupport(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Command = []string{"true"}
	cfg.MaxMemoryMB = 256
	verr := cfg.Validate()
	if merr := memoryLimitErr(256); (merr == nil) != (verr == nil) || (merr != nil && verr.Error() != merr.Error()) {
		t.Errorf("Validate with max_memory_mb 256: %v; the platform's memory limit: %v", verr, merr)
	}
	if err := platformErr(); err != nil {
		if _, nerr := New(cfg); !errors.Is(nerr, errors.ErrUnsupported) || !strings.Contains(nerr.Error(), err.Error()) {
			t.Errorf("New: %v, want the platform's refusal %v", nerr, err)
		}
	}
}
