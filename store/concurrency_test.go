package store

import (
	"evolve/prompt"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestHelperWriter is not a test: run by TestConcurrentProcesses in a
// child process, it appends EVOLVE_WRITER_N versions to the store in
// EVOLVE_WRITER_DIR as writer EVOLVE_WRITER_ID.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("EVOLVE_WRITER_DIR")
	if dir == "" {
		t.Skip("helper process for TestConcurrentProcesses")
	}
	id := os.Getenv("EVOLVE_WRITER_ID")
	n, _ := strconv.Atoi(os.Getenv("EVOLVE_WRITER_N"))
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		p, err := s.LoadRef(prompt.Ref{Slug: "agent"})
		if err != nil {
			t.Fatal(err)
		}
		p.Metadata = prompt.Metadata{"writer": id, "edit": int64(i)}
		if _, err := s.Append(p, "edit", fmt.Sprintf("writer %s edit %d", id, i)); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes appending 50 versions each to one store at once end with
// 100 distinct new versions, a linear chain through all of them, and an
// index that reads back and verifies.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	const perWriter = 50
	s := testStore(t)
	root := sectioned("agent", "identity", "You help.")
	root.PolicyParameters = prompt.Base().PolicyParameters
	mustAppend(t, s, root)

	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for id := 0; id < 2; id++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), "EVOLVE_WRITER_DIR="+s.Dir(), fmt.Sprintf("EVOLVE_WRITER_ID=%d", id),
			fmt.Sprintf("EVOLVE_WRITER_N=%d", perWriter))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, outs[i])
		}
	}

	g, err := s.Graph() // reads and checks the index
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Versions) != 1+2*perWriter {
		t.Fatalf("%d versions, want %d", len(g.Versions), 1+2*perWriter)
	}
	seen := map[prompt.Version]bool{}
	edits := map[string]bool{}
	for _, vi := range g.Versions {
		if seen[vi.Version] {
			t.Errorf("version %s written twice", vi.Version)
		}
		seen[vi.Version] = true
		edits[vi.Description] = true
		if _, err := s.Load(vi.Slug, vi.Version); err != nil {
			t.Errorf("Load(%s): %v", vi.Version, err)
		}
	}
	for id := 0; id < 2; id++ {
		for i := 0; i < perWriter; i++ {
			if d := fmt.Sprintf("writer %d edit %d", id, i); !edits[d] {
				t.Errorf("no version for %q", d)
			}
		}
	}
	if chain := g.Chain("agent", prompt.MainBranch); len(chain) != 1+2*perWriter {
		t.Errorf("main chain has %d versions, want %d (linear through every append)", len(chain), 1+2*perWriter)
	}
	head, _ := g.Head("agent", prompt.MainBranch)
	if head.String() != fmt.Sprintf("v1.0.%d", 2*perWriter) {
		t.Errorf("HEAD = %s, want v1.0.%d", head, 2*perWriter)
	}
	switches := 0
	for i := 2; i < len(g.Versions); i++ {
		if g.Versions[i].Description[:8] != g.Versions[i-1].Description[:8] {
			switches++
		}
	}
	t.Logf("the writers alternated %d times", switches)
	entries, _ := os.ReadDir(s.Dir() + "/agent")
	if len(entries) != 1+2*perWriter {
		t.Errorf("%d files in the slug directory, want %d (no temporary files left)", len(entries), 1+2*perWriter)
	}
}
