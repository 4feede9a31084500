package agent

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"evolve/envs/dungeon"
)

// ActionNames are the dungeon's actions as an agent that reads text names
// them, in dungeon.Action order.
var ActionNames = []string{"wait", "explore", "descend", "attack", "flee", "eat", "quaff"}

// actionLabel matches an action label anywhere in a line: "ACTION:",
// "Action -", "action=", "**Action:**", "\"action\":" (any case, markdown
// emphasis or quotes around the word); what follows the match is the
// label's text.
var actionLabel = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])["'*_]*action["'*_]*\s*[:=\-]\s*`)

// fence matches a markdown code block: "```LANG\n…```"; group 1 is its
// text.
var fence = regexp.MustCompile("(?s)```[^\n`]*\n(.*?)```")

// toolCallTag matches the tags around a tool call that a model writes as
// text (Hermes and Qwen chat templates): "<tool_call>…</tool_call>".
var toolCallTag = regexp.MustCompile(`(?i)</?tool_call>`)

// nameCut is the punctuation and markup trimmed around a name.
const nameCut = " \t\r\n.,;:!?\"'`*_()[]{}<>"

// isCut reports whether r is of nameCut.
func isCut(r rune) bool { return strings.ContainsRune(nameCut, r) }

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
		reply = stripTag(reply, "<"+strings.ToLower(tag)+">", "</"+strings.ToLower(tag)+">")
	}
	return strings.TrimSpace(reply)
}

// stripTag removes the blocks open…close from reply (matched in any
// ASCII case), a stray close with all before it, and an unclosed open
// with all after it, in one pass: the next open and close are found once
// each and searched again only when passed.
func stripTag(reply, open, close string) string {
	low := asciiLower(reply) // byte offsets of low are those of reply
	find := func(sub string, from int) int {
		if i := strings.Index(low[from:], sub); i >= 0 {
			return from + i
		}
		return len(low) + 1 // none
	}
	var b strings.Builder
	pos, i, j := 0, find(open, 0), find(close, 0)
	for {
		if i < pos {
			i = find(open, pos)
		}
		if j < pos {
			j = find(close, pos)
		}
		switch {
		case j <= len(low) && j < i: // "…</think>" with no opening before it
			b.Reset()
			pos = j + len(close)
			continue
		case i > len(low): // no more blocks
			b.WriteString(reply[pos:])
		case j > len(low): // an unclosed block: cut to the end
			b.WriteString(reply[pos:i])
		default:
			b.WriteString(reply[pos:i])
			pos = j + len(close)
			continue
		}
		return b.String()
	}
}

// asciiLower returns s with the ASCII letters A-Z in lower case and
// every other byte as it is, so that offsets in it are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for k, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[k] = c + 'a' - 'A'
		}
	}
	return string(b)
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

// Parse returns the index in p.Names of the action a reply names, read
// as a person reads it:
//
//  1. The reply's reasoning blocks are removed (StripReasoning).
//  2. What is left may be one name, trimmed of white space, punctuation
//     and markup ("eat", "Eat.", "'eat'", "```\neat\n```"), or a code
//     block holding one ("```text\neat\n```").
//  3. Else a JSON object, the whole reply or a code block
//     ("```json\n{\"action\": \"eat\"}\n```") or the reply inside
//     "<tool_call>…</tool_call>", names it by its "action"
//     key (any case; a string), at the top or inside an "arguments" or
//     "parameters" object (a tool call written as text). JSON objects
//     that name different actions, or a label (below) that names
//     another action, make it ambiguous.
//  4. Else the labels "ACTION: NAME" (anywhere in a line, any case, see
//     actionLabel; a label that ends its line takes its name from the
//     next line) decide: the label that stands last gives the action. A
//     label names an action when its name ends a clause: the end of the
//     line, or ". ! ; ( [ -" after it ("ACTION: eat.", "ACTION: eat
//     (hungry)"); a label inside prose ("each action: wait is pointless
//     here, so ACTION: attack") only mentions one. If another label
//     names a different action than the last label, the reply is
//     ambiguous.
//
// A name matches exactly, else in any case when only one name matches
// so, else through p.Aliases (in any case); a label's text that is not a
// name is read by its first word ("ACTION: eat because I am hungry").
// Errors, worded to be sent back to the model (see CorrectionFor): no
// action label, labels or JSON objects naming different actions, a JSON
// object without an "action" string, or an unknown name.
func (p Parser) Parse(reply string) (int, error) {
	reply = StripReasoning(reply, p.ReasoningTags)
	if i := p.lookup(strings.Trim(reply, nameCut)); i >= 0 {
		return i, nil
	}
	var blocks []string // the texts of the reply's code blocks
	for _, m := range fence.FindAllStringSubmatch(reply, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 1 && strings.TrimSpace(fence.ReplaceAllString(reply, "")) == "" {
		if i := p.lookup(strings.Trim(blocks[0], nameCut)); i >= 0 {
			return i, nil
		}
	}
	texts := append([]string{reply}, blocks...)
	if t := toolCallTag.ReplaceAllString(reply, ""); t != reply {
		texts = append(texts, t) // "<tool_call>{…}</tool_call>", a tool call written as text
	}
	i, sawJSON, err := p.parseJSON(texts)
	if err != nil {
		return 0, err
	}
	labels := p.labels(reply)
	if i >= 0 { // a label naming another action makes it ambiguous
		names := []string{p.Names[i]}
		for _, l := range labels {
			if l.names && l.at != i && !slices.Contains(names, l.name) {
				names = append(names, l.name)
			}
		}
		if len(names) > 1 {
			return 0, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(names), strings.Join(names, ", "))
		}
		return i, nil
	}
	if len(labels) == 0 {
		if sawJSON {
			return 0, fmt.Errorf("the reply is JSON without an \"action\" key")
		}
		return 0, fmt.Errorf("the reply has no line \"ACTION: <name>\"")
	}
	last := labels[len(labels)-1]
	names := []string{last.name}
	for _, l := range labels[:len(labels)-1] {
		if l.names && !l.same(last) && !slices.Contains(names, l.name) {
			names = append(names, l.name)
		}
	}
	if len(names) > 1 {
		slices.Reverse(names) // in the reply's order
		return 0, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(names), strings.Join(names, ", "))
	}
	if last.at < 0 {
		return 0, fmt.Errorf("%q is not an action (want one of %s)", last.name, strings.Join(p.Names, ", "))
	}
	return last.at, nil
}

