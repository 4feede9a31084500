package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"evolve/envs/dungeon"
)

// ActionNames are the dungeon's actions as an agent that reads text names
// them, in dungeon.Action order.
var ActionNames = []string{"wait", "explore", "descend", "attack", "flee", "eat", "quaff"}

// actionLine matches the one line of a reply that names the action:
// "ACTION: explore", "Action - flee", "action=eat" (any case, optional
// markdown emphasis or backquotes around the name); group 1 is the name.
var actionLine = regexp.MustCompile(`(?i)^\s*[*_]*action[*_]*\s*[:=\-][*_]*\s*[*_` + "`" + `]*(.+?)[*_` + "`" + `.!]*\s*$`)

// ParseAction reads the dungeon's action from a model's reply:
// ParseChoice with ActionNames.
func ParseAction(reply string) (dungeon.Action, error) {
	i, err := ParseChoice(reply, ActionNames)
	return dungeon.Action(i), err
}

// ParseChoice reads an action of the vocabulary names from a model's
// reply, strictly, and returns its index in names: either the reply
// (trimmed, a trailing period allowed) is exactly one name, or exactly
// one of its lines is "ACTION: NAME". A name matches exactly, else in any
// case when only one name matches so. Anything else is an error that
// says what was wrong, to be sent back to the model (see CorrectionFor):
// no action line, several action lines, or an unknown name.
func ParseChoice(reply string, names []string) (int, error) {
	if i := lookup(strings.Trim(strings.TrimSpace(reply), ".!`*_"), names); i >= 0 {
		return i, nil
	}
	var got []string
	for _, line := range strings.Split(reply, "\n") {
		if m := actionLine.FindStringSubmatch(line); m != nil {
			got = append(got, strings.TrimSpace(m[1]))
		}
	}
	switch len(got) {
	case 0:
		return 0, fmt.Errorf("the reply has no line \"ACTION: <name>\"")
	case 1:
	default:
		return 0, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(got), strings.Join(got, ", "))
	}
	if i := lookup(got[0], names); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("%q is not an action (want one of %s)", got[0], strings.Join(names, ", "))
}

// lookup returns the index of s in names: an exact match, else the one
// name equal to s in any case; -1 if none (or several in any case).
func lookup(s string, names []string) int {
	if i := slices.Index(names, s); i >= 0 {
		return i
	}
	at := -1
	for i, n := range names {
		if strings.EqualFold(n, s) {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// Correction is the message sent back to a model whose reply could not be
// parsed (err from ParseAction), asking for one action line.
func Correction(err error) string { return CorrectionFor(err, ActionNames) }

// CorrectionFor is the correction for a reply ParseChoice rejected with
// err, naming the vocabulary.
func CorrectionFor(err error, names []string) string {
	return fmt.Sprintf("Your reply could not be used: %v. Answer with exactly one line \"ACTION: <name>\", where <name> is one of: %s.",
		err, strings.Join(names, ", "))
}
