package nethack

import (
	"evolve/params"
	"strings"
	"testing"
)

// mapScreen builds a screen whose map rows are rows (map row 0 is screen
// row 1), with the cursor on the hero at map (hx, hy), a status line at
// T:500, and the cells of inverse drawn in inverse video.
func mapScreen(hx, hy int, inverse [][2]int, rows ...string) *Screen {
	lines := append([]string{""}, rows...)
	for len(lines) < 23 {
		lines = append(lines, "")
	}
	lines = append(lines, "Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:500")
	s := screenOf(lines...)
	s.CursorX, s.CursorY = hx, hy+1
	for _, c := range inverse {
		s.Inverse[c[1]+1][c[0]] = true
	}
	return s
}

// The pet is the monster in inverse video, whatever its letter: a little
// dog 'd' beside a jackal 'd' is never attacked, the jackal is.
func TestPetNeverAttacked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		inverse [][2]int
		want    string // the attack's keys, "" for none
	}{
		{"little dog west, jackal east", []string{"-------", "|.d@d.|", "-------"}, [][2]int{{2, 1}}, "Fl"},
		{"kitten east, jackal west", []string{"-------", "|.d@f.|", "-------"}, [][2]int{{4, 1}}, "Fh"},
		{"only the pet", []string{"-------", "|.d@..|", "-------"}, [][2]int{{2, 1}}, ""},
		{"a floating eye is never meleed", []string{"-------", "|.e@..|", "-------"}, nil, ""},
		{"an acid blob is never meleed", []string{"-------", "|..@b.|", "-------"}, nil, ""},
	} {
		p := BaseParameters().With("risk_tolerance", params.NumberValue(1))
		a := NewScripted(p)
		s := mapScreen(3, 1, tc.inverse, tc.rows...)
		d := a.act(s, s.Status())
		got := ""
		if d.fight {
			got = d.keys
		}
		if got != tc.want {
			t.Errorf("%s: attack %q, want %q (decision %+v)", tc.name, got, tc.want, d)
		}
	}
}

// Every prompt is answered: text prompts ending in ':' or '?', y/n
// questions, and any message the cursor waits after.
func TestEveryPromptAnswered(t *testing.T) {
	for _, tc := range []struct {
		row0 string
		key  string
	}{
		{"Call a white potion:", "\x1b"},
		{"What do you want to name this level?", "\x1b"},
		{"Really attack the little dog? [yn] (n)", "n"},
		{"There is a jackal corpse here; eat it? [ynq] (n)", "n"},
		{"In what direction?", "\x1b"},
		{"What do you want to call this scroll labeled FOO", "\x1b"},
	} {
		s := screenOf(tc.row0)
		s.CursorX, s.CursorY = len(tc.row0)+1, 0
		if k, ok := interruptKey(s); !ok || k != tc.key {
			t.Errorf("%q: key %q (%v), want %q", tc.row0, k, ok, tc.key)
		}
	}
	// The same message with the cursor on the hero is no prompt.
	s := mapScreen(3, 1, nil, "-------", "|..@..|", "-------")
	copy(s.Grid[0][:], []rune("You hear a door open."))
	if k, ok := interruptKey(s); ok {
		t.Errorf("a message while the cursor is on the hero: key %q", k)
	}
}

// The hero is where the cursor is, '@' or not (a polymorphed hero shows
// as 'r').
func TestHeroByCursor(t *testing.T) {
	s := mapScreen(3, 1, nil, "-------", "|..r..|", "-------")
	if x, y, ok := s.Hero(); !ok || x != 3 || y != 1 {
		t.Errorf("Hero() = %d, %d, %v; want 3, 1, true", x, y, ok)
	}
}

func TestSafeCorpse(t *testing.T) {
	for name, want := range map[string]bool{
		"jackal": true, "newt": true, "gnome lord": true, "lichen": true, "floating eye": true, "lizard": true,
		"cockatrice": false, "chickatrice": false, "wererat": false, "kobold": false, "large kobold": false,
		"acid blob": false, "little dog": false, "kitten": false, "kobold zombie": false, "giant bat": false,
		"homunculus": false, "green slime": false, "": false,
	} {
		if got := safeCorpse(name); got != want {
			t.Errorf("safeCorpse(%q) = %v, want %v", name, got, want)
		}
	}
}

