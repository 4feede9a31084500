package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"evolve/envs/dungeon"
	"evolve/llm"
	"evolve/llm/llmtest"
	"evolve/prompt"
	"evolve/render"
)

// ruleModel answers from the text of the turn, as a small rule-based
// policy would: eat when Hungry, else explore; every third reply is
// unusable at first, to exercise corrections.
type ruleModel struct{ calls atomic.Int64 }

func (m *ruleModel) Chat(_ context.Context, msgs []ChatMessage) (ChatReply, error) {
	n := m.calls.Add(1)
	last := msgs[len(msgs)-1].Content
	if n%3 == 0 && !strings.Contains(last, "Your reply could not be used") {
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

// TestLLMBudget: a property of every request an LLM episode sends to a
// real chat completions server on loopback: its cl100k_base count
// (render.CountMessages, computed by the server from what it received) is
// at most max_prompt_tokens, over many turns, seeds, history lengths and
// budgets, tight ones included (history dropped, turn messages cut). The
// episode's rendered_tokens and rendered_tokens_max equal the sum and the
// most of the server's counts.
func TestLLMBudget(t *testing.T) {
	rd, err := render.New(prompt.Base(), render.Options{Env: render.Env{Name: "dungeon", Causes: DungeonInfo().CauseNames()}})
	if err != nil {
		t.Fatal(err)
	}
	pre, err := rd.Preview(render.PhaseComputed)
	if err != nil {
		t.Fatal(err)
	}
	system := pre.System
	var mu sync.Mutex
	var seen []int // the server's count of each request
	broken := 0    // requests whose roles do not alternate
	srv := llmtest.New(func(msgs []llm.Message) string {
		rm := make([]render.Message, len(msgs))
		for i, m := range msgs {
			rm[i] = render.Message{Role: m.Role, Content: m.Content}
		}
		n, err := render.CountMessages(rm)
		if err != nil {
			panic(err)
		}
		mu.Lock()
		seen = append(seen, n)
		k := len(seen)
		if !alternates(msgs) {
			broken++
		}
		mu.Unlock()
		last := msgs[len(msgs)-1].Content
		switch {
		case k%5 == 0 && !strings.Contains(last, "could not be used"):
			return "I am not sure what to do here." // a correction and a retry
		case strings.Contains(last, "Hungry") || strings.Contains(last, "Weak"):
			return "ACTION: eat"
		case len(msgs) > 4:
			return "Remembering the last turns.\nACTION: explore"
		}
		return "ACTION: explore"
	})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "budget-bot", Temperature: 0, MaxTokens: 16, Timeout: llm.Duration(30 * time.Second), MaxRetries: 0, Concurrency: 1}, llm.Options{Mode: llm.ModeOff})
	if err != nil {
		t.Fatal(err)
	}
	env, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sysTok, _ := render.CountMessages([]render.Message{{Role: "system", Content: system}})
	// A budget of sysTok+60 leaves no room for history and cuts most turn
	// messages (the 13x13 map window alone is about 100 tokens).
	budgets := []int{0, sysTok + 600, sysTok + 250, sysTok + 60}
	n := len(DungeonInfo().Metrics)
	var dropped, truncated float64
	for _, budget := range budgets {
		for _, hist := range []int{0, 3, 8} {
			for seed := uint64(1); seed <= 3; seed++ {
				mu.Lock()
				seen = seen[:0]
				mu.Unlock()
				opt := LLMOptions{MaxTurns: 40, History: hist, MaxPromptTokens: budget}
				out, err := LLMEpisode(context.Background(), env.NewEpisode(), LLMModel{Client: client}, system, seed, opt)
				if err != nil {
					t.Fatalf("budget %d, history %d, seed %d: %v", budget, hist, seed, err)
				}
				mu.Lock()
				sum, most := 0, 0
				for i, k := range seen {
					sum, most = sum+k, max(most, k)
					if budget > 0 && k > budget {
						t.Errorf("budget %d, history %d, seed %d: request %d costs %d tokens", budget, hist, seed, i+1, k)
					}
				}
				calls := len(seen)
				mu.Unlock()
				m := out.Metrics[n:]
				if int(m[0].Num) != calls || int(m[4].Num) != sum || int(m[5].Num) != most {
					t.Errorf("budget %d, history %d, seed %d: model_calls %v rendered_tokens %v rendered_tokens_max %v; the server saw %d requests, %d tokens, at most %d",
						budget, hist, seed, m[0].Num, m[4].Num, m[5].Num, calls, sum, most)
				}
				if calls <= 40 && out.Metrics[1].Num >= 40 {
					t.Errorf("budget %d, history %d, seed %d: %d calls for %v turns: no correction was sent", budget, hist, seed, calls, out.Metrics[1].Num)
				}
				if budget == 0 && (m[6].Num != 0 || m[7].Num != 0) {
					t.Errorf("no budget, yet %v history messages dropped and %v turn messages cut", m[6].Num, m[7].Num)
				}
				dropped += m[6].Num
				truncated += m[7].Num
			}
		}
	}
	t.Logf("system %d tokens; %d requests; tight budgets dropped %v history messages and cut %v turn messages", sysTok, srv.Requests(), dropped, truncated)
	if broken > 0 {
		t.Errorf("%d requests do not alternate system, user, assistant, user, ...", broken)
	}
	if dropped == 0 || truncated == 0 {
		t.Errorf("the tight budgets dropped %v history messages and cut %v turn messages; want both > 0", dropped, truncated)
	}
}

