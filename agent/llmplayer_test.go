package agent

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"evolve/envs/dungeon"
)

// ruleModel answers from the text of the turn, as a small rule-based
// policy would: eat when Hungry, else explore; every third reply is
// unusable at first, to exercise corrections.
type ruleModel struct{ calls atomic.Int64 }

func (m *ruleModel) Chat(_ context.Context, msgs []ChatMessage) (ChatReply, error) {
	n := m.calls.Add(1)
	last := msgs[len(msgs)-1].Content
	if n%3 == 0 && !strings.HasPrefix(last, "Your reply could not be used") {
		return ChatReply{Content: "Let me think about it.", PromptTokens: 10, CompletionTokens: 5, Requests: 1}, nil
	}
	act := "explore"
	if strings.Contains(last, "Hungry") || strings.Contains(last, "Weak") {
		act = "eat"
	}
	return ChatReply{Content: "ACTION: " + act, PromptTokens: 10, CompletionTokens: 3, Requests: 1}, nil
}

func TestLLMEpisode(t *testing.T) {
	e, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m := &ruleModel{}
	out, err := LLMEpisode(context.Background(), e.NewEpisode(), m, "You play a dungeon.", 7, LLMOptions{MaxTurns: 30})
	if err != nil {
		t.Fatal(err)
	}
	n := len(DungeonInfo().Metrics)
	if len(out.Metrics) != n+len(LLMMetrics) {
		t.Fatalf("%d metrics, want %d", len(out.Metrics), n+len(LLMMetrics))
	}
	calls, turns := out.Metrics[n].Num, out.Metrics[1].Num
	if calls <= turns || out.Metrics[n+3].Num != 0 || int64(calls) != m.calls.Load() {
		t.Errorf("model calls %v for %v turns (corrections add calls), fallbacks %v, model saw %d", calls, turns, out.Metrics[n+3].Num, m.calls.Load())
	}
	if out.EndReason != "step_budget" || turns > 30 {
		t.Errorf("end %s after %v turns, want the 30-turn budget", out.EndReason, turns)
	}
	// A model that never names an action: every turn falls back.
	never := modelFunc(func([]ChatMessage) string { return "hmm" })
	out, err = LLMEpisode(context.Background(), e.NewEpisode(), never, "", 7, LLMOptions{MaxTurns: 5, MaxTries: 2})
	if err != nil || out.Metrics[n+3].Num != 5 || out.Metrics[n].Num != 10 {
		t.Errorf("never: fallbacks %v calls %v (%v), want 5 and 10", out.Metrics[n+3].Num, out.Metrics[n].Num, err)
	}
}

type modelFunc func([]ChatMessage) string

func (f modelFunc) Chat(_ context.Context, msgs []ChatMessage) (ChatReply, error) {
	return ChatReply{Content: f(msgs), Requests: 1}, nil
}
