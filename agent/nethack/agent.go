package nethack

import (
	"math"
	"strconv"
	"strings"

	"evolve/agent"
	nh "evolve/envs/nethack"
	"evolve/params"
)

// Scripted is the scripted NetHack player. It reads the screen, the
// messages of each action (observe) and the policy parameters of Schema:
//
//   - health_threshold: below this fraction of max HP the use_item skill
//     quaffs a potion, the flee skill steps away from adjacent monsters
//     (or engraves Elbereth, see elbereth), and the agent rests (searches
//     10 turns) before exploring on;
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
//     flee are tried each action; the first that applies acts;
//   - search_turns: turns searched at each dead end or wall spot;
//   - eat_corpses: when to eat a safe fresh corpse (safeCorpse);
//   - pray_hp_fraction: the use_item skill prays below this HP fraction
//     (or HP at most 5) when prayer is safe (canPray);
//   - elbereth: engrave Elbereth when low with nowhere to flee.
//
// Whatever the priority, rules that no skill order may defeat come first:
// Weak or worse from hunger prays when prayer is safe, else eats carried
// food; lycanthropy prays when prayer is safe; Overloaded or Overtaxed
// drops the last item; HP below pray_hp_fraction prays when prayer is
// safe; food seen underfoot is picked up; a floating eye or mold named
// by farlook gets the dagger thrown at it; a level that looks like the Gnomish Mines is
// left by the stairs it was reached by (mines.go); after stillLimit
// actions that took no game time the agent waits. The pet (Screen.Pet: the game's
// own highlighting) is never attacked, nor a monster whose touch harms
// the attacker (passive: floating eyes and spheres 'e', blobs and cubes
// 'b', cockatrices 'c', molds 'F' other than a lichen that holds the
// hero); a cockatrice is fled from and never eaten.
//
// It is not safe for concurrent use; Reset it before each episode.
type Scripted struct {
	hp, hunger, risk, prayFrac float64
	explore, combat, searchN   int
	eatCorpses, elbereth       string
	order                      []string

	level      int                  // the Dlvl the memory below is of
	visited    [MapRows][Cols]bool  // squares the hero stood on
	searched   [MapRows][Cols]uint8 // rounds of search_turns searched from each square
	engraved   [MapRows][Cols]bool  // squares where the hero engraved Elbereth
	blocked    map[[3]int]int       // (x, y, direction) moves that failed: the action index they failed at
	levelSteps int                  // actions on this level
	lastPray   int                  // game turn of the last prayer, -1 none
	noFood     bool                 // the last eat found nothing to eat
	noPotion   bool                 // the last quaff found nothing to drink
	attempts   int                  // attacks in the current encounter
	searches   int                  // searches on this level without news
	lastFight  int                  // action index of the last chosen attack, -1 none
	actions    int                  // actions so far
	lastX      int                  // hero position before the last move
	lastY      int
	lastDir    int           // direction of the last move, -1 if it was not a move
	stairs     [3]int        // x, y, Dlvl of the last '>' seen
	travelFail int           // travels to '>' that did not move the hero, this level
	kicks      int           // kicks at locked doors, this level
	kickAfter  int           // the game turn before which legs too wounded to kick heal
	peaceful   map[rune]bool // monster letters the game called peaceful ("Really attack?"), this level
	attackedAt rune          // the letter the last attack was aimed at
	attackX    int           // the square the last attack was aimed at
	attackY    int
	lastTravel bool
	// travelEnd is where the last travel to '>' left the hero (x -1
	// none); noTravel the action index before which the game's travel is
	// not used: a travel that ends where the last one did, or says "no
	// travel path", is stopped short of the stairs (a boulder it will not
	// push, a room it cannot find a way into), and using it again would
	// only walk the hero back there.
	travelEnd [2]int
	noTravel  int
	goal      [2]int              // the frontier square exploring heads for (frontierStep), x -1 none
	molds     [MapRows][Cols]bool // squares where an 'F' was seen and not seen gone (rememberMolds)
	flees     []int               // action indices of the flee skill's steps, the last fleeWindow actions
	lycan     bool                // the hero caught lycanthropy ("You feel feverish") and was not cured
	// The Gnomish Mines (mines.go): cameDown is true when this level was
	// reached by a descent, upFromMines the Dlvl the agent last climbed
	// from as the Mines (0 none), minesStairs the '>' into the Mines, by
	// Dlvl.
	cameDown    bool
	upFromMines int
	minesStairs map[int][2]int
	arrival     [2]int // where the hero arrived on this level; on the up staircase after a '>' (byStairs)
	byStairs    bool
	lastKeys    string // the keys of the last action
	// mem is the map as last seen without a monster or the hero on it:
	// what lies under the hero (a door, a corridor) for the geometry.
	mem [MapRows][Cols]rune

	turn         int               // the game turn of the last status seen
	stillActions int               // actions since the game turn last changed
	msgs         []string          // messages since the last action (observe)
	trapped      bool              // a trap holds the hero (a trap message since it last moved)
	petKilled    bool              // the hero killed its pet: Luck is low and prayer fails
	lichen       int               // action index of the last message naming a lichen, -100 none
	strong       bool              // HP at least 20 and 4/5 of the maximum: may fight blobs and molds
	hpNow        int               // HP on the last status line
	noDagger     bool              // the last throw found no dagger to throw
	doorMsg      bool              // the last action's messages explain a failed move (a door opened, a pet in the way)
	lookAt       [3]int            // the square and glyph the last farlook (';') asked about, x -1 none
	looks        map[[3]int]string // what farlook named on this level, by square and glyph ("lichen", "floating eye")
	seeHere      string            // the single object underfoot ("You see here X."), "" none
	corpses      []corpse          // corpses of monsters the hero killed on this level
}

// corpse is a kill that may have left a corpse: the monster's name as
// the game wrote it, where it died and the game turn.
type corpse struct {
	name  string
	x, y  int
	turn  int
	tried bool // the agent tried to eat it
}

// stillLimit is how many actions in a row may take no game time before
// the agent waits instead.
const stillLimit = 40

// woundedLegsTurns is how many game turns the agent waits to kick again
// after "Your legs are in no shape for kicking": a bear trap wounds them
// for 10 to 19 turns (trap.c, set_wounded_legs), other causes longer.
const woundedLegsTurns = 50

// maxKicks is the most kicks at locked doors per level (a kick opens a
// door with a chance that grows with Str and Dex; "WHAMM!" is a miss).
const maxKicks = 20

