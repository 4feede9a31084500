package scores

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"evolve/envs"
	"evolve/results"
)

func TestParseLines(t *testing.T) {
	s, err := ParseLines("a.txt", []byte("# scores\n1\n\n 2.5 \n-3e2\r\n"))
	if err != nil || !slices.Equal(s.Scores, []float64{1, 2.5, -300}) || s.Seeds != nil || s.Source != "a.txt" {
		t.Fatalf("ParseLines = %+v, %v", s, err)
	}
}

func TestParseCSV(t *testing.T) {
	s, err := ParseCSV("a.csv", []byte("Seed,note,Score\n7,x,1.5\n9,\"a,b\",2\n"))
	if err != nil || !slices.Equal(s.Scores, []float64{1.5, 2}) || !slices.Equal(s.Seeds, []uint64{7, 9}) {
		t.Fatalf("ParseCSV = %+v, %v", s, err)
	}
	s, err = ParseCSV("b.csv", []byte("score\n3\n"))
	if err != nil || s.Seeds != nil || !slices.Equal(s.Scores, []float64{3}) {
		t.Fatalf("ParseCSV without seeds = %+v, %v", s, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file, data, want string
	}{
		{"word", "a.txt", "1\nabc\n", `a.txt:2: "abc" is not a number`},
		{"NaN", "a.txt", "1\nNaN\n", `a.txt:2: "NaN" is not a finite number`},
		{"Inf", "a.txt", "+Inf\n", `a.txt:1: "+Inf" is not a finite number`},
		{"two numbers", "a.txt", "1 2\n", `a.txt:1: "1 2" is not a number`},
		{"empty text", "a.txt", "# nothing\n", "a.txt: no scores"},
		{"empty csv", "a.csv", "", "a.csv: no scores (empty file)"},
		{"no score column", "a.csv", "seed,value\n1,2\n", `a.csv:1: no "score" column (columns: seed, value)`},
		{"header only", "a.csv", "score\n", "a.csv: no scores (a header and no rows)"},
		{"bad score", "a.csv", "seed,score\n1,2\n2,x\n", `a.csv:3: score: "x" is not a number`},
		{"bad seed", "a.csv", "seed,score\n-1,2\n", `a.csv:2: seed: "-1" is not an unsigned integer`},
		{"repeated seed", "a.csv", "seed,score\n4,2\n4,3\n", "a.csv:3: seed 4 repeats line 2"},
		{"short row", "a.csv", "seed,score\n4\n", "a.csv:2: 1 fields, the header has 2"},
		{"not parquet", "a.parquet", "hello", "a.parquet: not a Parquet file: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			os.WriteFile(path, []byte(tt.data), 0o644)
			_, err := Load(path, "val")
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+"/", "")
			if got != tt.want && !(strings.HasSuffix(tt.want, ": ") && strings.HasPrefix(got, tt.want)) {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(tt.want, "no scores") && !errors.Is(err, ErrNoScores) {
				t.Errorf("%v does not wrap ErrNoScores", err)
			}
		})
	}
}

func writeParquet[T any](t *testing.T, rows []T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.parquet")
	os.WriteFile(path, buf.Bytes(), 0o644)
	return path
}

func TestParquet(t *testing.T) {
	type withSeed struct {
		Name  string `parquet:"name"`
		Seed  uint64 `parquet:"seed"`
		Score int32  `parquet:"score"`
	}
	s, err := Load(writeParquet(t, []withSeed{{"a", 5, 10}, {"b", 3, 20}}), "val")
	if err != nil || !slices.Equal(s.Scores, []float64{10, 20}) || !slices.Equal(s.Seeds, []uint64{5, 3}) {
		t.Fatalf("int32 scores with seeds: %+v, %v", s, err)
	}
	type floats struct {
		Score float64 `parquet:"score"`
	}
	s, err = Load(writeParquet(t, []floats{{1.5}, {2.25}}), "val")
	if err != nil || !slices.Equal(s.Scores, []float64{1.5, 2.25}) || s.Seeds != nil {
		t.Fatalf("float scores: %+v, %v", s, err)
	}
	type noScore struct {
		Points float64 `parquet:"points"`
	}
	_, err = Load(writeParquet(t, []noScore{{1}}), "val")
	if err == nil || !strings.HasSuffix(err.Error(), `s.parquet: no "score" column (columns: points)`) {
		t.Errorf("no score column: %v", err)
	}
	type optional struct {
		Score *float64 `parquet:"score,optional"`
	}
	one := 1.0
	_, err = Load(writeParquet(t, []optional{{&one}, {nil}}), "val")
	if err == nil || !strings.HasSuffix(err.Error(), "s.parquet: row 1: score: null") {
		t.Errorf("null score: %v", err)
	}
}

