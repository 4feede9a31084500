package nethack

import (
	"strings"

	"evolve/agent"
	"evolve/params"
)

// Scripted is the scripted NetHack player. It reads the screen and the
// policy parameters of agent.Schema (the dungeon agent's schema, so that
// the same base prompt and mutations apply):
//
//   - health_threshold: below this fraction of max HP the use_item skill
//     prays (when the prayer timeout allows, see canPray) or quaffs a
//     potion, the flee skill steps away from adjacent monsters, and the
//     agent rests (searches 10 turns) before exploring on;
//   - hunger_threshold: the eat skill eats from inventory once the hunger
//     state's level (hungerLevel: Satiated 0, not hungry 0.25, Hungry
//     0.5, Weak 0.75, Fainting 1) reaches it;
//   - max_exploration_steps: actions spent exploring a level before the
//     agent travels to a known down staircase '>' and descends;
//   - max_combat_attempts: attacks ('F' + direction) per encounter before
//     the fight skill gives up (and flee takes over);
//   - risk_tolerance: the fight skill engages a monster whose danger
//     (monsterDanger) is at most this, and the agent descends only with HP
//     above (1 - risk)/2 of its maximum;
//   - skill_priority: the order in which explore, fight, eat, use_item and
//     flee are tried each action; the first that applies acts.
//
// It is not safe for concurrent use; Reset it before each episode.
type Scripted struct {
	hp, hunger, risk float64
	explore, combat  int
	order            []string

	level      int                 // the Dlvl the memory below is of
	visited    [MapRows][Cols]bool // squares the hero stood on
	searched   [MapRows][Cols]bool // squares the hero searched from
	blocked    map[[3]int]bool     // (x, y, direction) moves that failed
	levelSteps int                 // actions on this level
	lastPray   int                 // game turn of the last prayer, -1 none
	noFood     bool                // the last eat found nothing to eat
	noPotion   bool                // the last quaff found nothing to drink
	attempts   int                 // attacks in the current encounter
	searches   int                 // searches on this level without news
	lastFight  int                 // action index of the last chosen attack, -1 none
	actions    int                 // actions so far
	lastX      int                 // hero position before the last move
	lastY      int
	lastDir    int           // direction of the last move, -1 if it was not a move
	stairs     [3]int        // x, y, Dlvl of the last '>' seen
	travelFail int           // travels to '>' that did not move the hero, this level
	kicks      int           // kicks at locked doors, this level
	peaceful   map[rune]bool // monster letters the game called peaceful ("Really attack?"), this level
	attackedAt rune          // the letter the last attack was aimed at
	lastTravel bool
}

// NewScripted returns a scripted player under policy p (valid for
// agent.Schema).
func NewScripted(p params.Set) *Scripted {
	a := &Scripted{
		hp: p.Number("health_threshold"), hunger: p.Number("hunger_threshold"), risk: p.Number("risk_tolerance"),
		explore: p.Int("max_exploration_steps"), combat: p.Int("max_combat_attempts"), order: p.Ordering("skill_priority"),
	}
	a.Reset()
	return a
}

// Reset forgets the last episode.
func (a *Scripted) Reset() {
	a.level = -1
	a.stairs = [3]int{-1, -1, -1}
	a.lastPray, a.lastFight, a.lastDir = -1, -1, -1
	a.noFood, a.noPotion = false, false
	a.attempts, a.actions = 0, 0
}

// The eight directions as vi-keys, with their offsets.
var (
	dirKeys = [8]byte{'h', 'j', 'k', 'l', 'y', 'u', 'b', 'n'}
	dirDX   = [8]int{-1, 0, 0, 1, -1, 1, -1, 1}
	dirDY   = [8]int{0, 1, -1, 0, -1, -1, 1, 1}
)

