package scores

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evolve/envs"
	"evolve/results"
)

// A CSV "cause" column and a run's cause column give Failed (cause not
// "none"; error counts); other sources have none; an empty cause is an
// error naming the line.
func TestFailed(t *testing.T) {
	s, err := ParseCSV("a.csv", []byte("seed,score,Cause\n1,3,none\n2,0,injury\n3,1,error\n"))
	if err != nil || !slices.Equal(s.Failed, []bool{false, true, true}) {
		t.Fatalf("ParseCSV with causes = %+v, %v", s, err)
	}
	if s, err := ParseCSV("b.csv", []byte("score\n3\n")); err != nil || s.Failed != nil {
		t.Errorf("ParseCSV without causes: Failed %v, %v", s.Failed, err)
	}
	if s, err := ParseLines("c.txt", []byte("3\n")); err != nil || s.Failed != nil {
		t.Errorf("ParseLines: Failed %v, %v", s.Failed, err)
	}
	if _, err := ParseCSV("d.csv", []byte("score,cause\n3,none\n4, \n")); err == nil || !strings.Contains(err.Error(), "d.csv:3: cause: empty") {
		t.Errorf("empty cause: %v", err)
	}
	dir := t.TempDir()
	metrics := []envs.Metric{{Name: "steps", Type: envs.Int}}
	eps := []results.EpisodeRow{
		{Run: "r", Version: "v1.0.0", Split: results.SplitVal, Seed: 9, Score: 1, Cause: "starvation", EndReason: "x", Metrics: []envs.MetricValue{{Num: 1}}},
		{Run: "r", Version: "v1.0.0", Split: results.SplitVal, Seed: 4, Score: 2, Cause: "none", EndReason: "x", Metrics: []envs.MetricValue{{Num: 1}}},
	}
	if err := results.WriteEpisodes(filepath.Join(dir, results.TableEpisodes+".parquet"), metrics, eps); err != nil {
		t.Fatal(err)
	}
	s, err = FromRun(dir, "v1.0.0", results.SplitVal)
	if err != nil || !slices.Equal(s.Seeds, []uint64{4, 9}) || !slices.Equal(s.Failed, []bool{false, true}) {
		t.Errorf("FromRun = %+v, %v; want seeds [4 9] failed [false true]", s, err)
	}
}
