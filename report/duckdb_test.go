package report

import (
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/results"
)

// readmeSQL returns the statements of the README's DuckDB example: the
// ```sql block after "with DuckDB", one statement a line.
func readmeSQL(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "with DuckDB")
	if !ok {
		t.Fatal(`README.md has no "with DuckDB" example`)
	}
	_, block, ok := strings.Cut(after, "```sql\n")
	if !ok {
		t.Fatal("README.md: no ```sql block after \"with DuckDB\"")
	}
	block, _, _ = strings.Cut(block, "```")
	var stmts []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			stmts = append(stmts, line)
		}
	}
	return stmts
}

// TestReadmeDuckDB runs the README's DuckDB queries, as written, with the
// duckdb CLI on the small run's tables laid out as runs/<run-id>/ (it skips
// without duckdb on PATH; CI does not install it). Each query must run and
// return rows; the columns the README names must be there and hold what it
// says: end_reason, a NULL v for the U test, a NULL accepted for a
// generation that accepted nothing.
func TestReadmeDuckDB(t *testing.T) {
	if _, err := exec.LookPath("duckdb"); err != nil {
		t.Skip("duckdb is not on PATH; skipping the README's DuckDB queries")
	}
	src := smallRun(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "runs", filepath.Base(src))
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{results.TableEpisodes, results.TableCandidates, results.TableGenerations} {
		b, err := os.ReadFile(filepath.Join(src, table+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, table+".parquet"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stmts := readmeSQL(t)
	if len(stmts) < 4 {
		t.Fatalf("README's DuckDB example has %d statements, want 4 (episodes, end reasons, candidates, generations)", len(stmts))
	}
	query := func(sql string) [][]string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "duckdb", "-csv", "-c", sql)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("duckdb -c %q: %v\n%s", sql, err, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
		if err != nil {
			t.Fatalf("duckdb -c %q: reading its CSV: %v\n%s", sql, err, out)
		}
		if len(rows) < 2 {
			t.Fatalf("duckdb -c %q returned no rows:\n%s", sql, out)
		}
		return rows
	}
	col := func(rows [][]string, name string) int {
		t.Helper()
		for i, c := range rows[0] {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %q in %q", name, rows[0])
		return -1
	}
	for _, sql := range stmts {
		rows := query(sql)
		for _, name := range []string{"run"} {
			runCol := col(rows, name)
			for _, r := range rows[1:] {
				if r[runCol] != filepath.Base(src) {
					t.Errorf("%s: run %q, want %q", sql, r[runCol], filepath.Base(src))
				}
			}
		}
		header := strings.Join(rows[0], ",")
		switch {
		case strings.Contains(header, "end_reason"):
			i := col(rows, "end_reason")
			for _, r := range rows[1:] {
				switch r[i] {
				case "killed", "starved", "no_progress", "turn_limit", "max_depth", "step_budget", "panic":
				default:
					t.Errorf("end_reason %q is not an end reason", r[i])
				}
			}
		case strings.Contains(header, ",v,"):
			i := col(rows, "v")
			for _, r := range rows[1:] {
				if r[i] != "" { // the CSV of NULL
					t.Errorf("v = %q for a run gated by the U test, want NULL", r[i])
				}
			}
		case strings.Contains(header, "accepted_p"):
			i, j := col(rows, "accepted"), col(rows, "accepted_p")
			last := rows[len(rows)-1]
			if last[i] != "" || last[j] != "" {
				t.Errorf("the last generation (which accepted nothing) has accepted %q, accepted_p %q; want NULL, NULL", last[i], last[j])
			}
		}
	}
	// NULL, not NaN or "": the values the README promises.
	rows := query("SELECT count(*) FILTER (WHERE v IS NULL) AS nulls, count(*) AS n FROM 'runs/*/candidates.parquet'")
	if rows[1][0] != rows[1][1] {
		t.Errorf("%s of %s candidates have a NULL v, want all (the U test)", rows[1][0], rows[1][1])
	}
}