// hungerLevel maps the status line's hunger state to [0, 1] (0 satiated,
// 1 fainting), the scale of hunger_threshold.
func hungerLevel(h string) float64 {
	switch h {
	case "Satiated":
		return 0
	case "Hungry":
		return 0.5
	case "Weak":
		return 0.75
	case "Fainting", "Fainted":
		return 1
	}
	return 0.25
}

// isMonster reports whether map character c shows a monster (a letter,
// '@' other than the hero, '&', ':', ';', '\” or the remembered unseen
// monster 'I').
func isMonster(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '&' || c == ':' || c == ';' || c == '\''
}

// isPet reports whether c is taken for the pet: the Valkyrie's kitten
// grows into a housecat and a large cat, all 'f'. The agent never attacks
// an 'f' (moving into the pet swaps places).
func isPet(c rune) bool { return c == 'f' }

// monsterDanger estimates the danger of a monster letter in [0, 1]: a
// capital letter (giants, dragons, soldiers' class...) or '&' is
// dangerous, '@' (human) middling, a small letter mild.
func monsterDanger(c rune) float64 {
	switch {
	case c == '&':
		return 0.9
	case c >= 'A' && c <= 'Z':
		return 0.6
	case c == '@' || c == '\'':
		return 0.5
	}
	return 0.2
}

// passable reports whether the hero may walk onto map character c.
func passable(c rune) bool {
	switch c {
	case '.', '#', '<', '>', '{', '_', ')', '[', '%', '?', '!', '/', '=', '(', '"', '*', '$', '+', '`':
		return true
	}
	return isPet(c)
}

// cellPassable is passable with doors told from walls. With symset:plain
// a corner is '+', like a closed door: a '+' is a door only between two
// '|' (a vertical wall) or two '-' (a horizontal one). An open door shows
// as '-' in a vertical wall and '|' in a horizontal one, like a wall: a
// '-' with '|' above or below it (or walkable squares left and right) is
// a door, and a '|' with '-' left or right of it (or walkable squares
// above and below).
func cellPassable(s *Screen, x, y int) bool {
	c := s.MapCell(x, y)
	walk := func(c rune) bool { return c == '.' || c == '#' || c == '@' || isMonster(c) }
	l, r, u, d := s.MapCell(x-1, y), s.MapCell(x+1, y), s.MapCell(x, y-1), s.MapCell(x, y+1)
	switch c {
	case '+':
		return u == '|' && d == '|' || l == '-' && r == '-'
	case '-':
		return u == '|' || d == '|' || walk(l) && walk(r) && u != '.' && d != '.'
	case '|':
		return l == '-' || r == '-' || walk(u) && walk(d) && l != '.' && r != '.'
	}
	return passable(c)
}

// isDoor reports whether (x, y) is a door square, which no diagonal move
// may enter or leave.
func isDoor(s *Screen, x, y int) bool {
	c := s.MapCell(x, y)
	return (c == '+' || c == '-' || c == '|') && cellPassable(s, x, y)
}

// adjacentHostiles returns the directions of adjacent monsters taken for
// hostile (not the pet, not a letter found peaceful on this level, and not
// '@': early humans are mostly shopkeepers, watchmen and priests, whom an
// attack makes deadly) and the
// highest danger among them.
func (a *Scripted) adjacentHostiles(s *Screen, hx, hy int) (dirs []int, danger float64) {
	for d := 0; d < 8; d++ {
		c := s.MapCell(hx+dirDX[d], hy+dirDY[d])
		if isMonster(c) && !isPet(c) && !a.peaceful[c] && c != '@' {
			dirs = append(dirs, d)
			danger = max(danger, monsterDanger(c))
		}
	}
	return dirs, danger
}

// decision is one action of the agent: keys to send, the skill that chose
// them, and, for eat and quaff, the command whose object prompt the player
// answers with the first letter offered.
type decision struct {
	keys   string
	skill  string
	item   byte // 'e' or 'q': an object command; keys is then empty
	fight  bool // an attack the agent chose
	travel bool // travel to '>' and descend
}

