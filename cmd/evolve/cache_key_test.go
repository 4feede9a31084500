package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCacheHMACKey: with $EVOLVE_CACHE_HMAC_KEY an eval writes keyed
// entries and replays them; entries written under another key are
// played again, not used (a forged entry is cache.TestHMAC's); a key
// under 32 bytes is refused before anything is played.
func TestEvalCacheHMACKey(t *testing.T) {
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n"), 0o644)
	cacheDir := filepath.Join(dir, "cache")

	t.Setenv("EVOLVE_CACHE_HMAC_KEY", "short")
	code, _, stderr := evolve(t, "eval", "--quiet", "--cache", cacheDir, "--out", filepath.Join(dir, "e0"), "--seeds", seeds, "embedded")
	if code != exitFailure || !strings.Contains(stderr, "$EVOLVE_CACHE_HMAC_KEY: cache: HMAC key too short: 5 bytes, want at least 32") {
		t.Fatalf("a short key: exit %d\n%s", code, stderr)
	}

	t.Setenv("EVOLVE_CACHE_HMAC_KEY", strings.Repeat("s", 40))
	eval := func(out string) (int, int) {
		code, stdout, stderr := evolve(t, "eval", "--quiet", "--cache", cacheDir, "--out", filepath.Join(dir, out), "--seeds", seeds, "embedded")
		if code != exitOK {
			t.Fatalf("eval: exit %d\n%s", code, stderr)
		}
		return playedCached(t, stdout)
	}
	if p, c := eval("e1"); p != 3 || c != 0 {
		t.Fatalf("first eval: %d played, %d cached; want 3, 0", p, c)
	}
	var entries []string
	filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) != 3 {
		t.Fatalf("%d cache entries, want 3", len(entries))
	}
	for _, e := range entries {
		if data, _ := os.ReadFile(e); !strings.Contains(string(data), `"outcome_hmac_sha256":"`) {
			t.Fatalf("entry without an HMAC: %s", data)
		}
	}
	if p, c := eval("e2"); p != 0 || c != 3 {
		t.Fatalf("second eval: %d played, %d cached; want 0, 3", p, c)
	}
	// A job with another key cannot use them, and overwrites them.
	t.Setenv("EVOLVE_CACHE_HMAC_KEY", strings.Repeat("x", 40))
	if p, c := eval("e3"); p != 3 || c != 0 {
		t.Fatalf("another key: %d played, %d cached; want 3, 0", p, c)
	}
	t.Setenv("EVOLVE_CACHE_HMAC_KEY", strings.Repeat("s", 40))
	if p, c := eval("e4"); p != 3 || c != 0 {
		t.Fatalf("back to the first key after another key's writes: %d played, %d cached; want 3, 0", p, c)
	}
}
