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
