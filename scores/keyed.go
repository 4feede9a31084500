package scores

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"evolve/internal/inputfile"
)

// Group is the sample of one key value of a keyed file (LoadKeyed).
type Group struct {
	// Key is the key column's value, as written (trimmed).
	Key string
	// Sample holds the rows with that key; its Source is "FILE[KEY]".
	*Sample
}

// LoadKeyed reads a CSV file with a header row naming a key column, a
// "score" column and optionally a "seed" column (case-insensitive), and
// returns one sample per key value, in the order the keys first appear:
// the rows of `evolve compare --key`, as benchstat's rows. Scores must be
// finite numbers; seeds, when given, must not repeat within a key. Errors
// name the file, the line and the bad value.
func LoadKeyed(path, key string) ([]Group, error) {
	if !strings.EqualFold(filepath.Ext(path), ".csv") {
		return nil, fmt.Errorf("%s: --key reads CSV files (a header row with the key, score and optionally seed columns)", path)
	}
	data, err := inputfile.Read(path, Limits)
	if err != nil {
		return nil, err
	}
	return ParseKeyed(path, data, key)
}

// ParseKeyed is LoadKeyed of data, the contents of the CSV file path.
func ParseKeyed(path string, data []byte, key string) ([]Group, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: %w (empty file)", path, ErrNoScores)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	keyCol, scoreCol, seedCol := -1, -1, -1
	for i, h := range head {
		switch name := strings.TrimSpace(h); {
		case strings.EqualFold(name, key):
			keyCol = i
		case strings.EqualFold(name, "score"):
			scoreCol = i
		case strings.EqualFold(name, "seed"):
			seedCol = i
		}
	}
	if keyCol < 0 {
		return nil, fmt.Errorf("%s:1: no %q column for --key (columns: %s)", path, key, strings.Join(head, ", "))
	}
	if scoreCol < 0 {
		return nil, fmt.Errorf("%s:1: no \"score\" column (columns: %s)", path, strings.Join(head, ", "))
	}
	var groups []Group
	at := map[string]int{}
	seen := map[string]map[uint64]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) <= max(keyCol, scoreCol, seedCol) {
			return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", path, line, len(rec), len(head))
		}
		k := strings.TrimSpace(rec[keyCol])
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			seen[k] = map[uint64]int{}
			groups = append(groups, Group{Key: k, Sample: &Sample{Source: fmt.Sprintf("%s[%s]", path, k)}})
		}
		g := groups[i]
		x, err := number(strings.TrimSpace(rec[scoreCol]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: score: %w", path, line, err)
		}
		g.Scores = append(g.Scores, x)
		if seedCol >= 0 {
			text := strings.TrimSpace(rec[seedCol])
			seed, err := strconv.ParseUint(text, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: seed: %q is not an unsigned integer", path, line, text)
			}
			if first, dup := seen[k][seed]; dup {
				return nil, fmt.Errorf("%s:%d: seed %d of key %q repeats line %d", path, line, seed, k, first)
			}
			seen[k][seed] = line
			g.Seeds = append(g.Seeds, seed)
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s: %w (a header and no rows)", path, ErrNoScores)
	}
	return groups, nil
}
