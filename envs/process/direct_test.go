package process

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"evolve/envs"
)

// directConfig is examples/python's step-mode corridor with agent (a
// command line relative to testdata, or nil for step_agent.py), over the
// direct channel when direct is set.
func directConfig(py string, direct bool, agent ...string) Config {
	cfg := testConfig(exampleDir, py, "step_env.py")
	cfg.Agent = []string{py, "step_agent.py"}
	if len(agent) > 0 {
		abs, _ := filepath.Abs(filepath.Join("testdata", agent[0]))
		cfg.Agent = append([]string{py, abs}, agent[1:]...)
	}
	cfg.Direct = direct
	return cfg
}

// TestDirect: over the direct channel, the corridor's episodes have the
// outcomes they have when evolve relays every step, seed by seed, with
// the processes reused across episodes (the agent's request ids advance
// by each run's acts) and with two workers.
func TestDirect(t *testing.T) {
	py := python3(t)
	relayed := newEnv(t, directConfig(py, false))
	direct := newEnv(t, directConfig(py, true))
	ps := relayed.Info().Params.Defaults()
	for w := range 2 {
		pr, pd := newPlayer(t, relayed, w), newPlayer(t, direct, w)
		if !pd.direct || pr.direct {
			t.Fatalf("direct: %v and %v", pr.direct, pd.direct)
		}
		causes := map[string]int{}
		for s := range uint64(30) {
			seed := s*7919 + uint64(w)<<40
			a, err := pr.Play(context.Background(), envs.Episode{Seed: seed, Params: ps})
			if err != nil {
				t.Fatal(err)
			}
			b, err := pd.Play(context.Background(), envs.Episode{Seed: seed, Params: ps})
			if err != nil {
				t.Fatal(err)
			}
			if a.Score != b.Score || a.Cause != b.Cause || a.EndReason != b.EndReason || len(a.Metrics) != 3 ||
				a.Metrics[0] != b.Metrics[0] || a.Metrics[1] != b.Metrics[1] || a.Metrics[2] != b.Metrics[2] {
				t.Errorf("seed %d: relayed %+v, direct %+v", seed, a, b)
			}
			causes[b.Cause]++
		}
		if len(causes) < 2 {
			t.Errorf("worker %d: causes %v, want at least two kinds", w, causes)
		}
		// One process pair played every episode.
		if pd.ep.played != 30 || pd.ag.played != 30 {
			t.Errorf("worker %d: the processes played %d and %d episodes, want 30", w, pd.ep.played, pd.ag.played)
		}
		pr.Close()
		pd.Close()
	}
	noChildren(t, "")
}

// TestDirectFaults: an agent that crashes, hangs, writes non-protocol
// text or reports an error during a direct episode fails exactly that
// episode, with a message that names what happened (and the stderr tail
// of the process that failed); both processes are replaced and the next
// episodes play; no process is left.
func TestDirectFaults(t *testing.T) {
	py := python3(t)
	cfg := directConfig(py, true, "faulty_agent.py")
	cfg.EpisodeTimeout = Duration(2 * time.Second)
	e := newEnv(t, cfg)
	p := newPlayer(t, e, 0)
	ps := e.Info().Params.Defaults()
	want := map[uint64]struct {
		sentinel error
		role     string
		msg      string
		stderr   string
	}{
		3:  {ErrExited, "agent", "run: process exited: exit status 3 during the episode over the direct channel", "faulty agent: crashing on purpose"},
		5:  {ErrTimeout, "environment", `run: process timed out: the episode ran past episode_timeout 2s (over the direct channel the environment waits for the agent's actions: the agent's last stderr line is "faulty agent: hanging on purpose")`, ""},
		7:  {ErrReported, "environment", `run: process reported an error: JSONDecodeError: Expecting value`, ""},
		11: {ErrReported, "environment", "run: process reported an error: RuntimeError: agent: seed 11 is not supported", ""},
	}
	for s := uint64(1); s <= 12; s++ {
		out, err := p.Play(context.Background(), envs.Episode{Seed: s, Params: ps})
		w, bad := want[s]
		if !bad {
			if err != nil || out.Metrics[0].Num < 1 {
				t.Errorf("seed %d: %+v, %v", s, out, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, w.sentinel) {
			t.Errorf("seed %d: error %v, want an *Error wrapping %v", s, err, w.sentinel)
			continue
		}
		msg := err.Error()
		if pe.Seed != s || pe.Role != w.role || !strings.HasPrefix(msg, "seed "+strconv.FormatUint(s, 10)+": "+w.role+" process [") ||
			!strings.Contains(msg, w.msg) || !strings.Contains(pe.Stderr, w.stderr) {
			t.Errorf("seed %d: error %q (stderr %q)\nwant role %s, %q and stderr %q", s, msg, pe.Stderr, w.role, w.msg, w.stderr)
		}
		if p.ep != nil || p.ag != nil {
			t.Errorf("seed %d: the processes were kept after a failed direct episode", s)
		}
	}
	p.Close()
	noChildren(t, "")
}

// TestDirectConfig: direct without an agent command is a config error,
// and an environment that does not declare direct is refused by New,
// each naming the key.
func TestDirectConfig(t *testing.T) {
	cfg := testConfig("", "python3", "env.py")
	cfg.Direct = true
	if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), "direct: true needs agent: [COMMAND, ARGS...]") {
		t.Errorf("Validate: %v", err)
	}
	h := helperConfig("env") // declares no direct
	h.Direct = true
	_, err := New(h)
	if err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), `the config sets direct: true, but the environment's hello does not declare "direct": true (mode step)`) {
		t.Errorf("New: %v", err)
	}
}