// freshTurns is the age in game turns up to which a corpse is fresh.
// NetHack rots a corpse by age/(10 + rn2(20)) and taints it above 5, so
// at most 30 turns old it is neither tainted nor rotten (eat.c, rottenfood
// and cprefx; the NetHack wiki, "Corpse").
const freshTurns = 30

// NewScripted returns a scripted player under policy p (valid for
// Schema).
func NewScripted(p params.Set) *Scripted {
	a := &Scripted{
		hp: p.Number("health_threshold"), hunger: p.Number("hunger_threshold"), risk: p.Number("risk_tolerance"),
		explore: p.Int("max_exploration_steps"), combat: p.Int("max_combat_attempts"), order: p.Ordering("skill_priority"),
		searchN: p.Int("search_turns"), eatCorpses: p.Enum("eat_corpses"), prayFrac: p.Number("pray_hp_fraction"),
		elbereth: p.Enum("elbereth"),
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
	a.turn, a.msgs, a.trapped, a.petKilled, a.lichen, a.seeHere, a.corpses = 0, nil, false, false, -100, "", nil
	a.strong, a.noDagger, a.lookAt = false, false, [3]int{-1, -1, 0}
	a.cameDown, a.upFromMines, a.minesStairs, a.stillActions = false, 0, map[int][2]int{}, 0
	a.flees, a.lycan, a.kickAfter = nil, false, 0
}

// observe is told each message line the game shows (every --More--
// page included) between two actions.
func (a *Scripted) observe(m string) {
	m = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m), "--More--"))
	if m == "" || len(a.msgs) > 0 && a.msgs[len(a.msgs)-1] == m {
		return
	}
	a.msgs = append(a.msgs, m)
}

// readMessages updates the agent's memory from the messages of the last
// action.
func (a *Scripted) readMessages(hx, hy int) {
	a.doorMsg = false
	for _, m := range a.msgs {
		if strings.Contains(m, "no shape for kicking") {
			// Wounded legs (a bear trap's: 10 to 19 turns, trap.c)
			// heal: kick again later, not never on this level.
			a.kickAfter = a.turn + woundedLegsTurns
		}
		if strings.Contains(m, "door") && !strings.Contains(m, "locked") || strings.Contains(m, "You stop") || strings.Contains(m, "in the way") {
			// "The door opens.", "The door is stuck.", "You stop. Your
			// little dog is in the way.": the move did not fail for good.
			a.doorMsg = true
		}
		switch {
		case strings.Contains(m, "You kill the poor") || strings.Contains(m, "You hear the shrieks") ||
			strings.Contains(m, "You feel guilty") || strings.Contains(m, "You hear the studio audience boo"):
			a.petKilled = true
		case heldByTrap(m):
			a.trapped = true
		case strings.Contains(m, "You feel feverish"):
			a.lycan = true // bitten by a lycanthrope
		case strings.Contains(m, "You feel purified"):
			a.lycan = false // a prayer cured it
		}
		if strings.Contains(m, "lichen") {
			a.lichen = a.actions
		}
		if strings.Contains(m, "without hands") {
			a.noDagger = true // polymorphed ("You can't throw or shoot without hands.")
		}
		if strings.Contains(m, "attack a statue") && a.looks != nil && a.lastFight >= a.actions-2 {
			// "You harmlessly attack a statue.": a statue shows as its
			// monster's letter; from now on it is floor.
			a.looks[[3]int{a.attackX, a.attackY, int(a.attackedAt)}] = "statue"
		}
		for _, p := range []string{"You kill the ", "You destroy the "} {
			if i := strings.Index(m, p); i >= 0 && a.lastFight >= a.actions-2 {
				name := strings.TrimRight(m[i+len(p):], "!.")
				if j := strings.IndexAny(name, "!."); j >= 0 {
					name = name[:j]
				}
				a.corpses = append(a.corpses, corpse{name: name, x: a.attackX, y: a.attackY, turn: a.turn})
			}
		}
		if a.lookAt[0] >= 0 && len(m) > 2 && m[1] == ' ' {
			// Farlook's answer: the glyph, blanks, the description
			// ("F       a lichen", "d       tame little dog").
			a.looks[a.lookAt] = lookName(m[1:])
			a.lookAt = [3]int{-1, -1, 0}
		}
		if rest, ok := strings.CutPrefix(m, "You see here "); ok {
			a.seeHere = strings.TrimSuffix(rest, ".")
		}
		if strings.Contains(m, " - ") && foodItem(m[strings.Index(m, " - ")+3:]) {
			a.noFood = false // picked up food: "d - a food ration."
		}
	}
	a.msgs = a.msgs[:0]
}

