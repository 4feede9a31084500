package process

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/envs"
	"evolve/internal/testwait"
	"evolve/params"
)

// TestBadPrograms: each way testdata/bad.py breaks the protocol gives an
// error that says what is wrong and how to fix it.
func TestBadPrograms(t *testing.T) {
	py := python3(t)
	bad := func(mode string) Config {
		c := testConfig("testdata", py, "bad.py", mode)
		c.StartupTimeout = Duration(3 * time.Second)
		return c
	}
	stepNoOutcome := bad("step-no-outcome")
	stepNoOutcome.Agent = []string{py, "bad.py", "agent"}
	for _, tt := range []struct {
		name string
		cfg  Config
		play bool // the error is Play's (else New's)
		want string
	}{
		{"NaN score", bad("nan-score"), true,
			`"score": NaN: NaN, Infinity and -Infinity are not JSON (Python: json.dumps(obj, allow_nan=False) finds them; use null for a missing metric): "{\"id\": 1, \"type\": \"outcome\", \"outcome\": {\"score\": NaN,`},
		{"-Infinity metric", bad("inf-metric"), true,
			`"gain": -Infinity: NaN, Infinity and -Infinity are not JSON`},
		{"hello never flushed", bad("no-flush"), false,
			"hello: process timed out: no answer within startup_timeout 3s; did it flush stdout after each line? (Python: print(..., flush=True) or sys.stdout.flush())"},
		{"hello without id", bad("no-id"), false,
			`hello: protocol violation: the hello response has no id (want "id":0, the hello request's id): "{\"type\": \"hello\"`},
		{"done without outcome", stepNoOutcome, true,
			"step: protocol violation: step 1: done is true but the response has no outcome"},
		{"step mode without agent", bad("step-no-outcome"), false,
			"mode step needs an agent process: set agent: [COMMAND, ARGS...] in the environment config"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.cfg)
			if !tt.play {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("New: %v\nwant it to hold %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := newPlayer(t, e, 0)
			defer p.Close()
			_, err = p.Play(context.Background(), envs.Episode{Seed: 1, Params: e.Info().Params.Defaults()})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Play: %v\nwant it to hold %q", err, tt.want)
			}
		})
	}
	noChildren(t, "")
}

