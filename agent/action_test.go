package agent

import (
	"strings"
	"testing"

	"evolve/envs/dungeon"
	"evolve/llm/llmtest"
)

func TestParseAction(t *testing.T) {
	ok := []struct {
		reply string
		want  dungeon.Action
	}{
		{"explore", dungeon.ActExplore},
		{"  Flee.\n", dungeon.ActFlee},
		{"The goblin is adjacent and weak.\nACTION: attack", dungeon.ActAttack},
		{"I am hungry.\n**Action:** `eat`", dungeon.ActEat},
		{"action = quaff", dungeon.ActQuaff},
		{"Thinking...\nAction - descend.\n", dungeon.ActDescend},
		{"WAIT", dungeon.ActWait},
		{"The action: explore is best here", dungeon.ActExplore},
		// Reasoning blocks are stripped, labels are found anywhere in a
		// line, skills map to actions, punctuation is ignored.
		{"<think>\nACTION: wait is too slow; maybe flee?\n</think>\n\neat", dungeon.ActEat},
		{"<THINK>hmm</THINK> Explore!", dungeon.ActExplore},
		{"<reasoning>attack or flee</reasoning>\nACTION: flee", dungeon.ActFlee},
		{"okay so</think>descend", dungeon.ActDescend},
		{"<think>I was cut off while thinking about eat", 0},
		{"I am hurt, so I will drink. ACTION: use_item", dungeon.ActQuaff},
		{"fight", dungeon.ActAttack},
		{"Use_Item.", dungeon.ActQuaff},
		{"'eat'", dungeon.ActEat},
		{"ACTION: explore\nSo, once more: ACTION: explore.", dungeon.ActExplore},
		{"ACTION: eat (I am Hungry)", dungeon.ActEat},
	}
	for _, tt := range ok {
		if tt.reply == "<think>I was cut off while thinking about eat" {
			if _, err := ParseAction(tt.reply); err == nil {
				t.Errorf("ParseAction(%q) found an action in an unclosed reasoning block", tt.reply)
			}
			continue
		}
		got, err := ParseAction(tt.reply)
		if err != nil || got != tt.want {
			t.Errorf("ParseAction(%q) = %v, %v; want %v", tt.reply, got, err, tt.want)
		}
	}
	bad := map[string]string{
		"":                              `no line "ACTION: <name>"`,
		"I would explore or maybe flee": `no line "ACTION: <name>"`,
		"ACTION: explore\nACTION: flee": "names 2 actions (explore, flee)",
		"ACTION: pray":                  `"pray" is not an action`,
		"<think>eat</think>":            `no line "ACTION: <name>"`,
	}
	for reply, want := range bad {
		if _, err := ParseAction(reply); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAction(%q) = %v, want %q", reply, err, want)
		}
	}
	if c := Correction(errSample()); !strings.Contains(c, `"ACTION: <name>"`) || !strings.Contains(c, "wait, explore, descend, attack, flee, eat, quaff") {
		t.Errorf("correction %q", c)
	}
}

func errSample() error { _, err := ParseAction("nothing"); return err }

// FuzzParseAction: never panics; an accepted reply names a valid action.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"explore", "ACTION: flee", "action:\n", "**Action:** `eat`", "ACTION: a\nACTION: b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAction(s)
		if err == nil && int(a) >= len(ActionNames) {
			t.Fatalf("%q parsed to %v", s, a)
		}
	})
}

// ParseChoice with another vocabulary: exact names first, then a name
// in any case when only one matches so.
func TestParseChoice(t *testing.T) {
	names := []string{"right", "wait", "jump-up", "N", "n"}
	for _, tt := range []struct {
		reply string
		want  int
		err   string
	}{
		{"Right", 0, ""},
		{"I will step.\nACTION: **wait**", 1, ""},
		{"action: jump-up.", 2, ""},
		{"ACTION: N", 3, ""},
		{"ACTION: n", 4, ""},
		{"ACTION: JUMP-UP", 2, ""},
		{"ACTION: left", 0, `"left" is not an action (want one of right, wait, jump-up, N, n)`},
		{"ACTION: right\naction: wait", 0, "names 2 actions (right, wait)"},
		{"go right", 0, `no line "ACTION: <name>"`},
	} {
		got, err := ParseChoice(tt.reply, names)
		if tt.err == "" && (err != nil || got != tt.want) || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ParseChoice(%q) = %d, %v; want %d %q", tt.reply, got, err, tt.want, tt.err)
		}
	}
	if c := CorrectionFor(errSample(), names); !strings.HasSuffix(c, "one of: right, wait, jump-up, N, n.") {
		t.Errorf("correction %q", c)
	}
}

