package nethack

import (
	"strconv"
	"strings"
	"testing"

	"evolve/params"
)

// withStatus returns s with its bottom status line replaced by line.
func withStatus(s *Screen, line string) *Screen {
	for x := range s.Grid[23] {
		s.Grid[23][x] = ' '
	}
	copy(s.Grid[23][:], []rune(line))
	return s
}

// Exploring keeps heading for the frontier square it chose while that is
// still a frontier it can reach, rather than the nearest one each step;
// once its goal is stood on it takes the nearest again.
func TestFrontierGoalKept(t *testing.T) {
	rows := []string{"", "...........", ""}
	for _, tc := range []struct {
		name    string
		goal    [2]int
		visited bool // the goal was stood on
		want    byte
	}{
		{"a goal east, the nearest west", [2]int{10, 1}, false, 'l'},
		{"a goal west", [2]int{0, 1}, false, 'h'},
		{"the goal stood on: the nearest", [2]int{10, 1}, true, 'h'},
	} {
		a := NewScripted(BaseParameters())
		s := mapScreen(3, 1, nil, rows...)
		a.act(s, s.Status())
		a.goal = tc.goal
		a.visited[tc.goal[1]][tc.goal[0]] = tc.visited
		d, ok := a.frontierStep(s, 3, 1)
		if got := "hjklyubn"[d]; !ok || got != tc.want {
			t.Errorf("%s: step %c (%v), want %c", tc.name, got, ok, tc.want)
		}
	}
}

// A hero that fled fleeLimit times within fleeWindow actions from a
// monster that does not pursue it fights it, as when cornered, unless its
// HP is low.
func TestStaleFlightFights(t *testing.T) {
	rows := []string{"---------", "|.......|", "|..@x...|", "|.......|", "---------"}
	for _, tc := range []struct {
		name   string
		flees  int
		status string
		fight  bool
	}{
		{"first meeting: flee", 0, "", false},
		{"fled 3 times: flee", 3, "", false},
		{"fled 4 times: fight", 4, "", true},
		{"fled 4 times, HP low: flee", 4, "Dlvl:1 $:0 HP:3(16) Pw:2(2) AC:6 Xp:1/0 T:500", false},
	} {
		a := NewScripted(BaseParameters()) // risk_tolerance 0: flee from anything
		s := mapScreen(3, 2, nil, rows...)
		if tc.status != "" {
			s = withStatus(s, tc.status)
			a.lastPray = 400 // no prayer: the prayer timeout is too high
		}
		a.act(withStatus(mapScreen(3, 2, nil, rows[0], rows[1], "|..@....|", rows[3], rows[4]), s.Row(23)), s.Status())
		for i := 0; i < tc.flees; i++ {
			a.flees = append(a.flees, a.actions-i)
		}
		d := a.act(s, s.Status())
		if d.fight != tc.fight {
			t.Errorf("%s: decision %+v, want fight %v", tc.name, d, tc.fight)
		}
	}
}

// A hero with lycanthropy ("You feel feverish", or seen in its animal
// form on the status line) prays when prayer is safe; one too heavily
// loaded to move drops its last item.
func TestLycanthropyAndLoad(t *testing.T) {
	rows := []string{"-------", "|..@..|", "-------"}
	for _, tc := range []struct {
		name     string
		msg      string
		title    string // the status line's first row
		status   string // the status line's second row, "" the default
		lastPray int
		keys     string
		item     byte
	}{
		{"feverish: pray", "You feel feverish.", "", "", -1, "#pray\r", 0},
		{"feverish, prayed lately: no prayer", "You feel feverish.", "", "", 400, "", 0},
		{"in a wererat's form: pray", "", "Agent the Wererat   St:16 Dx:15", "", -1, "#pray\r", 0},
		{"Overloaded: drop", "", "", "Dlvl:1 $:0 HP:5(5) Pw:2(2) AC:6 HD:2 T:500 Overloaded", 400, "", 'd'},
		{"Burdened: keep it", "", "", "Dlvl:1 $:0 HP:5(5) Pw:2(2) AC:6 HD:2 T:500 Burdened", 400, "", 0},
	} {
		a := NewScripted(BaseParameters())
		a.lastPray = tc.lastPray
		s := mapScreen(3, 1, nil, rows...)
		if tc.status != "" {
			s = withStatus(s, tc.status)
		}
		if tc.title != "" {
			copy(s.Grid[22][:], []rune(tc.title))
		}
		if tc.msg != "" {
			a.observe(tc.msg)
		}
		d := a.act(s, s.Status())
		if (d.keys == "#pray\r") != (tc.keys == "#pray\r") || d.item != tc.item {
			t.Errorf("%s: decision %+v, want keys %q item %q", tc.name, d, tc.keys, tc.item)
		}
	}
}