// TestCheckMessages: evolve env check says how to fix a step-mode
// environment checked without --agent, and says that no episode could be
// played (with the first error) instead of a determinism of 0 of N.
func TestCheckMessages(t *testing.T) {
	py := python3(t)
	withAgent := testConfig(exampleDir, py, "env.py")
	withAgent.Agent = []string{py, "step_agent.py"}
	for _, tt := range []struct {
		name   string
		cfg    Config
		want   []string
		unwant []string
	}{
		{"step mode without --agent", testConfig(exampleDir, py, "step_env.py"),
			[]string{"]: hello: mode step needs an agent process: pass --agent CMD (e.g. --agent 'python3 agent.py')\n"},
			[]string{"set agent:"}},
		{"episode mode with --agent", withAgent,
			[]string{"]: hello: mode episode: the process plays its own agent; leave out --agent\n"},
			[]string{"remove agent from"}},
		{"every episode errs", testConfig("testdata", py, "bad.py", "always-error"),
			[]string{
				"determinism: not checked: no episode could be played\n",
				"time:        not measured: no episode could be played\n",
				// (the stderr tail may follow: a process that reports an
				// error is kept, so its stderr may lag)
				"first error: process A: seed 1: environment process [" + py + " bad.py always-error]: play: process reported an error: ValueError: this program plays nothing",
				"result: FAIL (6 violations)",
			},
			[]string{"0 of 3 seeds", "0s per episode"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			rep, err := Check(context.Background(), tt.cfg, []uint64{1, 2, 3}, &out)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Errorf("OK() = true; report:\n%s", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.unwant {
				if strings.Contains(out.String(), w) {
					t.Errorf("report holds %q:\n%s", w, out.String())
				}
			}
		})
	}
	// Some errors: the seeds not compared are counted.
	var out strings.Builder
	if _, err := Check(context.Background(), testConfig("testdata", py, "faulty.py"), []uint64{1, 2, 11}, &out); err != nil {
		t.Fatal(err)
	}
	if w := "determinism: 2 of 3 seeds gave byte-identical outcomes (1 not compared: an episode failed)\n"; !strings.Contains(out.String(), w) {
		t.Errorf("report lacks %q:\n%s", w, out.String())
	}
	noChildren(t, "")
}

// TestKillLog: before evolve kills a process, the process's stderr log
// says why (a timeout, a protocol violation with the request, a
// cancelled run, a process that ignores close), and then how it ended.
func TestKillLog(t *testing.T) {
	py := python3(t)
	cfg := testConfig("testdata", py, "faulty.py")
	cfg.MessageTimeout = Duration(2 * time.Second) // headroom for a loaded CI machine; a hang still ends in 2 s
	cfg.StderrDir = t.TempDir()
	e := newEnv(t, cfg)
	p := newPlayer(t, e, 0)
	ps := params.Set{{Name: "x", Value: params.NumberValue(0.5)}}
	for _, s := range []uint64{5, 7, 1} {
		p.Play(context.Background(), envs.Episode{Seed: s, Params: ps})
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the process says it hangs. If it never says so, the
		// message timeout ends the hang, the log lacks the cancel's line
		// and the test fails below.
		testwait.Until(20*time.Second, func() bool { return strings.Contains(p.ep.stderr.String(), "hanging on purpose") })
		cancel()
	}()
	p.Play(ctx, envs.Episode{Seed: 5, Params: ps})
	p.Play(context.Background(), envs.Episode{Seed: 2, Params: ps})
	p.Close()
	// A process that ignores close is killed a second after it.
	deaf := testConfig("", py, "-c", `import json,sys,time
print(json.dumps({"id":0,"type":"hello","protocol":1,"name":"deaf","provides":["environment","agent"],"mode":"episode"}), flush=True)
time.sleep(60)`)
	deaf.StderrDir = cfg.StderrDir
	if _, err := New(deaf); err != nil {
		t.Fatal(err)
	}
	noChildren(t, "evolve-test-grandchild")

	// The process's own stderr lines may come before or after evolve's:
	// only evolve's are in order.
	for _, f := range []struct {
		name string
		want []string // in this order
	}{
		{"process-0.log", []string{
			`evolve: killing environment process `, ` and its process group: play (seed 5): process timed out: no answer within message_timeout 2s; the request was "{\"id\":1,\"type\":\"play\",\"seed\":5,\"params\":{\"x\":0.5},\"prompt\":null}"`,
			"\nevolve: environment process ", " ended: signal: killed\n",
			`and its process group: play (seed 7): protocol violation: want a JSON object, got "Loading model weights... done"`, `; the request was "{\"id\":1,\"type\":\"play\",\"seed\":7,`,
			" ended: signal: killed\n",
			"and its process group: seed 5: the run was cancelled (context canceled)\n",
			" ended: signal: killed\n",
			": sending close\n", " ended: exit status 0\n",
		}},
		{"process-hello.log", []string{
			": sending close\n", "ended: exit status 0\n",
			": sending close\n", "and its process group: it did not exit within 1s of close\n", "ended: signal: killed\n",
		}},
	} {
		b, err := os.ReadFile(filepath.Join(cfg.StderrDir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		log, at := string(b), 0
		for _, w := range f.want {
			i := strings.Index(log[at:], w)
			if i < 0 {
				t.Errorf("%s lacks %q after byte %d:\n%s", f.name, w, at, log)
				break
			}
			at += i + len(w)
		}
	}
}

// TestNonJSONNumber: NaN, Infinity and -Infinity are found outside
// strings, with the key they are the value of.
func TestNonJSONNumber(t *testing.T) {
	for _, tt := range []struct{ line, tok, key string }{
		{`{"score":NaN}`, "NaN", "score"},
		{`{"id":1,"outcome":{"score":1,"metrics":{"gain":-Infinity}}}`, "-Infinity", "gain"},
		{`{"a":[1,Infinity]}`, "Infinity", ""},
		{`{"a":[{"b":1}],"c": NaN}`, "NaN", "c"},
		{`{"s":"NaN","t":"say \"Infinity\"","u":"\\"}`, "", ""},
		{`{"score":1}`, "", ""},
		{`NaN`, "NaN", ""},
		{`Loading model weights... done`, "", ""},
	} {
		tok, key := nonJSONNumber([]byte(tt.line))
		if tok != tt.tok || key != tt.key {
			t.Errorf("nonJSONNumber(%s) = %q, %q; want %q, %q", tt.line, tok, key, tt.tok, tt.key)
		}
	}
}

// FuzzNonJSONNumber: valid JSON never holds a NaN or an Infinity outside
// a string, and no line makes the scan panic.
func FuzzNonJSONNumber(f *testing.F) {
	for _, s := range []string{`{"score":NaN}`, `{"s":"NaN"}`, `{"a":[-Infinity]}`, `"\\"`, `{"k":"\"Infinity"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		tok, _ := nonJSONNumber(line)
		if tok != "" && json.Valid(line) {
			t.Errorf("nonJSONNumber(%q) = %q, but the line is valid JSON", line, tok)
		}
	})
}

// TestDeclaredDefaults: a parameter's declared default is what evolve env
// check plays under (every process must declare the same); a default
// outside the parameter's values fails the handshake.
func TestDeclaredDefaults(t *testing.T) {
	py := python3(t)
	prog := func(parameters string) Config {
		return testConfig("", py, "-c", `import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "close": break
    if m["type"] == "hello":
        r = {"type":"hello","protocol":1,"name":"defaults","provides":["environment","agent"],"mode":"episode","parameters":`+parameters+`}
    else:
        r = {"type":"outcome","outcome":{"score":m["params"]["x"],"end_reason":"done","cause":"none"}}
    print(json.dumps({"id":m["id"],**r}), flush=True)`)
	}
	var out strings.Builder
	rep, err := Check(context.Background(), prog(`[
  {"name":"x","type":"number","min":0,"max":1,"step":0.1,"default":0.3},
  {"name":"n","type":"integer","min":1,"max":9,"step":2},
  {"name":"s","type":"enum","items":["a","b"],"default":"b"},
  {"name":"o","type":"ordering","items":["a","b","c"],"default":["c","a","b"]}]`), []uint64{1, 2}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if w := "parameters:  x=0.3 n=5 s=b o=[c a b] (the schema's defaults)\n"; !rep.OK() || !strings.Contains(out.String(), w) {
		t.Errorf("report lacks %q or failed:\n%s", w, out.String())
	}
	_, err = New(prog(`[{"name":"x","type":"number","min":0,"max":1,"step":0.1,"default":2}]`))
	if w := "hello: protocol violation: hello: parameters[0] (x): default: "; err == nil || !strings.Contains(err.Error(), w) {
		t.Errorf("New with default 2 in [0, 1]: %v\nwant it to hold %q", err, w)
	}
}
