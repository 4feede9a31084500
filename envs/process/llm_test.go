package process

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"evolve/agent"
	"evolve/envs"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/render"
)

// TestLLMStepMode: a language model is the agent of the Python step-mode
// corridor (step_env.py declares its actions), through a real chat
// completions server on loopback whose rule-based policy reads the
// observation text: wait when the next cell is hazardous, else step
// right, and the first reply of turn 3 unusable (a correction and a
// retry). Every request holds the budget; the episodes never fall; a
// second player plays byte-identical outcomes.
func TestLLMStepMode(t *testing.T) {
	py := python3(t)
	const budget = 400
	var mu sync.Mutex
	var n, over int
	var firstUser string
	srv := llmtest.New(func(msgs []llm.Message) string {
		rm := make([]render.Message, len(msgs))
		for i, m := range msgs {
			rm[i] = render.Message{Role: m.Role, Content: m.Content}
		}
		tok, _ := render.CountMessages(rm)
		last := msgs[len(msgs)-1].Content
		mu.Lock()
		n++
		if tok > budget {
			over++
		}
		if firstUser == "" {
			firstUser = last
		}
		mu.Unlock()
		obs := last // the turn's observation: the last user message that has one
		for i := len(msgs) - 1; i >= 0 && !strings.Contains(obs, "hazard_ahead:"); i-- {
			obs = msgs[i].Content
		}
		switch {
		case strings.Contains(last, "turn: 2\n") && !strings.Contains(last, "could not be used"): // unusable at first: a correction (which repeats the observation), then a retry
			return "Let me look at the corridor first."
		case strings.Contains(obs, "hazard_ahead: true"):
			return "The next cell is hazardous.\nACTION: wait"
		}
		return "ACTION: Right"
	})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "corridor-bot", MaxTokens: 16, Timeout: llm.Duration(30 * time.Second), Concurrency: 1}, llm.Options{Mode: llm.ModeOff})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, testConfig(exampleDir, py, "step_env.py"))
	ta := stepAgent{agent.StepAgent{Model: agent.LLMModel{Client: client}, Options: agent.LLMOptions{History: 3, MaxPromptTokens: budget}}}
	if err := e.CheckLLM(ta); err != nil {
		t.Fatal(err)
	}
	if got := e.Actions(); !reflect.DeepEqual(got, []string{"right", "wait"}) {
		t.Fatalf("actions %q", got)
	}
	e.UseLLM(ta)
	info := e.Info()
	nm := len(info.Metrics) - len(agent.LLMMetrics)
	if !info.ReadsText || nm != 3 || info.Metrics[nm].Name != "model_calls" {
		t.Fatalf("info: reads text %v, metrics %v", info.ReadsText, info.Metrics)
	}
	pr := &envs.Prompt{Slug: "corridor", Version: "v1.0.0", Text: "<task>\nReach the end of the corridor. Step right only onto a safe cell.\n</task>"}
	play := func(w int) []envs.Outcome {
		p := newPlayer(t, e, w)
		defer p.Close()
		var outs []envs.Outcome
		for s := range uint64(8) {
			out, err := p.Play(context.Background(), envs.Episode{Seed: s, Params: info.Params.Defaults(), Prompt: pr})
			if err != nil {
				t.Fatalf("seed %d: %v", s, err)
			}
			outs = append(outs, out)
		}
		return outs
	}
	a := play(0)
	goals := 0
	for _, o := range a {
		if o.Cause == "fell" {
			t.Errorf("seed %d fell: the model waits on a hazard", o.Seed)
		}
		if o.EndReason == "goal" {
			goals++
		}
		if len(o.Metrics) != len(info.Metrics) {
			t.Fatalf("seed %d: %d metrics, want %d", o.Seed, len(o.Metrics), len(info.Metrics))
		}
		turns, calls, fallbacks, most := o.Metrics[0].Num, o.Metrics[nm].Num, o.Metrics[nm+3].Num, o.Metrics[nm+5].Num
		if calls < turns || fallbacks != 0 || most > budget || most == 0 {
			t.Errorf("seed %d: %v turns, %v model calls, %v fallbacks, largest request %v tokens", o.Seed, turns, calls, fallbacks, most)
		}
	}
	if goals == 0 {
		t.Errorf("no episode reached the goal: %+v", a)
	}
	mu.Lock()
	if want := "Turn 1.\nhazard_ahead: "; !strings.HasPrefix(firstUser, want) || !strings.HasSuffix(firstUser, "position: 0\nturn: 0\nActions: right, wait") {
		t.Errorf("the first turn's message:\n%s", firstUser)
	}
	if over != 0 || n < 8*10 {
		t.Errorf("%d of %d requests over the budget of %d tokens", over, n, budget)
	}
	mu.Unlock()
	if b := play(1); !reflect.DeepEqual(a, b) {
		t.Errorf("a second player plays other outcomes:\n%+v\n%+v", a, b)
	}
}

