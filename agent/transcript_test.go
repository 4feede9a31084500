package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/trajectory"
)

// TestLLMTranscript: recording keeps the outcome and gives one turn per
// game turn, with the corrections ruleModel provokes and the actions
// taken.
func TestLLMTranscript(t *testing.T) {
	e, err := dungeon.New(dungeon.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	plain, err := LLMEpisode(context.Background(), e.NewEpisode(), &ruleModel{}, "You play a dungeon.", 7, LLMOptions{MaxTurns: 30})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := LLMEpisode(context.Background(), e.NewEpisode(), &ruleModel{}, "You play a dungeon.", 7, LLMOptions{MaxTurns: 30, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Trajectory != nil {
		t.Fatalf("a trajectory without Record: %s", plain.Trajectory)
	}
	var tr Transcript
	if err := json.Unmarshal(rec.Trajectory, &tr); err != nil {
		t.Fatal(err)
	}
	// The kind package trajectory checks transcripts by, and its rule,
	// are this transcript's.
	if TranscriptKind != trajectory.LLMTranscriptKind {
		t.Fatalf("TranscriptKind %q, trajectory.LLMTranscriptKind %q", TranscriptKind, trajectory.LLMTranscriptKind)
	}
	if err := trajectory.Check(rec.TrajectoryFormat, rec.Trajectory); err != nil {
		t.Fatal(err)
	}
	empty, _ := json.Marshal(&Transcript{Kind: TranscriptKind})
	if err := trajectory.Check(envs.TrajectoryJSON, empty); err != nil {
		t.Fatalf("a transcript of no turn: %v", err)
	}
	rec.Trajectory, rec.TrajectoryFormat = nil, ""
	if !reflect.DeepEqual(plain, rec) {
		t.Fatalf("recording changed the outcome:\n%+v\n%+v", plain, rec)
	}
	turns := int(plain.Metrics[1].Num)
	if tr.Kind != TranscriptKind || tr.System == "" || len(tr.Turns) != turns {
		t.Fatalf("kind %q, system %q, %d turns; want %d turns", tr.Kind, tr.System, len(tr.Turns), turns)
	}
	rejected, tries := 0, 0
	for _, turn := range tr.Turns {
		if turn.Action == "" || len(turn.Tries) == 0 {
			t.Fatalf("turn %d: action %q, %d tries", turn.Turn, turn.Action, len(turn.Tries))
		}
		for _, try := range turn.Tries {
			tries++
			if try.Rejected != "" {
				rejected++
			}
			if try.Messages[0].Role == "system" {
				t.Fatalf("turn %d: the system prompt is repeated in a try", turn.Turn)
			}
		}
	}
	n := len(DungeonInfo().Metrics)
	if float64(tries) != plain.Metrics[n].Num || rejected == 0 {
		t.Fatalf("%d tries (%d rejected), want the %v model calls with some corrections", tries, rejected, plain.Metrics[n].Num)
	}
}
