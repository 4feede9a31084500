package nethack

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"evolve/agent"
	"evolve/envs"
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
	case strings.Contains(obs, ">") && strings.Contains(obs, "Map:"):
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

func TestObservationText(t *testing.T) {
	s := screenOf("You see here a dagger.", "", "   |..@.|")
	copy(s.Grid[23][:], []rune("Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:1"))
	txt := ObservationText(s)
	for _, want := range []string{"Message: You see here a dagger.", " 1|   |..@.|", "HP:16(16)", "- travel_downstairs:", "ACTION: <name>"} {
		if !strings.Contains(txt, want) {
			t.Errorf("observation lacks %q:\n%s", want, txt)
		}
	}
}
