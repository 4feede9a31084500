package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/trajectory"
)

// BenchmarkDungeonRecord plays whole dungeon episodes of the base policy
// without and with recording (envs.Episode.Record): the steps/s of the
// two sub-benchmarks give recording's cost, which the default
// trajectories policy (failed) pays on every episode.
func BenchmarkDungeonRecord(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "plain"
		if rec {
			name = "record"
		}
		b.Run(name, func(b *testing.B) {
			env, _ := NewDungeonEnv(dungeon.DefaultConfig())
			pl, _ := env.NewPlayer(0)
			steps := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				o, err := pl.Play(context.Background(), envs.Episode{Seed: uint64(i), Params: BaseParameters(), Record: rec})
				if err != nil {
					b.Fatal(err)
				}
				steps += int(o.Metrics[1].Num)
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkTrajectoryBytes stores the trajectories of 300 episodes (the
// default val split's size) in one phase archive and reports the bytes
// per step before compression (B/step-raw) and in the archive
// (B/step-disk).
func BenchmarkTrajectoryBytes(b *testing.B) {
	env, _ := NewDungeonEnv(dungeon.DefaultConfig())
	pl, _ := env.NewPlayer(0)
	var outs []envs.Outcome
	for s := uint64(0); s < 300; s++ {
		o, _ := pl.Play(context.Background(), envs.Episode{Seed: s, Params: BaseParameters(), Record: true})
		outs = append(outs, o)
	}
	steps := 0
	for _, o := range outs {
		var rec DungeonRecord
		if err := json.Unmarshal(o.Trajectory, &rec); err != nil {
			b.Fatal(err)
		}
		steps += len(rec.Actions)
	}
	dir := b.TempDir()
	var w trajectory.Written
	for i := 0; b.Loop(); i++ {
		os.RemoveAll(filepath.Join(dir, trajectory.Dir))
		var err error
		if w, err = trajectory.Write(dir, trajectory.Phase{Split: "val", Version: "v1.0.0"}, trajectory.FromOutcomes(trajectory.All, outs, nil, nil)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Bytes)/float64(steps), "B/step-raw")
	b.ReportMetric(float64(w.Compressed)/float64(steps), "B/step-disk")
}

// BenchmarkExpandDungeon replays a recorded episode into its per-turn
// records (what evolve view does to show one).
func BenchmarkExpandDungeon(b *testing.B) {
	env, _ := NewDungeonEnv(dungeon.DefaultConfig())
	pl, _ := env.NewPlayer(0)
	o, _ := pl.Play(context.Background(), envs.Episode{Seed: 3, Params: BaseParameters(), Record: true})
	for b.Loop() {
		if _, err := ExpandDungeon(o.Trajectory); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(o.Metrics[1].Num, "turns")
}
