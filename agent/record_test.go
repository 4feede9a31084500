package agent

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/trajectory"
)

// TestDungeonRecord checks that recording never changes an outcome, that
// the record replays to the same end, and that the rewards sum to the
// score.
func TestDungeonRecord(t *testing.T) {
	for _, budget := range []int{0, 150} {
		env, err := NewDungeonEnv(dungeon.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		env.SetStepBudget(budget)
		pl, _ := env.NewPlayer(0)
		for seed := uint64(1); seed <= 12; seed++ {
			ep := envs.Episode{Seed: seed, Params: BaseParameters()}
			plain, err := pl.Play(context.Background(), ep)
			if err != nil {
				t.Fatal(err)
			}
			ep.Record = true
			rec, err := pl.Play(context.Background(), ep)
			if err != nil {
				t.Fatal(err)
			}
			if rec.TrajectoryFormat != envs.TrajectoryJSON || len(rec.Trajectory) == 0 {
				t.Fatalf("seed %d: no trajectory recorded (format %q)", seed, rec.TrajectoryFormat)
			}
			if err := trajectory.Check(rec.TrajectoryFormat, rec.Trajectory); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			traj := rec.Trajectory
			rec.Trajectory, rec.TrajectoryFormat = nil, ""
			if !reflect.DeepEqual(plain, rec) {
				t.Fatalf("seed %d budget %d: recording changed the outcome:\n%+v\n%+v", seed, budget, plain, rec)
			}
			rp, err := ExpandDungeon(traj)
			if err != nil {
				t.Fatal(err)
			}
			if rp.Diverged != "" {
				t.Fatalf("seed %d budget %d: %s", seed, budget, rp.Diverged)
			}
			var sum int64
			for _, s := range rp.Steps {
				sum += s.Reward
			}
			if last := rp.Steps[len(rp.Steps)-1]; sum != last.Score || float64(last.Score) != plain.Score {
				t.Fatalf("seed %d: rewards sum to %d, final score %d, outcome score %v", seed, sum, last.Score, plain.Score)
			}
			if budget > 0 && len(rp.Record.Actions) > budget {
				t.Fatalf("seed %d: %d actions over a budget of %d", seed, len(rp.Record.Actions), budget)
			}
			if !strings.Contains(rp.Steps[0].Map, "@") || !strings.Contains(rp.Steps[0].Map, "Dlvl:1") {
				t.Fatalf("seed %d: first map lacks the hero or status line:\n%s", seed, rp.Steps[0].Map)
			}
		}
	}
}

func TestExpandDungeonErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", "{", "not a dungeon trajectory"},
		{"other kind", `{"kind":"x"}`, "not a dungeon trajectory"},
		{"bad config", `{"kind":"dungeon-actions/v1","config":{"max_turns":1}}`, "max_turns"},
		{"bad action", `{"kind":"dungeon-actions/v1","config":{"max_turns":3000,"max_depth":20,"no_progress_turns":300},"actions":"19"}`, "step 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ExpandDungeon([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzExpandDungeon(f *testing.F) {
	f.Add([]byte(`{"kind":"dungeon-actions/v1","config":{"max_turns":100,"max_depth":2,"no_progress_turns":10},"seed":3,"actions":"1111230"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := ExpandDungeon(data)
		if err == nil && len(rp.Steps) == 0 {
			t.Fatal("a replay without its final step")
		}
	})
}
