package llm_test

import (
	"context"
	"fmt"
	"os"

	"evolve/llm"
	"evolve/llm/llmtest"
)

func ExampleClient() {
	srv := llmtest.New(llmtest.Rules("ACTION: explore", llmtest.Rule{Contains: "Hungry", Reply: "ACTION: eat"}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "llm")
	defer os.RemoveAll(dir)
	cache, err := llm.OpenCache(dir)
	if err != nil {
		fmt.Println(err)
		return
	}

	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model = srv.URL, "test-model"
	cl, err := llm.New(cfg, llm.Options{Cache: cache, Mode: llm.ModeReadWrite})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "Answer with ACTION: <name>."},
		{Role: llm.RoleUser, Content: "HP:12(12) Hungry"},
	}
	for range 2 {
		r, err := cl.Complete(context.Background(), msgs)
		fmt.Println(r.Content, r.PromptTokens, r.CompletionTokens, r.Cached, r.Requests, err)
	}
	s := cl.Stats()
	fmt.Println("requests", s.Requests, "hits", s.CacheHits)
	// Output:
	// ACTION: eat 6 2 false 1 <nil>
	// ACTION: eat 6 2 true 0 <nil>
	// requests 1 hits 1
}
