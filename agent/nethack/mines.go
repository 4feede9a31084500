package nethack

import (
	"strings"

	nh "evolve/envs/nethack"
)

// The Gnomish Mines. Their entrance is a second down staircase on Dlvl 2,
// 3 or 4, and their levels are caves full of gnomes, dwarves and gnome
// lords, hostile to a human Valkyrie and armed (picks, crossbows, wands):
// in the scripted agent's games they killed more low-level heroes than
// anything else (about two deaths in five on the quick config's val
// seeds). The agent keeps to the main Dungeons of Doom: when it arrives
// on a level that looks like the Mines it climbs back at once, and on the
// level above it never takes that staircase again.

// minesMaxDlvl is the deepest level that can be the Mines' first: the
// entrance is on Dlvl 2 to 4 (dungeon.def), so the first Mines level is
// Dlvl 3 to 5.
const minesMaxDlvl = 5

// minesLike reports whether screen s shows a Mines level: cave walls,
// drawn as many short segments, so that corners ('+' with a horizontal
// and a vertical wall beside it, symset:plain) are at least 3 in 10 of
// the other wall squares; at least 6 corners; and at most 2 corridor
// squares ('#'), which a Mines level has none of. The rooms of the main
// dungeon have 4 corners to a wall of 20 squares and more, and corridors.
// The thresholds were set by eye on the last screens of 400 games of the
// quick config (its first 200 val seeds, risk 0 and 1): most games that
// ended at Dlvl 3 to 5 killed by a gnome or a dwarf show a corner ratio
// of 0.27 or more, screens of rooms and corridors 0.1 to 0.2; a level
// seen only in part can show anything. The rule is not checked against
// the game's own dungeon overview (^O), which names the Mines.
func minesLike(s *Screen) bool {
	corners, walls, corridors := 0, 0, 0
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			switch s.MapCell(x, y) {
			case '+':
				if !cellPassable(s, x, y) {
					corners++
				}
			case '-', '|':
				walls++
			case '#':
				corridors++
			}
		}
	}
	return corners >= 6 && corners*10 >= 3*walls && corridors <= 2
}

// leaveMines returns the way back up from a level that looks like the
// Mines, seen within the first minesLookSteps actions on a level reached
// by a descent to Dlvl 3 to minesMaxDlvl: '<' on the up staircase (where
// a descent by '>' puts the hero), else a step toward a '<' on the map.
func (a *Scripted) leaveMines(s *Screen, st Status, hx, hy int) (decision, bool) {
	if !a.cameDown || st.Dlvl < 3 || st.Dlvl > minesMaxDlvl || a.levelSteps > minesLookSteps || !minesLike(s) {
		return decision{}, false
	}
	if a.mem[hy][hx] == '<' || strings.Contains(s.Row(0), "staircase up here") || a.byStairs && a.arrival == [2]int{hx, hy} {
		a.upFromMines = st.Dlvl
		return decision{keys: "<", skill: "leave_mines"}, true
	}
	if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return s.MapCell(x, y) == '<' }); ok {
		return decision{keys: string(nh.DirKeys[d]), skill: "leave_mines"}, true
	}
	return decision{}, false
}

// minesLookSteps is how many actions into a level the agent may still
// decide that it is the Mines and climb back.
const minesLookSteps = 30

// avoidStairs reports whether (x, y) on the current level is the Mines'
// staircase, which the agent climbed back from.
func (a *Scripted) avoidStairs(x, y int) bool {
	p, ok := a.minesStairs[a.level]
	return ok && p == [2]int{x, y}
}