// act returns the next action for screen s with status st.
func (a *Scripted) act(s *Screen, st Status) decision {
	a.actions++
	hx, hy, ok := s.Hero()
	if !ok {
		return decision{keys: "s", skill: "wait"}
	}
	if st.Dlvl != a.level {
		a.level = st.Dlvl
		a.visited = [MapRows][Cols]bool{}
		a.searched = [MapRows][Cols]bool{}
		a.blocked = map[[3]int]bool{}
		a.levelSteps, a.searches, a.travelFail = 0, 0, 0
		a.peaceful = map[rune]bool{}
		a.kicks = 0
	}
	if a.lastDir >= 0 && hx == a.lastX && hy == a.lastY {
		if strings.Contains(s.Row(0), "door is locked") && a.kicks < 8 {
			// Kick the locked door open (^D and the direction).
			a.kicks++
			d := a.lastDir
			a.lastDir = -1
			return decision{keys: "\x04" + string(dirKeys[d]), skill: "kick"}
		}
		a.blocked[[3]int{hx, hy, a.lastDir}] = true
	}
	if a.lastTravel && hx == a.lastX && hy == a.lastY {
		a.travelFail++
	}
	a.lastDir, a.lastTravel = -1, false
	a.visited[hy][hx] = true
	a.levelSteps++
	hpFrac := 1.0
	if st.MaxHP > 0 {
		hpFrac = float64(st.HP) / float64(st.MaxHP)
	}
	low := hpFrac < a.hp
	mons, danger := a.adjacentHostiles(s, hx, hy)
	if len(mons) == 0 {
		a.attempts = 0
	}
	danger = min(1, danger+0.4*(1-hpFrac))
	for _, sk := range a.order {
		if d, ok := a.try(sk, s, st, hx, hy, low, mons, danger); ok {
			return a.note(d, hx, hy)
		}
	}
	if len(mons) > 0 { // cornered: fight back
		a.attempts++
		a.lastFight = a.actions
		a.attackedAt = s.MapCell(hx+dirDX[mons[0]], hy+dirDY[mons[0]])
		return decision{keys: "F" + string(dirKeys[mons[0]]), skill: agent.SkillFight, fight: true}
	}
	return a.note(a.descend(s, st, hx, hy, hpFrac), hx, hy)
}

// notePeaceful is told that the game asked "Really attack?": the last
// attacked letter is peaceful on this level.
func (a *Scripted) notePeaceful() {
	if a.attackedAt != 0 && a.peaceful != nil {
		a.peaceful[a.attackedAt] = true
	}
}

// note remembers the move of d (to learn blocked moves).
func (a *Scripted) note(d decision, hx, hy int) decision {
	a.lastX, a.lastY = hx, hy
	if len(d.keys) == 1 {
		for i, k := range dirKeys {
			if d.keys[0] == k {
				a.lastDir = i
			}
		}
	}
	return d
}

