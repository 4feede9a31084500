package dungeon

import ()

// Hero constants, after a NetHack 3.6 Valkyrie with a +1 long sword.
const (
	heroStartHP   = 16
	heroAC        = 6
	heroHitBonus  = 4 // 1 (base) + 1 (Luck/abon) + 2 (weapon): to-hit = bonus + monster AC + XL
	heroDamageMin = 4 // d8 + 3 (+1 weapon, +2 strength)
	heroDamageDie = 8

	startNutrition  = 900
	maxNutrition    = 1200 // eating beyond this is wasted (NetHack chokes above 2000)
	weakNutrition   = 50   // below: Weak (-1 damage)
	heroCon         = 16
	starveNutrition = -(100 + 10*heroCon) // death by starvation below this
	rationNutrition = 800
	rationTurns     = 5

	maxMonsters = 24
	maxFood     = 16
	spawnChance = 70 // a new monster appears with probability 1/70 each turn
	sightRange  = 2  // in corridors the hero sees monsters this far
)

type monster struct {
	sp     *species
	pos    int
	hp     int
	awake  bool
	chase  bool // has noticed the hero
	fought bool // the hero attacked it in the current encounter
}

// game is one episode of the dungeon. It implements Episode.
type game struct {
	cfg Config

	seed uint64
	play rng // all in-play randomness
	lvl  level

	seen      [N]bool
	visits    [N]uint16 // hero visits per cell on this level, for searching
	monAt     [N]int8   // index+1 of the monster on a cell, 0 if none
	mons      [maxMonsters]monster
	nmon      int
	food      [maxFood]int // nutrition of each carried food item
	nfood     int
	potions   int
	gold      int
	pos       int
	hp, maxHP int
	xl, exp   int
	nutrition int

	depth, deepest int
	turn           int
	levelTurn      int
	sinceProgress  int
	helpless       int // turns left fainted
	eatLeft        int // turns left of the current meal
	eatPerTurn     int // nutrition gained per meal turn
	eatRest        int // nutrition of the meal not yet eaten

	kills         int
	end           EndReason
	killedBy      string
	inChosenFight bool
	lastAction    Action
	actions       [NumActions]int

	// frontier bookkeeping: target[c] caches isTarget(c) for seen cells,
	// targets counts them, mapVer changes whenever either may change.
	target  [N]bool
	targets int
	mapVer  uint32

	// the current plan: a path to planGoal computed at map version planVer
	plan     [N]int16
	planLen  int
	planIdx  int
	planGoal int
	planVer  uint32

	// scratch for breadth-first search, reused every call
	dist  [N]int16
	stamp [N]uint32
	queue [N]int16
	from  [N]int16
	epoch uint32
}

var _ Episode = (*game)(nil)

// Reset starts a new episode from seed: level 1, full HP, 900 nutrition,
// no food and one potion of healing.
func (g *game) Reset(seed uint64) {
	g.seed = seed
	g.play = rng{mix64(seed ^ 0x5eed0f9a1a7)}
	g.hp, g.maxHP = heroStartHP, heroStartHP
	g.xl, g.exp = 1, 0
	g.nutrition = startNutrition
	g.nfood = 0
	g.potions = 1
	g.gold = 0
	g.turn = 0
	g.helpless, g.eatLeft, g.eatPerTurn, g.eatRest = 0, 0, 0, 0
	g.kills = 0
	g.end = EndNone
	g.killedBy = ""
	g.inChosenFight = false
	g.lastAction = ActWait
	g.actions = [NumActions]int{}
	g.deepest = 0
	g.enterLevel(1)
}

// enterLevel generates level d (a pure function of seed and d), places the
// hero on its arrival cell and populates it with monsters.
func (g *game) enterLevel(d int) {
	g.depth = d
	if d > g.deepest {
		g.deepest = d
	}
	lr := levelRNG(g.seed, d)
	g.lvl.generate(&lr, d)
	g.seen = [N]bool{}
	g.visits = [N]uint16{}
	g.target = [N]bool{}
	g.targets = 0
	g.mapVer++
	g.planLen = 0
	g.monAt = [N]int8{}
	g.nmon = 0
	g.levelTurn = 0
	g.sinceProgress = 0
	g.pos = g.lvl.start
	// Initial monsters: 1 + d/3 + rnd(2), none in the arrival room.
	n := 1 + d/3 + g.play.intn(2)
	for i := 0; i < n; i++ {
		g.spawn(true)
	}
	g.look()
}

