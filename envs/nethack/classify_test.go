package nethack

import (
	"strings"
	"testing"

	"evolve/envs"
)

// TestClassify checks each rule of Classify on the death texts and
// screens it reads, including the texts of NetHack 3.6's end.c and
// pray.c that the labelled set does not reach (a god's wrath, starving
// to death).
func TestClassify(t *testing.T) {
	screen := func(msg string, rows map[int]string, cx, cy int) (string, int, int) {
		var b strings.Builder
		for y := 0; y < Rows; y++ {
			switch {
			case y == 0:
				b.WriteString(msg)
			case rows[y] != "":
				b.WriteString(rows[y])
			case y == 23:
				b.WriteString("Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:900")
			}
			b.WriteByte('\n')
		}
		return b.String(), cx, cy
	}
	stuck := func(msg string, rows map[int]string, cx, cy int) Evidence {
		s, x, y := screen(msg, rows, cx, cy)
		return Evidence{End: EndStuck, Death: "quit", Screen: s, CursorX: x, CursorY: y, Pet: "f", StallTurns: 401, StallActions: 80, Dlvl: 1}
	}
	room := map[int]string{5: "   |.....|", 6: "   |..@..|", 7: "   |.....|"}
	for _, tc := range []struct {
		name string
		ev   Evidence
		want string
	}{
		{"starved", Evidence{Death: "died of starvation"}, "starvation"},
		{"fainted", Evidence{Death: "killed by a jackal", While: "fainted from lack of food"}, "starvation"},
		{"fainting at death", Evidence{Death: "killed by a newt", Hunger: "Fainting"}, "starvation"},
		{"weak at death", Evidence{Death: "killed by a newt", Hunger: "Weak", SinceAttack: 40}, "injury"},
		{"wrath", Evidence{Death: "killed by the wrath of Odin"}, "prayer"},
		{"while praying", Evidence{Death: "killed by a goblin", While: "praying", SinceAttack: 1}, "prayer"},
		{"floating eye", Evidence{Death: "killed by a newt", While: "frozen by a monster's gaze", SinceAttack: 0}, "helpless"},
		{"helpless", Evidence{Death: "killed by a jackal", While: "helpless"}, "helpless"},
		{"sleeping", Evidence{Death: "killed by a bat", While: "sleeping"}, "helpless"},
		{"rock trap", Evidence{Death: "killed by a falling rock", SinceAttack: 2}, "hazard"},
		{"drowned", Evidence{Death: "drowned in a pool of water", SinceAttack: -1}, "hazard"},
		{"corpse", Evidence{Death: "killed by a poisonous corpse", SinceAttack: -1}, "hazard"},
		{"fight", Evidence{Death: "killed by a dwarf", SinceAttack: 3}, "combat_loss"},
		{"not a fight", Evidence{Death: "killed by a dwarf", SinceAttack: 4}, "injury"},
		{"never attacked", Evidence{Death: "killed by a dwarf", SinceAttack: -1}, "injury"},
		{"turn cap", Evidence{End: EndTurnCap, Death: "quit"}, envs.CauseNone},
		{"escaped", Evidence{Death: "escaped"}, envs.CauseNone},
		{"action cap", Evidence{End: EndActionCap, Death: "quit"}, "action_cap"},
		{"text prompt", stuck("Call a white potion: hjkl", room, 25, 0), "unanswered_prompt"},
		{"wrapped prompt", stuck("Call a pink potion: jhy10s10s10s10s10s10s10s10s10s10s10s10s10s10s10s10s10s10s10",
			map[int]string{1: "s10s10"}, 6, 1), "unanswered_prompt"},
		{"travel prompt", stuck("Where do you want to travel to?", room, 6, 6), "unanswered_prompt"},
		{"polymorphed", stuck("You turn into a werejackal!", map[int]string{6: "   |..d..|"}, 6, 6), "hero_lost"},
		{"fainting stall", func() Evidence { e := stuck("", room, 6, 6); e.Hunger = "Fainted"; return e }(), "starvation"},
		{"bear trap", func() Evidence { e := stuck("", room, 6, 6); e.Trap = "A bear trap closes on your foot!"; return e }(), "trapped"},
		{"loop", func() Evidence { e := stuck("", room, 6, 6); e.ByActions = true; return e }(), "action_loop"},
		{"statue", stuck("You harmlessly attack a statue.", room, 6, 6), "standoff"},
		{"lichen", stuck("", map[int]string{5: "   |.....|", 6: "   |..@F.|"}, 6, 6), "standoff"},
		{"newt", stuck("", map[int]string{5: "   |...:.|", 6: "   |..@..|"}, 6, 6), "standoff"},
		{"the pet", stuck("", map[int]string{5: "   |...f.|", 6: "   |..@..|"}, 6, 6), "no_path"},
		{"a jackal, the pet a kitten", stuck("", map[int]string{6: "   |..@d.|"}, 6, 6), "standoff"},
		{"two squares off", stuck("", map[int]string{6: "   |..@.F|"}, 6, 6), "no_path"},
		{"free", stuck("You hear some noises.", room, 6, 6), "no_path"},
	} {
		got, ev := Classify(tc.ev)
		if got != tc.want {
			t.Errorf("%s: Classify = %s (%s), want %s", tc.name, got, ev, tc.want)
		}
		if ev == "" {
			t.Errorf("%s: no evidence text", tc.name)
		}
	}
}

// TestTrapMessage checks the trap messages of NetHack 3.6's trap.c.
func TestTrapMessage(t *testing.T) {
	for m, want := range map[string]bool{
		"A bear trap closes on your foot!":                                      true,
		"You are caught in a bear trap.":                                        true,
		"You fall into a pit!  You land on a set of sharp iron spikes!--More--": true,
		"You stumble into a spider web!":                                        true,
		"There is a bear trap here.":                                            false,
		"You escape a bear trap.":                                               false,
		"You kill the jackal!":                                                  false,
	} {
		if got := TrapMessage(m) != ""; got != want {
			t.Errorf("TrapMessage(%q) = %v, want %v", m, got, want)
		}
	}
}