// heldByTrap reports whether message m says a trap holds the hero (the
// agent's wider list; causes.go's trapMessage quotes the message as
// evidence).
func heldByTrap(m string) bool {
	for _, w := range []string{"bear trap", "You are caught", "You are stuck", "stuck to the web", "in a pit", "crawl to the edge of the pit", "cannot pull", "You are still in a pit", "held by", "cannot escape from"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// safeCorpse reports whether a fresh corpse of the named monster is safe
// for a low-level human Valkyrie to eat. The rule, from the NetHack wiki's
// "Corpse" and "Comestible" pages: never a cockatrice or chickatrice
// (stoning), Medusa, a green slime, a lycanthrope ("were": lycanthropy),
// a zombie or mummy (old corpses), a human or elf (cannibalism: the agent
// only eats what it killed, and it never attacks '@'), a kitten, dog or
// cat (aggravate monster); nor, avoidable at low level, the poisonous
// (kobolds, homunculus, soldier ants, bees, scorpions, centipedes,
// snakes, rabid rats, giant beetles, quasits, yellow molds, blue jellies),
// the acidic (acid blobs, green molds, spotted jellies), the stunning or
// hallucinogenic (bats, violet fungi), the polymorphing or teleporting
// (chameleons, quantum mechanics), mimics, and disenchanters.
func safeCorpse(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"cockatrice", "chickatrice", "medusa", "green slime", "were", "zombie", "mummy",
		"human", "elf", "kitten", "dog", "housecat", "large cat", "kobold", "homunculus", "soldier ant",
		"bee", "scorpion", "centipede", "snake", "cobra", "viper", "python", "moccasin", "rabid rat", "beetle",
		"quasit", "yellow mold", "blue jelly", "acid blob", "green mold", "spotted jelly", "bat",
		"violet fungus", "chameleon", "quantum mechanic", "mimic", "disenchanter", "ghoul"} {
		if strings.Contains(n, w) {
			return false
		}
	}
	return n != ""
}

// foodItem reports whether an object named s (as in "You see here a food
// ration." or "d - 2 apples.") is food safe to carry and eat: the
// comestibles that never rot, and no corpse, egg or tin (eggs may be a
// cockatrice's, tins take many turns to open).
func foodItem(s string) bool {
	s = strings.ToLower(s)
	if strings.Contains(s, "for sale") || strings.Contains(s, "unpaid") || strings.Contains(s, "corpse") || strings.Contains(s, "egg") || strings.Contains(s, " tin") || strings.HasPrefix(s, "tin") {
		return false
	}
	for _, w := range []string{"food ration", "cram ration", "lembas wafer", "k-ration", "c-ration", "fortune cookie",
		"apple", "orange", "pear", "melon", "banana", "carrot", "slime mold", "candy bar", "tripe ration",
		"meatball", "meat stick", "huge chunk of meat", "meat ring", "pancake", "kelp frond", "eucalyptus leaf",
		"sprig of wolfsbane", "clove of garlic", "lump of royal jelly", "cream pie"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

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

// passive reports whether meleeing monster letter c harms the attacker
// (its passive response) or touching it is deadly: 'e' (a floating eye
// paralyses, a gas spore explodes, spheres explode), 'b' (an acid blob
// corrodes, a gelatinous cube paralyses), 'c' (a cockatrice stones) and
// 'F' (molds burn, freeze, sting or corrode). The agent never attacks
// one; a lichen ('F') that holds the hero is the exception (lichenHolds).
func passive(c rune) bool { return c == 'e' || c == 'b' || c == 'c' || c == 'F' }

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

// passable reports whether the hero may walk onto map character c (a
// boulder, '0' or '`', is pushed).
func passable(c rune) bool {
	switch c {
	case '.', '#', '<', '>', '{', '_', ')', '[', '%', '?', '!', '/', '=', '(', '"', '*', '$', '+', '`', '0', '^':
		return true
	}
	return false
}

// walkable is passable for square (x, y), with the pet's square
// walkable (moving into the pet swaps places).
func walkable(s *Screen, x, y int) bool { return s.Pet(x, y) || cellPassable(s, x, y) }

// cellPassable is passable with doors told from walls. With symset:plain
// a corner is '+', like a closed door (corner tells them). An open door
// shows as '-' in a vertical wall and '|' in a horizontal one, like a wall: a
// '-' with '|' above or below it (or walkable squares left and right) is
// a door, and a '|' with '-' left or right of it (or walkable squares
// above and below).
func cellPassable(s *Screen, x, y int) bool {
	c := s.MapCell(x, y)
	walk := func(c rune) bool { return c == '.' || c == '#' || c == '@' || nh.IsMonster(c) }
	l, r, u, d := s.MapCell(x-1, y), s.MapCell(x+1, y), s.MapCell(x, y-1), s.MapCell(x, y+1)
	switch c {
	case '+':
		return !corner(s, x, y)
	case '-':
		return u == '|' || d == '|' || walk(l) && walk(r) && u != '.' && d != '.'
	case '|':
		return l == '-' || r == '-' || walk(u) && walk(d) && l != '.' && r != '.'
	case '^':
		return false // a known trap: walked around
	}
	return passable(c)
}

// corner reports whether the '+' at (x, y) is a wall's corner rather
// than a closed door. A corner joins a horizontal wall ('-', or '+' for
// a corner or door) left or right of it and a vertical one ('|' or '+')
// above or below it; a door sits inside a straight wall, with a wall on
// both sides of it along one axis. A wall's square next to the corner
// may be a doorway ('.') or an open door (drawn across the wall: '|' in a
// horizontal wall), seen as a wall when the wall goes on beyond it:
// "+.-" under "|..", which reading the doorway as floor took for a door.
// A '+' beside no wall is a door seen from a corridor, its walls unseen.
func corner(s *Screen, x, y int) bool {
	h := func(c rune) bool { return c == '-' || c == '+' }
	v := func(c rune) bool { return c == '|' || c == '+' }
	l, r, u, d := s.MapCell(x-1, y), s.MapCell(x+1, y), s.MapCell(x, y-1), s.MapCell(x, y+1)
	if h(l) && h(r) || v(u) && v(d) {
		return false
	}
	// hw and vw: a wall, or a doorway or open door with the wall beyond.
	hw := func(c rune, dx int) bool { return h(c) || (c == '.' || c == '|') && h(s.MapCell(x+2*dx, y)) }
	vw := func(c rune, dy int) bool { return v(c) || (c == '.' || c == '-') && v(s.MapCell(x, y+2*dy)) }
	return (hw(l, -1) || hw(r, 1)) && (vw(u, -1) || vw(d, 1))
}

// isDoor reports whether (x, y) is a door square, which no diagonal move
// may enter or leave.
func isDoor(s *Screen, x, y int) bool {
	c := s.MapCell(x, y)
	return (c == '+' || c == '-' || c == '|') && cellPassable(s, x, y)
}

// adjacentHostiles returns the directions of adjacent monsters the agent
// may fight (not the pet, not a letter found peaceful on this level, not
// '@': early humans are mostly shopkeepers, watchmen and priests, whom an
// attack makes deadly, and not a passive monster, though a strong hero
// may fight a blob 'b' or a mold 'F': their passive harm is at most 4d6)
// and the highest danger
// among them; threat reports an adjacent cockatrice, to flee from.
func (a *Scripted) adjacentHostiles(s *Screen, hx, hy int) (dirs []int, danger float64, threat bool) {
	for d := 0; d < 8; d++ {
		x, y := hx+nh.DirDX[d], hy+nh.DirDY[d]
		c := s.MapCell(x, y)
		if !nh.IsMonster(c) || s.Pet(x, y) || a.peaceful[c] || c == '@' {
			continue
		}
		if c == 'c' {
			threat = true
		}
		if passive(c) && !a.mayFight(c, a.looks[[3]int{x, y, int(c)}]) {
			continue
		}
		dirs = append(dirs, d)
		if c == 'F' && strings.Contains(a.looks[[3]int{x, y, int(c)}], "lichen") {
			continue // a lichen only sticks: no danger, whatever the letter's class
		}
		danger = max(danger, monsterDanger(c))
	}
	return dirs, danger, threat
}

// mayFight reports whether the agent may melee passive monster letter c
// that farlook named name ("" if not looked at): a lichen, a brown mold
// (cold: a Valkyrie resists it), a quivering blob always; an acid blob,
// a yellow or red mold with HP at least 15; never a floating eye, gas
// spore, sphere, green mold (4d6 acid), gelatinous cube (paralysis) or
// cockatrice. Unnamed, a blob or mold only when strong, an 'F' also when
// a lichen was named lately (lichenHolds).
func (a *Scripted) mayFight(c rune, name string) bool {
	hp15 := a.hpNow >= 15
	switch {
	case c == 'c' || c == 'e' || name == "":
	case strings.Contains(name, "lichen"), strings.Contains(name, "brown mold"), strings.Contains(name, "quivering blob"):
		return true
	case strings.Contains(name, "acid blob"), strings.Contains(name, "yellow mold"), strings.Contains(name, "red mold"):
		return hp15
	default:
		return false
	}
	return name == "" && (c == 'F' && a.lichenHolds() || (c == 'b' || c == 'F') && a.strong)
}

// lookName returns the monster's name in a farlook description: without
// the article and "tame" or "peaceful", and without any bracketed note.
//
// The game answers "F        a fungus or mold (lichen)": the class, then
// the monster in parentheses ("(peaceful acid blob)"); a statue reads
// "... or statue (a statue of a lichen)" and is named "statue".
func lookName(d string) string {
	d = strings.TrimSpace(d)
	if i := strings.IndexByte(d, '('); i >= 0 {
		d = strings.TrimSuffix(d[i+1:], ")")
		if j := strings.IndexByte(d, ')'); j >= 0 {
			d = d[:j]
		}
	}
	if strings.Contains(d, "statue of") {
		return "statue"
	}
	for _, p := range []string{"a ", "an ", "the ", "tame ", "peaceful "} {
		d = strings.TrimPrefix(d, p)
	}
	return d
}

// look returns a farlook (';', the direction, '.') at an adjacent passive
// monster not yet named on this level, if any.
func (a *Scripted) look(s *Screen, hx, hy int) (decision, bool) {
	for d := 0; d < 8; d++ {
		x, y := hx+nh.DirDX[d], hy+nh.DirDY[d]
		c := s.MapCell(x, y)
		if !passive(c) || s.Pet(x, y) {
			continue
		}
		k := [3]int{x, y, int(c)}
		if _, ok := a.looks[k]; ok {
			continue
		}
		a.looks[k] = "" // asked once
		a.lookAt = k
		return decision{keys: ";" + string(nh.DirKeys[d]) + ".", skill: "look"}, true
	}
	return decision{}, false
}

// lichenHolds reports whether a lichen was named in the last 20 actions'
// messages: an 'F' that touches the hero is a lichen (molds never move or
// attack), and one that sticks to it must be killed.
func (a *Scripted) lichenHolds() bool { return a.actions-a.lichen <= 20 }

// decision is one action of the agent: keys to send, the skill that chose
// them, and, for an object command, the command whose prompts the player
// answers (play loop's do).
type decision struct {
	keys   string
	skill  string
	item   byte // 'e' eat, 'q' quaff, ',' pick up, 'E' engrave Elbereth, 't' throw the dagger (keys: the direction)
	corpse bool // with item 'e': eat the fresh corpse underfoot (its name is checked again)
	fight  bool // an attack the agent chose
	travel bool // travel to '>' and descend
}

// act returns the next action for screen s with status st.
func (a *Scripted) act(s *Screen, st Status) decision {
	a.actions++
	if st.OK {
		if st.T != a.turn {
			a.stillActions = 0
		}
		a.stillActions++
		a.turn = st.T
	}
	hx, hy, ok := s.Hero()
	if !ok {
		a.msgs = a.msgs[:0]
		return decision{keys: "s", skill: "wait"}
	}
	if st.Dlvl != a.level {
		a.newLevel(st, hx, hy)
	}
	a.remember(s)
	s = a.geometry(s, hx, hy)
	moved := hx != a.lastX || hy != a.lastY
	wasTrapped := a.trapped
	if moved {
		a.trapped = false
		a.seeHere = ""
	}
	if a.lastTravel {
		a.noteTravel(hx, hy)
	}
	a.readMessages(hx, hy)
	for k, n := range a.looks { // s is the copy made above
		if n == "statue" && s.MapCell(k[0], k[1]) == rune(k[2]) {
			s.Grid[k[1]+1][k[0]] = '.'
		}
	}
	a.rememberMolds(s, hx, hy)
	if moved && wasTrapped {
		clear(a.blocked) // out of the trap: its failed moves say nothing of the map
	}
	if a.lastDir >= 0 && !moved {
		tx, ty := hx+nh.DirDX[a.lastDir], hy+nh.DirDY[a.lastDir]
		switch {
		case strings.Contains(s.Row(0), "door is locked") && a.kicks < maxKicks && a.turn >= a.kickAfter:
			// Kick the locked door open (^D and the direction).
			a.kicks++
			d := a.lastDir
			a.lastDir = -1
			return decision{keys: "\x04" + string(nh.DirKeys[d]), skill: "kick"}
		case a.trapped, a.doorMsg, nh.IsMonster(s.MapCell(tx, ty)):
			// Held by a trap, a door opened (or stuck), or a monster in
			// the way: the way itself may be open.
		default:
			a.blocked[[3]int{hx, hy, a.lastDir}] = a.actions
		}
	}
	if a.lastTravel && !moved {
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
	a.strong, a.hpNow = st.HP >= 20 && st.HP*5 >= st.MaxHP*4, st.HP
	if d, ok := a.look(s, hx, hy); ok {
		return a.note(d, hx, hy)
	}
	mons, danger, threat := a.adjacentHostiles(s, hx, hy)
	if len(mons) == 0 {
		a.attempts = 0
	}
	danger = min(1, danger+0.4*(1-hpFrac))
	if threat {
		danger = 1 // a cockatrice: flee whatever the risk
	}
	if d, ok := a.override(s, st, hx, hy); ok {
		return a.note(d, hx, hy)
	}
	if d, ok := a.leaveMines(s, st, hx, hy); ok && len(mons) == 0 {
		return a.note(d, hx, hy)
	}
	if a.stillActions > stillLimit {
		// The last actions took no game time: the game refuses them (a
		// polymorphed hero without hands at a door, a command cancelled).
		// Let time pass instead: a polymorph wears off, a monster moves.
		a.stillActions = 0
		return a.note(decision{keys: "20s", skill: "wait"}, hx, hy)
	}
	if r := s.Row(23); strings.Contains(r, " Conf") || strings.Contains(r, " Stun") {
		// Confused or stunned, a move or attack goes astray (into the
		// pet, into water): wait it out.
		return a.note(decision{keys: "s", skill: "wait"}, hx, hy)
	}
	for _, sk := range a.order {
		if d, ok := a.try(sk, s, st, hx, hy, low, mons, danger); ok {
			return a.note(d, hx, hy)
		}
	}
	if len(mons) > 0 { // cornered: fight back, unless Elbereth holds them off
		if a.engraved[hy][hx] && low {
			return a.note(decision{keys: "s", skill: "rest"}, hx, hy)
		}
		return a.note(a.attack(s, hx, hy, mons[0], agent.SkillFight), hx, hy)
	}
	return a.note(a.descend(s, st, hx, hy, hpFrac), hx, hy)
}

// rememberMolds keeps the 'F's of this level on the map of s (the
// agent's copy): a mold never moves, but in a dark corridor, or behind a
// door seen from beside it, the game shows it only while the hero sees
// it; the paths then ran through its square whenever it was out of
// sight, and the hero stepped toward it and away again for hundreds of
// turns. An 'F' is forgotten once its square shows something else next
// to the hero (seen for sure: a lichen, the one 'F' that walks, moved
// on, or it was killed), and never kept over a statue.
func (a *Scripted) rememberMolds(s *Screen, hx, hy int) {
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			c := s.MapCell(x, y)
			switch {
			case c == 'F' && !s.Pet(x, y):
				a.molds[y][x] = true
			case !a.molds[y][x]:
			case max(abs(x-hx), abs(y-hy)) <= 1 || a.looks[[3]int{x, y, 'F'}] == "statue":
				a.molds[y][x] = false
			case !nh.IsMonster(c):
				s.Grid[y+1][x] = 'F'
			}
		}
	}
}

// abs returns |n|.
func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// newLevel forgets the last level's memory: the hero at (hx, hy) has
// arrived on Dlvl st.Dlvl.
func (a *Scripted) newLevel(st Status, hx, hy int) {
	a.cameDown = a.level >= 0 && st.Dlvl > a.level
	a.arrival, a.byStairs = [2]int{hx, hy}, a.lastKeys == ">"
	if a.upFromMines > 0 && st.Dlvl == a.upFromMines-1 {
		a.minesStairs[st.Dlvl] = [2]int{hx, hy} // arrived on the Mines' '>'
	}
	a.upFromMines = 0
	a.level = st.Dlvl
	a.visited = [MapRows][Cols]bool{}
	a.searched = [MapRows][Cols]uint8{}
	a.mem = [MapRows][Cols]rune{}
	a.engraved = [MapRows][Cols]bool{}
	a.blocked = map[[3]int]int{}
	a.levelSteps, a.searches, a.travelFail = 0, 0, 0
	a.travelEnd, a.noTravel, a.goal = [2]int{-1, -1}, 0, [2]int{-1, -1}
	a.molds = [MapRows][Cols]bool{}
	a.peaceful = map[rune]bool{}
	a.kicks = 0
	a.corpses = nil
	a.trapped = false
	a.looks = map[[3]int]string{}
}

// geometry returns the copy of s that the agent plans on. It reads the
// square under the hero (hx, hy), not its glyph, and a blank square as
// what was last seen there (mem): without color the game draws the
// floor of a dark room or of the Gnomish Mines blank once out of sight
// (display.c shows S_stone for an unlit floor it does not see), which
// would wall the hero into the squares it sees.
func (a *Scripted) geometry(s *Screen, hx, hy int) *Screen {
	c := *s
	if u := a.mem[hy][hx]; u != 0 {
		c.Grid[hy+1][hx] = u
	}
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if c.Grid[y+1][x] == ' ' && a.mem[y][x] != 0 {
				c.Grid[y+1][x] = a.mem[y][x]
			}
		}
	}
	return &c
}

