package dungeon

// attack is one melee attack of a monster: Dice rolls of a Sides-sided die.
type attack struct{ Dice, Sides int }

// species is a monster kind, after NetHack 3.6's monst.c: level, speed
// (12 is the hero's), armour class (lower is better), melee attacks,
// nutrition of its corpse (0: leaves none worth eating) and generation
// difficulty (monstr.c), which bounds the depth at which it appears.
type species struct {
	Name       string
	Level      int
	Speed      int
	AC         int
	Attacks    []attack
	Nutrition  int
	Difficulty int
}

// bestiary is the monster table, ordered by difficulty. Numbers are
// NetHack 3.6's, with weapon attacks given the damage of a typical weapon.
var bestiary = []species{
	{"newt", 0, 6, 8, []attack{{1, 3}}, 20, 1},
	{"jackal", 0, 12, 7, []attack{{1, 2}}, 250, 1},
	{"sewer rat", 0, 12, 7, []attack{{1, 3}}, 12, 1},
	{"kobold", 0, 6, 10, []attack{{1, 4}}, 100, 1},
	{"goblin", 0, 6, 10, []attack{{1, 6}}, 50, 1},
	{"giant rat", 1, 10, 7, []attack{{1, 3}}, 30, 2},
	{"coyote", 1, 12, 7, []attack{{1, 3}}, 250, 2},
	{"hobbit", 1, 9, 10, []attack{{1, 6}}, 200, 2},
	{"gnome", 1, 6, 10, []attack{{1, 6}}, 100, 3},
	{"homunculus", 2, 12, 6, []attack{{1, 3}}, 100, 3},
	{"hill orc", 1, 9, 10, []attack{{1, 6}}, 200, 4},
	{"giant ant", 2, 18, 3, []attack{{1, 4}}, 10, 4},
	{"dwarf", 2, 6, 10, []attack{{1, 8}}, 300, 4},
	{"gnome lord", 3, 8, 10, []attack{{1, 8}}, 120, 4},
	{"rothe", 2, 9, 7, []attack{{1, 3}, {1, 3}, {1, 8}}, 100, 4},
	{"mordor orc", 3, 5, 10, []attack{{1, 6}}, 200, 5},
	{"dwarf lord", 4, 6, 10, []attack{{2, 4}, {2, 4}}, 300, 6},
	{"soldier ant", 3, 18, 3, []attack{{2, 4}, {3, 4}}, 5, 6},
	{"gnome king", 5, 10, 10, []attack{{2, 6}}, 150, 6},
	{"wolf", 5, 12, 4, []attack{{2, 4}}, 250, 7},
	{"owlbear", 5, 12, 5, []attack{{1, 6}, {1, 6}, {2, 8}}, 700, 7},
	{"soldier", 6, 10, 10, []attack{{1, 8}}, 400, 8},
	{"leocrotta", 6, 18, 4, []attack{{2, 6}, {2, 6}, {2, 6}}, 500, 8},
	{"troll", 7, 12, 4, []attack{{4, 2}, {4, 2}, {2, 6}}, 800, 9},
}

// meanDamage is the expected damage per monster move if every attack hits.
func (s *species) meanDamage() float64 {
	m := 0.0
	for _, a := range s.Attacks {
		m += float64(a.Dice) * float64(a.Sides+1) / 2
	}
	return m
}

// experience is the experience points for killing a monster of this
// species, after NetHack 3.6's exper.c: 1 + level^2, +5 for speed of 18 or
// more (+3 above 12), +level for each attack whose maximum damage exceeds
// 23, and +50 for level 9 and above (a simplification of the
// "extra_nasty" and level bonuses).
func (s *species) experience() int {
	e := 1 + s.Level*s.Level
	switch {
	case s.Speed >= 18:
		e += 5
	case s.Speed > 12:
		e += 3
	}
	for _, a := range s.Attacks {
		if a.Dice*a.Sides > 23 {
			e += s.Level
		}
	}
	if s.Level >= 9 {
		e += 50
	}
	return e
}
