package flock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// open opens path for reading and writing, closing it when the test ends.
func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestLocks: locks on two open files of the same file exclude each other
// as documented (exclusive against all, shared against exclusive), within
// one process as between two (a lock belongs to the open file), and
// closing or unlocking releases them.
func TestLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, b, c := open(t, path), open(t, path), open(t, path)
	if err := TryLock(a); err != nil {
		t.Fatalf("TryLock on a free file: %v", err)
	}
	for name, try := range map[string]func(*os.File) error{"TryLock": TryLock, "TryRLock": TryRLock} {
		if err := try(b); !errors.Is(err, ErrLocked) {
			t.Errorf("%s under an exclusive lock: %v, want ErrLocked", name, err)
		}
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryRLock(b); err != nil {
		t.Fatalf("TryRLock on a free file: %v", err)
	}
	if err := TryRLock(c); err != nil {
		t.Errorf("TryRLock under a shared lock: %v, want none", err)
	}
	if err := TryLock(a); !errors.Is(err, ErrLocked) {
		t.Errorf("TryLock under shared locks: %v, want ErrLocked", err)
	}
	b.Close()
	if err := Unlock(c); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(a); err != nil {
		t.Errorf("TryLock once the shared locks are closed and unlocked: %v", err)
	}
}

// TestLockWaits: Lock and RLock wait while another open file holds an
// exclusive lock, and return once it is released.
func TestLockWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	for name, wait := range map[string]func(*os.File) error{"Lock": Lock, "RLock": RLock} {
		t.Run(name, func(t *testing.T) {
			a, b := open(t, path), open(t, path)
			if err := Lock(a); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- wait(b) }()
			select {
			case err := <-done:
				t.Fatalf("%s returned (%v) while another file held the lock", name, err)
			default:
			}
			if err := Unlock(a); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s still waiting 10s after the lock was released", name)
			}
			Unlock(b)
		})
	}
}