// levelRNG returns the generator of level depth of the episode with seed:
// a level never depends on what happened before it was entered.
func levelRNG(seed uint64, depth int) rng {
	return rng{mix64(seed) ^ mix64(uint64(depth)*0x9e3779b97f4a7c15)}
}

// difficultyRange is the range of monster difficulty generated at the
// current depth and experience level (NetHack 3.6 makemon.c: max
// (depth + XL) / 2, min depth / 6).
func (g *game) difficultyRange() (lo, hi int) {
	hi = (g.depth + g.xl) / 2
	if hi < 1 {
		hi = 1
	}
	lo = g.depth / 6
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// spawn places one new monster on a free floor cell out of the hero's view.
// Monsters made with the level are asleep half the time.
func (g *game) spawn(initial bool) {
	if g.nmon == maxMonsters {
		return
	}
	lo, hi := g.difficultyRange()
	// bestiary is sorted by difficulty: pick uniformly in [lo, hi].
	first, last := -1, -1
	for i := range bestiary {
		d := bestiary[i].Difficulty
		if d >= lo && d <= hi {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		first, last = 0, 0
	}
	sp := &bestiary[first+g.play.intn(last-first+1)]
	heroRoom := g.lvl.room[g.pos]
	for try := 0; try < 20; try++ {
		r := g.play.intn(g.lvl.nrooms)
		if int8(r) == heroRoom {
			continue
		}
		c := g.lvl.randomCell(&g.play, r)
		if g.monAt[c] != 0 || c == g.pos {
			continue
		}
		hp := g.play.rnd(4)
		if sp.Level > 0 {
			hp = g.play.dice(sp.Level, 8)
		}
		g.mons[g.nmon] = monster{sp: sp, pos: c, hp: hp, awake: !initial || g.play.intn(2) == 0}
		g.nmon++
		g.monAt[c] = int8(g.nmon)
		return
	}
}

// look marks what the hero sees from its cell as seen: the 8 neighbours,
// and the whole of a lit room (with its walls) when standing in one. A new
// walkable cell seen counts as progress.
func (g *game) look() {
	fresh := false
	mark := func(c int) {
		if !g.seen[c] {
			g.seen[c] = true
			g.mapVer++
			g.updateTarget(c)
			for k := 0; k < 8; k++ {
				if n, ok := neighbour(c, k); ok {
					g.updateTarget(n)
				}
			}
			if g.lvl.tile[c] != rock {
				fresh = true
			}
		}
	}
	x, y := g.pos%W, g.pos/W
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			nx, ny := x+dx, y+dy
			if nx >= 0 && nx < W && ny >= 0 && ny < H {
				mark(ny*W + nx)
			}
		}
	}
	if r := g.lvl.room[g.pos]; r >= 0 {
		rc := g.lvl.rooms[r]
		if !g.seen[rc.y0*W+rc.x0] || !g.seen[rc.y1*W+rc.x1] {
			for yy := rc.y0 - 1; yy <= rc.y1+1; yy++ {
				for xx := rc.x0 - 1; xx <= rc.x1+1; xx++ {
					if xx >= 0 && xx < W && yy >= 0 && yy < H {
						mark(yy*W + xx)
					}
				}
			}
		}
	}
	if fresh {
		g.sinceProgress = 0
	}
}

// visible reports whether the hero sees a monster at cell c: in the same
// lit room, or within sightRange.
func (g *game) visible(c int) bool {
	if r := g.lvl.room[g.pos]; r >= 0 && g.lvl.room[c] == r {
		return true
	}
	return cheb(c, g.pos) <= sightRange
}

func cheb(a, b int) int {
	dx, dy := abs(a%W-b%W), abs(a/W-b/W)
	if dx > dy {
		return dx
	}
	return dy
}

// walkable reports whether c is inside the map and not rock.
func (g *game) walkable(c int) bool { return g.lvl.tile[c] != rock }

