package dungeon

import (
	"fmt"
	"strings"
)

// Texter is implemented by the dungeon's episodes: a text view of the
// current turn for agents that read text (an LLM agent). Text is a pure
// function of the episode's state.
type Texter interface {
	// Text returns the map window of the given radius around the hero
	// (2·radius+1 columns and rows, clipped to the map; radius >= 1),
	// then NetHack's two status lines. Glyphs: '@' the hero, a monster's
	// first letter (upper case for monsters of level 5 or more), '>' the
	// down staircase, '%' food, '!' a potion, '$' gold, '.' floor, '#'
	// corridor, ' ' rock or unseen; a monster is drawn only where the
	// hero can see it.
	Text(radius int) string
}

var _ Texter = (*game)(nil)

// hungerStatus is NetHack's hunger status for nutrition n (eat.c
// newuhs): "" (not hungry) above 150, "Hungry" above 50, "Weak" above 0,
// "Fainting" at 0 or below.
func hungerStatus(n int) string {
	switch {
	case n > 150:
		return ""
	case n > weakNutrition:
		return "Hungry"
	case n > 0:
		return "Weak"
	}
	return "Fainting"
}

// Text implements Texter.
func (g *game) Text(radius int) string {
	radius = max(radius, 1)
	hx, hy := g.pos%W, g.pos/W
	var b strings.Builder
	for y := max(0, hy-radius); y <= min(H-1, hy+radius); y++ {
		line := make([]byte, 0, 2*radius+1)
		for x := max(0, hx-radius); x <= min(W-1, hx+radius); x++ {
			line = append(line, g.glyph(y*W+x))
		}
		b.WriteString(strings.TrimRight(string(line), " "))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "Dlvl:%d $:%d HP:%d(%d) Xp:%d/%d T:%d", g.depth, g.gold, g.hp, g.maxHP, g.xl, g.exp, g.turn)
	if s := hungerStatus(g.nutrition); s != "" {
		b.WriteString(" " + s)
	}
	fmt.Fprintf(&b, "\nCarrying: %d food ration(s), %d potion(s) of healing", g.nfood, g.potions)
	if g.eatLeft > 0 {
		b.WriteString("; eating")
	}
	return b.String()
}

// glyph is what the hero sees on cell c.
func (g *game) glyph(c int) byte {
	if c == g.pos {
		return '@'
	}
	if m := g.monAt[c]; m > 0 && g.visible(c) {
		sp := g.mons[m-1].sp
		ch := sp.Name[0]
		if sp.Level >= 5 && ch >= 'a' && ch <= 'z' {
			ch -= 'a' - 'A'
		}
		return ch
	}
	if !g.seen[c] {
		return ' '
	}
	if c == g.lvl.stairs {
		return '>'
	}
	switch g.lvl.item[c] {
	case itemFood:
		return '%'
	case itemPotion:
		return '!'
	case itemGold:
		return '$'
	}
	switch g.lvl.tile[c] {
	case floor:
		return '.'
	case corridor:
		return '#'
	}
	return ' '
}
