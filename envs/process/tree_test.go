package process

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"evolve/envs"
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
		for i := 0; len(children(t, "evolve-test-escape")) == 0; i++ {
			if i == 100 {
				t.Fatal("seed 15: the double-forked grandchild is not running after 10 s; the test proves nothing")
			}
			time.Sleep(100 * time.Millisecond)
		}
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

// TestCheckWarnsIgnoredClose: env check warns about a program that does
// not exit on close (it is killed after a second). That a conforming
// program gets none is not asserted: on an overloaded machine even a
// conforming program can take a second to exit.
func TestCheckWarnsIgnoredClose(t *testing.T) {
	py := python3(t)
	// The hello answered, then every play; close and end of file are
	// ignored (the program sleeps instead of exiting).
	stubborn := `import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": m["id"], "type": "hello", "protocol": 1, "name": "stubborn", "provides": ["environment", "agent"], "mode": "episode"}), flush=True)
    elif m["type"] == "play":
        print(json.dumps({"id": m["id"], "type": "outcome", "outcome": {"score": 1, "end_reason": "done", "cause": "none"}}), flush=True)
time.sleep(30)
`
	for _, tt := range []struct {
		name string
		cfg  Config
		warn bool
	}{
		{"ignores close", testConfig("", py, "-c", stubborn), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			rep, err := Check(context.Background(), tt.cfg, seedsUpTo(2), &out)
			if err != nil {
				t.Fatal(err)
			}
			const w = "the environment process did not exit within 1s of close"
			if got := strings.Contains(out.String(), w); got != tt.warn || !rep.OK() {
				t.Errorf("warning %q shown: %v, want %v; OK %v; report:\n%s", w, got, tt.warn, rep.OK(), out.String())
			}
		})
	}
}

// TestStderrTailPerEpisode: the stderr quoted by an error is the failing
// episode's, not what the process wrote during earlier episodes.
func TestStderrTailPerEpisode(t *testing.T) {
	py := python3(t)
	p := newPlayer(t, newEnv(t, testConfig("testdata", py, "faulty.py")), 0)
	defer p.Close()
	ps := params.Set{{Name: "x", Value: params.NumberValue(0.5)}}
	if _, err := p.Play(context.Background(), envs.Episode{Seed: 1, Params: ps}); err != nil {
		t.Fatal(err)
	}
	// stderr is copied apart from stdout: wait until seed 1's line is in
	// the tail (a line the previous episode wrote just before its answer
	// can arrive after the next episode began; docs/protocol.md says so).
	for i := 0; !strings.Contains(p.ep.stderr.String(), "playing seed 1"); i++ {
		if i == 500 {
			t.Fatal("seed 1's stderr never arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := p.Play(context.Background(), envs.Episode{Seed: 3, Params: ps})
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, "faulty: playing seed 3") || strings.Contains(pe.Stderr, "playing seed 1") {
		t.Errorf("seed 3's stderr tail %q: want seed 3's lines only", pe.Stderr)
	}
}
