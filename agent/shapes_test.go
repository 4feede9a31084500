package agent

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/llm"
	"evolve/llm/llmtest"
)

// noWait is an llm.Clock whose waits return at once.
type noWait struct{}

func (noWait) Now() time.Time                                   { return time.Now() }
func (noWait) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// playAttack plays 3 dungeon episodes of 25 turns through a client of
// srv and returns their outcomes.
func playAttack(t *testing.T, srv *llmtest.Server, opt LLMOptions) []envs.Outcome {
	t.Helper()
	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.MaxRetries = srv.URL, "shapes", 20
	cl, err := llm.New(cfg, llm.Options{Clock: noWait{}, Jitter: rand.NewPCG(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	e, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxTurns = 25
	var outs []envs.Outcome
	for seed := uint64(1); seed <= 3; seed++ {
		out, err := LLMEpisode(context.Background(), e.NewEpisode(), LLMModel{Client: cl}, "You play a dungeon.", seed, opt)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	return outs
}

// TestReplyShapesPlayTheAction: a model that means "attack" and writes
// it in any of the shapes real models and servers use plays exactly the
// episodes of one that answers "ACTION: attack", with no correction and
// no fallback; so does a server that answers 20% of the requests with a
// 200 carrying an error object (retried as a server fault), and a run
// that offers the actions as a function (function calling).
func TestReplyShapesPlayTheAction(t *testing.T) {
	const plain = "ACTION: attack"
	base := llmtest.New(llmtest.Rules(plain))
	defer base.Close()
	want := playAttack(t, base, LLMOptions{})
	n := len(DungeonInfo().Metrics)
	for _, tc := range []struct {
		name  string
		reply string
		fault llmtest.Fault
		p     float64
		opt   LLMOptions
	}{
		{name: "prose-label", reply: "Considering each action: wait is pointless here, so ACTION: attack"},
		{name: "json", reply: `{"action": "attack"}`},
		{name: "json-fence", reply: "```json\n{\"action\": \"attack\"}\n```"},
		{name: "bare-fence", reply: "```\nattack\n```"},
		{name: "content-parts", reply: plain, fault: llmtest.ContentParts, p: 1},
		{name: "tool-calls", reply: plain, fault: llmtest.ToolCall, p: 1},
		{name: "error-object-20%", reply: plain, fault: llmtest.ErrorObject, p: 0.2},
		{name: "function-calling", reply: plain, opt: LLMOptions{FunctionCalling: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(llmtest.Rules(tc.reply))
			defer srv.Close()
			if tc.fault != llmtest.OK {
				srv.FailFraction(tc.fault, tc.p, 7)
			}
			got := playAttack(t, srv, tc.opt)
			for i := range got {
				if got[i].EndReason != want[i].EndReason || got[i].Score != want[i].Score {
					t.Errorf("episode %d: end %s score %v, want %s %v", i, got[i].EndReason, got[i].Score, want[i].EndReason, want[i].Score)
				}
				for k := 0; k < n; k++ {
					if got[i].Metrics[k] != want[i].Metrics[k] {
						t.Errorf("episode %d: metric %s = %v, want %v", i, DungeonInfo().Metrics[k].Name, got[i].Metrics[k], want[i].Metrics[k])
					}
				}
				for _, k := range []int{metricFallbacks, metricCorrections, metricUnusable} {
					if v := got[i].Metrics[n+k].Num; v != 0 {
						t.Errorf("episode %d: %s = %v, want 0", i, LLMMetrics[k].Name, v)
					}
				}
			}
			if tc.fault == llmtest.ErrorObject {
				if f := srv.Stats().Faults[llmtest.ErrorObject]; f == 0 {
					t.Error("no error object was sent")
				}
			}
			if tc.opt.FunctionCalling {
				if r := srv.LastRequest(); len(r.Tools) != 1 || r.Tools[0].Function.Name != ActionToolName {
					t.Errorf("the request offered %+v, want the action tool", r.Tools)
				}
			}
		})
	}
}

// TestUnusableSeen: an unusable reply is noted with what it held, for
// the run's tally and the correction.
func TestUnusableSeen(t *testing.T) {
	srv := llmtest.New(llmtest.Rules("ACTION: attack"))
	defer srv.Close()
	srv.FailFraction(llmtest.ReasoningOnly, 1, 1)
	tally := &ReplyTally{}
	out := playAttack(t, srv, LLMOptions{Tally: tally, MaxTries: 1})
	top := tally.Top(1)
	if len(top) != 1 || top[0].Reply != "(cut reply: reasoning_content with empty content)" {
		t.Errorf("tally %v, want the cut replies noted with reasoning_content", top)
	}
	if n := len(DungeonInfo().Metrics); out[0].Metrics[n+metricCut].Num == 0 {
		t.Error("no cut reply counted")
	}
}

// actionModel records the actions it was offered and calls the last
// one, as a model that calls the function does (its arguments).
type actionModel struct{ offered [][]string }

func (m *actionModel) Chat(context.Context, []ChatMessage) (ChatReply, error) {
	return ChatReply{Content: "I cannot call functions here."}, nil
}

func (m *actionModel) ChatActions(_ context.Context, _ []ChatMessage, actions []string) (ChatReply, error) {
	m.offered = append(m.offered, actions)
	return ChatReply{Content: `{"action":"` + actions[len(actions)-1] + `"}`}, nil
}

// TestStepFunctionCalling: a step-mode environment's declared actions
// are what the model is offered, and its call is the action; without
// function_calling the model is asked in text.
func TestStepFunctionCalling(t *testing.T) {
	for _, on := range []bool{false, true} {
		m := &actionModel{}
		turns := StepAgent{Model: m, Options: LLMOptions{FunctionCalling: on, MaxTries: 1}}.NewTurns()
		if err := turns.Begin(&envs.Prompt{Text: "Play."}, []string{"right", "wait", "jump"}, false); err != nil {
			t.Fatal(err)
		}
		a, err := turns.Choose(context.Background(), 1, "x: 1")
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case on && (a != 2 || len(m.offered) != 1 || fmt.Sprint(m.offered[0]) != "[right wait jump]"):
			t.Errorf("function calling: action %d, offered %v; want jump (2) after offering the declared actions", a, m.offered)
		case !on && (a != 0 || len(m.offered) != 0):
			t.Errorf("text: action %d, offered %v; want the fallback (0) and no function", a, m.offered)
		}
	}
	tool := ActionTool([]string{"right", "wait"})
	if len(tool) != 1 || tool[0].Function.Name != ActionToolName ||
		string(tool[0].Function.Parameters) != `{"type":"object","properties":{"action":{"type":"string","enum":["right","wait"],"description":"The action to take this turn."}},"required":["action"],"additionalProperties":false}` {
		t.Errorf("ActionTool = %+v", tool)
	}
}