// TestSkillsAreActions: every skill of the scripted agent's
// skill_priority (the base prompt's skill_descriptions) parses to an
// action, so a model that answers with a skill name is not a fallback.
func TestSkillsAreActions(t *testing.T) {
	for _, p := range Schema {
		for _, skill := range p.Items {
			if _, err := ParseAction(skill); err != nil {
				t.Errorf("skill %q: %v", skill, err)
			}
			if _, err := ParseAction("ACTION: " + strings.ToUpper(skill)); err != nil {
				t.Errorf("ACTION: %s: %v", strings.ToUpper(skill), err)
			}
		}
	}
}

// TestReplyStyles: the four styles of llmtest.Styles parse to the named
// action for every action.
func TestReplyStyles(t *testing.T) {
	for k := 0; k < llmtest.NumStyles; k++ {
		for i, name := range ActionNames {
			if got, err := ParseAction(llmtest.Style(k, name)); err != nil || int(got) != i {
				t.Errorf("style %d %q: %v, %v", k, llmtest.Style(k, name), got, err)
			}
		}
	}
}

// TestParseReplyShapes reads the reply shapes real models write, as a
// person reads them: the label that stands last decides; labels that
// name different actions, JSON objects that do, or no action at all get
// a correction (want "" and the error's text).
func TestParseReplyShapes(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  string // the action, "" for an error
		err   string // a part of the error's text
	}{
		// Labels read as a person reads them.
		{"Considering each action: wait is pointless here, so ACTION: attack", "attack", ""},
		{"Considering each action: wait is pointless here.\nACTION: attack", "attack", ""},
		{"Action: wait would be too slow.\nACTION: attack", "attack", ""},
		{"I considered ACTION: wait, but ACTION: attack is better.", "attack", ""},
		{"ACTION: explore\nACTION: flee", "", "names 2 actions (explore, flee)"},
		{"ACTION: attack. The action: wait would waste a turn.", "", "names 2 actions (attack, wait)"},
		{"ACTION: explore\nSo, once more: ACTION: explore.", "explore", ""},
		{"Reasoning: the goblin is weak.\nAction: attack", "attack", ""},
		{"Action: eat\nReason: the status line shows Hungry.", "eat", ""},
		{"ACTION: quaff (drink the potion)", "quaff", ""},
		{"ACTION: eat — I am hungry", "eat", ""},
		{"ACTION: eat because I am hungry", "eat", ""},
		{"ACTION:attack", "attack", ""},
		{"ACTION: `attack`", "attack", ""},
		{"ACTION: [attack]", "attack", ""},
		{"ACTION: <attack>", "attack", ""},
		{"**Action**: **Attack**", "attack", ""},
		{"- ACTION: flee", "flee", ""},
		{"> ACTION: flee", "flee", ""},
		{"ACTION:\nattack", "attack", ""},
		{"**Action:**\n\n`descend`", "descend", ""},
		{"ACTION: attack<|eot_id|>", "attack", ""},
		{"Final action => descend", "descend", ""},
		{"ACTION: fight_monster", "attack", ""},
		{"ACTION: pray", "", `"pray" is not an action`},
		{"The next action: I would say attack", "", `no line "ACTION: <name>"`},
		{"I will attack the goblin.", "", `no line "ACTION: <name>"`},
		// Structured replies.
		{`{"action": "attack"}`, "attack", ""},
		{`{"Action":"Attack","reason":"the goblin is weak"}`, "attack", ""},
		{"```json\n{\"action\": \"attack\"}\n```", "attack", ""},
		{"Here is my move:\n```json\n{\n  \"action\": \"flee\"\n}\n```", "flee", ""},
		{"```\nattack\n```", "attack", ""},
		{"```text\nattack\n```", "attack", ""},
		{"`attack`", "attack", ""},
		{`{"name": "take_action", "arguments": {"action": "eat"}}`, "eat", ""},
		{`<tool_call>{"name": "take_action", "arguments": "{\"action\": \"eat\"}"}</tool_call>`, "eat", ""},
		{`My move: {"action": "quaff"}`, "quaff", ""},
		{`{"action": "pray"}`, "", `"pray" is not an action`},
		{`{"action": 3}`, "", `"action" is not a string`},
		{`{"move": "attack"}`, "", `JSON without an "action" key`},
		{"```json\n{\"action\": \"eat\"}\n```\n```json\n{\"action\": \"flee\"}\n```", "", "names 2 actions (eat, flee)"},
		// Reasoning first.
		{"<think>\nACTION: wait? No.\n</think>\n{\"action\": \"explore\"}", "explore", ""},
		{"<think>Maybe flee.</think>\nConsidering each action: flee is cowardly, so ACTION: attack", "attack", ""},
	} {
		got, err := ParseAction(tc.reply)
		switch {
		case tc.want != "" && (err != nil || ActionNames[got] != tc.want):
			t.Errorf("ParseAction(%q) = %v, %v; want %s", tc.reply, got, err, tc.want)
		case tc.want == "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseAction(%q) = %v, %v; want an error with %q", tc.reply, got, err, tc.err)
		}
	}
}

