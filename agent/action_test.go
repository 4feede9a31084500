package agent

import (
	"strings"
	"testing"

	"evolve/envs/dungeon"
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
	}
	for _, tt := range ok {
		got, err := ParseAction(tt.reply)
		if err != nil || got != tt.want {
			t.Errorf("ParseAction(%q) = %v, %v; want %v", tt.reply, got, err, tt.want)
		}
	}
	bad := map[string]string{
		"":                                 `no line "ACTION: <name>"`,
		"I would explore or maybe flee":    `no line "ACTION: <name>"`,
		"ACTION: explore\nACTION: flee":    "names 2 actions (explore, flee)",
		"ACTION: pray":                     `"pray" is not an action`,
		"The action: explore is best here": `no line "ACTION: <name>"`,
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
