package nethack

import (
	"context"
	nh "evolve/envs/nethack"
	"os"
	"testing"
	"time"
)

// BenchmarkStartup measures a game's start-up: process start under a
// pty, the shim, the new game and its first screen parsed, until the game
// asks for its first key (then the game is killed, untimed).
func BenchmarkStartup(b *testing.B) {
	e := newTestEnv(b, DefaultConfig())
	dir, err := e.in.NewPlayground()
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		nh.ResetPlayground(dir)
		b.StartTimer()
		t0 := time.Now()
		g, err := nh.StartGame(ctx, e.in, dir, uint64(i), nh.GameOptions(DefaultConfig().Character()), 10*time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		g.Screen().Status()
		total += time.Since(t0)
		b.StopTimer()
		g.Kill()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/start")
}

// BenchmarkActions measures actions per second of one worker: a key ('s',
// search one turn) written to the pty, the game's output read up to its
// next request for a key, and the screen parsed (grid, status lines,
// hero). A game that ends is replaced, untimed.
func BenchmarkActions(b *testing.B) {
	e := newTestEnv(b, DefaultConfig())
	dir, err := e.in.NewPlayground()
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	var g *nh.Game
	start := func(seed uint64) {
		if g != nil {
			g.Kill()
		}
		nh.ResetPlayground(dir)
		g, err = nh.StartGame(ctx, e.in, dir, seed, nh.GameOptions(DefaultConfig().Character()), 10*time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		g.Send(ctx, "\r")
	}
	start(1)
	defer func() { g.Kill() }()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		if err := g.Send(ctx, "s"); err != nil {
			b.Fatal(err)
		}
		s := g.Screen()
		s.Status()
		s.Hero()
		if s.More() {
			g.Send(ctx, "\r")
		}
		if g.Exited() {
			b.StopTimer()
			start(uint64(i))
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "actions/s")
}

// BenchmarkScriptedAct measures one decision of the scripted agent on a
// level of two rooms and a corridor with nothing left to explore, so
// that each decision runs its search (a breadth-first search over the
// whole map and the scoring of every reachable square): the agent's
// share of an action's time, apart from the game's.
func BenchmarkScriptedAct(b *testing.B) {
	rows := []string{
		"                                                                          ",
		"  +--------+                         +-----------+                        ",
		"  |........|                         |...........|                        ",
		"  |........-#########################-...........|                        ",
		"  |........|                         |...........|                        ",
		"  |........|                         |...........|                        ",
		"  +--------+                         +-----------+                        ",
	}
	s := mapScreen(5, 3, nil, rows...)
	st := s.Status()
	a := NewScripted(BaseParameters())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.act(s, st)
	}
}
