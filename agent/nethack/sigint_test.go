package nethack

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"evolve/envs"
	"evolve/internal/testwait"
)

// TestSIGINTLeavesNoGame runs a real subprocess (this test binary in
// helper mode) that plays a long episode under a context cancelled by
// SIGINT, as evolve run does; after the SIGINT, no game process remains
// (checked through /proc) and the playground is gone.
func TestSIGINTLeavesNoGame(t *testing.T) {
	newTestEnv(t, DefaultConfig()) // skips without the game
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSIGINT$")
	cmd.Env = append(os.Environ(), "EVOLVE_NH_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	dir := ""
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "playground "); ok {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Fatal("the helper printed no playground")
	}
	testwait.For(t, 10*time.Second, "a game process in /proc", func() bool { return len(gameProcs(t, dir)) > 0 })
	cmd.Process.Signal(syscall.SIGINT)
	go func() {
		for sc.Scan() {
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the helper did not exit within 10 s of SIGINT")
	}
	if procs := gameProcs(t, dir); len(procs) > 0 {
		t.Errorf("game processes left after SIGINT: %v", procs)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("playground %s left after SIGINT", dir)
	}
}

// TestHelperSIGINT is the helper of TestSIGINTLeavesNoGame; it does
// nothing in a normal test run.
func TestHelperSIGINT(t *testing.T) {
	if os.Getenv("EVOLVE_NH_HELPER") != "1" {
		t.Skip("helper process of TestSIGINTLeavesNoGame")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := DefaultConfig()
	c.MaxTurns, c.NoProgressTurns = 1000000, 1000000
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := e.NewPlayer(0)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	fmt.Printf("playground %s\n", pl.(*Player).dir)
	for s := uint64(1); ctx.Err() == nil; s++ {
		pl.Play(ctx, envs.Episode{Seed: s, Params: BaseParameters()})
	}
}
