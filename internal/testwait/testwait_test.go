package testwait

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestUntil: a condition that holds at once is called once; one that
// comes to hold is seen; one that never holds is given up at the
// deadline, after a last call there.
func TestUntil(t *testing.T) {
	var calls atomic.Int64
	if !Until(time.Minute, func() bool { calls.Add(1); return true }) || calls.Load() != 1 {
		t.Errorf("a condition that holds: %d calls, want 1", calls.Load())
	}

	var set atomic.Bool
	go func() { set.Store(true) }()
	if !Until(time.Minute, set.Load) {
		t.Error("a condition set by another goroutine was not seen within a minute")
	}

	calls.Store(0)
	start := time.Now()
	if Until(300*time.Millisecond, func() bool { calls.Add(1); return false }) {
		t.Error("Until reported a condition that never holds as held")
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("gave up after %v, before the 300ms deadline", d)
	}
	if n := calls.Load(); n < 2 {
		t.Errorf("%d calls in 300ms, want the first and one at the deadline at least", n)
	}
}

// TestForFails: For ends the test, naming what it waited for, when the
// condition never holds.
func TestForFails(t *testing.T) {
	ft := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }() // fakeT.Fatalf panics to stop the goroutine as runtime.Goexit would
		For(ft, 10*time.Millisecond, "the answer", func() bool { return false })
	}()
	<-done
	if want := "timed out after 10ms waiting for the answer"; ft.msg != want {
		t.Errorf("For's failure: %q, want %q", ft.msg, want)
	}
}

// fakeT records a Fatalf.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("Fatalf")
}
