package nethack

import (
	"context"
	"os"
	"testing"
	"time"
)

// BenchmarkStartup measures a game's start-up: process start under a
// pty, the shim, the new game and its first screen parsed, until the game
// asks for its first key (then the game is killed, untimed).
func BenchmarkStartup(b *testing.B) {
	e := newTestEnv(b, DefaultConfig())
	dir, err := e.in.newPlayground()
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		resetPlayground(dir)
		b.StartTimer()
		t0 := time.Now()
		g, err := startGame(ctx, e.in, dir, uint64(i), gameOptions(DefaultConfig().Character()), 10*time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		g.screen().Status()
		total += time.Since(t0)
		b.StopTimer()
		g.kill()
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
	dir, err := e.in.newPlayground()
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	var g *game
	start := func(seed uint64) {
		if g != nil {
			g.kill()
		}
		resetPlayground(dir)
		g, err = startGame(ctx, e.in, dir, seed, gameOptions(DefaultConfig().Character()), 10*time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		g.send(ctx, "\r")
	}
	start(1)
	defer func() { g.kill() }()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		if err := g.send(ctx, "s"); err != nil {
			b.Fatal(err)
		}
		s := g.screen()
		s.Status()
		s.Hero()
		if s.More() {
			g.send(ctx, "\r")
		}
		if g.exited {
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
