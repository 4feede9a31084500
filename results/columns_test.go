package results

import (
	"bytes"
	"os"
	"testing"

	"evolve/envs"
)

// TestEncodeColumnsMatchesRows: the column-by-column encoder of
// episodes.parquet writes exactly the bytes of the row encoder, over more
// than two row groups, with nulls, missing metrics and every metric type.
func TestEncodeColumnsMatchesRows(t *testing.T) {
	eps, _, _ := sampleRun("run-cols", 6, 4, 3000, 4500, 3000, 11)
	if len(eps) < 2*MaxRowsPerRowGroup+1 {
		t.Fatalf("fabricated %d episodes, want more than two row groups", len(eps))
	}
	metrics := append(append([]envs.Metric{}, dungeonMetrics...), envs.Metric{Name: "won", Type: envs.Bool})
	for i := range eps {
		switch i % 7 {
		case 0:
			eps[i].Metrics = eps[i].Metrics[:2] // a short list: the rest are null
		case 3:
			eps[i].Metrics = append(eps[i].Metrics, envs.MetricValue{Num: 1})
		case 5:
			eps[i].Metrics = append(eps[i].Metrics, envs.MetricValue{Null: true})
		}
	}
	eps = shuffled(eps, 3)
	byRows := encodeEpisodesByRows(t, metrics, eps)
	path := t.TempDir() + "/episodes.parquet"
	if err := WriteEpisodes(path, metrics, eps); err != nil {
		t.Fatal(err)
	}
	byCols := readBytes(t, path)
	if !bytes.Equal(byRows, byCols) {
		t.Fatalf("column encoder wrote %d bytes, row encoder %d: they differ", len(byCols), len(byRows))
	}
	got, _, err := ReadEpisodes(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(eps) {
		t.Fatalf("read %d rows back, wrote %d", len(got), len(eps))
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
