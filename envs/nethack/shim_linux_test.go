package nethack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShimRefusals: a game the shim does not load into is refused with
// ErrShimNotLoaded, and one that asks for a key without reading
// /dev/urandom with ErrUnseeded, each saying why; neither is played.
// The first is the real game with LD_PRELOAD naming a missing library
// (the loader ignores it, as it would a shim it refused); the second a
// shell script that reads a key, into which the real shim loads.
func TestShimRefusals(t *testing.T) {
	in := testInstall(t)
	missing := *in
	missing.shim = filepath.Join(t.TempDir(), "no-shim.so")

	script := *in
	script.binary = filepath.Join(t.TempDir(), "fake-game")
	if err := os.WriteFile(script.binary, []byte("#!/bin/sh\nread key\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   *Install
		want error
		says []string
	}{
		{"shim not loaded", &missing, ErrShimNotLoaded, []string{"LD_PRELOAD=" + missing.shim, "never plays an unseeded game"}},
		{"no /dev/urandom", &script, ErrUnseeded, []string{script.binary, "/dev/urandom", "never plays an unseeded game"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := tc.in.NewPlayground()
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			g, err := StartGame(context.Background(), tc.in, dir, 1, GameOptions(valkyrie), 2*time.Second, nil)
			if g != nil {
				g.Kill()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("StartGame: %v, want %v", err, tc.want)
			}
			for _, w := range tc.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// TestShimLog: the real game under the shim leaves the log that
// checkShim reads: loaded, and six answered opens of /dev/urandom by the
// end of a game (at least one before the first key).
func TestShimLog(t *testing.T) {
	in := testInstall(t)
	dir, err := in.NewPlayground()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	g, err := StartGame(context.Background(), in, dir, 1, GameOptions(valkyrie), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Kill()
	data, err := os.ReadFile(filepath.Join(dir, shimLog))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	if len(lines) < 2 || lines[0] != "loaded" || lines[1] != "urandom" {
		t.Errorf("shim log at the first key: %q, want loaded, then urandom", lines)
	}
}