// neighbours of a cell in a fixed order (N, NE, E, SE, S, SW, W, NW), so
// that ties are broken the same way on every run.
var nbrDX = [8]int{0, 1, 1, 1, 0, -1, -1, -1}
var nbrDY = [8]int{-1, -1, 0, 1, 1, 1, 0, -1}

func neighbour(c, k int) (int, bool) {
	n := nbrTab[c][k]
	return int(n), n >= 0
}

// nbrTab[c][k] is cell c's neighbour in direction k, -1 off the map: a
// table instead of a division and a modulo by W per call (the hottest
// line of the scripted agent's path finding and field of view).
var nbrTab = func() (t [N][8]int16) {
	for c := range N {
		for k := range 8 {
			x, y := c%W+nbrDX[k], c/W+nbrDY[k]
			t[c][k] = -1
			if x >= 0 && x < W && y >= 0 && y < H {
				t[c][k] = int16(y*W + x)
			}
		}
	}
	return t
}()

// Observe fills o with what the hero sees. See Observation.
func (g *game) Observe(o *Observation) {
	o.HP, o.MaxHP = g.hp, g.maxHP
	o.Hunger = hungerFraction(g.nutrition)
	o.Food, o.Potions = g.nfood, g.potions
	o.Depth, o.LevelTurns = g.depth, g.levelTurn
	o.Eating = g.eatLeft > 0
	o.StairsKnown = g.seen[g.lvl.stairs]
	o.FrontierLeft = g.frontierLeft()
	o.ThreatDist, o.Adjacent, o.Danger, o.CanFlee = 0, 0, 0, false
	best := -1
	for i := 0; i < g.nmon; i++ {
		m := &g.mons[i]
		if !g.visible(m.pos) {
			continue
		}
		d := cheb(m.pos, g.pos)
		if d == 1 {
			o.Adjacent++
		}
		if best < 0 || d < o.ThreatDist {
			best, o.ThreatDist = i, d
		}
	}
	if best >= 0 {
		o.Danger = g.danger(&g.mons[best])
		o.CanFlee = g.pos == g.lvl.stairs || g.fleeCell(g.mons[best].pos) >= 0
	}
}

// hungerFraction maps nutrition to [0, 1]: 0 at 1000 or more (not hungry
// at all), 1 at 0 or below (fainting).
func hungerFraction(n int) float64 {
	switch {
	case n >= 1000:
		return 0
	case n <= 0:
		return 1
	}
	return 1 - float64(n)/1000
}

// hitChance is the probability that an attack with to-hit value tmp hits:
// NetHack hits when tmp > rnd(20).
func hitChance(tmp int) float64 {
	p := float64(tmp-1) / 20
	switch {
	case p < 0:
		return 0
	case p > 1:
		return 1
	}
	return p
}

// danger estimates the share of the hero's current HP that monster m
// deals, in expectation, before the hero kills it, capped at 1.
func (g *game) danger(m *monster) float64 {
	heroHit := hitChance(heroHitBonus + m.sp.AC + g.xl)
	heroDmg := heroHit * (float64(heroDamageMin) + float64(heroDamageDie-1)/2)
	if heroDmg <= 0 {
		return 1
	}
	turns := float64(m.hp) / heroDmg
	monDmg := hitChance(10+heroAC+m.sp.Level) * m.sp.meanDamage() * float64(m.sp.Speed) / 12
	d := monDmg * turns / float64(g.hp)
	if d > 1 {
		return 1
	}
	return d
}

// frontierLeft reports whether a seen walkable cell with an unseen
// neighbour, or a seen item, remains. Every seen walkable cell is reachable
// through seen walkable cells (rooms are seen from inside, corridors from
// next to them), so a count suffices.
func (g *game) frontierLeft() bool { return g.targets > 0 }

// isTarget reports whether exploring should walk to c, a seen walkable
// cell: it holds an item or has an unseen neighbour.
func (g *game) isTarget(c int) bool { return g.target[c] }

