package process

import (
	"context"
	"encoding/json"
	"errors"
	"os"
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
	cfg.StderrDir = t.TempDir()
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
		5:  {ErrTimeout, "environment", `run: process timed out: the episode ran past episode_timeout 2s (over the direct channel the run's time includes the agent's: a hung agent, or an act request not flushed to fd 3, ends here; the agent's last stderr line is "faulty agent: hanging on purpose")`, ""},
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
	// The environment's log says why evolve killed it.
	log, err := os.ReadFile(filepath.Join(cfg.StderrDir, "process-0.log"))
	for _, w := range []string{
		"and its process group: seed 3: the agent process exited during the episode over the direct channel\n",
		"and its process group: seed 11: the episode over the direct channel failed\n",
	} {
		if err != nil || !strings.Contains(string(log), w) {
			t.Errorf("process-0.log lacks %q (%v):\n%s", w, err, log)
		}
	}
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

// TestParseActs: a run response's acts is an integer from 1 to what keeps
// the agent's request ids at most MaxRequestID; anything else is a
// protocol violation that names the value.
func TestParseActs(t *testing.T) {
	for _, tt := range []struct {
		raw   string
		actID int64
		want  int64
		err   string
	}{
		{"11", 2, 11, ""},
		{"1", 5, 1, ""},
		{"9007199254740990", 2, 9007199254740990, ""},
		{"9007199254740991", 2, 0, "acts 9007199254740991: want the number of act requests sent to the agent, an integer in [1, 9007199254740990]"},
		{"0", 2, 0, "acts 0: want"},
		{"-3", 2, 0, "acts -3: want"},
		{"1.5", 2, 0, "acts 1.5: want"},
		{`"x"`, 2, 0, `acts "x": want`},
		{"4611686018427387904", 2, 0, "acts 4611686018427387904: want"},
		{"", 2, 0, "the run response has no acts"},
	} {
		var raw json.RawMessage
		if tt.raw != "" {
			raw = json.RawMessage(tt.raw)
		}
		got, err := parseActs(raw, tt.actID)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && (!errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("parseActs(%s, %d) = %d, %v; want %d, %q", tt.raw, tt.actID, got, err, tt.want, tt.err)
		}
	}
}

// TestDirectUnreadAnswer: an environment that leaves the answer to an act
// request unread fails the next episode's begin, with a hint at the cause.
func TestDirectUnreadAnswer(t *testing.T) {
	py := python3(t)
	cfg := testConfig("testdata", py, "trivial_env.py", "--leave-unread")
	cfg.Agent = []string{py, "trivial_agent.py"}
	cfg.Direct = true
	p := newPlayer(t, newEnv(t, cfg), 0)
	defer p.Close()
	if _, err := p.Play(context.Background(), envs.Episode{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// No wait is needed here: the environment wrote the extra act request
	// to the agent's stdin before it answered run, so the agent reads it
	// before the next begin and its answer is the first line evolve reads.
	_, err := p.Play(context.Background(), envs.Episode{Seed: 2})
	if want := `begin: protocol violation: response type "action", want "ok" or "error"`; err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), want) ||
		!strings.Contains(err.Error(), "(over the direct channel, often the answer to an act request that the environment sent in the previous episode and did not read") {
		t.Errorf("second episode: %v, want %q and a hint", err, want)
	}
	if _, err := p.Play(context.Background(), envs.Episode{Seed: 3}); err != nil {
		t.Errorf("third episode, on new processes: %v", err)
	}
}