// TestLLMHistory: with History h the request of a later turn holds the
// last h turns (user message and reply each) between the system and the
// turn's message, and a correction's request holds the rejected
// exchange.
func TestLLMHistory(t *testing.T) {
	e, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var reqs [][]ChatMessage
	m := modelFunc(func(msgs []ChatMessage) string {
		reqs = append(reqs, msgs)
		if len(reqs) == 4 {
			return "no idea"
		}
		return "ACTION: wait"
	})
	if _, err := LLMEpisode(context.Background(), e.NewEpisode(), m, "SYS", 3, LLMOptions{MaxTurns: 6, History: 2}); err != nil {
		t.Fatal(err)
	}
	lens := make([]int, len(reqs))
	for i, r := range reqs {
		lens[i] = len(r)
		if r[0].Content != "SYS" || r[len(r)-1].Role != "user" {
			t.Errorf("request %d: %+v", i+1, r)
		}
	}
	// Turns 1-3 have 0, 2, 4 history messages; turn 4's first reply is
	// rejected, so its retry has the same history and a message of the
	// correction and the turn's observation; then 4 history messages at
	// most.
	want := []int{2, 4, 6, 6, 6, 6, 6}
	if fmt.Sprint(lens) != fmt.Sprint(want) {
		t.Fatalf("request lengths %v, want %v", lens, want)
	}
	if r := reqs[4]; !strings.Contains(r[5].Content, "Your reply could not be used") || !strings.HasPrefix(r[5].Content, "Turn 4.\n") ||
		!strings.Contains(r[5].Content, "Dlvl:") || !strings.Contains(r[5].Content, "Valid actions: wait, explore") {
		t.Errorf("the correction's request does not keep the turn's observation: %+v", r)
	}
	if r := reqs[6]; !strings.HasPrefix(r[1].Content, "Turn 4.\n") || r[2].Content != "ACTION: wait" || !strings.HasPrefix(r[3].Content, "Turn 5.\n") {
		t.Errorf("turn 6's history: %+v", r[1:5])
	}
}

// alternates reports whether msgs are a system message, then user and
// assistant messages alternating, starting and ending with user: what
// the chat templates of Llama 2, Mistral and Gemma accept.
func alternates(msgs []llm.Message) bool {
	if len(msgs) < 2 || msgs[0].Role != "system" || len(msgs)%2 != 0 {
		return false
	}
	for i, m := range msgs[1:] {
		if want := []string{"user", "assistant"}[i%2]; m.Role != want {
			return false
		}
	}
	return true
}

// TestFitsBudget: a system prompt fits a budget when a turn's least
// message fits beside it, and not a token less.
func TestFitsBudget(t *testing.T) {
	system := strings.Repeat("Fight in corridors, where one monster at a time can reach you. ", 5)
	free, _ := render.ForSystem(system, 0)
	out, err := free.Turn(render.Runtime{Turn: 1, Observation: "-"})
	if err != nil {
		t.Fatal(err)
	}
	sys := out.SystemTokens
	least := -1
	for max := sys; max < sys+100; max++ {
		tok, ok, err := FitsBudget(system, max)
		if err != nil || tok != sys {
			t.Fatalf("FitsBudget(%d) = %d, %v, %v; want %d tokens", max, tok, ok, err, sys)
		}
		if ok && least < 0 {
			least = max
		}
		if !ok && least >= 0 {
			t.Fatalf("fits %d tokens but not %d", least, max)
		}
	}
	if least < 0 {
		t.Fatal("never fits")
	}
	rd, _ := render.ForSystem(system, least)
	if _, err := rd.Turn(render.Runtime{Turn: 1, Observation: strings.Repeat("#.@ ", 400)}); err != nil {
		t.Errorf("a turn at the least budget %d: %v", least, err)
	}
	rd, _ = render.ForSystem(system, least-1)
	if _, err := rd.Turn(render.Runtime{Turn: 1, Observation: strings.Repeat("#.@ ", 400)}); err == nil {
		t.Errorf("a turn at %d, one below the least budget, did not fail", least-1)
	}
	if _, ok, _ := FitsBudget(system, 0); !ok {
		t.Error("no budget: does not fit")
	}
}
