package nethack

import (
	"context"
	nh "evolve/envs/nethack"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"evolve/envs"
)

func TestInventoryStale(t *testing.T) {
	for _, tc := range []struct {
		item byte
		msgs []string
		want bool
	}{
		{0, nil, false},
		{'e', nil, true},
		{0, []string{"You kill the newt!", "You see here a newt corpse."}, false},
		{0, []string{"f - 3 uncursed arrows."}, true},
		{0, []string{"$ - 12 gold pieces."}, true},
		{0, []string{"You finish eating the food ration."}, true},
		{0, []string{"The nymph stole a +1 long sword."}, true},
		{0, []string{"Your dagger rusts!"}, true},
		{0, []string{"Welcome to experience level 2."}, false},
	} {
		if got := InventoryStale(tc.item, tc.msgs); got != tc.want {
			t.Errorf("InventoryStale(%q, %q) = %v, want %v", tc.item, tc.msgs, got, tc.want)
		}
	}
}

func TestMoreText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"message", []string{"You kill the newt!--More--"}, []string{"You kill the newt!"}},
		{"no more", []string{"You kill the newt!"}, nil},
		{"menu", []string{
			"                    Pick an object",
			"                    a - a dagger",
			"                    (end)",
		}, []string{"Pick an object", "a - a dagger"}},
		{"text window", []string{
			"                                        Things that are here:",
			"                                        a newt corpse",
			"                                        a dagger",
			"                                        --More--",
		}, []string{"Things that are here:", "a newt corpse", "a dagger"}},
	} {
		if got := moreText(screenOf(tc.lines...)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	menu := screenOf(
		"                                       Weapons",
		"                                       a - a +1 long sword (weapon in hand)",
		"                                       (end)",
	)
	if got, want := windowLines(menu), []string{"Weapons", "a - a +1 long sword (weapon in hand)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("menu: %q, want %q", got, want)
	}
}

// scriptPolicy plays a fixed pseudo-random walk (moves, searches, an eat
// now and then), whatever the screen shows; as a viewer it keeps every
// View it is given.
type scriptPolicy struct {
	rng   *rand.Rand
	views []View
}

func (p *scriptPolicy) act(_ context.Context, _ *Screen, _ Status) (decision, error) {
	switch n := p.rng.IntN(20); {
	case n == 0:
		return decision{item: 'e'}, nil
	case n < 4:
		return decision{keys: "s"}, nil
	default:
		return decision{keys: string("hjklyubn"[n%8])}, nil
	}
}
func (p *scriptPolicy) metrics() []envs.MetricValue { return nil }

type viewingScript struct{ *scriptPolicy }

func (p viewingScript) see(v View) { p.views = append(p.views, v) }

// TestViewTakesNoGameTime plays the same seed and the same actions twice,
// the second time as a viewer that reads the inventory (the i command)
// whenever it may have changed: the game ends the same (turns, points,
// final map and status lines), so reading takes no game time and changes
// nothing; the viewer saw the starting kit, the turn's --More-- pages,
// and its position.
func TestViewTakesNoGameTime(t *testing.T) {
	e := newTestEnv(t, shortConfig())
	type result struct {
		screen string
		xlog   xlog
		keys   int
	}
	play := func(pol policy) result {
		dir, err := e.in.NewPlayground()
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		g, err := nh.StartGame(context.Background(), e.in, dir, 11, nh.GameOptions(DefaultConfig().Character()), 10*time.Second, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Kill()
		r := &run{g: g, cfg: e.cfg, pol: pol, budget: 300}
		if _, err := r.play(context.Background()); err != nil {
			t.Fatal(err)
		}
		x, err := readXlog(filepath.Join(dir, "xlogfile"))
		if err != nil {
			t.Fatal(err)
		}
		s := g.Screen()
		return result{strings.Join(strings.Split(s.String(), "\n")[1:], "\n"), x, g.Keys()}
	}
	plain := play(&scriptPolicy{rng: rand.New(rand.NewPCG(1, 2))})
	vs := &scriptPolicy{rng: rand.New(rand.NewPCG(1, 2))}
	viewed := play(viewingScript{vs})
	for _, k := range []string{"turns", "points", "death", "maxlvl", "hp"} {
		if plain.xlog[k] != viewed.xlog[k] {
			t.Errorf("xlogfile %s: %q without reading the inventory, %q with", k, plain.xlog[k], viewed.xlog[k])
		}
	}
	if plain.screen != viewed.screen {
		t.Errorf("final screens differ:\n%s\n---\n%s", plain.screen, viewed.screen)
	}
	if viewed.keys <= plain.keys {
		t.Errorf("the viewer sent %d keys, the plain run %d: no inventory was read", viewed.keys, plain.keys)
	}
	if len(vs.views) == 0 {
		t.Fatal("the viewer saw nothing")
	}
	first := vs.views[0]
	for _, want := range []string{"a - a +1 long sword (weapon in hand)", "d - an uncursed food ration"} {
		if !contains(first.Inventory, want) {
			t.Errorf("first inventory %q lacks %q", first.Inventory, want)
		}
	}
	reads, pages, placed := 0, 0, 0
	for i, v := range vs.views {
		if i > 0 && v.InventoryT != vs.views[i-1].InventoryT {
			reads++
		}
		if len(v.Messages) > 1 {
			pages++
		}
		if v.HeroOK {
			placed++
		}
	}
	if reads == 0 || pages == 0 || placed < len(vs.views)*9/10 {
		t.Errorf("%d views: %d inventory re-reads, %d with several messages, %d with the hero placed", len(vs.views), reads, pages, placed)
	}
	t.Logf("%d actions viewed: %d inventory re-reads, %d turns with several messages; %d keys, %d without reading", len(vs.views), reads, pages, viewed.keys, plain.keys)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzMoreText feeds arbitrary screens to the --More-- and window
// parsers: they never panic, and every line they return is trimmed and
// not empty.
func FuzzMoreText(f *testing.F) {
	f.Add("You kill the newt!--More--", "", "")
	f.Add("", "                    Things that are here:", "                    --More--")
	f.Add("", "  a - a dagger", "  (1 of 2)")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		s := screenOf(clip(a), clip(b), clip(c))
		for _, l := range append(moreText(s), windowLines(s)...) {
			if l == "" || l != strings.TrimSpace(l) {
				t.Errorf("line %q", l)
			}
		}
	})
}

// clip keeps the first Cols bytes of s as printable ASCII (the game's
// plain symbol set), anything else as '?'.
func clip(s string) string {
	b := []byte(s)
	if len(b) > Cols {
		b = b[:Cols]
	}
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '?'
		}
	}
	return string(b)
}
