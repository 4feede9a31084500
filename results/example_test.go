package results_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

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

	rows := []results.EpisodeRow{
		{Run: "r1", Generation: 0, Version: "v1.0.10", Split: results.SplitVal, Seed: 7, Score: 420, Cause: "none", EndReason: "turn_limit"},
		{Run: "r1", Generation: 0, Version: "v1.0.0", Split: results.SplitTrain, Seed: 3, Score: 130, Cause: "injury", EndReason: "killed", KilledBy: "jackal"},
		{Run: "r1", Generation: 0, Version: "v1.0.9", Split: results.SplitVal, Seed: 7, Score: 380, Cause: "starvation", EndReason: "starved"},
	}
	if err := results.WriteEpisodes(path, rows); err != nil {
		log.Fatal(err)
	}
	got, err := results.ReadEpisodes(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range got {
		fmt.Printf("%d %s %s seed=%d score=%d cause=%s killed_by=%q\n", e.Generation, e.Split, e.Version, e.Seed, e.Score, e.Cause, e.KilledBy)
	}
	// Output:
	// 0 train v1.0.0 seed=3 score=130 cause=injury killed_by="jackal"
	// 0 val v1.0.9 seed=7 score=380 cause=starvation killed_by=""
	// 0 val v1.0.10 seed=7 score=420 cause=none killed_by=""
}

func ExampleCompareVersions() {
	fmt.Println(results.CompareVersions("v1.0.9", "v1.0.10"))
	fmt.Println(results.CompareVersions("v1.1.0", "v1.0.10"))
	// Output:
	// -1
	// 1
}