// updateTarget recomputes the target flag of cell c and the count.
func (g *game) updateTarget(c int) {
	t := false
	if g.seen[c] && g.lvl.tile[c] != rock {
		if g.lvl.item[c] != noItem {
			t = true
		} else {
			for k := 0; k < 8; k++ {
				if n, ok := neighbour(c, k); ok && !g.seen[n] {
					t = true
					break
				}
			}
		}
	}
	if t != g.target[c] {
		g.target[c] = t
		if t {
			g.targets++
		} else {
			g.targets--
		}
	}
}

// walkTo moves the hero one step toward the nearest cell satisfying goal
// (goalCell >= 0 names a single goal cell), replanning only when the map
// changed since the last plan, the plan's goal differs, or its next cell is
// blocked. It reports false when no goal is reachable.
func (g *game) walkTo(goalCell int, goal func(int) bool) bool {
	if g.planLen == 0 || g.planVer != g.mapVer || g.planIdx >= g.planLen ||
		(goalCell >= 0 && g.planGoal != goalCell) || (goalCell < 0 && !goal(g.planGoal)) ||
		int(g.plan[g.planIdx]) != g.pos {
		t := g.bfs(g.pos, goal)
		if t < 0 {
			g.planLen = 0
			return false
		}
		// store the path start..t
		n := 0
		for c := t; c >= 0; c = int(g.from[c]) {
			n++
		}
		g.planLen = n
		for c, i := t, n-1; c >= 0; c, i = int(g.from[c]), i-1 {
			g.plan[i] = int16(c)
		}
		g.planIdx, g.planGoal, g.planVer = 0, t, g.mapVer
	}
	next := int(g.plan[g.planIdx+1])
	if g.monAt[next] != 0 {
		g.planLen = 0 // blocked: wait, and replan next time
		return true
	}
	g.planIdx++
	g.moveTo(next)
	return true
}

// bfs searches seen walkable cells from start and returns the first cell
// (in breadth-first order) for which goal is true, or -1. Afterwards
// g.from holds the search tree.
func (g *game) bfs(start int, goal func(int) bool) int {
	g.epoch++
	if g.epoch == 0 {
		g.stamp = [N]uint32{}
		g.epoch = 1
	}
	head, tail := 0, 0
	g.queue[tail] = int16(start)
	tail++
	g.stamp[start] = g.epoch
	g.from[start] = -1
	for head < tail {
		c := int(g.queue[head])
		head++
		if c != start && goal(c) {
			return c
		}
		for k := 0; k < 8; k++ {
			n, ok := neighbour(c, k)
			if !ok || g.stamp[n] == g.epoch || !g.seen[n] || !g.walkable(n) {
				continue
			}
			g.stamp[n] = g.epoch
			g.from[n] = int16(c)
			g.queue[tail] = int16(n)
			tail++
		}
	}
	return -1
}

func (g *game) moveTo(c int) {
	g.pos = c
	if g.visits[c] < 1<<15 {
		g.visits[c]++
	}
	switch g.lvl.item[c] {
	case itemFood:
		if g.nfood < maxFood {
			g.food[g.nfood] = rationNutrition
			g.nfood++
			g.lvl.item[c] = noItem
		}
	case itemPotion:
		g.potions++
		g.lvl.item[c] = noItem
	case itemGold:
		g.gold += int(g.lvl.gold[c])
		g.lvl.item[c] = noItem
	}
	if g.target[c] && g.lvl.item[c] == noItem {
		g.updateTarget(c)
		g.mapVer++
	}
	g.look()
}

// Step applies the hero's action, then lets monsters act, then advances
// hunger, regeneration and the clocks. See Episode.
func (g *game) Step(a Action) bool {
	if g.end != EndNone {
		return true
	}
	if g.eatLeft > 0 {
		a = ActEat // a meal in progress continues
	}
	if g.helpless > 0 {
		g.helpless--
		a = ActWait
	}
	g.actions[a]++
	g.lastAction = a
	descended := false
	switch a {
	case ActExplore:
		if !g.frontierLeft() || !g.walkTo(-1, g.isTarget) {
			descended = g.descend()
		}
	case ActDescend:
		descended = g.descend()
	case ActAttack:
		g.attackAdjacent()
	case ActFlee:
		descended = g.flee()
	case ActEat:
		g.eat()
	case ActQuaff:
		if g.potions > 0 {
			g.potions--
			heal := g.play.dice(6, 4)
			g.hp += heal
			if g.hp > g.maxHP {
				g.maxHP++
				g.hp = g.maxHP
			}
		}
	}
	if g.end != EndNone {
		return true
	}
	if descended {
		if g.depth >= g.cfg.MaxDepth {
			g.end = EndMaxDepth
			return true
		}
	} else {
		g.monstersAct()
		if g.end != EndNone {
			return true
		}
	}
	g.tick()
	return g.end != EndNone
}

