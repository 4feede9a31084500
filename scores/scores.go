// Package scores loads samples of episode scores for `evolve compare` from
// the formats researchers and CI jobs have at hand: a text file of one
// number per line, a CSV file with a score column, a Parquet file with a
// score column, or a version's episodes in an evolve run directory.
//
// A sample may carry the seed of each score; two samples with seeds can
// be paired by seed for the Wilcoxon signed-rank test.
//
// Compare compares a candidate's sample with a baseline's as evolve
// compare prints it (rank test, effect sizes, Hodges-Lehmann shift,
// verdict); CompareRows does so for many candidates and keys with the
// p-values adjusted across the rows, as benchstat does; GateCheck and
// FailureCheck run package gate's checks on two samples.
package scores

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"evolve/envs"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"evolve/internal/inputfile"
	"evolve/results"
	"evolve/rundir"
)

// Sample is a loaded sample of scores.
type Sample struct {
	// Source names where the sample came from: a file name, or
	// "RUN_DIR:VERSION (split)".
	Source string
	// Scores are the scores, in file order (seed order for a run), finite.
	Scores []float64
	// Seeds, if not nil, has the seed of each score (same length, no
	// repeats); nil when the source has no seed column.
	Seeds []uint64
	// Failed, if not nil, tells for each score whether its episode failed
	// (its cause is not "none"; "error" counts as failed): from a run's
	// cause column, or a CSV file's "cause" column. nil when the source
	// has no cause (text and Parquet score files).
	Failed []bool
}

// ErrNoScores is wrapped by the errors of sources without a single score.
var ErrNoScores = errors.New("no scores")

// Load reads the sample named by arg: RUN_DIR:VERSION when arg contains a
// colon and the part before it is a directory (the version's episodes of
// split in RUN_DIR/episodes.parquet), else a file: *.parquet as Parquet,
// *.csv as CSV, anything else (and "-", standard input) as one number
// per line. A file is read as inputfile.Read reads it, under Limits: a
// regular file or a pipe, never a device, with a cap on its size and on
// a line (none on a line for Parquet). Errors name the file and, for
// text, the line.
func Load(arg, split string) (*Sample, error) {
	if dir, version, ok := strings.Cut(arg, ":"); ok {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return FromRun(dir, version, split)
		}
	}
	ext := strings.ToLower(filepath.Ext(arg))
	lim := Limits
	if ext == ".parquet" {
		lim.MaxLine = 0
	}
	data, err := inputfile.Read(arg, lim)
	if err != nil {
		return nil, err
	}
	switch ext {
	case ".parquet":
		return ParseParquet(arg, data)
	case ".csv":
		return ParseCSV(arg, data)
	}
	return ParseLines(arg, data)
}

// Limits are the caps on a score file's size and on its longest line
// (Load, LoadKeyed): inputfile.DefaultLimits, 256 MiB and 1 MiB.
var Limits = inputfile.DefaultLimits

// utf8BOM is the byte-order mark some editors and spreadsheets write at
// the start of a UTF-8 file; the parsers drop it.
var utf8BOM = []byte("\xef\xbb\xbf")

// ParseLines reads one number per line; blank lines and lines starting
// with '#' are skipped. The error names name, the line and the bad text.
func ParseLines(name string, data []byte) (*Sample, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	s := &Sample{Source: name}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		x, err := number(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		s.Scores = append(s.Scores, x)
	}
	if len(s.Scores) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoScores)
	}
	return s, nil
}

// number parses a finite float.
func number(text string) (float64, error) {
	x, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", text)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number", text)
	}
	return x, nil
}

