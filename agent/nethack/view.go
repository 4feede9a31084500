package nethack

import (
	"context"
	nh "evolve/envs/nethack"
	"fmt"
	"regexp"
	"strings"
)

// View is what a player reads besides the current screen, gathered by
// the play loop for a policy that reads text (the LLM agent):
// every message since its last action, the inventory, and the hero's
// position.
type View struct {
	// Messages are the messages since the agent's last action, oldest
	// first: each --More-- page the play loop answered (the message line,
	// or the lines of a text window such as "Things that are here"), the
	// lines of each menu or text window it escaped, then the message line
	// the agent acts on, if not empty.
	Messages []string
	// Inventory is the inventory as the game's i command lists it, one
	// line per row: the class headers ("Weapons") and the items
	// ("a - a +1 long sword (weapon in hand)"); nil if the hero carries
	// nothing. It is read again only when it may have changed
	// (InventoryStale), at no game time.
	Inventory []string
	// InventoryT is the game turn (status line T) the inventory was read
	// at.
	InventoryT int
	// HeroX and HeroY are the hero's map position (column from 0, map row
	// from 0, as ObservationText numbers rows), HeroOK false if the hero
	// is not found. HeroByCursor is true when it is not shown as '@'
	// (polymorphed, invisible, hallucinating): the position is then the
	// terminal's cursor, which the game leaves on the hero.
	HeroX, HeroY         int
	HeroOK, HeroByCursor bool
	// History holds earlier messages, oldest first, each prefixed with
	// its game turn ("T:12 You kill the newt!"); the policy keeps it.
	History []string
}

// viewer is a policy that reads the View before each action.
type viewer interface {
	see(v View)
}

// invChange matches a message after which the inventory may differ: an
// item's inventory line ("f - 3 uncursed arrows."), or what takes,
// spends, destroys or changes an item the hero carries.
var invChange = regexp.MustCompile(`(?i)(^|\s)[a-zA-Z$] - |you (finish|stop) eating|\bstole\b|\bsteals\b|\bsnatches\b|\byou drop\b|\byou wield|\byou are now wielding|\byou were wearing|\brots away|\brusts\b|\bcorrodes\b|\bburns\b|\bis destroyed\b|\bshatters\b|\bexplodes\b|\bdissolves\b|\bturns to dust\b|\bcatches fire\b`)

// InventoryStale reports whether the inventory may have changed after an
// action that took an item (eat, quaff and their prompts: item is the
// command's key, 0 for none) and was answered with msgs.
func InventoryStale(item byte, msgs []string) bool {
	if item != 0 {
		return true
	}
	for _, m := range msgs {
		if invChange.MatchString(m) {
			return true
		}
	}
	return false
}

// windowLines returns the text of the menu or text window on the screen:
// the rows above its last line ("(end)", "(n of m)" or "--More--" on a
// row below the message line), from the column that line starts at; nil
// if there is no such window.
func windowLines(s *Screen) []string {
	for y := nh.Rows - 1; y >= 1; y-- {
		r := strings.TrimRight(s.Row(y), " ")
		t := strings.TrimSpace(r)
		if !(t == "--More--" || strings.HasSuffix(t, "(end)") || nh.MenuPage.MatchString(t)) {
			continue
		}
		x0 := len(r) - len(t)
		var out []string
		for yy := 0; yy < y; yy++ {
			row := s.Row(yy)
			if x0 < len(row) {
				if l := strings.TrimSpace(row[x0:]); l != "" {
					out = append(out, l)
				}
			}
		}
		return out
	}
	return nil
}

// moreText returns the text of a screen the play loop answers for the
// agent: on --More--, the message line's messages or the lines of a text
// window; on a menu or a text window ending in "(end)" or "(n of m)", its
// lines; nil otherwise.
func moreText(s *Screen) []string {
	if strings.Contains(s.Row(0), "--More--") {
		if m := s.Message(); m != "" {
			return []string{m}
		}
		return nil
	}
	if s.More() || s.Menu() {
		return windowLines(s)
	}
	return nil
}

// maxInventoryKeys bounds the keys one inventory read may send.
const maxInventoryKeys = 20

// readInventory sends the game's i command, reads every page of the
// inventory menu (a one-item inventory comes as a message) and escapes
// it. The command takes no game time and draws nothing on the map. It
// returns nil for "Not carrying anything". The screen is the map again
// when it returns.
func (r *run) readInventory(ctx context.Context) ([]string, error) {
	if err := r.g.Send(ctx, "i"); err != nil {
		return nil, err
	}
	var inv []string
	for i := 0; i < maxInventoryKeys && !r.g.Exited(); i++ {
		s := r.g.Screen()
		switch {
		case s.Menu():
			inv = append(inv, windowLines(s)...)
			if m := nh.MenuPage.FindStringSubmatch(strings.TrimSpace(lastWindowRow(s))); m != nil && !lastPage(m[0]) {
				if err := r.g.Send(ctx, ">"); err != nil {
					return nil, err
				}
				continue
			}
			return inv, r.g.Send(ctx, "\x1b")
		case s.More():
			inv = append(inv, moreText(s)...)
			if err := r.g.Send(ctx, "\x1b"); err != nil {
				return nil, err
			}
		default:
			if m := s.Message(); m != "" && !strings.Contains(m, "Not carrying anything") {
				inv = append(inv, m)
			}
			return inv, nil
		}
	}
	return inv, fmt.Errorf("nethack: the inventory did not close after %d keys; last screen:\n%s", maxInventoryKeys, r.g.ScreenText())
}

// lastWindowRow returns the last row of the screen that ends a window.
func lastWindowRow(s *Screen) string {
	for y := nh.Rows - 1; y >= 0; y-- {
		if t := strings.TrimSpace(s.Row(y)); strings.HasSuffix(t, "(end)") || nh.MenuPage.MatchString(t) {
			return t
		}
	}
	return ""
}

// lastPage reports whether a "(n of m)" marker is the last page.
func lastPage(marker string) bool {
	var n, m int
	fmt.Sscanf(marker, "(%d of %d)", &n, &m)
	return n >= m
}

// heroPosition returns the hero's map position: the '@' (Screen.Hero),
// else the cursor if it rests on the map (byCursor true).
func heroPosition(s *Screen) (x, y int, ok, byCursor bool) {
	if x, y, ok := s.Hero(); ok {
		return x, y, true, false
	}
	if s.CursorY >= 1 && s.CursorY <= MapRows {
		return s.CursorX, s.CursorY - 1, true, true
	}
	return 0, 0, false, false
}

// see gives a viewer policy the View of screen s: the turn's messages
// (the pages answered since the last action and s's message line), the
// inventory (read again when stale, unless the game waits on an answer
// the i key would be typed into), and the hero's position. The inventory
// read happens only here, so a policy that is not a viewer
// (the scripted agent) plays exactly as without it.
func (r *run) see(ctx context.Context, v viewer, s *Screen, st Status) error {
	msgs := append([]string(nil), r.pages...)
	if m := s.Message(); m != "" {
		msgs = append(msgs, m)
	}
	r.invStale = r.invStale || InventoryStale(0, msgs)
	if (r.invStale || !r.invRead) && !nh.WaitsForAnswer(s) {
		inv, err := r.readInventory(ctx)
		if err != nil {
			return err
		}
		r.inv, r.invT, r.invRead, r.invStale = inv, st.T, true, false
	}
	view := View{Messages: msgs, Inventory: r.inv, InventoryT: r.invT}
	view.HeroX, view.HeroY, view.HeroOK, view.HeroByCursor = heroPosition(s)
	v.see(view)
	return nil
}
