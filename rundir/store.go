package rundir

import (
	"os"
	"path/filepath"
	"time"
)

// LatestPromptStore returns the prompt store of the run under root that
// changed last, and whether there is one: of the directories
// root/RUN/prompts that hold an index (versions.json), the one whose index
// has the latest modification time (the first in lexical order on a tie).
// Only the direct children of root are looked at, and an index that cannot
// be stat'ed is skipped; a root that does not exist has no store.
func LatestPromptStore(root string) (string, bool) {
	matches, _ := filepath.Glob(filepath.Join(root, "*", "prompts", "versions.json"))
	best, bestTime, ok := "", time.Time{}, false
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && (!ok || st.ModTime().After(bestTime)) {
			best, bestTime, ok = filepath.Dir(m), st.ModTime(), true
		}
	}
	return best, ok
}
