package main

import (
	"errors"
	"evolve/store"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"evolve/prompt"
	"evolve/results"
	"evolve/rundir"
)

// validateRunDir checks a run or eval directory (one with manifest.yaml)
// without changing it: every prompt version verifies against its content
// hash (a run's store: its index's SHA-256 too; an eval's prompts/*.yaml),
// and episodes.parquet reads. It returns the kind line of evolve validate.
func validateRunDir(dir string) (string, error) {
	kind := "run directory"
	versions := 0
	storeDir := filepath.Join(dir, "prompts")
	if _, err := os.Stat(filepath.Join(storeDir, "versions.json")); err == nil {
		s, err := store.OpenStore(storeDir)
		if err != nil {
			return kind, err
		}
		vis, err := s.List()
		if err != nil {
			return kind, err
		}
		for _, vi := range vis {
			if _, err := s.Load(vi.Slug, vi.Version); err != nil {
				return kind, err
			}
			versions++
		}
	} else {
		kind = "eval directory"
		files, _ := filepath.Glob(filepath.Join(storeDir, "*.yaml"))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return kind, err
			}
			p, err := prompt.Decode(f, data)
			if err != nil {
				return kind, err
			}
			if p.ContentSHA256 == "" {
				return kind, fmt.Errorf("%s: no content_sha256 (an eval's prompt files carry their hash)", f)
			}
			versions++
		}
	}
	rows, _, err := results.ReadEpisodes(filepath.Join(dir, rundir.EpisodesFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return kind, err
	}
	return fmt.Sprintf("%s: %s verified against their content hashes, %s read", kind,
		plural(versions, "prompt version", "prompt versions"), plural(len(rows), "episode", "episodes")), nil
}
