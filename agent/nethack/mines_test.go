package nethack

import (
	"strings"
	"testing"

	"evolve/params"
)

// setStatus replaces screen s's bottom status line.
func setStatus(s *Screen, line string) {
	row := []rune(line + strings.Repeat(" ", Cols))
	copy(s.Grid[23][:], row[:Cols])
}

// A Mines level is told from the main dungeon by its cave walls: many
// corners, no corridors.
func TestMinesLike(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		want bool
	}{
		{"a room and a corridor", []string{
			"  +--------+        ",
			"  |........|        ",
			"  |....@...-#####   ",
			"  |........|    #   ",
			"  +--------+    ##  ",
		}, false},
		{"a cave", []string{
			"++ | %+-++-+-   |  |",
			"|.%.  |+-+    --+  ++",
			"++@.+-+|            ++",
			" +--+  |             +-+",
			"       +-+ )    ++     |",
			"         ++ <  +++-+   |",
		}, true},
	} {
		s := mapScreen(0, 0, nil, tc.rows...)
		if got := minesLike(s); got != tc.want {
			t.Errorf("%s: minesLike = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Arriving by '>' on Dlvl 3 in a cave, the agent climbs back at once; on
// the level above it never takes that staircase again.
func TestLeaveMines(t *testing.T) {
	a := NewScripted(BaseParameters())
	room := []string{"-------", "|..@..|", "-------"}
	s := mapScreen(3, 1, nil, room...)
	setStatus(s, "Dlvl:2 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:500")
	a.act(s, s.Status())
	a.lastKeys = ">" // as if it had just descended
	cave := []string{
		"++ | %+-++-+-   |  |",
		"|.%.  |+-+    --+  ++",
		"++@.+-+|            ++",
		" +--+  |             +-+",
		"       +-+ )    ++     |",
		"         ++ <  +++-+   |",
	}
	s2 := mapScreen(2, 2, nil, cave...)
	setStatus(s2, "Dlvl:3 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:501")
	if d := a.act(s2, s2.Status()); d.keys != "<" {
		t.Fatalf("arrived in the Mines: %+v, want '<'", d)
	}
	up := []string{"-------", "|..@..|", "-------"}
	s3 := mapScreen(3, 1, nil, up...)
	setStatus(s3, "Dlvl:2 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:502")
	s3.Grid[0] = [Cols]rune{}
	copy(s3.Grid[0][:], []rune("There is a staircase down here."+strings.Repeat(" ", Cols)))
	a.act(s3, s3.Status())
	if !a.avoidStairs(3, 1) || a.onStairs(s3, 3, 1) {
		t.Errorf("back on Dlvl 2: avoid %v, onStairs %v; want the Mines' '>' avoided", a.avoidStairs(3, 1), a.onStairs(s3, 3, 1))
	}
}

// A lichen named by farlook is fought even by a timid agent; a floating
// eye named so gets the dagger at any HP; a statue attacked once is floor.
func TestNamedNuisances(t *testing.T) {
	a := NewScripted(BaseParameters()) // risk_tolerance 0
	s := mapScreen(3, 1, nil, "-------", "|..@F.|", "-------")
	a.act(s, s.Status()) // a farlook at the F
	a.looks[[3]int{4, 1, 'F'}] = "lichen"
	if d := a.act(s, s.Status()); !d.fight || d.keys != "Fl" {
		t.Errorf("beside a lichen: %+v, want the attack Fl", d)
	}

	a = NewScripted(BaseParameters())
	s = mapScreen(3, 1, nil, "-------", "|..@e.|", "-------")
	a.act(s, s.Status())
	a.looks[[3]int{4, 1, 'e'}] = "floating eye"
	if d := a.act(s, s.Status()); d.item != 't' || d.keys != "l" {
		t.Errorf("beside a floating eye at HP 16: %+v, want the dagger thrown east", d)
	}
	a.observe("You can't throw or shoot without hands.")
	if d := a.act(s, s.Status()); d.item == 't' {
		t.Errorf("without hands: %+v, want no throw", d)
	}

	a = NewScripted(BaseParameters().With("risk_tolerance", params.NumberValue(1)))
	s = mapScreen(3, 1, nil, "-------", "|..@d.|", "-------")
	if d := a.act(s, s.Status()); !d.fight {
		t.Fatalf("beside a d: %+v, want an attack", d)
	}
	a.observe("You harmlessly attack a statue.")
	if d := a.act(s, s.Status()); d.fight {
		t.Errorf("after attacking a statue: %+v, want no attack", d)
	}
}

// Low HP prays whatever the skill order, even beside a monster.
func TestLowHPPrays(t *testing.T) {
	a := NewScripted(BaseParameters().With("risk_tolerance", params.NumberValue(1)))
	s := mapScreen(3, 1, nil, "-------", "|..@d.|", "-------")
	setStatus(s, "Dlvl:1 $:0 HP:3(30) Pw:2(2) AC:6 Xp:1/0 T:900")
	if d := a.act(s, s.Status()); d.keys != "#pray\r" {
		t.Errorf("HP 3 of 30 at T:900 beside a jackal: %+v, want a prayer", d)
	}
}

// Actions that take no game time are not repeated for ever: after
// stillLimit of them the agent lets time pass.
func TestTimeMustPass(t *testing.T) {
	a := NewScripted(BaseParameters())
	s := mapScreen(3, 1, nil, "-------", "|..@..|", "-------")
	waited := false
	for i := 0; i <= stillLimit+1; i++ {
		if d := a.act(s, s.Status()); d.keys == "20s" {
			waited = true
		}
	}
	if !waited {
		t.Errorf("%d actions at T:500: no wait", stillLimit+2)
	}
}