// A failed move while a trap holds the hero does not block the way, and
// blocks learned before are forgotten when it gets out.
func TestBlockedClearedAfterTrap(t *testing.T) {
	a := NewScripted(BaseParameters())
	rows := []string{"---------", "|.......|", "---------"}
	s := mapScreen(3, 1, nil, rows...)
	a.act(s, s.Status())
	a.blocked[[3]int{1, 1, 3}] = a.actions // a block learned earlier
	a.lastDir, a.lastX, a.lastY = 3, 3, 1  // tried east, did not move
	a.observe("You are caught in a bear trap.")
	a.act(s, s.Status())
	if a.isBlocked(3, 1, 3) {
		t.Error("a move that failed in a bear trap was taken as blocked")
	}
	a.lastX, a.lastY = 3, 1
	s2 := mapScreen(4, 1, nil, rows...)
	a.act(s2, s2.Status())
	if len(a.blocked) != 0 {
		t.Errorf("after escaping the trap, blocked = %v, want none", a.blocked)
	}
}

// Weak from hunger prays first when prayer is safe, whatever the skill
// order.
func TestWeakPrays(t *testing.T) {
	a := NewScripted(BaseParameters())
	s := mapScreen(3, 1, nil, "-------", "|..@..|", "-------")
	copy(s.Grid[23][:], []rune("Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:900 Weak"))
	if d := a.act(s, s.Status()); d.keys != "#pray\r" {
		t.Errorf("Weak at T:900: %+v, want a prayer", d)
	}
	s2 := mapScreen(3, 1, nil, "-------", "|..@..|", "-------")
	copy(s2.Grid[23][:], []rune("Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:1000 Weak"))
	if d := a.act(s2, s2.Status()); d.item != 'e' {
		t.Errorf("Weak 100 turns after a prayer: %+v, want eating", d)
	}
}

