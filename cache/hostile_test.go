package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/internal/castore"
)

// TestHostileEntries: an entry path that is a FIFO (which would block a
// plain open until a writer comes), a symbolic link to /dev/zero (which
// would be read without end) or to a good entry, or a file
// over the size cap is a miss, never read, and removed so the episode
// is played and put again.
func TestHostileEntries(t *testing.T) {
	k := testKey(7)
	good, err := encodeEntry(k, Entry{Outcome: dungeonOutcome(7)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"FIFO", func(t *testing.T, p string) {
			if err := mkfifo(p); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"symlink to /dev/zero", func(t *testing.T, p string) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink to a good entry", func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "entry.json")
			os.WriteFile(target, good, 0o644)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"over the size cap", func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			// A sparse file: no disk space, but its size is over the cap.
			if err := f.Truncate(castore.DefaultMaxSize + 1); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := open(t)
			p := c.Path(k)
			os.MkdirAll(filepath.Dir(p), 0o755)
			tt.make(t, p)
			done := make(chan struct{})
			var ok bool
			go func() {
				defer close(done)
				_, ok, err = c.Get(k)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Get blocked on the entry")
			}
			if err != nil || ok {
				t.Fatalf("Get = ok %v, err %v; want a miss", ok, err)
			}
			if st := c.Stats(); st.Corrupt != 1 || st.Misses != 1 {
				t.Errorf("stats %+v, want 1 corrupt miss", st)
			}
			if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the hostile entry is still there: %v", err)
			}
			if err := c.Put(k, Entry{Outcome: dungeonOutcome(7)}); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := c.Get(k); !ok || err != nil {
				t.Errorf("after a new Put: ok %v, err %v", ok, err)
			}
		})
	}
}

// forge rewrites k's entry in c with score 9999 and a recomputed
// outcome_sha256, keeping any outcome_hmac_sha256: what a job that can
// write the cache but does not know the key can do.
func forge(t *testing.T, c *Cache, k Key) {
	t.Helper()
	data, err := os.ReadFile(c.Path(k))
	if err != nil {
		t.Fatal(err)
	}
	var e entryJSON
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	json.Unmarshal(e.Outcome, &o)
	o["score"] = 9999
	ob, _ := json.Marshal(o)
	sum := sha256.Sum256(ob)
	e.Outcome, e.OutcomeSHA256 = ob, hex.EncodeToString(sum[:])
	out, _ := json.Marshal(e)
	if err := os.WriteFile(c.Path(k), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHMAC: an entry forged with a recomputed SHA-256 is used by an
// unkeyed cache (the documented trust model) and refused by a keyed
// one; a keyed cache refuses unkeyed entries and entries of another
// key, and unkeyed readers still read keyed entries.
func TestHMAC(t *testing.T) {
	key := []byte(strings.Repeat("k", MinHMACKeyLen))
	k := testKey(11)
	keyed := open(t)
	if err := keyed.SetHMACKey(key); err != nil {
		t.Fatal(err)
	}
	if err := keyed.SetHMACKey(key[:MinHMACKeyLen-1]); !errors.Is(err, ErrShortHMACKey) {
		t.Errorf("a 31-byte key: %v, want ErrShortHMACKey", err)
	}
	plain, _ := Open(keyed.Dir())

	// Keyed write, both read.
	if err := keyed.Put(k, Entry{Outcome: dungeonOutcome(11)}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(keyed.Path(k))
	if !strings.Contains(string(data), `"outcome_hmac_sha256":"`) {
		t.Fatalf("keyed entry without its HMAC: %s", data)
	}
	if o, ok, err := keyed.Get(k); !ok || err != nil || o.Score != dungeonOutcome(11).Score {
		t.Errorf("keyed Get of a keyed entry: %v %v %v", o.Score, ok, err)
	}
	if _, ok, err := plain.Get(k); !ok || err != nil {
		t.Errorf("unkeyed Get of a keyed entry: %v %v", ok, err)
	}

	// Forged: the unkeyed cache takes it, the keyed one does not.
	forge(t, keyed, k)
	if o, ok, _ := plain.Get(k); !ok || o.Score != 9999 {
		t.Errorf("unkeyed Get of a forged entry: ok %v score %v; the trust model says it is used", ok, o.Score)
	}
	if _, ok, err := keyed.Get(k); ok || err != nil {
		t.Errorf("keyed Get of a forged entry: ok %v, err %v; want a miss", ok, err)
	}

	// An unkeyed entry, or one keyed with another key, is a miss.
	plain.Put(k, Entry{Outcome: dungeonOutcome(11)})
	if _, ok, _ := keyed.Get(k); ok {
		t.Error("keyed Get of an unkeyed entry: a hit")
	}
	other := open(t)
	other.dir = keyed.Dir()
	other.SetHMACKey([]byte(strings.Repeat("o", MinHMACKeyLen)))
	other.Put(k, Entry{Outcome: dungeonOutcome(11)})
	if _, ok, _ := keyed.Get(k); ok {
		t.Error("keyed Get of an entry of another key: a hit")
	}
	if st := keyed.Stats(); st.Corrupt != 3 || st.Hits != 1 {
		t.Errorf("keyed stats %+v, want 3 corrupt, 1 hit", st)
	}
}