// try returns skill sk's action if it applies.
func (a *Scripted) try(sk string, s *Screen, st Status, hx, hy int, low bool, mons []int, danger float64) (decision, bool) {
	switch sk {
	case agent.SkillFight:
		if len(mons) > 0 && danger <= a.risk && a.attempts < a.combat {
			a.attempts++
			a.lastFight = a.actions
			a.attackedAt = s.MapCell(hx+dirDX[mons[0]], hy+dirDY[mons[0]])
			return decision{keys: "F" + string(dirKeys[mons[0]]), skill: sk, fight: true}, true
		}
	case agent.SkillFlee:
		if len(mons) > 0 && (low || danger > a.risk || a.attempts >= a.combat) {
			if d, ok := a.fleeStep(s, hx, hy); ok {
				return decision{keys: string(dirKeys[d]), skill: sk}, true
			}
		}
	case agent.SkillEat:
		if a.wantsEat(st) {
			return decision{item: 'e', skill: sk}, true
		}
		// Weak from hunger is major trouble: with no food, pray.
		if a.noFood && hungerLevel(st.Hunger) >= 0.75 && hungerLevel(st.Hunger) >= a.hunger && prayerTimeoutOK(st, a.lastPray) {
			a.lastPray = st.T
			return decision{keys: "#pray\r", skill: sk}, true
		}
	case agent.SkillUseItem:
		if low {
			if canPray(st, a.lastPray) {
				a.lastPray = st.T
				return decision{keys: "#pray\r", skill: sk}, true
			}
			if !a.noPotion {
				return decision{item: 'q', skill: sk}, true
			}
		}
	case agent.SkillExplore:
		// Like the dungeon agent: exploring yields to eating when hungry
		// with food, and to an item or prayer when hurt.
		if len(mons) > 0 || a.wantsEat(st) || low && (canPray(st, a.lastPray) || !a.noPotion) {
			return decision{}, false
		}
		hpFrac := float64(st.HP) / float64(max(1, st.MaxHP))
		if low && hpFrac < 1 {
			return decision{keys: "10s", skill: sk}, true // rest
		}
		if a.levelSteps <= a.explore {
			if d, ok := a.frontierStep(s, hx, hy); ok {
				return decision{keys: string(dirKeys[d]), skill: sk}, true
			}
		}
		return a.descend(s, st, hx, hy, hpFrac), true
	}
	return decision{}, false
}

// wantsEat reports whether the hunger state reaches hunger_threshold and
// the agent may still carry food.
func (a *Scripted) wantsEat(st Status) bool {
	return !a.noFood && hungerLevel(st.Hunger) >= a.hunger && st.Hunger != "Satiated"
}

// canPray reports whether a prayer is likely safe: HP in "major trouble"
// (below 1/7 of max or below 6) and the prayer timeout likely below 200
// (it starts near 300 and falls by one a turn; a prayer resets it to about
// 350, so the agent waits 1000 turns between prayers).
func canPray(st Status, last int) bool {
	major := st.HP < 6 || st.HP*7 < st.MaxHP
	return major && prayerTimeoutOK(st, last)
}

// prayerTimeoutOK reports whether the prayer timeout is likely below 200:
// 150 turns into the game, or 1000 turns after the last prayer.
func prayerTimeoutOK(st Status, last int) bool {
	if last < 0 {
		return st.T >= 150
	}
	return st.T-last >= 1000
}

// descend heads for the down staircase: '>' under the hero descends, a
// known '>' is travelled to ('_' then '>' and '.'), otherwise the agent
// explores on or searches.
func (a *Scripted) descend(s *Screen, st Status, hx, hy int, hpFrac float64) decision {
	if hpFrac < (1-a.risk)/2 {
		return decision{keys: "10s", skill: "rest"}
	}
	if a.onStairs(s, hx, hy) {
		return decision{keys: ">", skill: "descend"}
	}
	if a.stairsKnown(s) {
		if a.travelFail%4 == 0 { // the game's travel, or our own path when it fails
			a.lastTravel = true
			return decision{keys: "_>.", skill: "descend", travel: true}
		}
		if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return x == a.stairs[0] && y == a.stairs[1] }); ok {
			a.travelFail++
			return decision{keys: string(dirKeys[d]), skill: "descend"}
		}
		a.travelFail++
	}
	if d, ok := a.frontierStep(s, hx, hy); ok {
		return decision{keys: string(dirKeys[d]), skill: agent.SkillExplore}
	}
	return a.search(s, hx, hy)
}

// search looks for hidden doors and corridors: it walks to the nearest
// square beside a wall or blank rock where it has not searched yet and
// searches there for 10 turns.
func (a *Scripted) search(s *Screen, hx, hy int) decision {
	a.searches++
	if !a.searched[hy][hx] && besideWall(s, hx, hy) {
		a.searched[hy][hx] = true
		return decision{keys: "10s", skill: "search"}
	}
	if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return !a.searched[y][x] && besideWall(s, x, y) }); ok {
		return decision{keys: string(dirKeys[d]), skill: "search"}
	}
	a.searched = [MapRows][Cols]bool{} // all searched once: start over
	return decision{keys: "10s", skill: "search"}
}