// label is an "ACTION: NAME" label of a reply.
type label struct {
	name  string // as written, trimmed of punctuation and markup
	at    int    // its index in Parser.Names, -1 if it is none
	names bool   // the name ends a clause: the label names an action, not mentions it
}

// same reports whether l and o are the same action (or the same unknown
// name).
func (l label) same(o label) bool {
	if l.at >= 0 || o.at >= 0 {
		return l.at == o.at
	}
	return strings.EqualFold(l.name, o.name)
}

// labels returns the reply's action labels in order. A label whose text
// is not a name, and whose first word is not one, counts only when its
// text is one word ("ACTION: pray", an unknown action); otherwise it is
// prose ("the next action: I would say attack") and is skipped.
func (p Parser) labels(reply string) []label {
	lines := strings.Split(reply, "\n")
	next := make([]string, len(lines)) // the next line that is not blank
	for n, after := len(lines)-1, ""; n >= 0; n-- {
		next[n] = after
		if strings.TrimSpace(lines[n]) != "" {
			after = lines[n]
		}
	}
	var out []label
	for n, line := range lines {
		for _, m := range actionLabel.FindAllStringIndex(line, -1) {
			text := line[m[1]:]
			if strings.Trim(text, nameCut) == "" { // "ACTION:\nattack"
				text = next[n]
			}
			if l, ok := p.label(text); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// label reads a label's text (what follows "ACTION:" to the end of its
// line); ok is false for prose that names nothing.
func (p Parser) label(text string) (l label, ok bool) {
	whole := strings.Trim(text, nameCut)
	if i := p.lookup(whole); i >= 0 {
		return label{name: whole, at: i, names: true}, true
	}
	start := strings.IndexFunc(text, func(r rune) bool { return !isCut(r) })
	if start < 0 {
		return label{}, false
	}
	end := strings.IndexFunc(text[start:], isCut)
	if end < 0 {
		end = len(text) - start
	}
	word := text[start : start+end]
	if i := p.lookup(word); i >= 0 {
		after := strings.TrimLeft(text[start+end:], " \t*_`'\"")
		ends := after == "" || strings.ContainsAny(after[:1], ".!;([-<") || strings.HasPrefix(after, "—") || strings.HasPrefix(after, "–")
		return label{name: word, at: i, names: ends}, true
	}
	if whole != "" && !strings.ContainsAny(whole, " \t") {
		return label{name: whole, at: -1, names: true}, true
	}
	return label{}, false
}

// parseJSON reads the action of the JSON objects among texts (the whole
// reply, then its code blocks): i is the action's index, or -1 with a
// nil err when none names one (sawJSON: some text was a JSON object).
// Errors: objects naming different actions, a non-string action, an
// unknown name.
func (p Parser) parseJSON(texts []string) (i int, sawJSON bool, err error) {
	i = -1
	var names []string
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(t), &obj) != nil {
			continue
		}
		sawJSON = true
		v, ok := jsonAction(obj)
		if !ok {
			continue
		}
		name, isStr := v.(string)
		if !isStr {
			return -1, true, fmt.Errorf("the reply's \"action\" is not a string")
		}
		name = strings.Trim(name, nameCut)
		j := p.lookup(name)
		if j < 0 {
			return -1, true, fmt.Errorf("%q is not an action (want one of %s)", name, strings.Join(p.Names, ", "))
		}
		if i >= 0 && j != i {
			names = append(names, name)
			return -1, true, fmt.Errorf("the reply names %d actions (%s); name exactly one", len(names), strings.Join(names, ", "))
		}
		if i < 0 {
			names = append(names, name)
		}
		i = j
	}
	return i, sawJSON, nil
}

// jsonAction returns the value of obj's "action" key (any case), or of
// that key of its "arguments" or "parameters" object (or JSON string of
// one, as a tool call's arguments are sent).
// Keys are visited in sorted order, so that an object with both
// "Action" and "action" is read the same way every time.
func jsonAction(obj map[string]any) (any, bool) {
	keys := slices.Sorted(maps.Keys(obj))
	for _, k := range keys {
		if strings.EqualFold(k, "action") {
			return obj[k], true
		}
	}
	for _, k := range keys {
		v := obj[k]
		if !strings.EqualFold(k, "arguments") && !strings.EqualFold(k, "parameters") {
			continue
		}
		if s, ok := v.(string); ok {
			var inner map[string]any
			if json.Unmarshal([]byte(s), &inner) == nil {
				v = inner
			}
		}
		if inner, ok := v.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(inner)) {
				if strings.EqualFold(k, "action") {
					return inner[k], true
				}
			}
		}
	}
	return nil, false
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