// ParseCSV reads a CSV file whose header row has a "score" column and
// optionally a "seed" and a "cause" column (case-insensitive names; other
// columns are ignored; a cause is "none" or a failure cause, never
// empty). Errors name name, the line and the bad value.
func ParseCSV(name string, data []byte) (*Sample, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: %w (empty file)", name, ErrNoScores)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	scoreCol, seedCol, causeCol := -1, -1, -1
	for i, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "score":
			scoreCol = i
		case "seed":
			seedCol = i
		case "cause":
			causeCol = i
		}
	}
	if scoreCol < 0 {
		return nil, fmt.Errorf("%s:1: no \"score\" column (columns: %s)", name, strings.Join(head, ", "))
	}
	s := &Sample{Source: name}
	seen := map[uint64]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) <= max(scoreCol, seedCol, causeCol) {
			return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", name, line, len(rec), len(head))
		}
		x, err := number(strings.TrimSpace(rec[scoreCol]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: score: %w", name, line, err)
		}
		s.Scores = append(s.Scores, x)
		if causeCol >= 0 {
			cause := strings.TrimSpace(rec[causeCol])
			if cause == "" {
				return nil, fmt.Errorf("%s:%d: cause: empty (want \"none\" or a failure cause)", name, line)
			}
			s.Failed = append(s.Failed, cause != envs.CauseNone)
		}
		if seedCol >= 0 {
			text := strings.TrimSpace(rec[seedCol])
			seed, err := strconv.ParseUint(text, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: seed: %q is not an unsigned integer", name, line, text)
			}
			if first, dup := seen[seed]; dup {
				return nil, fmt.Errorf("%s:%d: seed %d repeats line %d", name, line, seed, first)
			}
			seen[seed] = line
			s.Seeds = append(s.Seeds, seed)
		}
	}
	if len(s.Scores) == 0 {
		return nil, fmt.Errorf("%s: %w (a header and no rows)", name, ErrNoScores)
	}
	return s, nil
}

// ParseParquet reads the "score" column (any integer or floating-point
// type) and, if present, the "seed" column of a Parquet file. Nulls are
// errors naming the row (0-based).
func ParseParquet(name string, data []byte) (*Sample, error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a Parquet file: %w", name, err)
	}
	score, ok := f.Schema().Lookup("score")
	if !ok {
		var cols []string
		for _, c := range f.Schema().Columns() {
			cols = append(cols, strings.Join(c, "."))
		}
		return nil, fmt.Errorf("%s: no \"score\" column (columns: %s)", name, strings.Join(cols, ", "))
	}
	seed, hasSeed := f.Schema().Lookup("seed")
	s := &Sample{Source: name}
	row := 0
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				var x float64
				var sd uint64
				gotScore, gotSeed := false, false
				for _, v := range r {
					switch v.Column() {
					case score.ColumnIndex:
						if x, err = value(v); err != nil {
							rows.Close()
							return nil, fmt.Errorf("%s: row %d: score: %w", name, row, err)
						}
						gotScore = true
					case seed.ColumnIndex:
						if hasSeed && !v.IsNull() {
							sd, gotSeed = uint64(v.Int64()), true
						}
					}
				}
				if !gotScore {
					rows.Close()
					return nil, fmt.Errorf("%s: row %d: score: null", name, row)
				}
				s.Scores = append(s.Scores, x)
				if hasSeed {
					if !gotSeed {
						rows.Close()
						return nil, fmt.Errorf("%s: row %d: seed: null", name, row)
					}
					s.Seeds = append(s.Seeds, sd)
				}
				row++
			}
			if err == io.EOF || n == 0 {
				break
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		rows.Close()
	}
	if len(s.Scores) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoScores)
	}
	if hasSeed {
		if err := noRepeats(name, s.Seeds); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// value converts a numeric Parquet value to a finite float64.
func value(v parquet.Value) (float64, error) {
	var x float64
	switch v.Kind() {
	case parquet.Double:
		x = v.Double()
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Int32:
		x = float64(v.Int32())
	case parquet.Int64:
		x = float64(v.Int64())
	default:
		if v.IsNull() {
			return 0, errors.New("null")
		}
		return 0, fmt.Errorf("a %v value is not a number", v.Kind())
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%v is not a finite number", x)
	}
	return x, nil
}

func noRepeats(name string, seeds []uint64) error {
	seen := make(map[uint64]int, len(seeds))
	for i, s := range seeds {
		if j, dup := seen[s]; dup {
			return fmt.Errorf("%s: row %d: seed %d repeats row %d", name, i, s, j)
		}
		seen[s] = i
	}
	return nil
}

// FromRun returns the scores of version's episodes on split in the run
// directory dir (dir/episodes.parquet, read by results.ReadEpisodes: its
// score, seed, version, split and generation columns; the environment's
// metric columns are not needed), ordered by seed, with their seeds and
// whether each failed (cause not "none").
// If the version played the split in several generations (an incumbent
// kept for more than one), the latest generation's episodes are used. An
// unknown version is an error listing the versions that played split.
func FromRun(dir, version, split string) (*Sample, error) {
	path := filepath.Join(dir, rundir.EpisodesFile)
	eps, _, err := results.ReadEpisodes(path)
	if err != nil {
		return nil, err
	}
	latest := int32(-1)
	var versions []string
	for _, e := range eps {
		if e.Split != split {
			continue
		}
		if !slices.Contains(versions, e.Version) {
			versions = append(versions, e.Version)
		}
		if e.Version == version {
			latest = max(latest, e.Generation)
		}
	}
	if latest < 0 {
		slices.SortFunc(versions, results.CompareVersions)
		if len(versions) == 0 {
			return nil, fmt.Errorf("%s: no %s episodes", path, split)
		}
		return nil, fmt.Errorf("%s: version %q has no %s episodes (versions with %s episodes: %s)", path, version, split, split, strings.Join(versions, ", "))
	}
	type pair struct {
		seed   uint64
		score  float64
		failed bool
	}
	var ps []pair
	for _, e := range eps {
		if e.Split == split && e.Version == version && e.Generation == latest {
			ps = append(ps, pair{e.Seed, e.Score, e.Cause != envs.CauseNone})
		}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.seed, b.seed) })
	s := &Sample{Source: fmt.Sprintf("%s:%s (%s)", dir, version, split)}
	for _, p := range ps {
		s.Scores = append(s.Scores, p.score)
		s.Seeds = append(s.Seeds, p.seed)
		s.Failed = append(s.Failed, p.failed)
	}
	return s, nil
}