func TestLastOffered(t *testing.T) {
	for m, want := range map[string]byte{
		"What do you want to drop? [$a-d or ?*]": 'd',
		"What do you want to drop? [$beg or ?*]": 'g',
		"What do you want to drop? [$ or ?*]":    0,
		"You see here a dagger.":                 0,
	} {
		if got := lastOffered(m); got != want {
			t.Errorf("lastOffered(%q) = %q, want %q", m, got, want)
		}
	}
}

// A corridor's side is worth corridorSidePenalty less to search than a
// room's floor beside its wall with as much blank rock near; a corridor's
// dead end is worth more.
func TestCorridorSideSearchedLast(t *testing.T) {
	a := NewScripted(BaseParameters())
	s := mapScreen(3, 1, nil,
		"-----",
		"|...|     #",
		"|...+#####",
		"|...|",
		"-----",
	)
	a.act(s, s.Status())
	spot := func(x, y int) float64 {
		v, ok := a.spotScore(s, x, y)
		if !ok {
			t.Fatalf("(%d, %d) is no search spot", x, y)
		}
		return v - float64(blankNear(s, x, y, 3))
	}
	if room, side, end := spot(3, 2), spot(6, 2), spot(10, 1); room != 0 || side >= room || end != 15 {
		t.Errorf("a room's wall %v, a corridor's side %v, a dead end %v; want 0, below 0, 15", room, side, end)
	}
	if !strings.Contains(s.Row(3), "+#####") {
		t.Fatal("the map is not as drawn")
	}
}

// A hero standing on a '>' descends there, also when another '>' (the
// Gnomish Mines' or the main one) was seen first; not on the Mines'
// staircase it climbed back from.
func TestDescendOnAnyDownStairs(t *testing.T) {
	rows := []string{"----------", "|.>....>.|", "----------"}
	for _, tc := range []struct {
		name  string
		mines bool // (7, 1) is the Mines' '>' the agent left
		want  string
	}{
		{"on the second '>'", false, ">"},
		{"on the Mines' '>': walk to the other", true, "h"},
	} {
		a := NewScripted(BaseParameters().With("risk_tolerance", params.NumberValue(1)))
		s := mapScreen(6, 1, nil, rows...)
		a.act(s, s.Status()) // remembers the '>' east of the hero
		if tc.mines {
			a.minesStairs[a.level] = [2]int{7, 1}
		}
		s = mapScreen(7, 1, nil, "----------", "|.>....@.|", "----------")
		a.lastTravel = false
		if d := a.act(s, s.Status()); d.keys != tc.want {
			t.Errorf("%s: keys %q, want %q", tc.name, d.keys, tc.want)
		}
	}
}

// Legs too wounded to kick ("Your right leg is in no shape for
// kicking.") heal: a locked door is kicked again woundedLegsTurns game
// turns later, not never on that level.
func TestKickAfterLegsHeal(t *testing.T) {
	rows := []string{"-------", "|.@+..", "-------"}
	for _, tc := range []struct {
		name  string
		later int // game turns after the wound
		kick  bool
	}{
		{"legs just wounded", 0, false},
		{"legs healed", woundedLegsTurns, true},
	} {
		a := NewScripted(BaseParameters())
		s := mapScreen(2, 1, nil, rows...)
		a.act(s, s.Status())
		a.observe("Your right leg is in no shape for kicking.")
		a.act(s, s.Status())
		s = withStatus(mapScreen(2, 1, nil, rows...), "Dlvl:1 $:0 HP:16(16) Pw:2(2) AC:6 Xp:1/0 T:"+strconv.Itoa(500+tc.later))
		copy(s.Grid[0][:], []rune("This door is locked."))
		a.lastDir, a.lastX, a.lastY = 3, 2, 1 // tried east, into the door
		d := a.act(s, s.Status())
		if got := d.skill == "kick"; got != tc.kick {
			t.Errorf("%s: decision %+v, want kick %v", tc.name, d, tc.kick)
		}
	}
}

// An 'F' seen once stays on the agent's map while the hero does not see
// its square, so no path runs through it; it is forgotten once the
// square next to the hero shows something else.
func TestMoldRemembered(t *testing.T) {
	a := NewScripted(BaseParameters())
	s := mapScreen(1, 1, nil, "--------", "|.F....|", "--------")
	a.act(s, s.Status())
	for _, tc := range []struct {
		name  string
		hx    int
		row   string
		wantF bool
	}{
		{"out of sight: kept", 5, "|......|", true},
		{"next to the hero, gone: forgotten", 1, "|......|", false},
		{"out of sight again: still forgotten", 5, "|......|", false},
	} {
		s := mapScreen(tc.hx, 1, nil, "--------", tc.row, "--------")
		c := *s
		a.rememberMolds(&c, tc.hx, 1)
		if got := c.MapCell(2, 1) == 'F'; got != tc.wantF {
			t.Errorf("%s: 'F' on the map %v, want %v", tc.name, got, tc.wantF)
		}
	}
}
