package dungeon

// Map geometry: NetHack's 80x21 map, stored row-major as cell = y*W + x.
const (
	W = 80
	H = 21
	N = W * H
)

// Tile kinds.
const (
	rock     uint8 = iota // not walkable
	floor                 // room floor (lit: the whole room is seen on entry)
	corridor              // corridor (seen only next to the hero)
)

// Item kinds lying on the floor.
const (
	noItem uint8 = iota
	itemFood
	itemPotion
	itemGold
)

const maxRooms = 9

type rect struct{ x0, y0, x1, y1 int } // inclusive floor bounds

// level is one generated dungeon level: a pure function of (episode seed,
// depth). Its arrays are reused across resets, so generation allocates
// nothing.
type level struct {
	tile   [N]uint8
	room   [N]int8 // room index of a floor cell, -1 elsewhere
	item   [N]uint8
	gold   [N]int16 // gold amount where item == itemGold
	rooms  [maxRooms]rect
	nrooms int
	stairs int // cell of the down staircase
	start  int // cell where the hero arrives
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// generate builds the level for depth from the level rng r: up to nine
// rooms in a 3x3 grid of sectors (Rogue's layout, which NetHack's own
// generator resembles), joined into one connected graph by L-shaped
// corridors, a few extra loops, and dead-end corridors that lead nowhere.
// Food, potions of healing and gold are placed in rooms.
func (l *level) generate(r *rng, depth int) {
	for i := range l.tile {
		l.tile[i] = rock
		l.room[i] = -1
		l.item[i] = noItem
		l.gold[i] = 0
	}
	// Choose rooms: each of the 9 sectors holds one with probability 3/4,
	// at least 4 in all.
	const sw, sh = W / 3, H / 3 // 26 x 7 sectors
	var present [maxRooms]bool
	count := 0
	for i := range present {
		present[i] = r.intn(4) != 0
		if present[i] {
			count++
		}
	}
	for count < 4 {
		i := r.intn(maxRooms)
		if !present[i] {
			present[i] = true
			count++
		}
	}
	l.nrooms = 0
	var sectorRoom [maxRooms]int
	for s := 0; s < maxRooms; s++ {
		sectorRoom[s] = -1
		if !present[s] {
			continue
		}
		sx, sy := (s%3)*sw, (s/3)*sh
		w := 3 + r.intn(12)   // 3..14 wide
		h := 2 + r.intn(sh-4) // 2..4 high
		x0 := sx + 1 + r.intn(sw-w-2)
		y0 := sy + 1 + r.intn(sh-h-1)
		rc := rect{x0, y0, x0 + w - 1, y0 + h - 1}
		idx := l.nrooms
		l.rooms[idx] = rc
		sectorRoom[s] = idx
		l.nrooms++
		for y := rc.y0; y <= rc.y1; y++ {
			for x := rc.x0; x <= rc.x1; x++ {
				c := y*W + x
				l.tile[c] = floor
				l.room[c] = int8(idx)
			}
		}
	}
	// Connect rooms in sector order: each room to the nearest earlier one,
	// which makes a spanning tree; then a few extra loops.
	for i := 1; i < l.nrooms; i++ {
		best, bd := 0, 1<<30
		for j := 0; j < i; j++ {
			d := l.roomDist(i, j)
			if d < bd {
				best, bd = j, d
			}
		}
		l.connect(r, i, best)
	}
	for k := r.intn(3); k > 0 && l.nrooms > 2; k-- {
		a, b := r.intn(l.nrooms), r.intn(l.nrooms)
		if a != b {
			l.connect(r, a, b)
		}
	}
	// Dead ends: corridors from a room wall that wander into rock and stop.
	for k := 1 + r.intn(3); k > 0; k-- {
		l.deadEnd(r, r.intn(l.nrooms))
	}
	// Stairs and arrival in two different rooms.
	a := r.intn(l.nrooms)
	b := r.intn(l.nrooms - 1)
	if b >= a {
		b++
	}
	l.start = l.randomCell(r, a)
	l.stairs = l.randomCell(r, b)
	// Items: food rations, potions of healing, gold, in random rooms.
	place := func(kind uint8, n int) {
		for ; n > 0; n-- {
			for try := 0; try < 20; try++ {
				c := l.randomCell(r, r.intn(l.nrooms))
				if l.item[c] == noItem && c != l.stairs && c != l.start {
					l.item[c] = kind
					if kind == itemGold {
						l.gold[c] = int16(r.rnd(10 + 10*depth))
					}
					break
				}
			}
		}
	}
	place(itemFood, boolInt(r.intn(100) < foodPercent))
	place(itemPotion, boolInt(r.intn(100) < potionPercent))
	place(itemGold, r.intn(3))
}

// Item frequencies per level, in percent.
const (
	foodPercent   = 20
	potionPercent = 45
)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (l *level) roomDist(i, j int) int {
	a, b := l.rooms[i], l.rooms[j]
	return abs((a.x0+a.x1)-(b.x0+b.x1)) + abs((a.y0+a.y1)-(b.y0+b.y1))
}

func (l *level) randomCell(r *rng, i int) int {
	rc := l.rooms[i]
	x := rc.x0 + r.intn(rc.x1-rc.x0+1)
	y := rc.y0 + r.intn(rc.y1-rc.y0+1)
	return y*W + x
}

// connect digs an L-shaped corridor between random cells of rooms a and b.
func (l *level) connect(r *rng, a, b int) {
	from, to := l.randomCell(r, a), l.randomCell(r, b)
	x, y := from%W, from/W
	tx, ty := to%W, to/W
	horizontalFirst := r.intn(2) == 0
	for x != tx || y != ty {
		if (horizontalFirst && x != tx) || y == ty {
			x += sign(tx - x)
		} else {
			y += sign(ty - y)
		}
		c := y*W + x
		if l.tile[c] == rock {
			l.tile[c] = corridor
		}
	}
}

// deadEnd digs a corridor of 4-14 cells from the edge of room i into rock.
func (l *level) deadEnd(r *rng, i int) {
	rc := l.rooms[i]
	var x, y, dx, dy int
	switch r.intn(4) {
	case 0:
		x, y, dx = rc.x0+r.intn(rc.x1-rc.x0+1), rc.y0-1, 0
		dy = -1
	case 1:
		x, y, dx = rc.x0+r.intn(rc.x1-rc.x0+1), rc.y1+1, 0
		dy = 1
	case 2:
		x, y, dy = rc.x0-1, rc.y0+r.intn(rc.y1-rc.y0+1), 0
		dx = -1
	default:
		x, y, dy = rc.x1+1, rc.y0+r.intn(rc.y1-rc.y0+1), 0
		dx = 1
	}
	for n := 4 + r.intn(11); n > 0; n-- {
		if x < 1 || x >= W-1 || y < 1 || y >= H-1 {
			return
		}
		c := y*W + x
		if l.tile[c] != rock {
			return // joined something: not a dead end any more, stop here
		}
		l.tile[c] = corridor
		if r.intn(4) == 0 { // turn
			dx, dy = dy, dx
			if r.intn(2) == 0 {
				dx, dy = -dx, -dy
			}
		}
		x, y = x+dx, y+dy
	}
}

func sign(a int) int {
	switch {
	case a > 0:
		return 1
	case a < 0:
		return -1
	}
	return 0
}