// Pair returns the scores of a and b paired for a paired test: by seed
// when both have seeds (every seed must be in both), else by position
// when neither has seeds and the lengths are equal. The error names the
// unmatched seeds (at most 5) or the lengths.
func Pair(a, b *Sample) (x, y []float64, err error) {
	switch {
	case a.Seeds != nil && b.Seeds != nil:
		at := make(map[uint64]int, len(a.Seeds))
		for i, s := range a.Seeds {
			at[s] = i
		}
		var onlyB []string
		inB := make(map[uint64]bool, len(b.Seeds))
		for i, s := range b.Seeds {
			inB[s] = true
			j, ok := at[s]
			if !ok {
				onlyB = append(onlyB, strconv.FormatUint(s, 10))
				continue
			}
			x, y = append(x, a.Scores[j]), append(y, b.Scores[i])
		}
		var onlyA []string
		for _, s := range a.Seeds {
			if !inB[s] {
				onlyA = append(onlyA, strconv.FormatUint(s, 10))
			}
		}
		if len(onlyA) > 0 || len(onlyB) > 0 {
			return nil, nil, fmt.Errorf("cannot pair by seed: %s has %d seeds %s lacks%s, %s has %d seeds %s lacks%s",
				a.Source, len(onlyA), b.Source, examples(onlyA), b.Source, len(onlyB), a.Source, examples(onlyB))
		}
		return x, y, nil
	case a.Seeds == nil && b.Seeds == nil:
		if len(a.Scores) != len(b.Scores) {
			return nil, nil, fmt.Errorf("cannot pair by position: %s has %d scores, %s has %d (give both a seed column to pair by seed)",
				a.Source, len(a.Scores), b.Source, len(b.Scores))
		}
		return a.Scores, b.Scores, nil
	}
	return nil, nil, fmt.Errorf("cannot pair: only one of %s and %s has seeds", a.Source, b.Source)
}

func examples(s []string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > 5 {
		s = append(s[:5:5], "...")
	}
	return " (" + strings.Join(s, ", ") + ")"
}
