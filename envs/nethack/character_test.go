package nethack

import (
	"context"
	"strings"
	"testing"

	"evolve/envs"
)

func TestCharacterValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Character
		want string // a substring of the error, "" for none
	}{
		{Character{"valkyrie", "human", "female", "neutral"}, ""},
		{Character{"Valkyrie", "Dwarf", "Female", "Lawful"}, ""},
		{Character{"val", "hum", "female", "neutral"}, `race: "hum" is not a NetHack race`},
		{Character{"random", "random", "random", "random"}, ""},
		{Character{"@", "@", "@", "@"}, ""},
		{Character{"wizard", "random", "random", "random"}, ""},
		{Character{"random", "elf", "random", "chaotic"}, ""},
		{Character{"knight", "random", "random", "chaotic"}, `role "knight" and alignment "chaotic": a knight is lawful`},
		{Character{"valkyrie", "human", "male", "neutral"}, `role "valkyrie" and gender "male": a valkyrie is female`},
		{Character{"valkyrie", "elf", "female", "random"}, `role "valkyrie" and race "elf": a valkyrie is human, dwarf`},
		{Character{"valkyrie", "dwarf", "female", "neutral"}, `race "dwarf" and alignment "neutral": a dwarf is lawful`},
		{Character{"random", "gnome", "random", "lawful"}, `race "gnome" and alignment "lawful": a gnome is neutral`},
		{Character{"healer", "random", "random", "lawful"}, `role "healer" and alignment "lawful": a healer is neutral`},
		{Character{"rogue", "random", "random", "chaotic"}, ""},
		{Character{"jedi", "human", "female", "neutral"}, `role: "jedi" is not a NetHack role`},
		{Character{"valkyrie", "human", "other", "neutral"}, `gender: "other" is not a NetHack gender`},
		{Character{"valkyrie", "human", "female", "good"}, `alignment: "good" is not a NetHack alignment`},
		{Character{"", "human", "female", "neutral"}, `role: "" is not a NetHack role`},
	} {
		err := tc.c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want valid", tc.c, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want an error containing %q", tc.c, err, tc.want)
		}
	}
}

func TestCharacterOptions(t *testing.T) {
	if got, want := gameOptions(DefaultConfig().Character()), "name:agent,role:Valkyrie,race:human,gender:female,align:neutral,"+options; got != want {
		t.Errorf("default options:\n%s\nwant\n%s", got, want)
	}
	if got, want := (Character{"SAM", "@", "random", "Lawful"}).options(), "role:Samurai,race:random,gender:random,align:lawful"; got != want {
		t.Errorf("options %q, want %q", got, want)
	}
}

// TestNLEScore checks NLEScore against NetHack 3.6's end.c arithmetic: a
// death takes a tenth of the net gold gain off the points, which
// botl_score counts whole.
func TestNLEScore(t *testing.T) {
	for _, tc := range []struct {
		how                 string
		points, gold, gold0 int
		want                int
	}{
		{"killed by a jackal", 100, 0, 0, 100},
		{"killed by a jackal", 145, 55, 0, 150},    // 55 gold: 50 counted in points, 5 lost
		{"died of starvation", 1009, 99, 0, 1018},  // 99 - 99/10 = 90 in points
		{"killed by a newt", 500, 1200, 1500, 500}, // a net loss counts 0
		{"killed by a newt", 600, 1600, 1500, 610},
		{"quit", 300, 300, 0, 300},
		{"escaped", 300, 300, 0, 300},
	} {
		if got := NLEScore(tc.how, tc.points, tc.gold, tc.gold0); got != tc.want {
			t.Errorf("NLEScore(%q, %d, %d, %d) = %d, want %d", tc.how, tc.points, tc.gold, tc.gold0, got, tc.want)
		}
	}
}

// metric returns the named metric of o under Metrics.
func metric(t *testing.T, o envs.Outcome, name string) envs.MetricValue {
	t.Helper()
	for i, m := range Metrics {
		if m.Name == name {
			return o.Metrics[i]
		}
	}
	t.Fatalf("no metric %q", name)
	return envs.MetricValue{}
}

// TestCharacters starts real games with each role (the rest random), and
// with a fully random character: the game's record shows the role asked
// for, the same seed gives the same character, and random characters
// differ across seeds.
func TestCharacters(t *testing.T) {
	play := func(c Config, seed uint64) string {
		t.Helper()
		c.MaxSteps = 10
		e := newTestEnv(t, c)
		pl, err := e.NewPlayer(0)
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		o, err := pl.Play(context.Background(), envs.Episode{Seed: seed, Params: BaseParameters()})
		if err != nil {
			t.Fatalf("%s seed %d: %v", c.Role, seed, err)
		}
		if o.EndReason != EndActionCap || metric(t, o, "quit").Num != 1 || metric(t, o, "actions").Num != 10 {
			t.Errorf("%s seed %d: end %s, quit %v, actions %v; want action_cap after 10 actions", c.Role, seed, o.EndReason, metric(t, o, "quit").Num, metric(t, o, "actions").Num)
		}
		return metric(t, o, "character").Str
	}
	for _, r := range roles {
		c := DefaultConfig()
		c.Role, c.Race, c.Gender, c.Alignment = strings.ToLower(r.name), Random, Random, Random
		if got := play(c, 1); !strings.HasPrefix(got, r.code+"-") {
			t.Errorf("role %s: character %q", r.name, got)
		}
	}
	c := DefaultConfig()
	c.Race, c.Alignment = "dwarf", "lawful"
	if got := play(c, 1); got != "Val-Dwa-Law-Fem" {
		t.Errorf("a lawful dwarvish Valkyrie: character %q", got)
	}
	c.Role, c.Race, c.Gender, c.Alignment = "@", "@", "@", "@"
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		a, b := play(c, seed), play(c, seed)
		if a != b {
			t.Errorf("random character, seed %d: %q then %q", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("random characters of 4 seeds: %v, want at least 2 different", seen)
	}
}