// descend walks toward the known down staircase and takes it when standing
// on it. With the stairs not yet seen, the hero searches: it steps to a
// random one of its least visited seen neighbours (a walk that avoids its
// own tracks but knows nothing of the frontier), which is how an agent that
// stopped exploring gets stuck. It reports whether the hero went down.
func (g *game) descend() bool {
	if g.pos == g.lvl.stairs {
		g.enterLevel(g.depth + 1)
		return true
	}
	if g.seen[g.lvl.stairs] {
		stairs := g.lvl.stairs
		if g.walkTo(stairs, func(c int) bool { return c == stairs }) {
			return false
		}
	}
	// search: a random one of the least visited free, seen neighbours
	var opts [8]int
	n, least := 0, uint16(1<<16-1)
	for k := 0; k < 8; k++ {
		c, ok := neighbour(g.pos, k)
		if !ok || !g.seen[c] || !g.walkable(c) || g.monAt[c] != 0 {
			continue
		}
		switch v := g.visits[c]; {
		case v < least:
			least, n = v, 0
			fallthrough
		case v == least:
			opts[n] = c
			n++
		}
	}
	if n > 0 {
		g.moveTo(opts[g.play.intn(n)])
	}
	return false
}

// nearestMonster returns the index of the nearest visible monster, or -1.
func (g *game) nearestMonster() int {
	best, bd := -1, 0
	for i := 0; i < g.nmon; i++ {
		if !g.visible(g.mons[i].pos) {
			continue
		}
		d := cheb(g.mons[i].pos, g.pos)
		if best < 0 || d < bd {
			best, bd = i, d
		}
	}
	return best
}

// flee steps to the free neighbour farthest from the nearest visible
// monster, preferring cells nearer the stairs when they are known; on the
// stairs it escapes downward. It reports whether the hero went down.
func (g *game) flee() bool {
	if g.pos == g.lvl.stairs {
		g.enterLevel(g.depth + 1)
		return true
	}
	m := g.nearestMonster()
	if m < 0 {
		return false
	}
	if c := g.fleeCell(g.mons[m].pos); c >= 0 {
		g.moveTo(c)
	}
	return false
}

// fleeCell returns the free neighbour that increases the distance to the
// threat the most, preferring cells nearer the stairs when they are known,
// or -1 if no free neighbour is farther from the threat.
func (g *game) fleeCell(threat int) int {
	stairsKnown := g.seen[g.lvl.stairs]
	best, bestD, bestS := -1, cheb(g.pos, threat), 1<<30
	for k := 0; k < 8; k++ {
		c, ok := neighbour(g.pos, k)
		if !ok || !g.walkable(c) || g.monAt[c] != 0 {
			continue
		}
		d := cheb(c, threat)
		s := 0
		if stairsKnown {
			s = cheb(c, g.lvl.stairs)
		}
		if d > bestD || (d == bestD && best >= 0 && s < bestS) {
			best, bestD, bestS = c, d, s
		}
	}
	return best
}

// attackAdjacent attacks the adjacent monster with the fewest HP.
func (g *game) attackAdjacent() {
	t := -1
	for i := 0; i < g.nmon; i++ {
		if cheb(g.mons[i].pos, g.pos) == 1 && (t < 0 || g.mons[i].hp < g.mons[t].hp) {
			t = i
		}
	}
	if t < 0 {
		return
	}
	m := &g.mons[t]
	m.fought = true
	m.awake, m.chase = true, true
	if heroHitBonus+m.sp.AC+g.xl <= g.play.rnd(20) {
		return
	}
	dmg := heroDamageMin - 1 + g.play.rnd(heroDamageDie)
	if g.nutrition < weakNutrition {
		dmg--
	}
	m.hp -= dmg
	if m.hp > 0 {
		return
	}
	// killed
	g.kills++
	g.gainExp(m.sp.experience())
	if m.sp.Nutrition > 0 && g.nfood < maxFood && g.play.intn(4) == 0 {
		g.food[g.nfood] = m.sp.Nutrition
		g.nfood++
	}
	g.removeMonster(t)
}

