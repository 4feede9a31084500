package nethack

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"evolve/agent"
	"evolve/envs"
	"evolve/llm"
	"evolve/llm/llmtest"
)

// ruleModel answers from the observation it reads: it eats when the
// status line says Hungry, travels down once it sees '>', rests when HP
// is low, explores otherwise; every 7th call it answers with prose (which
// the session corrects) and every 11th with nothing usable at all.
type ruleModel struct{ calls atomic.Int64 }

func (m *ruleModel) Chat(_ context.Context, msgs []agent.ChatMessage) (agent.ChatReply, error) {
	n := m.calls.Add(1)
	obs := msgs[len(msgs)-1].Content
	r := "ACTION: explore"
	switch {
	case n%11 == 0:
		r = "I am not sure."
	case n%7 == 0:
		r = "Let me think about the kitten."
	case strings.Contains(obs, "Hungry"):
		r = "ACTION: eat"
	case strings.Contains(obs, ">") && strings.Contains(obs, "Map ("):
		r = "ACTION: travel_downstairs"
	}
	return agent.ChatReply{Content: r, PromptTokens: len(obs) / 4, CompletionTokens: 4, Requests: 1}, nil
}

// TestLLMAgent plays real NetHack with a model that reads the screen
// text: the outcome carries the LLM metrics, corrections and fallbacks
// happen, and a replay is identical.
func TestLLMAgent(t *testing.T) {
	c := shortConfig()
	play := func() envs.Outcome {
		e := newTestEnv(t, c)
		m := &ruleModel{}
		e.UseLLM(m, agent.LLMOptions{MaxTurns: 80, MaxTries: 2})
		in := e.Info()
		if !in.ReadsText || len(in.Metrics) != len(Metrics)+len(agent.LLMMetrics) || in.Check() != nil {
			t.Fatalf("Info with an LLM: %+v", in)
		}
		pl, err := e.NewPlayer(0)
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		prompt := &envs.Prompt{Slug: "nethack-agent", Version: "v1.0.0", Text: "You are an expert NetHack player."}
		o, err := pl.Play(context.Background(), envs.Episode{Seed: 4, Params: BaseParameters(), Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o := play()
	if len(o.Metrics) != len(Metrics)+len(agent.LLMMetrics) {
		t.Fatalf("metrics %v", o.Metrics)
	}
	llm := o.Metrics[len(Metrics):]
	actions := o.Metrics[6].Num
	if llm[0].Num < actions || llm[3].Num == 0 {
		t.Errorf("model_calls %v for %v actions, fallbacks %v: want calls >= actions and some fallbacks", llm[0].Num, actions, llm[3].Num)
	}
	if actions > 80 {
		t.Errorf("%v actions, max_turns 80", actions)
	}
	if o2 := play(); !reflect.DeepEqual(o, o2) {
		t.Errorf("two plays differ:\n%+v\n%+v", o, o2)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestObservationText renders the LLM agent's observation of a screen
// with a View (two --More-- pages and the message line, history,
// inventory, position) and compares it with the golden file
// testdata/observation.golden (go test -run TestObservationText -update
// rewrites it); the table checks the parts a model relies on.
func TestObservationText(t *testing.T) {
	s := screenOf("You see here a dagger.", "", "   |..@.|")
	copy(s.Grid[23][:], []rune("Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:7"))
	v := View{
		Messages:   []string{"You kill the newt!", "Welcome to experience level 2.", "You see here a dagger."},
		History:    []string{"T:3 You hear a door open."},
		Inventory:  []string{"Weapons", "a - a +1 long sword (weapon in hand)", "Comestibles", "d - an uncursed food ration"},
		InventoryT: 1, HeroX: 6, HeroY: 1, HeroOK: true,
	}
	txt := ObservationText(s, v)
	for _, want := range []string{
		"- You kill the newt!\n- Welcome to experience level 2.\n- You see here a dagger.\n",
		"Earlier messages (oldest first):\n- T:3 You hear a door open.\n",
		" 1|   |..@.|", "You: @ at x=6, y=1\n", "HP:16(16)",
		"Inventory (as of turn 1):\nWeapons\na - a +1 long sword (weapon in hand)\n",
		"- travel_downstairs:", "ACTION: <name>",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("observation lacks %q:\n%s", want, txt)
		}
	}
	golden := filepath.Join("testdata", "observation.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if txt != string(want) {
		t.Errorf("observation differs from %s (-update rewrites it):\n%s", golden, txt)
	}
	// A hero not shown as '@' is placed by the cursor; no messages, no
	// inventory read yet.
	s.Grid[2][6], s.CursorX, s.CursorY = 'r', 6, 2
	txt = ObservationText(s, View{HeroX: 6, HeroY: 1, HeroOK: true, HeroByCursor: true})
	for _, want := range []string{"Messages since your last action:\n(none)\n", "You: x=6, y=1 (shown as 'r', not @"} {
		if !strings.Contains(txt, want) {
			t.Errorf("observation lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "Inventory") || strings.Contains(txt, "Earlier messages") {
		t.Errorf("an empty view shows an inventory or history:\n%s", txt)
	}
}

// TestLLMTranscript plays real NetHack with a model behind the loopback
// OpenAI-compatible server (llmtest): recorded, the outcome carries the
// asciicast and, beside it, the llm-transcript/v1 transcript, whose first
// request shows the starting inventory, the hero's position and the
// welcome message; later ones the message history. Recording changes
// nothing else.
func TestLLMTranscript(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: explore", llmtest.Rule{Contains: "Hungry", Reply: "ACTION: eat"}))
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "nethack-bot", Temperature: 0, MaxTokens: 16,
		Timeout: llm.Duration(30 * time.Second), MaxRetries: 0, Concurrency: 1}, llm.Options{Mode: llm.ModeOff})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t, shortConfig())
	e.UseLLM(agent.LLMModel{Client: client}, agent.LLMOptions{MaxTurns: 40, MaxTries: 2})
	pl, err := e.NewPlayer(0)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	prompt := &envs.Prompt{Slug: "nethack-agent", Version: "v1.0.0", Text: "You are an expert NetHack player."}
	play := func(record bool) envs.Outcome {
		o, err := pl.Play(context.Background(), envs.Episode{Seed: 5, Params: BaseParameters(), Prompt: prompt, Record: record})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	plain, rec := play(false), play(true)
	if plain.Transcript != nil || plain.Trajectory != nil {
		t.Fatalf("unrecorded: transcript %d bytes, trajectory %d bytes", len(plain.Transcript), len(plain.Trajectory))
	}
	if rec.TrajectoryFormat != envs.TrajectoryAsciicast || len(rec.Trajectory) == 0 {
		t.Fatalf("recorded: trajectory format %q, %d bytes", rec.TrajectoryFormat, len(rec.Trajectory))
	}
	var tr agent.Transcript
	if err := json.Unmarshal(rec.Transcript, &tr); err != nil {
		t.Fatalf("transcript: %v\n%s", err, rec.Transcript)
	}
	if tr.Kind != agent.TranscriptKind || tr.System != prompt.Text || len(tr.Turns) != 40 {
		t.Fatalf("transcript kind %q, system %q, %d turns; want %s, the prompt, 40 turns", tr.Kind, tr.System, len(tr.Turns), agent.TranscriptKind)
	}
	first := tr.Turns[0].Tries[0].Messages[0].Content
	for _, want := range []string{"welcome to NetHack!", "Inventory (as of turn 1):", "a - a +1 long sword (weapon in hand)", "You: @ at x="} {
		if !strings.Contains(first, want) {
			t.Errorf("the first observation lacks %q:\n%s", want, first)
		}
	}
	history := 0
	for _, turn := range tr.Turns {
		if turn.Action == "" {
			t.Errorf("turn %d: no action recorded", turn.Turn)
		}
		if strings.Contains(turn.Tries[0].Messages[len(turn.Tries[0].Messages)-1].Content, "Earlier messages (oldest first):\n- T:1 ") {
			history++
		}
	}
	if history == 0 {
		t.Error("no observation shows the message history")
	}
	rec.Trajectory, rec.TrajectoryFormat, rec.Transcript = nil, "", nil
	if !reflect.DeepEqual(plain, rec) {
		t.Errorf("recording changed the outcome:\n%+v\n%+v", plain, rec)
	}
}

// garbageModel never answers with an action, so every turn takes the
// scripted fallback.
type garbageModel struct{}

func (garbageModel) Chat(_ context.Context, msgs []agent.ChatMessage) (agent.ChatReply, error) {
	return agent.ChatReply{Content: "I am not sure.", Requests: 1}, nil
}

// TestLLMFallbackPlaysScripted: a model whose every reply falls back
// plays the scripted agent's game: its fallback reads the game's
// messages (the pet, traps, doors, the corpses of its kills) as the
// scripted agent does, so score, turns and depth agree with a scripted
// play of the same seeds under the same action budget.
func TestLLMFallbackPlaysScripted(t *testing.T) {
	const budget = 300
	play := func(e *Env, seed uint64) envs.Outcome {
		pl, err := e.NewPlayer(0)
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		prompt := &envs.Prompt{Slug: "nethack-agent", Version: "v1.0.0", Text: "You are an expert NetHack player."}
		o, err := pl.Play(context.Background(), envs.Episode{Seed: seed, Params: BaseParameters(), Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, seed := range []uint64{1, 4, 6} {
		scripted := newTestEnv(t, shortConfig())
		scripted.SetStepBudget(budget)
		model := newTestEnv(t, shortConfig())
		model.UseLLM(garbageModel{}, agent.LLMOptions{MaxTurns: budget, MaxTries: 1})
		s, m := play(scripted, seed), play(model, seed)
		for _, i := range []int{0, 1, 2} { // max_depth, xl, turns
			if s.Metrics[i] != m.Metrics[i] {
				t.Errorf("seed %d: metric %s scripted %+v, all-fallback model %+v", seed, Metrics[i].Name, s.Metrics[i], m.Metrics[i])
			}
		}
		if s.Score != m.Score || s.Cause != m.Cause {
			t.Errorf("seed %d: scripted %v (%s), all-fallback model %v (%s)", seed, s.Score, s.Cause, m.Score, m.Cause)
		}
	}
}
