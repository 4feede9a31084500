package experiment

import (
	"fmt"
	"os"

	"evolve/agent"
	"evolve/envs"
	"evolve/prompt"
)

// checkLLMAgent checks what a language-model agent needs before a run
// starts, returning (field, message) pairs: that the base prompt's system
// text (SystemText) leaves room for a turn's message under
// agent.max_prompt_tokens (agent.FitsBudget), which otherwise fails the
// first turn of the first episode; and that the API key's variable
// (agent.llm.api_key_env) is set, unless agent.cache is read (which
// sends nothing). The key's value is never part of a message. Nothing is
// checked for the scripted agent.
func (c *Config) checkLLMAgent(info envs.Info, base *prompt.Prompt) [][2]string {
	if c.Agent.Kind != AgentLLM {
		return nil
	}
	var out [][2]string
	info.ReadsText = true // as it is once the agent is attached (Info declares it then)
	if c.Agent.MaxPromptTokens > 0 {
		text, err := SystemText(info, base)
		if err == nil {
			tok, ok, ferr := agent.FitsBudget(text, c.Agent.MaxPromptTokens)
			switch {
			case ferr != nil:
				err = ferr
			case !ok:
				out = append(out, [2]string{"agent.max_prompt_tokens", fmt.Sprintf(
					"%d tokens cannot hold a request of the base prompt %s: its system text alone costs %d cl100k_base tokens, and a turn's message needs more; raise max_prompt_tokens (or set 0 for no limit), or shorten the prompt (evolve prompt render shows its tokens)",
					c.Agent.MaxPromptTokens, base.Version, tok)})
			}
		}
		if err != nil {
			out = append(out, [2]string{"base_prompt", fmt.Sprintf("rendering the base prompt for the language-model agent: %v", err)})
		}
	}
	if k := c.Agent.LLM.APIKeyEnv; k != "" && c.Agent.Cache != "read" {
		if v, ok := os.LookupEnv(k); !ok || v == "" {
			out = append(out, [2]string{"agent.llm.api_key_env", fmt.Sprintf("environment variable %s is not set (export it with the key, or use cache: read to replay without one)", k)})
		}
	}
	return out
}
