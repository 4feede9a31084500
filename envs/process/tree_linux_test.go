package process

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"evolve/envs"
	"evolve/internal/testwait"
	"evolve/params"
)

// containments runs f with a cgroup where one can be created, and again
// with the /proc scan only.
func containments(t *testing.T, f func(t *testing.T)) {
	for _, mode := range []struct {
		name string
		off  bool
	}{{"cgroup if available", false}, {"proc scan", true}} {
		t.Run(mode.name, func(t *testing.T) {
			old := noCgroups
			noCgroups = mode.off
			defer func() { noCgroups = old }()
			f(t)
		})
	}
}

// playWithin plays seed on p, failing the test if Play has not returned
// after limit (the bug was a Play blocked until message_timeout, or for
// ever, on a stdout a grandchild kept open).
func playWithin(t *testing.T, p *Player, seed uint64, limit time.Duration) (envs.Outcome, error) {
	t.Helper()
	type res struct {
		o   envs.Outcome
		err error
	}
	c := make(chan res, 1)
	go func() {
		o, err := p.Play(context.Background(), envs.Episode{Seed: seed})
		c <- res{o, err}
	}()
	select {
	case r := <-c:
		return r.o, r.err
	case <-time.After(limit):
		t.Fatalf("seed %d: Play still blocked after %v", seed, limit)
	}
	return envs.Outcome{}, nil
}

// TestDescendants: a crash is reported as the exit it is although a
// setsid grandchild holds stdout (not as a timeout); a hang with such a
// grandchild ends at message_timeout; a setsid grandchild and a
// double-forked one are killed with their process; no process is left.
func TestDescendants(t *testing.T) {
	py := python3(t)
	containments(t, func(t *testing.T) {
		cfg := testConfig("testdata", py, "escape.py")
		cfg.MessageTimeout = Duration(30 * time.Second) // a crash must not wait for it
		e := newEnv(t, cfg)
		p := newPlayer(t, e, 0)
		defer p.Close()

		_, err := playWithin(t, p, 13, 20*time.Second)
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 4 before answering") {
			t.Errorf("seed 13 (crash with a setsid grandchild on stdout): %v, want an exit with status 4", err)
		}
		noChildren(t, "evolve-test-escape")

		if o, err := playWithin(t, p, 15, 20*time.Second); err != nil || o.Score != 150 {
			t.Errorf("seed 15 (double fork): %+v, %v", o, err)
		}
		// The grandchild execs its sleeper on its own time: wait for it.
		testwait.For(t, 10*time.Second, "seed 15's double-forked grandchild to run (without it the test proves nothing)",
			func() bool { return len(children(t, "evolve-test-escape")) > 0 })
		p.Close()
		noChildren(t, "evolve-test-escape")
	})
}

// TestDescendantsTimeout: a hang whose setsid grandchild holds stdout
// ends at message_timeout as a timeout (it used to block for ever: the
// watchdog killed the process group, which the grandchild had left).
func TestDescendantsTimeout(t *testing.T) {
	py := python3(t)
	containments(t, func(t *testing.T) {
		cfg := testConfig("testdata", py, "escape.py")
		cfg.MessageTimeout = Duration(time.Second)
		e := newEnv(t, cfg)
		p := newPlayer(t, e, 0)
		defer p.Close()
		_, err := playWithin(t, p, 17, 20*time.Second)
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("seed 17: %v, want a timeout", err)
		}
		noChildren(t, "evolve-test-escape")
		if o, err := playWithin(t, p, 2, 20*time.Second); err != nil || o.Score != 20 {
			t.Errorf("seed 2 after: %+v, %v", o, err)
		}
	})
}

// TestMemoryLimitNode: Node.js runs under max_memory_mb 256 (under the
// RLIMIT_AS of old it aborted before its first line: V8 reserves
// gigabytes of address space), and a Node program that runs out of heap
// fails its episode with a hint at max_memory_mb and Node's heap flag.
func TestMemoryLimitNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: this test runs a Node.js environment")
	}
	cfg := testConfig("testdata", node, "hog.js")
	cfg.MaxMemoryMB = 256
	cfg.MessageTimeout = Duration(60 * time.Second)
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("New: Node under max_memory_mb 256: %v", err)
	}
	p := newPlayer(t, e, 0)
	defer p.Close()
	if o, err := p.Play(context.Background(), envs.Episode{Seed: 2}); err != nil || o.Score != 20 {
		t.Fatalf("seed 2: %+v, %v", o, err)
	}
	_, err = p.Play(context.Background(), envs.Episode{Seed: 9})
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "max_memory_mb 256") || !strings.Contains(err.Error(), "--max-old-space-size") {
		t.Errorf("seed 9: %v, want an exit with a max_memory_mb hint naming --max-old-space-size", err)
	}
	if o, err := p.Play(context.Background(), envs.Episode{Seed: 3}); err != nil || o.Score != 30 {
		t.Errorf("seed 3 after the out-of-memory: %+v, %v", o, err)
	}
}

// TestMemoryLimit: a process that allocates past max_memory_mb fails the
// episode with a hint at the limit, and the next episode runs.
func TestMemoryLimit(t *testing.T) {
	py := python3(t)
	cfg := testConfig("testdata", py, "faulty.py")
	cfg.MaxMemoryMB = 256
	e := newEnv(t, cfg)
	p := newPlayer(t, e, 0)
	defer p.Close()
	ps := params.Set{{Name: "x", Value: params.NumberValue(0.5)}}
	_, err := p.Play(context.Background(), envs.Episode{Seed: 9, Params: ps})
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "max_memory_mb 256") || !strings.Contains(err.Error(), "MemoryError") {
		t.Errorf("seed 9: %v, want an exit with MemoryError and a max_memory_mb hint", err)
	}
	if out, err := p.Play(context.Background(), envs.Episode{Seed: 2, Params: ps}); err != nil || out.Score != 20 {
		t.Errorf("seed 2 after the memory error: %+v, %v", out, err)
	}
}

// TestLinuxSupport: Linux runs process environments and enforces
// max_memory_mb (the other platforms' refusals are tested in
// platform_test.go).
func TestLinuxSupport(t *testing.T) {
	if err := platformErr(); err != nil {
		t.Errorf("platformErr: %v", err)
	}
	if err := memoryLimitErr(256); err != nil {
		t.Errorf("memoryLimitErr(256): %v", err)
	}
}