// FuzzParse: the parser never panics, is deterministic, returns an
// index of Names when it accepts, and a reply ending in the line
// "ACTION: NAME" is read as NAME or refused as ambiguous, never as
// another action (replies with "<" are left out: an unclosed reasoning
// tag hides what follows it).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "explore", "each action: wait is pointless, so", `{"action": "eat"}`, "```json\n{\"action\":\"flee\"}\n```",
		"ACTION:\n", "```\n", "{\"arguments\": \"{\\\"action\\\": 1}\"}", "ACTION: pray"} {
		f.Add(s, uint8(3))
	}
	p := DungeonParser(nil)
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		i, err := p.Parse(s)
		j, err2 := p.Parse(s)
		if i != j || (err == nil) != (err2 == nil) {
			t.Fatalf("Parse(%q) is not deterministic", s)
		}
		if err == nil && (i < 0 || i >= len(ActionNames)) {
			t.Fatalf("Parse(%q) = %d, outside the names", s, i)
		}
		if strings.Contains(s, "<") {
			return
		}
		name := ActionNames[int(k)%len(ActionNames)]
		if i, err := p.Parse(s + "\nACTION: " + name); err == nil && ActionNames[i] != name {
			t.Fatalf("Parse(%q + ACTION: %s) = %s", s, name, ActionNames[i])
		}
	})
}

// stripReference is StripReasoning as the plain loop that states it:
// while a close comes before every open, drop up to it; else drop the
// first open…close block, or cut an unclosed open to the end. It is
// quadratic, and right only for ASCII (ToLower keeps the offsets).
func stripReference(reply string, tags []string) string {
	for _, tag := range append(append([]string(nil), DefaultReasoningTags...), tags...) {
		open, close := "<"+strings.ToLower(tag)+">", "</"+strings.ToLower(tag)+">"
		for {
			low := strings.ToLower(reply)
			i, j := strings.Index(low, open), strings.Index(low, close)
			switch {
			case j >= 0 && (i < 0 || j < i):
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

// FuzzStripReasoning: the one-pass StripReasoning removes what the plain
// loop removes (on ASCII replies), and never panics on any reply.
func FuzzStripReasoning(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "x<think>a</think>b</think>c", "a</THINK>b<think>", "<thinking><think></think></thinking>d", "İ</think>x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StripReasoning(s, []string{"scratch"})
		for _, c := range []byte(s) {
			if c >= 0x80 {
				return
			}
		}
		if want := stripReference(s, []string{"scratch"}); got != want {
			t.Fatalf("StripReasoning(%q) = %q, want %q", s, got, want)
		}
	})
}

// BenchmarkParse reads the four llmtest styles of a reply and a JSON
// reply: the parser's cost per turn.
func BenchmarkParse(b *testing.B) {
	replies := []string{`{"action": "attack"}`}
	for k := 0; k < llmtest.NumStyles; k++ {
		replies = append(replies, llmtest.Style(k, "attack"))
	}
	p := DungeonParser(nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Parse(replies[i%len(replies)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStripReasoningOffsets: letters whose lower case is longer in
// UTF-8 (İ) do not shift what is cut.
func TestStripReasoningOffsets(t *testing.T) {
	for in, want := range map[string]string{"İ</think>x": "x", "İİİİ<think>a</think>bc": "İİİİbc", "<THINK>İ</THINK>ok": "ok"} {
		if got := StripReasoning(in, nil); got != want {
			t.Errorf("StripReasoning(%q) = %q, want %q", in, got, want)
		}
	}
}