// besideWall reports whether a square borders a wall or blank rock.
func besideWall(s *Screen, x, y int) bool {
	for d := 0; d < 8; d++ {
		switch s.MapCell(x+dirDX[d], y+dirDY[d]) {
		case '|', '-', ' ':
			return true
		}
	}
	return false
}

// onStairs reports whether the hero stands on '>': the message "There is
// a staircase down here." or the square remembered under the hero.
func (a *Scripted) onStairs(s *Screen, hx, hy int) bool {
	return strings.Contains(s.Row(0), "staircase down here") || a.stairs[0] == hx && a.stairs[1] == hy && a.stairs[2] == a.level
}

func (a *Scripted) stairsKnown(s *Screen) bool {
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if s.MapCell(x, y) == '>' {
				a.stairs = [3]int{x, y, a.level}
				return true
			}
		}
	}
	return a.stairs[2] == a.level
}

// bfs runs a breadth-first search over passable squares from the hero and
// returns the first direction of a shortest path to the nearest square
// for which goal is true.
func (a *Scripted) bfs(s *Screen, hx, hy int, goal func(x, y int) bool) (int, bool) {
	var first [MapRows][Cols]int8
	var seen [MapRows][Cols]bool
	type pt struct{ x, y int }
	q := []pt{{hx, hy}}
	seen[hy][hx] = true
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		if (p.x != hx || p.y != hy) && goal(p.x, p.y) {
			return int(first[p.y][p.x]), true
		}
		for d := 0; d < 8; d++ {
			nx, ny := p.x+dirDX[d], p.y+dirDY[d]
			if nx < 0 || nx >= Cols || ny < 0 || ny >= MapRows || seen[ny][nx] {
				continue
			}
			if !cellPassable(s, nx, ny) || a.blocked[[3]int{p.x, p.y, d}] {
				continue
			}
			if d >= 4 && (isDoor(s, nx, ny) || isDoor(s, p.x, p.y)) {
				continue
			}
			seen[ny][nx] = true
			if p.x == hx && p.y == hy {
				first[ny][nx] = int8(d)
			} else {
				first[ny][nx] = first[p.y][p.x]
			}
			q = append(q, pt{nx, ny})
		}
	}
	return 0, false
}

// frontierStep is the first step towards the nearest square not yet
// stood on that borders unexplored blank.
func (a *Scripted) frontierStep(s *Screen, hx, hy int) (int, bool) {
	return a.bfs(s, hx, hy, func(x, y int) bool {
		if a.visited[y][x] {
			return false
		}
		if c := s.MapCell(x, y); c == '#' || c == '$' {
			return true
		}
		for d := 0; d < 8; d++ {
			if s.MapCell(x+dirDX[d], y+dirDY[d]) == ' ' && y+dirDY[d] >= 0 && y+dirDY[d] < MapRows {
				return true
			}
		}
		return false
	})
}

// fleeStep returns a direction to a passable square adjacent to no
// hostile monster, if any.
func (a *Scripted) fleeStep(s *Screen, hx, hy int) (int, bool) {
	for d := 0; d < 8; d++ {
		nx, ny := hx+dirDX[d], hy+dirDY[d]
		c := s.MapCell(nx, ny)
		if !cellPassable(s, nx, ny) || isPet(c) || a.blocked[[3]int{hx, hy, d}] {
			continue
		}
		if d >= 4 && (isDoor(s, nx, ny) || isDoor(s, hx, hy)) {
			continue
		}
		if m, _ := a.adjacentHostiles(s, nx, ny); len(m) == 0 {
			return d, true
		}
	}
	return 0, false
}
