// Package testwait lets a test wait for a condition with a deadline
// instead of sleeping for a guessed time: the test goes on as soon as
// the condition holds, and fails, saying what it waited for, when it
// never does.
//
// The condition is polled, first after 1 ms and then at intervals that
// double up to MaxPoll, so that a cheap condition (a counter, a
// buffer's text) is seen at once and a costly one (a scan of /proc, a
// run of squeue) is not run in a tight loop.
package testwait

import (
	"testing"
	"time"
)

// MaxPoll is the longest interval between two polls of a condition.
const MaxPoll = 100 * time.Millisecond

// Until calls cond until it returns true or timeout has passed, and
// reports whether it returned true. cond is called at least once, and
// once more at the deadline. Until may be called from any goroutine (a
// goroutine that cancels a context once a process has said something,
// for example); cond must be safe to call from it.
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	poll := time.Millisecond
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(poll, left))
		<-t.C
		poll = min(2*poll, MaxPoll)
	}
	return true
}

// For waits as Until does and, if cond has not held within timeout,
// ends the test with t.Fatalf, "timed out after TIMEOUT waiting for
// WHAT". what says what the test waited for ("the server to accept 6
// connections"). Like t.Fatalf, For must be called from the test's own
// goroutine.
func For(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}