func TestLookName(t *testing.T) {
	for in, want := range map[string]string{
		"       a fungus or mold (lichen)":                                      "lichen",
		"       a blob (peaceful acid blob)":                                    "acid blob",
		"       an eye or sphere (floating eye)":                                "floating eye",
		"       a fungus or mold or a boulder or statue (a statue of a lichen)": "statue",
		"       a dog (tame little dog)":                                        "little dog",
	} {
		if got := lookName(in); got != want {
			t.Errorf("lookName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOffers(t *testing.T) {
	for _, tc := range []struct {
		m    string
		l    byte
		want bool
	}{
		{"What do you want to throw? [$ab or ?*]", 'b', true},
		{"What do you want to throw? [$a or ?*]", 'b', false},
		{"What do you want to throw? [a-c or ?*]", 'b', true},
		{"What do you want to throw? [*]", 'b', false},
	} {
		if got := offers(tc.m, tc.l); got != tc.want {
			t.Errorf("offers(%q, %q) = %v, want %v", tc.m, tc.l, got, tc.want)
		}
	}
}

// With symset:plain a '+' is a corner beside a horizontal and above or
// below a vertical wall (or corner), any other '+' a door, also one seen
// from a corridor.
func TestDoorOrCorner(t *testing.T) {
	s := mapScreen(0, 20, nil,
		"+----+",
		"|....+",
		"++---+",
		"        #+#",
	)
	for _, tc := range []struct {
		x, y int
		door bool
	}{
		{0, 0, false}, {5, 0, false}, {5, 1, true}, {0, 2, false}, {1, 2, true}, {5, 2, false}, {9, 3, true},
	} {
		if got := cellPassable(s, tc.x, tc.y); got != tc.door {
			t.Errorf("'+' at %d,%d: passable %v, want %v", tc.x, tc.y, got, tc.door)
		}
	}
}

// A corner next to a doorway ('.') or an open door ('|' in a horizontal
// wall) is still a corner: the wall goes on beyond the doorway. A door
// in a dark room's wall, one wall beside it unseen, is still a door.
func TestCornerBesideDoorway(t *testing.T) {
	s := mapScreen(0, 20, nil,
		"+---+",
		"|....##",
		"|...|",
		"+.-|+",
		"",
		"     |",
		"   ..+#",
	)
	for _, tc := range []struct {
		name string
		x, y int
		door bool
	}{
		{"top left corner", 0, 0, false},
		{"corner above an east doorway", 4, 0, false},
		{"corner left of a bottom doorway", 0, 3, false},
		{"corner right of an open door", 4, 3, false},
		{"a dark room's door, the wall below unseen", 5, 6, true},
	} {
		if got := cellPassable(s, tc.x, tc.y); got != tc.door {
			t.Errorf("%s: '+' at %d,%d: passable %v, want %v", tc.name, tc.x, tc.y, got, tc.door)
		}
	}
}

// A move that opens a door ("The door opens.") does not move the hero but
// is no blocked move.
func TestDoorOpensNotBlocked(t *testing.T) {
	a := NewScripted(BaseParameters())
	rows := []string{"-----", "|.@.+", "-----"}
	s := mapScreen(2, 1, nil, rows...)
	a.act(s, s.Status())
	a.lastDir, a.lastX, a.lastY = 3, 2, 1
	a.observe("The door opens.")
	a.act(s, s.Status())
	if a.isBlocked(2, 1, 3) {
		t.Error("the move that opened the door was taken as blocked")
	}
	a.lastDir, a.lastX, a.lastY = 3, 2, 1
	a.act(s, s.Status())
	if !a.isBlocked(2, 1, 3) {
		t.Error("a move that failed without a word was not taken as blocked")
	}
}

func TestFoodItem(t *testing.T) {
	for in, want := range map[string]bool{
		"a food ration": true, "2 apples": true, "a fortune cookie": true, "a lichen corpse": false,
		"an egg": false, "a tin": false, "a food ration (for sale, 60 zorkmids)": false, "a dagger": false,
	} {
		if got := foodItem(in); got != want {
			t.Errorf("foodItem(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzPromptParsers feeds arbitrary message lines to the parsers of the
// game's answers: none may panic, and lookName never keeps a parenthesis
// of a well-formed answer.
func FuzzPromptParsers(f *testing.F) {
	for _, s := range []string{"       a fungus or mold (lichen)", "What do you want to throw? [$a-c or ?*]", "(", "[", "[a-", "x (y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, m string) {
		n := lookName(m)
		if strings.Count(m, "(") == 1 && strings.Count(m, ")") == 1 && strings.Index(m, "(") < strings.Index(m, ")") && strings.ContainsAny(n, "()") {
			t.Errorf("lookName(%q) = %q keeps a parenthesis", m, n)
		}
		offers(m, 'b')
		firstOffered(m)
		heldByTrap(m)
		safeCorpse(m)
		foodItem(m)
	})
}

// The game's travel to '>' rests once it ends short of the stairs where
// the last travel did, or finds no travel path: it would only walk the
// hero back to the same spot (a boulder it will not push).
func TestTravelStoppedShortRests(t *testing.T) {
	rows := []string{"--------", "|.....>|", "--------"}
	for _, tc := range []struct {
		name   string
		last   [2]int // where the previous travel ended
		msg    string
		travel bool
	}{
		{"a travel that got somewhere new", [2]int{-1, -1}, "", true},
		{"ended where the last travel ended", [2]int{3, 1}, "", false},
		{"no travel path", [2]int{-1, -1}, "staircase down (no travel path)", false},
	} {
		a := NewScripted(BaseParameters().With("risk_tolerance", params.NumberValue(1)))
		s := mapScreen(2, 1, nil, rows...)
		if d := a.act(s, s.Status()); !d.travel {
			t.Fatalf("%s: the first action %+v is no travel", tc.name, d)
		}
		a.travelEnd = tc.last
		if tc.msg != "" {
			a.observe(tc.msg)
		}
		s = mapScreen(3, 1, nil, rows...)
		if d := a.act(s, s.Status()); d.travel != tc.travel {
			t.Errorf("%s: travel %v, want %v (decision %+v)", tc.name, d.travel, tc.travel, d)
		}
	}
}
