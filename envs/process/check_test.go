package process

import (
	"context"
	"strings"
	"testing"
)

func seedsUpTo(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i)*0x9E3779B97F4A7C15 + 1
	}
	return s
}

// TestCheck: the Python examples (episode mode and the step-mode pair)
// conform; an environment whose score counts the episodes its process has
// played fails, naming a seed whose outcomes differ; a non-protocol
// program fails the handshake.
func TestCheck(t *testing.T) {
	py := python3(t)
	stepCfg := testConfig(exampleDir, py, "step_env.py")
	stepCfg.Agent = []string{py, "step_agent.py"}
	for _, tt := range []struct {
		name string
		cfg  Config
		ok   bool
		want []string
	}{
		{"episode example", testConfig(exampleDir, py, "env.py"), true,
			[]string{`handshake:   ok: name "python-forager", mode episode`, "determinism: 20 of 20 seeds gave byte-identical outcomes", "result: ok"}},
		{"step example", stepCfg, true,
			[]string{"mode step", "process B in reverse order over the direct channel)", "per step", "determinism: 20 of 20 seeds", "result: ok"}},
		{"stateful", testConfig("testdata", py, "stateful.py"), false,
			[]string{"violation: seed 1: the outcome differs between process A (seeds in order) and process B (reverse order)", "result: FAIL (20 violations)"}},
		{"not a process", testConfig("", py, "-c", "print('hello')"), false,
			[]string{"handshake:   FAILED", "violation: handshake: environment process", `want the hello response, got "hello"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			rep, err := Check(context.Background(), tt.cfg, seedsUpTo(20), &out)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() != tt.ok {
				t.Errorf("OK() = %v, want %v; report:\n%s", rep.OK(), tt.ok, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	// A run request that plays otherwise than reset and step.
	drift := testConfig("testdata", py, "trivial_env.py", "--drift")
	drift.Agent = []string{py, "trivial_agent.py"}
	var out strings.Builder
	rep, err := Check(context.Background(), drift, seedsUpTo(2), &out)
	if err != nil {
		t.Fatal(err)
	}
	if w := `violation: seed 1: the outcome differs between process A (seeds in order) and process B (reverse order, over the direct channel), so it depends on more than seed, parameters and prompt, or run plays otherwise than reset and step: first difference at byte 12: A has "{\"score\":1000,`; rep.OK() || !rep.Direct || rep.Steps != 4000 || !strings.Contains(out.String(), w) {
		t.Errorf("OK() %v, Direct %v, Steps %d; want a violation %q; report:\n%s", rep.OK(), rep.Direct, rep.Steps, w, out.String())
	}
	// A run that counts one act too many.
	extra := testConfig("testdata", py, "trivial_env.py", "--extra-act")
	extra.Agent = drift.Agent
	out.Reset()
	if rep, err = Check(context.Background(), extra, seedsUpTo(1), &out); err != nil {
		t.Fatal(err)
	}
	if w := "violation: seed 1: process B's run answered acts 1001, but the same episode relayed by evolve (process A) took 1000 steps: acts must count the act requests sent to the agent, one per step"; rep.OK() || !strings.Contains(out.String(), w) {
		t.Errorf("want a violation %q; report:\n%s", w, out.String())
	}
	if w := "µs over the direct channel (process B) (2001 steps, 1000.5 per episode)"; !strings.Contains(out.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, out.String())
	}
	noChildren(t, "")
}

func TestCheckRemedies(t *testing.T) {
	py := python3(t)
	info := newEnv(t, testConfig(exampleDir, py, "env.py")).Info()
	info.Remedies = map[string][]string{"predation": {"risk+", "nope-", "prioritize priority run", "rotate risk", "risk"}}
	info.Fill = []string{"deprioritize priority flee"}
	var got []string
	for _, e := range CheckRemedies(&info) {
		got = append(got, e.Error())
	}
	want := []string{
		`remedies.predation: remedy "nope-": "nope" is not a declared parameter (declared: [risk patience strategy priority])`,
		`remedies.predation: remedy "prioritize priority run": "run" is not an item of priority (items: [flee hide forage])`,
		`remedies.predation: remedy "rotate risk": risk is a number`,
		`remedies.predation: remedy "risk": want "NAME+", "NAME-", "prioritize NAME ITEM", "deprioritize NAME ITEM" or "rotate NAME"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckRemedies:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
