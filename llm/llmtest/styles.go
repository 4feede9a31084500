package llmtest

import (
	"crypto/sha256"
	"regexp"
	"strings"

	"evolve/llm"
)

// Reply styles of Styles: how real models answer "reply with the action".
const (
	StyleBare   = 0 // "eat"
	StyleLine   = 1 // "ACTION: eat"
	StyleProse  = 2 // a sentence of reasoning, then "ACTION: eat" on its own line
	StyleThink  = 3 // "<think>…</think>\n\neat", a reasoning model's reply
	NumStyles   = 4
	styleAction = `(?i)action:\s*([a-z_]+)`
)

var actionRe = regexp.MustCompile(styleAction)

// Styles returns a Policy that asks next for a reply, reads the action
// name from it (its "ACTION: NAME" line, else the reply trimmed), and
// answers that name in one of the NumStyles styles, picked by the first
// byte of the SHA-256 of the conversation's last message: the same
// request always gets the same style. A reply of next without a name is
// passed through.
func Styles(next Policy) Policy {
	return func(messages []llm.Message) string {
		reply := next(messages)
		name := strings.TrimSpace(reply)
		if m := actionRe.FindStringSubmatch(reply); m != nil {
			name = m[1]
		}
		if name == "" || strings.ContainsAny(name, " \n") {
			return reply
		}
		last := ""
		if len(messages) > 0 {
			last = messages[len(messages)-1].Content
		}
		h := sha256.Sum256([]byte(last))
		return Style(int(h[0])%NumStyles, name)
	}
}

// ActionName is the action a reply names: its "ACTION: NAME" line's
// name, else the reply trimmed.
func ActionName(reply string) string {
	if m := actionRe.FindStringSubmatch(reply); m != nil {
		return m[1]
	}
	return strings.TrimSpace(reply)
}

// Style writes the action name in style k (StyleBare ... StyleThink).
func Style(k int, name string) string {
	switch k {
	case StyleBare:
		return name
	case StyleLine:
		return "ACTION: " + name
	case StyleProse:
		return "Looking at the map, the safest move this turn is clear. I will " + name + " now.\nACTION: " + name
	default:
		return "<think>\nThe status line matters. Should I explore or wait? ACTION: wait would be too slow.\n</think>\n\n" + name
	}
}