// TestCheckLLM: a language model plays only a step-mode environment
// that declares actions and has no agent process.
func TestCheckLLM(t *testing.T) {
	py := python3(t)
	withAgent := testConfig(exampleDir, py, "step_env.py")
	withAgent.Agent = []string{py, "step_agent.py"}
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"episode mode", testConfig(exampleDir, py, "env.py"), "is in episode mode"},
		{"an agent process", withAgent, "the language model replaces the agent process: remove agent"},
	} {
		e := newEnv(t, tt.cfg)
		if err := e.CheckLLM(stepAgent{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// A step-mode environment without actions still needs its agent.
	cfg := helperConfig("env")
	cfg.Agent = nil
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "mode step needs an agent process") {
		t.Errorf("New of a step-mode environment without actions or agent: %v", err)
	}
}

// TestObservationText: keys in byte order, strings as text, other values
// as compact JSON with sorted keys, numbers as written.
func TestObservationText(t *testing.T) {
	acts := []string{"right", "wait"}
	for _, tt := range []struct{ in, want string }{
		{`{"turn":3,"position":0,"hazard_ahead":true}`, "hazard_ahead: true\nposition: 0\nturn: 3\n"},
		{`{"b":"two\nlines","a":{"z":1,"y":[1.50,null]},"c":null}`, "a: {\"y\":[1.50,null],\"z\":1}\nb: two\nlines\nc: null\n"},
		{`[3, {"k":"v","a":1}]`, "[3,{\"a\":1,\"k\":\"v\"}]\n"},
		{`"a map row"`, "\"a map row\"\n"},
		{`{}`, "{}\n"},
		{`1e400`, "1e400\n"},
	} {
		got, err := ObservationText(json.RawMessage(tt.in), acts)
		if err != nil || got != tt.want+"Actions: right, wait" {
			t.Errorf("ObservationText(%s) = %q, %v; want %q", tt.in, got, err, tt.want+"Actions: right, wait")
		}
	}
	if _, err := ObservationText(json.RawMessage(`{"a":`), acts); err == nil {
		t.Error("broken JSON was accepted")
	}
}

// TestHelloActions: only the environment of step mode declares actions,
// distinct in any case, printable, at most MaxActions.
func TestHelloActions(t *testing.T) {
	head := `{"id":0,"type":"hello","protocol":1,"name":"x",`
	step := head + `"provides":["environment"],"mode":"step","actions":%s}`
	for _, tt := range []struct{ line, want string }{
		{fmt.Sprintf(step, `["right","wait"]`), ""},
		{fmt.Sprintf(step, `[]`), "actions: 0 actions, want 1 to 256"},
		{fmt.Sprintf(step, `["Wait","wait"]`), `actions[1]: "wait" repeats actions[0] "Wait"`},
		{fmt.Sprintf(step, `[" go"]`), `actions[0]: " go": want 1 to 100 bytes`},
		{fmt.Sprintf(step, `["a\u0007"]`), `actions[0]: "a\a"`},
		{head + `"provides":["environment","agent"],"mode":"episode","actions":["go"]}`, "only the environment process of step mode declares actions"},
		{head + `"provides":["agent"],"mode":"step","actions":["go"]}`, "only the environment process of step mode declares actions"},
		{head + `"provides":["environment"],"mode":"step","direct":true}`, ""},
		{head + `"provides":["agent"],"mode":"step","direct":true}`, `direct: only the environment process of step mode declares direct (this one provides ["agent"] in mode step)`},
		{head + `"provides":["environment","agent"],"mode":"episode","direct":true}`, "direct: only the environment process of step mode declares direct"},
	} {
		_, err := checkHello([]byte(tt.line))
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkHello(%s) = %v, want %q", tt.line, err, tt.want)
		}
	}
}

// stepAgent is agent.StepAgent as a TextAgent (as package experiment
// wires it).
type stepAgent struct{ agent.StepAgent }

func (a stepAgent) NewTurns() Turns { return a.StepAgent.NewTurns() }