func (g *game) removeMonster(i int) {
	g.monAt[g.mons[i].pos] = 0
	g.nmon--
	if i != g.nmon {
		g.mons[i] = g.mons[g.nmon]
		g.monAt[g.mons[i].pos] = int8(i + 1)
	}
}

// gainExp adds experience points and raises the experience level at
// NetHack's thresholds (20, 40, 80, ... for XL 2, 3, 4, ...), each level
// adding rnd(8)+1 maximum HP.
func (g *game) gainExp(e int) {
	g.exp += e
	for g.xl < 30 && g.exp >= 10<<g.xl {
		g.xl++
		gain := g.play.rnd(8) + 1
		g.maxHP += gain
		g.hp += gain
	}
}

// eat starts or continues a meal: the smallest carried item first (corpses
// before rations). Rations take 5 turns; a corpse of nutrition n takes
// 1 + n/160 turns.
func (g *game) eat() {
	if g.eatLeft == 0 {
		if g.nfood == 0 {
			return
		}
		k := 0
		for i := 1; i < g.nfood; i++ {
			if g.food[i] < g.food[k] {
				k = i
			}
		}
		n := g.food[k]
		g.nfood--
		g.food[k] = g.food[g.nfood]
		turns := rationTurns
		if n != rationNutrition {
			turns = 1 + n/160
		}
		g.eatLeft, g.eatRest = turns, n
		g.eatPerTurn = (n + turns - 1) / turns
	}
	bite := g.eatPerTurn
	if bite > g.eatRest {
		bite = g.eatRest
	}
	g.eatRest -= bite
	g.eatLeft--
	g.nutrition += bite
	if g.nutrition > maxNutrition {
		g.nutrition = maxNutrition
	}
	if g.eatLeft == 0 {
		g.eatRest = 0
	}
}

// interruptMeal stops a meal in progress; the uneaten rest goes back into
// the pack as a partly eaten item.
func (g *game) interruptMeal() {
	if g.eatLeft == 0 {
		return
	}
	if g.eatRest > 0 && g.nfood < maxFood {
		g.food[g.nfood] = g.eatRest
		g.nfood++
	}
	g.eatLeft, g.eatRest = 0, 0
}

// monstersAct moves every monster: NetHack 3.6's mcalcmove gives a monster
// of speed s s/12 moves a turn, the remainder rounded up at random. A
// monster next to the hero attacks; one that has noticed the hero steps
// toward it; others wander.
func (g *game) monstersAct() {
	for i := 0; i < g.nmon; i++ {
		m := &g.mons[i]
		moves := m.sp.Speed / 12
		if g.play.intn(12) < m.sp.Speed%12 {
			moves++
		}
		for ; moves > 0; moves-- {
			if !m.awake {
				if g.visible(m.pos) && g.play.intn(3) == 0 {
					m.awake = true
				}
				break
			}
			if !m.chase && g.visible(m.pos) {
				m.chase = true
			}
			if cheb(m.pos, g.pos) == 1 {
				g.monsterAttacks(m)
				if g.end != EndNone {
					return
				}
				continue
			}
			if m.chase && cheb(m.pos, g.pos) <= 12 {
				g.stepToward(i, g.pos)
			} else if g.play.intn(3) == 0 {
				g.wander(i)
			}
		}
	}
	if g.play.chance(spawnChance) {
		g.spawn(false)
	}
}

// monsterAttacks resolves m's melee attacks on the hero: each hits when
// 10 + hero AC + monster level > rnd(20) (NetHack 3.6 mhitu.c).
func (g *game) monsterAttacks(m *monster) {
	for _, at := range m.sp.Attacks {
		if 10+heroAC+m.sp.Level <= g.play.rnd(20) {
			continue
		}
		g.hp -= g.play.dice(at.Dice, at.Sides)
		g.interruptMeal()
		if g.hp <= 0 {
			g.end = EndKilled
			g.killedBy = m.sp.Name
			g.inChosenFight = g.lastAction == ActAttack
			return
		}
	}
}

