package nethack

import (
	"context"
	nh "evolve/envs/nethack"
	"os"
	"path/filepath"
	"testing"
	"time"

	"evolve/envs"
)

// TestUntilDeath plays one seed with a short turn cap and stall
// detector, then the same seed until death: the first is quit by evolve
// (quit true, no death text), the second plays on past the turn cap
// until the game ends itself (quit false, a death text, NLE's score at
// least the points); max_steps caps it at an exact number of actions.
func TestUntilDeath(t *testing.T) {
	play := func(c Config) envs.Outcome {
		t.Helper()
		e := newTestEnv(t, c)
		pl, err := e.NewPlayer(0)
		if err != nil {
			t.Fatal(err)
		}
		defer pl.Close()
		o, err := pl.Play(context.Background(), envs.Episode{Seed: 7302312264533344797, Params: BaseParameters()})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	c := shortConfig()
	c.MaxTurns, c.NoProgressTurns = 100, 50
	capped := play(c)
	if metric(t, capped, "quit").Num != 1 || metric(t, capped, "killed_by").Str != "" || capped.EndReason == nh.EndDied {
		t.Errorf("with max_turns %d: end %s, quit %v, killed_by %q; want a quit", c.MaxTurns, capped.EndReason, metric(t, capped, "quit").Num, metric(t, capped, "killed_by").Str)
	}
	if nle := metric(t, capped, "nle_score").Num; nle != capped.Score {
		t.Errorf("a quit: nle_score %v, points %v; want equal", nle, capped.Score)
	}
	c.UntilDeath = true
	dead := play(c)
	turns := metric(t, dead, "turns").Num
	if dead.EndReason != nh.EndDied && dead.EndReason != nh.EndStarved || metric(t, dead, "quit").Num != 0 || metric(t, dead, "killed_by").Str == "" || turns < metric(t, capped, "turns").Num {
		t.Errorf("until death: end %s, quit %v, killed_by %q after %v turns; want a death after at least the capped game's %v turns",
			dead.EndReason, metric(t, dead, "quit").Num, metric(t, dead, "killed_by").Str, turns, metric(t, capped, "turns").Num)
	}
	if nle := metric(t, dead, "nle_score").Num; nle < dead.Score {
		t.Errorf("until death: score %v, nle_score %v; want nle_score >= score", dead.Score, nle)
	}
	c.MaxSteps = 120
	stepped := play(c)
	if stepped.EndReason != nh.EndActionCap || stepped.Cause != "action_cap" || metric(t, stepped, "actions").Num != 120 || metric(t, stepped, "quit").Num != 1 {
		t.Errorf("max_steps 120: end %s, cause %s, %v actions, quit %v", stepped.EndReason, stepped.Cause, metric(t, stepped, "actions").Num, metric(t, stepped, "quit").Num)
	}
}

// lookPolicy looks at the floor (':'), which takes no game time.
type lookPolicy struct{}

func (lookPolicy) act(context.Context, *Screen, Status) (decision, error) {
	return decision{keys: ":"}, nil
}
func (lookPolicy) metrics() []envs.MetricValue { return nil }

// TestUntilDeathStoppedClock: until death, an agent whose actions take no
// game time is quit once clock_stop_steps actions passed without the turn
// counter moving (end reason stuck), and not before.
func TestUntilDeathStoppedClock(t *testing.T) {
	c := shortConfig()
	c.UntilDeath, c.ClockStopSteps = true, 100
	e := newTestEnv(t, c)
	dir, err := e.in.NewPlayground()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	g, err := nh.StartGame(context.Background(), e.in, dir, 3, nh.GameOptions(c.Character()), 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Kill()
	r := &run{g: g, cfg: c, pol: lookPolicy{}}
	out, err := r.play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.EndReason != nh.EndStuck || !r.byActions || r.actions != c.ClockStopSteps || r.last.T != 1 {
		t.Errorf("end %q (by actions %v) after %d actions at T:%d; want stuck after %d actions at T:1", out.EndReason, r.byActions, r.actions, r.last.T, c.ClockStopSteps)
	}
	x, err := readXlog(filepath.Join(dir, "xlogfile"))
	if err != nil || x["death"] != "quit" {
		t.Errorf("xlogfile death %q (%v), want quit", x["death"], err)
	}
}
