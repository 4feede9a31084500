package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// evolve prompt render on the embedded base and on a store's prompt, each
// phase, the budget, --tokens, --json and the errors, against one golden
// transcript (go test -update to rewrite it).
func TestPromptRender(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1790000000")
	store := filepath.Join(t.TempDir(), "prompts")
	if code, _, stderr := evolve(t, "prompt", "migrate", "--store", store, "testdata/prompt/nine.json"); code != exitOK {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	const vars = "testdata/render_vars.yaml"
	steps := []struct {
		args []string
		code int
	}{
		{[]string{"render", "embedded"}, exitOK},
		{[]string{"render", "embedded", "--vars", vars}, exitOK},
		{[]string{"render", "embedded", "--vars", vars, "--tokens"}, exitOK},
		{[]string{"render", "embedded", "--vars", vars, "--max-prompt-tokens", "400", "--tokens"}, exitOK},
		{[]string{"render", "--phase", "static", "--env", "", "coding-agent", "--store", store}, exitOK},
		{[]string{"render", "coding-agent", "--store", store, "--tokens"}, exitOK},
		{[]string{"render", "embedded", "--phase", "runtime"}, exitUsage},
		{[]string{"render", "embedded", "--vars", vars, "--max-prompt-tokens", "100"}, exitFailure},
		{[]string{"render", "embedded", "--phase", "later"}, exitUsage},
		{[]string{"render", "embedded", "--phase", "static", "--vars", vars}, exitUsage},
		{[]string{"render", "embedded", "--env", "mars"}, exitFailure},
		{[]string{"render"}, exitUsage},
	}
	var transcript strings.Builder
	for _, st := range steps {
		code, stdout, stderr := evolve(t, append([]string{"prompt"}, st.args...)...)
		if code != st.code {
			t.Errorf("evolve prompt %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(st.args, " "), code, st.code, stdout, stderr)
		}
		shown := make([]string, len(st.args))
		for i, a := range st.args {
			shown[i] = a
			if a == "" {
				shown[i] = `""`
			}
		}
		fmt.Fprintf(&transcript, "$ evolve prompt %s\n%s", strings.Join(shown, " "), stdout)
		if stderr != "" {
			fmt.Fprintf(&transcript, "[stderr]\n%s", stderr)
		}
		fmt.Fprintf(&transcript, "[exit %d]\n\n", code)
	}
	goldenFile(t, "prompt_render.golden", strings.ReplaceAll(transcript.String(), store, "STORE"))
}

// --json prints the messages with their token counts; the first is the
// system message, which starts with the guardrails.
func TestPromptRenderJSON(t *testing.T) {
	code, stdout, stderr := evolve(t, "prompt", "render", "--json", "--vars", "testdata/render_vars.yaml", "embedded")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Phase    string `json:"phase"`
		Tokens   int    `json:"tokens"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Phase != "runtime" || out.Tokens <= 0 || len(out.Messages) != 4 || !strings.HasPrefix(out.Messages[0].Content, "<guardrails>\n") {
		t.Errorf("unexpected output: %+v", out)
	}
	if last := out.Messages[3].Content; !strings.Contains(last, "{{version}}") {
		t.Errorf("the observation's {{version}} was expanded: %q", last)
	}
}