// remember updates mem from s: every map square that shows neither a
// monster, the hero nor blank.
func (a *Scripted) remember(s *Screen) {
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if c := s.MapCell(x, y); c != ' ' && !nh.IsMonster(c) && !(x == s.CursorX && y == s.CursorY-1) {
				a.mem[y][x] = c
			}
		}
	}
}

// override returns the actions no skill order may defeat: when Weak or
// worse from hunger, pray if prayer is safe, else eat carried food; pray
// when HP is below pray_hp_fraction and prayer is safe (canPray); pick
// up food seen underfoot.
func (a *Scripted) override(s *Screen, st Status, hx, hy int) (decision, bool) {
	if hungerLevel(st.Hunger) >= 0.75 {
		if a.prayerSafe(st) {
			a.lastPray = st.T
			return decision{keys: "#pray\r", skill: agent.SkillEat}, true
		}
		if !a.noFood {
			return decision{item: 'e', skill: agent.SkillEat}, true
		}
	}
	if strings.Contains(s.Row(22), " the Were") {
		a.lycan = true // in a lycanthrope's animal form: "Agent the Wererat"
	}
	if a.lycan && a.prayerSafe(st) {
		// Lycanthropy is major trouble: a safe prayer cures it and
		// turns a hero in animal form back into a human (pray.c,
		// fix_worst_trouble). In animal form the hero can carry next to
		// nothing and keeps its form for 500 to 1000 turns. (A prayer
		// too soon angers the god: Luck -3 and a lost level or worse.)
		a.lastPray = st.T
		return decision{keys: "#pray\r", skill: agent.SkillUseItem}, true
	}
	if r := s.Row(23); strings.Contains(r, "Overloaded") || strings.Contains(r, "Overtaxed") {
		// Too heavily loaded to move (a hero turned into a rat carries
		// its whole pack): drop the last item until it can.
		return decision{item: 'd', skill: agent.SkillUseItem}, true
	}
	if a.canPray(st) {
		// Low HP is major trouble: a safe prayer heals fully, whatever
		// skill would act first (a fight would go on to the death).
		a.lastPray = st.T
		return decision{keys: "#pray\r", skill: agent.SkillUseItem}, true
	}
	if a.seeHere != "" && (foodItem(a.seeHere) || a.seeHere == "a dagger") {
		if a.seeHere == "a dagger" {
			a.noDagger = false
		}
		a.seeHere = ""
		return decision{item: ',', skill: agent.SkillEat}, true
	}
	// A floating eye must not be meleed, and one in a corridor blocks
	// the way: throw the dagger at it (picked up again later). A gas
	// spore looks the same and explodes for at most 4d6: only with HP
	// above 24.
	if !a.noDagger && st.HP > 24 {
		for d := 0; d < 8; d++ {
			x, y := hx+nh.DirDX[d], hy+nh.DirDY[d]
			if n := a.looks[[3]int{x, y, 'e'}]; s.MapCell(x, y) == 'e' && !s.Pet(x, y) && !a.peaceful['e'] && (n == "" || n == "floating eye") {
				return decision{item: 't', keys: string(nh.DirKeys[d]), skill: agent.SkillFight}, true
			}
		}
	}
	// A floating eye named by farlook cannot explode: throw at any HP. A
	// mold never moves and harms only what touches it, so one in the way
	// is killed by the dagger too.
	if !a.noDagger {
		for d := 0; d < 8; d++ {
			x, y := hx+nh.DirDX[d], hy+nh.DirDY[d]
			c := s.MapCell(x, y)
			if n := a.looks[[3]int{x, y, int(c)}]; (c == 'e' && n == "floating eye" || c == 'F' && strings.Contains(n, " mold")) && !s.Pet(x, y) && !a.peaceful[c] {
				return decision{item: 't', keys: string(nh.DirKeys[d]), skill: agent.SkillFight}, true
			}
		}
	}
	return decision{}, false
}

