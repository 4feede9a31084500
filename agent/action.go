package agent

import (
	"fmt"
	"regexp"
	"strings"

	"evolve/envs/dungeon"
)

// ActionNames are the dungeon's actions as an agent that reads text names
// them, in dungeon.Action order.
var ActionNames = []string{"wait", "explore", "descend", "attack", "flee", "eat", "quaff"}

// actionLine matches the one line of a reply that names the action:
// "ACTION: explore", "Action - flee", "action=eat" (any case, optional
// markdown emphasis or backquotes around the name).
var actionLine = regexp.MustCompile(`(?i)^\s*[*_]*action[*_]*\s*[:=\-][*_]*\s*[*_` + "`" + `]*([a-z_]+)[*_` + "`" + `.!]*\s*$`)

// ParseAction reads the action from a model's reply, strictly: either the
// reply (trimmed, a trailing period allowed) is exactly one action name,
// or exactly one of its lines is "ACTION: NAME" (any case). Anything else
// is an error that says what was wrong, to be sent back to the model as a
// correction (see Correction): no action line, several action lines, or an
// unknown name.
func ParseAction(reply string) (dungeon.Action, error) {
	trimmed := strings.ToLower(strings.Trim(strings.TrimSpace(reply), ".!`*_"))
	for i, n := range ActionNames {
		if trimmed == n {
			return dungeon.Action(i), nil
		}
	}
	var names []string
	for _, line := range strings.Split(reply, "\n") {
		if m := actionLine.FindStringSubmatch(line); m != nil {
			names = append(names, strings.ToLower(m[1]))
		}
	}
	switch len(names) {
	case 0:
		return 0, fmt.Errorf("the reply has no line \"ACTION: <name>\"")
	case 1:
	default:
		return 0, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(names), strings.Join(names, ", "))
	}
	for i, n := range ActionNames {
		if names[0] == n {
			return dungeon.Action(i), nil
		}
	}
	return 0, fmt.Errorf("%q is not an action (want one of %s)", names[0], strings.Join(ActionNames, ", "))
}

// Correction is the message sent back to a model whose reply could not be
// parsed (err from ParseAction), asking for one action line.
func Correction(err error) string {
	return fmt.Sprintf("Your reply could not be used: %v. Answer with exactly one line \"ACTION: <name>\", where <name> is one of: %s.",
		err, strings.Join(ActionNames, ", "))
}
