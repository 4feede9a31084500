package process

import (
	"testing"

	"evolve/envs"
)

// BenchmarkStartClose measures a player's process life cycle with the
// helper in episode mode: start (with its containment: a cgroup where one
// can be created), hello, one play, close and the kill of all
// descendants. It is what a crash costs beyond the episode itself.
func BenchmarkStartClose(b *testing.B) {
	e, err := New(helperConfig("episode"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		pl, err := e.NewPlayer(i)
		if err != nil {
			b.Fatal(err)
		}
		p := pl.(*Player)
		if _, err := p.Play(b.Context(), envs.Episode{Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