// attack returns the attack ('F' and a direction) on the monster in
// direction d, remembered for the kill's corpse.
func (a *Scripted) attack(s *Screen, hx, hy, d int, skill string) decision {
	a.attempts++
	a.lastFight = a.actions
	a.attackX, a.attackY = hx+nh.DirDX[d], hy+nh.DirDY[d]
	a.attackedAt = s.MapCell(a.attackX, a.attackY)
	return decision{keys: "F" + string(nh.DirKeys[d]), skill: skill, fight: true}
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
	a.lastX, a.lastY, a.lastKeys = hx, hy, d.keys
	if len(d.keys) == 1 {
		for i, k := range nh.DirKeys {
			if d.keys[0] == k {
				a.lastDir = i
			}
		}
	}
	if d.item == 'E' {
		a.engraved[hy][hx] = true
	}
	return d
}

// try returns skill sk's action if it applies.
func (a *Scripted) try(sk string, s *Screen, st Status, hx, hy int, low bool, mons []int, danger float64) (decision, bool) {
	switch sk {
	case agent.SkillFight:
		if len(mons) > 0 && danger <= a.risk && a.attempts < a.combat {
			return a.attack(s, hx, hy, mons[0], sk), true
		}
	case agent.SkillFlee:
		if len(mons) > 0 && (low || danger > a.risk || a.attempts >= a.combat) {
			if d, ok := a.fleeStep(s, hx, hy); ok && (low || danger >= 1 || !a.fleeStale()) {
				a.flees = append(a.flees, a.actions)
				if len(a.flees) > 2*fleeLimit {
					a.flees = a.flees[len(a.flees)-fleeLimit:] // the older ones cannot make flight stale
				}
				return decision{keys: string(nh.DirKeys[d]), skill: sk}, true
			}
			if low && a.elbereth == ElberethLow && !a.engraved[hy][hx] {
				return decision{item: 'E', skill: sk}, true
			}
		}
	case agent.SkillEat:
		if d, ok := a.eatCorpse(s, st, hx, hy, len(mons) > 0); ok {
			return d, true
		}
		if a.wantsEat(st) {
			return decision{item: 'e', skill: sk}, true
		}
	case agent.SkillUseItem:
		if a.canPray(st) {
			a.lastPray = st.T
			return decision{keys: "#pray\r", skill: sk}, true
		}
		if low && !a.noPotion {
			return decision{item: 'q', skill: sk}, true
		}
	case agent.SkillExplore:
		// Like the dungeon agent: exploring yields to eating when hungry
		// with food, and to an item or prayer when hurt.
		if len(mons) > 0 || a.wantsEat(st) || a.canPray(st) || low && !a.noPotion {
			return decision{}, false
		}
		if _, ok := a.eatCorpse(s, st, hx, hy, false); ok {
			return decision{}, false
		}
		hpFrac := float64(st.HP) / float64(max(1, st.MaxHP))
		if low && hpFrac < 1 {
			return decision{keys: "10s", skill: sk}, true // rest
		}
		if a.levelSteps <= a.explore {
			if d, ok := a.frontierStep(s, hx, hy); ok {
				return decision{keys: string(nh.DirKeys[d]), skill: sk}, true
			}
		}
		return a.descend(s, st, hx, hy, hpFrac), true
	}
	return decision{}, false
}

