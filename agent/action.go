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

// actionLabel matches an action label anywhere in a line: "ACTION:
// explore", "Action - flee", "action=eat", "**Action:** `eat`" (any
// case, markdown emphasis around the label); group 1 is the rest of the
// line.
var actionLabel = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])[*_]*action[*_]*\s*[:=\-]\s*(.*)$`)

// nameCut is the punctuation and markup trimmed around a name.
const nameCut = " \t.,;:!?\"'`*_()[]{}<>"

// DefaultReasoningTags are the tags whose blocks StripReasoning removes
// from every reply: what reasoning models (DeepSeek-R1, Qwen3, QwQ) and
// prompts asking for reasoning wrap their thinking in.
var DefaultReasoningTags = []string{"think", "thinking", "reasoning"}

// StripReasoning removes from reply every block "<TAG>…</TAG>" of the
// tags (matched in any case, with DefaultReasoningTags always included),
// an unclosed "<TAG>…" to the end (a reply cut while thinking), and a
// stray "…</TAG>" from the start (a server that strips the opening tag),
// and trims the result.
func StripReasoning(reply string, tags []string) string {
	for _, tag := range append(append([]string(nil), DefaultReasoningTags...), tags...) {
		open, close := "<"+strings.ToLower(tag)+">", "</"+strings.ToLower(tag)+">"
		for {
			low := strings.ToLower(reply)
			i, j := strings.Index(low, open), strings.Index(low, close)
			switch {
			case j >= 0 && (i < 0 || j < i): // "…</think>" with no opening before it
				reply = reply[j+len(close):]
				continue
			case i >= 0 && j < 0:
				reply = reply[:i]
			case i >= 0:
				reply = reply[:i] + reply[j+len(close):]
				continue
			}
			break
		}
	}
	return strings.TrimSpace(reply)
}

// Parser reads an action of a vocabulary from a model's reply.
type Parser struct {
	// Names are the actions, in index order.
	Names []string
	// Aliases map other names a model may use (the skills of the prompt's
	// skill_descriptions) to a name of Names.
	Aliases map[string]string
	// ReasoningTags are stripped with DefaultReasoningTags before
	// parsing.
	ReasoningTags []string
}

// DungeonAliases map the skills of the dungeon prompt's
// skill_descriptions (and skill_priority) that are not action names to
// the action that carries them out.
var DungeonAliases = map[string]string{SkillFight: "attack", SkillUseItem: "quaff", "use item": "quaff", "drink": "quaff", "fight_monster": "attack", "descend_stairs": "descend", "rest": "wait"}

// DungeonParser is the dungeon's Parser: ActionNames, DungeonAliases,
// and tags (added to DefaultReasoningTags).
func DungeonParser(tags []string) Parser {
	return Parser{Names: ActionNames, Aliases: DungeonAliases, ReasoningTags: tags}
}

// ParseAction reads the dungeon's action from a model's reply:
// DungeonParser(nil).Parse.
func ParseAction(reply string) (dungeon.Action, error) {
	i, err := DungeonParser(nil).Parse(reply)
	return dungeon.Action(i), err
}

// ParseChoice reads an action of the vocabulary names from a model's
// reply (Parser{Names: names}.Parse) and returns its index in names.
func ParseChoice(reply string, names []string) (int, error) {
	return Parser{Names: names}.Parse(reply)
}

// Parse returns the index in p.Names of the action a reply names. The
// reply's reasoning blocks are removed first (StripReasoning); then
// either what is left is one name (trimmed of white space, punctuation
// and markup), or its lines hold "ACTION: NAME" labels (anywhere in a
// line, any case, see actionLabel) that all name the same action. A name
// matches exactly, else in any case when only one name matches so, else
// through p.Aliases (in any case). Errors, worded to be sent back to the
// model (see CorrectionFor): no action label, labels naming different
// actions, or an unknown name.
func (p Parser) Parse(reply string) (int, error) {
	reply = StripReasoning(reply, p.ReasoningTags)
	if i := p.lookup(strings.Trim(reply, nameCut)); i >= 0 {
		return i, nil
	}
	var got []string
	at := -1
	for _, line := range strings.Split(reply, "\n") {
		m := actionLabel.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.Trim(m[1], nameCut)
		i := p.lookup(name)
		if i < 0 { // "ACTION: eat (I am hungry)": the first word
			if f := strings.FieldsFunc(m[1], func(r rune) bool { return strings.ContainsRune(nameCut, r) }); len(f) > 0 {
				if i = p.lookup(f[0]); i >= 0 {
					name = f[0]
				}
			}
		}
		if at >= 0 && i == at {
			continue
		}
		got = append(got, name)
		if len(got) == 1 {
			at = i
		}
	}
	switch len(got) {
	case 0:
		return 0, fmt.Errorf("the reply has no line \"ACTION: <name>\"")
	case 1:
	default:
		return 0, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(got), strings.Join(got, ", "))
	}
	if at >= 0 {
		return at, nil
	}
	return 0, fmt.Errorf("%q is not an action (want one of %s)", got[0], strings.Join(p.Names, ", "))
}

// lookup is lookup of s in p.Names, then of p.Aliases[s] (s in any
// case); -1 if none.
func (p Parser) lookup(s string) int {
	if i := lookup(s, p.Names); i >= 0 {
		return i
	}
	for a, n := range p.Aliases {
		if strings.EqualFold(a, s) {
			return lookup(n, p.Names)
		}
	}
	return -1
}

// ReplyFormat is the line that tells the model the valid actions and the
// reply format, ending each turn's message of the dungeon's LLM agent.
func ReplyFormat(names []string) string {
	return "Valid actions: " + strings.Join(names, ", ") + ". Reply with one line \"ACTION: <name>\"."
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