// stepToward moves monster i one cell closer to target (greedy, NetHack
// m_move style), if a free walkable cell is closer.
func (g *game) stepToward(i, target int) {
	m := &g.mons[i]
	best, bd := -1, cheb(m.pos, target)
	for k := 0; k < 8; k++ {
		c, ok := neighbour(m.pos, k)
		if !ok || !g.walkable(c) || g.monAt[c] != 0 || c == g.pos {
			continue
		}
		if d := cheb(c, target); d < bd {
			best, bd = c, d
		}
	}
	if best >= 0 {
		g.moveMonster(i, best)
	}
}

func (g *game) wander(i int) {
	k := g.play.intn(8)
	c, ok := neighbour(g.mons[i].pos, k)
	if ok && g.walkable(c) && g.monAt[c] == 0 && c != g.pos {
		g.moveMonster(i, c)
	}
}

func (g *game) moveMonster(i, c int) {
	m := &g.mons[i]
	g.monAt[m.pos] = 0
	m.pos = c
	g.monAt[c] = int8(i + 1)
	if cheb(c, g.pos) > 2 {
		m.fought = false // the encounter is over
	}
}

// tick advances the clocks one turn: hunger (NetHack 3.6 eat.c), fainting,
// starvation, HP regeneration (allmain.c), the turn limit and the
// no-progress rule.
func (g *game) tick() {
	g.turn++
	g.levelTurn++
	g.sinceProgress++
	g.nutrition--
	if g.nutrition < starveNutrition {
		g.end = EndStarved
		return
	}
	if g.nutrition <= 0 && g.helpless == 0 && g.eatLeft == 0 {
		// NetHack: faint when rn2(20 - nutrition/10) >= 19, for
		// 10 - nutrition/10 turns.
		k := 20 - g.nutrition/10
		if g.play.intn(k) >= 19 {
			g.helpless = 10 - g.nutrition/10
		}
	}
	if g.xl <= 9 {
		if g.turn%(42/(g.xl+2)+1) == 0 && g.hp < g.maxHP {
			g.hp++
		}
	} else if g.turn%3 == 0 && g.hp < g.maxHP {
		g.hp++
	}
	switch {
	case g.turn >= g.cfg.MaxTurns:
		g.end = EndTurnLimit
	case g.sinceProgress >= g.cfg.NoProgressTurns:
		g.end = EndNoProgress
	}
}

// Stop ends a running episode with reason r.
func (g *game) Stop(r EndReason) {
	if g.end == EndNone {
		g.end = r
	}
}

// Outcome returns the episode's record. See Outcome.
func (g *game) Outcome() Outcome {
	return Outcome{
		Seed:          g.seed,
		Score:         Score(g.exp, g.deepest, g.gold, g.end == EndKilled || g.end == EndStarved),
		End:           g.end,
		Turns:         g.turn,
		Depth:         g.deepest,
		Kills:         g.kills,
		Gold:          g.gold,
		XL:            g.xl,
		Exp:           g.exp,
		HP:            g.hp,
		MaxHP:         g.maxHP,
		Food:          g.nfood,
		Potions:       g.potions,
		KilledBy:      g.killedBy,
		InChosenFight: g.inChosenFight,
		Actions:       g.actions,
	}
}

// Score is the dungeon's score after NetHack 3.6's end.c: 4 points per
// experience point, 50 per level below the first reached (plus 1000 per
// level beyond 20), and the gold carried, of which a dead hero keeps 90%.
// exp >= 0, deepest >= 1, gold >= 0; the result is >= 0.
func Score(exp, deepest, gold int, died bool) int64 {
	s := int64(4*exp) + int64(50*(deepest-1))
	if deepest > 20 {
		s += int64(1000 * (deepest - 20))
	}
	if died {
		s += int64(gold) * 9 / 10
	} else {
		s += int64(gold)
	}
	return s
}