// fleeWindow and fleeLimit: fleeLimit flee steps within fleeWindow
// actions mean the monster does not pursue, and the hero only comes back
// to it to explore on (a grid bug, a slow zombie, a peaceful dwarf in a
// corridor): flight is stale, and unless HP is low or the danger is 1
// (a cockatrice) the hero fights it as when cornered (a peaceful one is then
// learnt from "Really attack?" and explored past).
const (
	fleeWindow = 20
	fleeLimit  = 4
)

// fleeStale reports whether the flee skill stepped away fleeLimit times
// within the last fleeWindow actions.
func (a *Scripted) fleeStale() bool {
	n := 0
	for _, at := range a.flees {
		if a.actions-at < fleeWindow {
			n++
		}
	}
	return n >= fleeLimit
}

// eatCorpse returns the step toward, or the eating of, a fresh safe
// corpse of a monster the hero killed on this level, when eat_corpses
// and the hunger state call for one and no monster is adjacent.
func (a *Scripted) eatCorpse(s *Screen, st Status, hx, hy int, fighting bool) (decision, bool) {
	switch {
	case fighting || a.eatCorpses == EatNever || st.Hunger == "Satiated":
	case a.eatCorpses == EatHungry && hungerLevel(st.Hunger) < 0.5:
	default:
		for i := range a.corpses {
			c := &a.corpses[i]
			if c.tried || st.T-c.turn > freshTurns || !safeCorpse(c.name) {
				continue
			}
			if c.x == hx && c.y == hy {
				c.tried = true
				return decision{item: 'e', corpse: true, skill: agent.SkillEat}, true
			}
			if s.MapCell(c.x, c.y) != '%' {
				continue
			}
			if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return x == c.x && y == c.y }); ok {
				return decision{keys: string(nh.DirKeys[d]), skill: agent.SkillEat}, true
			}
		}
	}
	return decision{}, false
}

