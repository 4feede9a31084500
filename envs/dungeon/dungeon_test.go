package dungeon

import (
	"strings"
	"testing"
)

func newEnv(t testing.TB) *Env {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Every generated level is connected: all walkable cells, the stairs and
// the arrival cell are reachable from the arrival cell; stairs and arrival
// differ; the border is rock.
func TestLevelGeneration(t *testing.T) {
	var l level
	for seed := uint64(0); seed < 200; seed++ {
		for depth := 1; depth <= 12; depth += 5 {
			r := levelRNG(seed, depth)
			l.generate(&r, depth)
			if l.nrooms < 4 || l.nrooms > maxRooms {
				t.Fatalf("seed %d depth %d: %d rooms", seed, depth, l.nrooms)
			}
			if l.stairs == l.start || l.tile[l.stairs] != floor || l.tile[l.start] != floor {
				t.Fatalf("seed %d depth %d: stairs %d start %d", seed, depth, l.stairs, l.start)
			}
			reach := make([]bool, N)
			stack := []int{l.start}
			reach[l.start] = true
			for len(stack) > 0 {
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for k := 0; k < 8; k++ {
					if n, ok := neighbour(c, k); ok && !reach[n] && l.tile[n] != rock {
						reach[n] = true
						stack = append(stack, n)
					}
				}
			}
			for c := 0; c < N; c++ {
				x, y := c%W, c/W
				if (x == 0 || y == 0 || x == W-1 || y == H-1) && l.tile[c] != rock {
					t.Fatalf("seed %d depth %d: border cell (%d,%d) is walkable", seed, depth, x, y)
				}
				if l.tile[c] != rock && !reach[c] {
					t.Fatalf("seed %d depth %d: cell (%d,%d) unreachable", seed, depth, x, y)
				}
			}
		}
	}
}

// A level depends only on (seed, depth): regenerating gives the same map.
func TestLevelPure(t *testing.T) {
	var a, b level
	ra := levelRNG(5, 3)
	rb := ra
	a.generate(&ra, 3)
	b.generate(&rb, 3)
	if a != b {
		t.Fatal("same (seed, depth) gave different levels")
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		exp, deepest, gold int
		died               bool
		want               int64
	}{
		{0, 1, 0, true, 0},
		{10, 1, 0, false, 40},
		{10, 3, 100, false, 40 + 100 + 100},
		{10, 3, 100, true, 40 + 100 + 90},
		{0, 22, 0, false, 50*21 + 2000},
	}
	for _, tt := range tests {
		if got := Score(tt.exp, tt.deepest, tt.gold, tt.died); got != tt.want {
			t.Errorf("Score(%d, %d, %d, %v) = %d, want %d", tt.exp, tt.deepest, tt.gold, tt.died, got, tt.want)
		}
	}
}

func TestHungerAndHit(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want float64
	}{{1200, 0}, {1000, 0}, {500, 0.5}, {150, 0.85}, {0, 1}, {-50, 1}} {
		if got := hungerFraction(tt.n); got != tt.want {
			t.Errorf("hungerFraction(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	// NetHack hits when tmp > rnd(20): P = (tmp-1)/20 clamped.
	for _, tt := range []struct {
		tmp  int
		want float64
	}{{1, 0}, {0, 0}, {11, 0.5}, {21, 1}, {30, 1}} {
		if got := hitChance(tt.tmp); got != tt.want {
			t.Errorf("hitChance(%d) = %v, want %v", tt.tmp, got, tt.want)
		}
	}
}

// Regeneration follows NetHack 3.6: at XL 1, 1 HP every 15 turns.
func TestRegeneration(t *testing.T) {
	g := newEnv(t).NewEpisode().(*game)
	g.Reset(1)
	g.nmon = 0
	g.monAt = [N]int8{}
	g.hp = 5
	g.turn = 0
	for i := 0; i < 30; i++ {
		g.tick()
	}
	if g.hp != 7 {
		t.Errorf("after 30 turns at XL 1: hp = %d, want 7", g.hp)
	}
}

// Starvation: nutrition falls 1 a turn and death comes below
// -(100 + 10 x Con).
func TestStarvation(t *testing.T) {
	g := newEnv(t).NewEpisode().(*game)
	g.Reset(1)
	g.nutrition = starveNutrition + 1
	g.tick()
	if g.end != EndNone {
		t.Fatalf("at %d: ended %v", starveNutrition, g.end)
	}
	g.tick()
	if g.end != EndStarved {
		t.Fatalf("below %d: end = %v, want starved", starveNutrition, g.end)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		c    Config
		want string
	}{
		{Config{MaxTurns: 50, MaxDepth: 20, NoProgressTurns: 20}, "max_turns: 50 is out of range, allowed [100, 1000000]"},
		{Config{MaxTurns: 3000, MaxDepth: 1, NoProgressTurns: 300}, "max_depth: 1 is out of range, allowed [2, 50]"},
		{Config{MaxTurns: 3000, MaxDepth: 20, NoProgressTurns: 5000}, "no_progress_turns: 5000 is out of range, allowed [10, max_turns=3000]"},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		if err == nil || err.Error() != tt.want {
			t.Errorf("Validate(%+v) = %v, want %q", tt.c, err, tt.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

// The text view: the hero in the middle of the window, the status lines,
// glyphs only of what was seen, and the same text for the same state.
func TestText(t *testing.T) {
	e := newEnv(t)
	g := e.NewEpisode().(*game)
	g.Reset(7)
	txt := g.Text(5)
	lines := strings.Split(txt, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[len(lines)-2], "Dlvl:1 $:0 HP:16(16) Xp:1/0 T:0") ||
		lines[len(lines)-1] != "Carrying: 0 food ration(s), 1 potion(s) of healing" {
		t.Fatalf("text:\n%s", txt)
	}
	if strings.Count(txt, "@") != 1 {
		t.Errorf("want one hero:\n%s", txt)
	}
	g2 := e.NewEpisode().(*game)
	g2.Reset(7)
	if g2.Text(5) != txt {
		t.Error("Text is not a function of the state")
	}
	for i := 0; i < 40; i++ {
		g.Step(ActExplore)
	}
	if g.Text(5) == txt {
		t.Error("the view did not change after 40 turns of exploring")
	}
	g.nutrition = 100
	if !strings.Contains(g.Text(3), " Hungry") {
		t.Errorf("no Hungry status:\n%s", g.Text(3))
	}
	for _, c := range []struct {
		n    int
		want string
	}{{151, ""}, {150, "Hungry"}, {51, "Hungry"}, {50, "Weak"}, {1, "Weak"}, {0, "Fainting"}} {
		if got := hungerStatus(c.n); got != c.want {
			t.Errorf("hungerStatus(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
