package render_test

import (
	"fmt"

	"evolve/prompt"
	"evolve/render"
)

// Render one turn of the base prompt under a budget: the guardrails come
// first, and the history that does not fit is dropped oldest first.
func ExampleRenderer_Turn() {
	r, err := render.New(prompt.Base(), render.Options{MaxPromptTokens: 420})
	if err != nil {
		panic(err)
	}
	out, err := r.Turn(render.Runtime{
		Turn:        3,
		Observation: "|..<.@d.|\nHP:10(12)",
		History: []render.Message{
			{Role: "user", Content: "Turn 1.\n|..<@..d|"}, {Role: "assistant", Content: "explore"},
			{Role: "user", Content: "Turn 2.\n|..<.@.d|"}, {Role: "assistant", Content: "fight"},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Messages[0].Content[:len("<guardrails>")])
	fmt.Println(len(out.Messages), "messages,", out.Dropped, "dropped,", out.Tokens, "tokens")
	fmt.Printf("%q\n", out.Messages[len(out.Messages)-1].Content)
	// Output:
	// <guardrails>
	// 4 messages, 2 dropped, 415 tokens
	// "Turn 3.\n|..<.@d.|\nHP:10(12)"
}