// freshCorpse reports whether the corpse the game names underfoot
// ("There is a jackal corpse here; eat it?") is one the agent may eat: a
// fresh kill of that name on this square, safe by safeCorpse.
func (a *Scripted) freshCorpse(prompt string, hx, hy int) bool {
	for _, c := range a.corpses {
		if c.x == hx && c.y == hy && a.turn-c.turn <= freshTurns && safeCorpse(c.name) &&
			strings.Contains(prompt, " "+c.name+" corpse") {
			return true
		}
	}
	return false
}

// wantsEat reports whether the hunger state reaches hunger_threshold and
// the agent may still carry food.
func (a *Scripted) wantsEat(st Status) bool {
	return !a.noFood && hungerLevel(st.Hunger) >= a.hunger && st.Hunger != "Satiated"
}

// canPray reports whether the agent prays for its HP: below
// pray_hp_fraction of the maximum or at most 5 (the game's "major
// trouble" is HP below 1/7 or at most 5), and prayer is safe.
func (a *Scripted) canPray(st Status) bool {
	low := st.HP <= 5 || float64(st.HP) < a.prayFrac*float64(st.MaxHP)
	return low && st.MaxHP > 0 && a.prayerSafe(st)
}

// prayerSafe reports whether a prayer is likely to succeed: the pet was
// not killed (that costs Luck, and the god is then displeased) and the
// prayer timeout is likely low (prayerTimeoutOK).
func (a *Scripted) prayerSafe(st Status) bool {
	return !a.petKilled && prayerTimeoutOK(st, a.lastPray)
}

// prayerTimeoutOK reports whether the prayer timeout is likely below 200,
// low enough for a prayer in major trouble: 150 turns into the game (it
// starts at 300 and falls by one a turn), or 1000 turns after the last
// prayer (which sets it to about 350, rnz(350)).
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
		if _, mines := a.minesStairs[a.level]; a.travelFail%4 == 0 && !mines && a.actions >= a.noTravel { // the game's travel (which may pick the Mines' '>'), or our own path when it fails
			a.lastTravel = true
			return decision{keys: "_>.", skill: "descend", travel: true}
		}
		if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return x == a.stairs[0] && y == a.stairs[1] }); ok {
			a.travelFail++
			return decision{keys: string(nh.DirKeys[d]), skill: "descend"}
		}
		a.travelFail++
	}
	if d, ok := a.frontierStep(s, hx, hy); ok {
		return decision{keys: string(nh.DirKeys[d]), skill: agent.SkillExplore}
	}
	return a.search(s, hx, hy)
}

// travelPause is how many actions the game's travel rests after it
// ended short of the stairs twice at one square or found no path.
const travelPause = 200

// noteTravel is told where the last travel to '>' left the hero: at the
// square the travel before it ended on, or with "no travel path" among
// its messages (the game then walks the hero straight toward the stairs
// and stops), the travel is not used for travelPause actions.
func (a *Scripted) noteTravel(hx, hy int) {
	noPath := false
	for _, m := range a.msgs {
		noPath = noPath || strings.Contains(m, "no travel path")
	}
	if noPath || a.travelEnd == [2]int{hx, hy} {
		a.noTravel = a.actions + travelPause
	}
	a.travelEnd = [2]int{hx, hy}
}

// deadEndRounds is how many rounds of search_turns the agent searches at
// a dead end before it counts as searched (a wall spot gets one):
// players search a dead end 10 to 15 turns and more before giving up.
const deadEndRounds = 2

// corridorSidePenalty lowers the score of a search spot in the middle of
// a corridor: NetHack hides one door in eight (mklev.c, dodoor) but only
// one corridor square in a hundred (sp_lev.c, dig_corridor), so the
// blank rock beside a corridor rarely hides anything, while its many
// blank squares drew the search there before any room's wall.
const corridorSidePenalty = 10

// search looks for hidden doors and corridors. Of the squares it can
// reach that are not yet searched (a dead end: a corridor end or a door
// with only rock beyond, searched fewer than deadEndRounds times; or a
// square beside a wall or blank rock, never searched) it picks the one
// with the best score (spotScore): the blank squares within 3 of it
// (where a hidden part of the level may lie), plus 15 for a dead end,
// less corridorSidePenalty for a corridor square that is none, minus
// half its path length. There it searches for search_turns turns; on its way it
// steps toward it. With every spot searched it starts over.
func (a *Scripted) search(s *Screen, hx, hy int) decision {
	a.searches++
	keys := strconv.Itoa(a.searchN) + "s"
	dist, first := a.reach(s, hx, hy)
	best, bx, by := math.Inf(-1), -1, -1
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if dist[y][x] < 0 {
				continue
			}
			score, ok := a.spotScore(s, x, y)
			if !ok {
				continue
			}
			score -= float64(dist[y][x]) / 2
			if score > best {
				best, bx, by = score, x, y
			}
		}
	}
	switch {
	case bx < 0:
		a.searched = [MapRows][Cols]uint8{} // all searched: start over
		return decision{keys: keys, skill: "search"}
	case bx == hx && by == hy:
		a.searched[hy][hx]++
		return decision{keys: keys, skill: "search"}
	}
	return decision{keys: string(nh.DirKeys[first[by][bx]]), skill: "search"}
}

// spotScore returns the worth of searching from (x, y), before the walk
// there, and whether it is a spot to search at all: a dead end searched
// fewer than deadEndRounds times scores 15, a square beside a wall or
// blank rock never searched 0, less corridorSidePenalty for a corridor
// square; plus the blank squares within 3 (blankNear).
func (a *Scripted) spotScore(s *Screen, x, y int) (float64, bool) {
	score := 0.0
	switch {
	case a.deadEnd(s, x, y) && a.searched[y][x] < deadEndRounds:
		score = 15
	case a.searched[y][x] == 0 && besideWall(s, x, y):
		if s.MapCell(x, y) == '#' {
			// A corridor's side: a hidden corridor branches off it far
			// less often than a room's wall hides a door.
			score = -corridorSidePenalty
		}
	default:
		return 0, false
	}
	return score + float64(blankNear(s, x, y, 3)), true
}

// blankNear counts the blank (unexplored) map squares within r of (x, y)
// (Chebyshev distance).
func blankNear(s *Screen, x, y, r int) int {
	n := 0
	for yy := max(0, y-r); yy <= min(MapRows-1, y+r); yy++ {
		for xx := max(0, x-r); xx <= min(Cols-1, x+r); xx++ {
			if s.Grid[yy+1][xx] == ' ' {
				n++
			}
		}
	}
	return n
}

