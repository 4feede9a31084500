package nethack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/envs"
	nh "evolve/envs/nethack"
)

// screenOf returns a screen whose first rows are lines, the cursor at
// the top left.
func screenOf(lines ...string) *Screen {
	return nh.ScreenFromText(strings.Join(lines, "\n"), 0, 0)
}

// TestInterruptKey: the play loop answers --More-- with Enter, the
// questions it may answer with its answer, and escapes an object prompt.
func TestInterruptKey(t *testing.T) {
	for row0, want := range map[string]string{
		"Velkommen agent, welcome to NetHack!--More--": "\r",
		"Really attack the watchman? [yn] (n)":         "n",
		"Are you sure you want to pray? [yn] (n)":      "y",
		"What do you want to eat? [d or ?*]":           "\x1b",
		"You see here a scroll labeled GHOTI.":         "",
	} {
		if k, _ := interruptKey(screenOf(row0)); k != want {
			t.Errorf("%q: key %q, want %q", row0, k, want)
		}
	}
}

func TestFirstOffered(t *testing.T) {
	for m, want := range map[string]byte{
		"What do you want to eat? [d or ?*]":     'd',
		"What do you want to drink? [fg or ?*]":  'f',
		"What do you want to eat? [a-c or ?*]":   'a',
		"You don't have anything to eat.":        0,
		"What do you want to drink? [*]":         0,
		"Really attack the newt? [yn] (n)":       0,
		"What do you want to eat? [$ or ?*]":     0,
		"What do you want to quaff? [Ab or ?*]:": 'A',
	} {
		if got := firstOffered(m); got != want {
			t.Errorf("%q: %q, want %q", m, got, want)
		}
	}
}

func TestReadXlog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "xlogfile")
	line := "version=3.6.6\tpoints=1011\tdeathdnum=0\tdeathlev=6\tmaxlvl=6\thp=-2\tmaxhp=40\tdeaths=1\tturns=1893\trole=Val\tdeath=killed by a hill orc\n"
	os.WriteFile(p, []byte("version=3.6.6\tpoints=1\tdeath=quit\n"+line), 0o644)
	x, err := readXlog(p)
	if err != nil {
		t.Fatal(err)
	}
	if x.int("points") != 1011 || x["death"] != "killed by a hill orc" || x.int("maxlvl") != 6 || x.int("turns") != 1893 {
		t.Errorf("got %v", x)
	}
	os.WriteFile(p, nil, 0o644)
	if _, err := readXlog(p); err == nil {
		t.Error("empty xlogfile: no error")
	}
}

// TestNewRefusesPlatform: on a platform that refuses real NetHack, New
// returns the game's refusal.
func TestNewRefusesPlatform(t *testing.T) {
	perr := nh.PlatformErr()
	if perr == nil {
		t.Skip("this platform plays real NetHack")
	}
	if _, err := New(DefaultConfig()); err == nil || err.Error() != perr.Error() {
		t.Errorf("New: %v, want the platform's refusal %v", err, perr)
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
		if o.EndReason != nh.EndActionCap || metric(t, o, "quit").Num != 1 || metric(t, o, "actions").Num != 10 {
			t.Errorf("%s seed %d: end %s, quit %v, actions %v; want action_cap after 10 actions", c.Role, seed, o.EndReason, metric(t, o, "quit").Num, metric(t, o, "actions").Num)
		}
		return metric(t, o, "character").Str
	}
	for _, role := range nh.RoleNames() {
		c := DefaultConfig()
		c.Role, c.Race, c.Gender, c.Alignment = role, nh.Random, nh.Random, nh.Random
		code := strings.ToUpper(role[:1]) + role[1:3] // the xlogfile's role: "Val"
		if got := play(c, 1); !strings.HasPrefix(got, code+"-") {
			t.Errorf("role %s: character %q", role, got)
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
