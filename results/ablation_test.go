package results

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
)

// TestAblationRoundTrip: ablation.parquet and anytime.parquet are written
// in their order (environment, replicate, proposer[, step]) whatever the
// rows' order, read back equal, and refused as each other's table.
func TestAblationRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := []AblationRow{
		{Environment: "nethack", Replicate: 1, Proposer: "failure", FinalTestMean: 3},
		{Environment: "dungeon", Replicate: 2, Proposer: "cmaes", FinalTestMean: 2, EpisodesUsed: 14300, Budget: 14300},
		{Environment: "dungeon", Replicate: 1, Proposer: "random", FinalTestMean: 1, StopReason: "budget"},
		{Environment: "dungeon", Replicate: 1, Proposer: "failure", FinalTestMean: 0, NormalizedScore: -0.5},
	}
	path := filepath.Join(dir, "ablation.parquet")
	if err := WriteAblation(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAblation(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []AblationRow{rows[3], rows[2], rows[1], rows[0]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	any := []AnytimeRow{{Environment: "d", Replicate: 1, Proposer: "random", Step: 1, EpisodesUsed: 500, ValMean: 2},
		{Environment: "d", Replicate: 1, Proposer: "random", Step: 0, EpisodesUsed: 300, ValMean: 1}}
	apath := filepath.Join(dir, "anytime.parquet")
	if err := WriteAnytime(apath, any); err != nil {
		t.Fatal(err)
	}
	a, err := ReadAnytime(apath)
	if err != nil || len(a) != 2 || a[0].Step != 0 || a[1].EpisodesUsed != 500 {
		t.Errorf("anytime read back %+v, %v", a, err)
	}
	if _, err := ReadAblation(apath); !errors.Is(err, ErrSchema) {
		t.Errorf("ReadAblation of anytime.parquet: %v, want ErrSchema", err)
	}
}