// reach returns the path length from the hero to every square it can
// reach over walkable squares (-1 if none; 0 for its own) and the first
// direction of a shortest path there, by the same rules as bfs.
func (a *Scripted) reach(s *Screen, hx, hy int) (dist [MapRows][Cols]int16, first [MapRows][Cols]int8) {
	for y := range dist {
		for x := range dist[y] {
			dist[y][x] = -1
		}
	}
	type pt struct{ x, y int }
	q := []pt{{hx, hy}}
	dist[hy][hx] = 0
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		for d := 0; d < 8; d++ {
			nx, ny := p.x+nh.DirDX[d], p.y+nh.DirDY[d]
			if nx < 0 || nx >= Cols || ny < 0 || ny >= MapRows || dist[ny][nx] >= 0 {
				continue
			}
			if !walkable(s, nx, ny) || a.isBlocked(p.x, p.y, d) {
				continue
			}
			if d >= 4 && (isDoor(s, nx, ny) || isDoor(s, p.x, p.y)) {
				continue
			}
			dist[ny][nx] = dist[p.y][p.x] + 1
			if p.x == hx && p.y == hy {
				first[ny][nx] = int8(d)
			} else {
				first[ny][nx] = first[p.y][p.x]
			}
			q = append(q, pt{nx, ny})
		}
	}
	return dist, first
}

// deadEnd reports whether (x, y) is a corridor square ('#') with at most
// one passable neighbour, or a door with only blank rock outside: where
// hidden corridors continue.
func (a *Scripted) deadEnd(s *Screen, x, y int) bool {
	if isDoor(s, x, y) {
		for d := 0; d < 4; d++ {
			if c := s.MapCell(x+nh.DirDX[d], y+nh.DirDY[d]); c == '#' {
				return false
			}
		}
		return true
	}
	if s.MapCell(x, y) != '#' {
		return false
	}
	n := 0
	for d := 0; d < 8; d++ {
		if cellPassable(s, x+nh.DirDX[d], y+nh.DirDY[d]) {
			n++
		}
	}
	return n <= 1
}

// blockedTTL is how many actions a failed move stays known: a move that
// failed for a reason the map does not show (a diagonal squeeze, a stuck
// boulder) is not tried again soon, but never forgotten for the whole
// level, which could wall the agent in.
const blockedTTL = 200

// isBlocked reports whether the move from (x, y) in direction d failed
// within blockedTTL actions.
func (a *Scripted) isBlocked(x, y, d int) bool {
	at, ok := a.blocked[[3]int{x, y, d}]
	return ok && a.actions-at < blockedTTL
}

// besideWall reports whether a square borders a wall or blank rock.
func besideWall(s *Screen, x, y int) bool {
	for d := 0; d < 8; d++ {
		switch s.MapCell(x+nh.DirDX[d], y+nh.DirDY[d]) {
		case '|', '-', ' ':
			return true
		}
	}
	return false
}

// onStairs reports whether the hero stands on '>': the message "There is
// a staircase down here.", the last '>' seen (stairs), or a '>' seen
// under the hero (mem): with two '>' on a level (the Gnomish Mines'
// and the main one) stairs holds only the first, and a hero standing on
// the other travelled to the first and back for hundreds of turns.
func (a *Scripted) onStairs(s *Screen, hx, hy int) bool {
	if a.avoidStairs(hx, hy) {
		return false
	}
	return strings.Contains(s.Row(0), "staircase down here") || a.stairs[0] == hx && a.stairs[1] == hy && a.stairs[2] == a.level ||
		a.mem[hy][hx] == '>'
}

func (a *Scripted) stairsKnown(s *Screen) bool {
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if s.MapCell(x, y) == '>' && !a.avoidStairs(x, y) {
				a.stairs = [3]int{x, y, a.level}
				return true
			}
		}
	}
	return a.stairs[2] == a.level && !a.avoidStairs(a.stairs[0], a.stairs[1])
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
			nx, ny := p.x+nh.DirDX[d], p.y+nh.DirDY[d]
			if nx < 0 || nx >= Cols || ny < 0 || ny >= MapRows || seen[ny][nx] {
				continue
			}
			if !walkable(s, nx, ny) || a.isBlocked(p.x, p.y, d) {
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

// frontierStep is the first step towards a square not yet stood on
// that borders unexplored blank (frontier): the one it headed for last
// (goal) while that is still a frontier it can reach, else the nearest.
// Keeping the goal stops a dither between two goals whose paths a
// monster blocks only while the hero sees it (a floating eye or a mold
// in a dark corridor shows only next to the hero): choosing the nearest
// afresh each step, the hero stepped toward one, saw the monster, turned
// to the other, lost sight of it and turned back, for hundreds of turns.
func (a *Scripted) frontierStep(s *Screen, hx, hy int) (int, bool) {
	if g := a.goal; g[0] >= 0 && a.frontier(s, g[0], g[1]) {
		if d, ok := a.bfs(s, hx, hy, func(x, y int) bool { return x == g[0] && y == g[1] }); ok {
			return d, true
		}
	}
	a.goal = [2]int{-1, -1}
	return a.bfs(s, hx, hy, func(x, y int) bool {
		if a.frontier(s, x, y) {
			a.goal = [2]int{x, y}
			return true
		}
		return false
	})
}

// frontier reports whether (x, y) is a square not yet stood on that is
// a corridor, gold or food, or borders unexplored blank.
func (a *Scripted) frontier(s *Screen, x, y int) bool {
	if a.visited[y][x] {
		return false
	}
	if c := s.MapCell(x, y); c == '#' || c == '$' || c == '%' {
		return true
	}
	for d := 0; d < 8; d++ {
		if s.MapCell(x+nh.DirDX[d], y+nh.DirDY[d]) == ' ' && y+nh.DirDY[d] >= 0 && y+nh.DirDY[d] < MapRows {
			return true
		}
	}
	return false
}

// fleeStep returns a direction to a passable square adjacent to no
// hostile monster, if any.
func (a *Scripted) fleeStep(s *Screen, hx, hy int) (int, bool) {
	for d := 0; d < 8; d++ {
		nx, ny := hx+nh.DirDX[d], hy+nh.DirDY[d]
		if !cellPassable(s, nx, ny) || s.Pet(nx, ny) || a.isBlocked(hx, hy, d) {
			continue
		}
		if d >= 4 && (isDoor(s, nx, ny) || isDoor(s, hx, hy)) {
			continue
		}
		if m, _, threat := a.adjacentHostiles(s, nx, ny); len(m) == 0 && !threat {
			return d, true
		}
	}
	return 0, false
}
