package results_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"evolve/envs"
	"evolve/results"
)

// Rows are written in a fixed order whatever order they are given in:
// splits train < val < test, versions in semantic order.
func ExampleWriteEpisodes() {
	dir, err := os.MkdirTemp("", "results-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "episodes.parquet")

	// The environment declares its metric columns; each row's Metrics
	// follow the declaration (a missing or Null value is stored as null).
	metrics := []envs.Metric{
		{Name: "depth", Type: envs.Int, Unit: "levels"},
		{Name: "killed_by", Type: envs.String},
	}
	rows := []results.EpisodeRow{
		{Run: "r1", Generation: 0, Version: "v1.0.10", Split: results.SplitVal, Seed: 7, Score: 420, Cause: "none", EndReason: "turn_limit",
			Metrics: []envs.MetricValue{{Num: 5}, {Null: true}}},
		{Run: "r1", Generation: 0, Version: "v1.0.0", Split: results.SplitTrain, Seed: 3, Score: 130, Cause: "injury", EndReason: "killed",
			Metrics: []envs.MetricValue{{Num: 2}, {Str: "jackal"}}},
		{Run: "r1", Generation: 0, Version: "v1.0.9", Split: results.SplitVal, Seed: 7, Score: 380.5, Cause: "error", EndReason: "error"},
	}
	if err := results.WriteEpisodes(path, metrics, rows); err != nil {
		log.Fatal(err)
	}
	got, declared, err := results.ReadEpisodes(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range got {
		fmt.Printf("%d %s %s seed=%d score=%g cause=%s", e.Generation, e.Split, e.Version, e.Seed, e.Score, e.Cause)
		for i, m := range declared {
			switch v := e.Metrics[i]; {
			case v.Null:
				fmt.Printf(" %s=null", m.Name)
			case m.Type == envs.String:
				fmt.Printf(" %s=%q", m.Name, v.Str)
			default:
				fmt.Printf(" %s=%g", m.Name, v.Num)
			}
		}
		fmt.Println()
	}
	// Output:
	// 0 train v1.0.0 seed=3 score=130 cause=injury depth=2 killed_by="jackal"
	// 0 val v1.0.9 seed=7 score=380.5 cause=error depth=null killed_by=null
	// 0 val v1.0.10 seed=7 score=420 cause=none depth=5 killed_by=null
}

func ExampleCompareVersions() {
	fmt.Println(results.CompareVersions("v1.0.9", "v1.0.10"))
	fmt.Println(results.CompareVersions("v1.1.0", "v1.0.10"))
	// Output:
	// -1
	// 1
}