func TestPair(t *testing.T) {
	a := &Sample{Source: "a", Scores: []float64{1, 2, 3}, Seeds: []uint64{10, 20, 30}}
	b := &Sample{Source: "b", Scores: []float64{30, 10, 20}, Seeds: []uint64{30, 10, 20}}
	x, y, err := Pair(a, b)
	if err != nil || !slices.Equal(x, []float64{3, 1, 2}) || !slices.Equal(y, []float64{30, 10, 20}) {
		t.Errorf("Pair by seed = %v %v %v", x, y, err)
	}
	c := &Sample{Source: "c", Scores: []float64{1, 2}, Seeds: []uint64{10, 40}}
	if _, _, err := Pair(a, c); err == nil || err.Error() != "cannot pair by seed: a has 2 seeds c lacks (20, 30), c has 1 seeds a lacks (40)" {
		t.Errorf("unmatched seeds: %v", err)
	}
	p, q := &Sample{Source: "p", Scores: []float64{1, 2}}, &Sample{Source: "q", Scores: []float64{3}}
	if _, _, err := Pair(p, q); err == nil || !strings.HasPrefix(err.Error(), "cannot pair by position: p has 2 scores, q has 1") {
		t.Errorf("lengths: %v", err)
	}
	if _, _, err := Pair(a, p); err == nil || err.Error() != "cannot pair: only one of a and p has seeds" {
		t.Errorf("seeds on one side: %v", err)
	}
}

func FuzzParseLines(f *testing.F) {
	f.Add([]byte("1\n2.5\n# c\n\n-3e2\n"))
	f.Add([]byte("NaN\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseLines("f.txt", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(s.Scores) == 0 {
			t.Fatal("no error and no scores")
		}
	})
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("seed,score\n1,2\n2,3.5\n"))
	f.Add([]byte("score\n\"1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseCSV("f.csv", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(s.Scores) == 0 || (s.Seeds != nil && len(s.Seeds) != len(s.Scores)) {
			t.Fatalf("scores %d, seeds %d", len(s.Scores), len(s.Seeds))
		}
	})
}

// TestFromRun reads a version's scores from a run directory's
// episodes.parquet of schema 3: DOUBLE scores, which may be fractions, and
// an environment's own metric columns, which it does not need.
func TestFromRun(t *testing.T) {
	dir := t.TempDir()
	metrics := []envs.Metric{{Name: "steps", Type: envs.Int}, {Name: "level", Type: envs.String}}
	ep := func(gen int32, version, split string, seed uint64, score float64) results.EpisodeRow {
		return results.EpisodeRow{Run: "r", Generation: gen, Version: version, Split: split, Seed: seed, Score: score,
			Cause: "none", EndReason: "done", Metrics: []envs.MetricValue{{Num: 3}, {Null: true}}}
	}
	eps := []results.EpisodeRow{
		ep(0, "v1.0.0", results.SplitVal, 9, 1.25),
		ep(0, "v1.0.0", results.SplitVal, 4, 2.5),
		ep(1, "v1.0.0", results.SplitVal, 9, 7.75), // the latest generation wins
		ep(1, "v1.0.0", results.SplitVal, 4, -0.5),
		ep(1, "v1.0.0", results.SplitTest, 4, 100),
		ep(1, "v1.0.1", results.SplitVal, 4, 3),
	}
	path := filepath.Join(dir, results.TableEpisodes+".parquet")
	if err := results.WriteEpisodes(path, metrics, eps); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir+":v1.0.0", results.SplitVal)
	if err != nil || !slices.Equal(s.Scores, []float64{-0.5, 7.75}) || !slices.Equal(s.Seeds, []uint64{4, 9}) {
		t.Fatalf("Load(RUN_DIR:v1.0.0) = %+v, %v; want scores [-0.5 7.75] of seeds [4 9]", s, err)
	}
	if want := dir + ":v1.0.0 (val)"; s.Source != want {
		t.Errorf("Source = %q, want %q", s.Source, want)
	}
	if _, err := FromRun(dir, "v9", results.SplitVal); err == nil || !strings.Contains(err.Error(), "v1.0.0, v1.0.1") {
		t.Errorf("unknown version: %v, want an error listing v1.0.0, v1.0.1", err)
	}
	// The file itself is a Parquet file with a DOUBLE score and seeds.
	one := filepath.Join(t.TempDir(), "one.parquet")
	if err := results.WriteEpisodes(one, metrics, eps[:2]); err != nil {
		t.Fatal(err)
	}
	s, err = Load(one, results.SplitVal)
	if err != nil || !slices.Equal(s.Scores, []float64{2.5, 1.25}) || !slices.Equal(s.Seeds, []uint64{4, 9}) {
		t.Errorf("Load(episodes file) = %+v, %v", s, err)
	}
}

// TestByteOrderMark: a UTF-8 byte-order mark at the start of a file is
// not part of its first column's name (CSV, keyed CSV) or first number.
func TestByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	s, err := ParseCSV("f.csv", []byte(bom+"seed,score\n1,2\n2,3\n"))
	if err != nil || len(s.Seeds) != 2 || s.Seeds[1] != 2 {
		t.Errorf("ParseCSV with a byte-order mark: %+v, %v; want seeds [1 2]", s, err)
	}
	g, err := ParseKeyed("f.csv", []byte(bom+"task,score\na,1\nb,2\n"), "task")
	if err != nil || len(g) != 2 || g[0].Key != "a" {
		t.Errorf("ParseKeyed with a byte-order mark: %+v, %v", g, err)
	}
	l, err := ParseLines("f.txt", []byte(bom+"1.5\n2\n"))
	if err != nil || len(l.Scores) != 2 || l.Scores[0] != 1.5 {
		t.Errorf("ParseLines with a byte-order mark: %+v, %v", l, err)
	}
}
