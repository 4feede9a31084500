package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/prompt"
)

// evolve prompt new writes an editable prompt (no content_sha256) that
// validate and eval accept, with the hash computed, also after an edit;
// it never overwrites a file without --force; a stored version edited
// with its old hash is refused with the hint to delete the line; prompt
// show embedded needs no store.
func TestPromptNew(t *testing.T) {
	t.Chdir(t.TempDir())
	file := filepath.Join("prompts", "agent.yaml")
	code, stdout, stderr := evolve(t, "prompt", "new", file)
	if code != exitOK || !strings.Contains(stdout, "wrote "+file) {
		t.Fatalf("prompt new: exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil || strings.Contains(string(data), "\ncontent_sha256:") {
		t.Fatalf("the new file (%v):\n%s", err, data)
	}
	if code, _, stderr := evolve(t, "prompt", "new", file); code != exitFailure || !strings.Contains(stderr, "does not overwrite") {
		t.Errorf("prompt new over a file: exit %d\n%s", code, stderr)
	}
	base := prompt.Base()
	base.SetDefaults()
	prompt.Encode(base)
	code, stdout, _ = evolve(t, "validate", file)
	if code != exitOK || !strings.Contains(stdout, "content_sha256 computed: "+base.ContentSHA256) {
		t.Errorf("validate of the new file: exit %d\n%s", code, stdout)
	}
	edited := bytes.Replace(data, []byte("max_exploration_steps: 100"), []byte("max_exploration_steps: 90"), 1)
	os.WriteFile(file, edited, 0o644)
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(seeds, []byte("1\n2\n3\n"), 0o644)
	if code, _, stderr := evolve(t, "eval", "--quiet", "--no-cache", "--seeds", seeds, file); code != exitOK {
		t.Errorf("eval of the edited new file: exit %d\n%s", code, stderr)
	}
	// A stored version (with its hash), edited: refused, with the hint.
	stored, _ := prompt.Encode(base.Clone())
	os.WriteFile("copy.yaml", bytes.Replace(stored, []byte("max_exploration_steps: 100"), []byte("max_exploration_steps: 90"), 1), 0o644)
	for _, args := range [][]string{{"validate", "copy.yaml"}, {"eval", "--quiet", "--no-cache", "--seeds", seeds, "copy.yaml"}} {
		if code, stdout, stderr := evolve(t, args...); code != exitFailure || !strings.Contains(stdout+stderr, "delete its content_sha256 line") {
			t.Errorf("%v of an edited stored file: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	// --from a file, and --force.
	if code, _, stderr := evolve(t, "prompt", "new", "--force", "--from", file, file); code != exitOK {
		t.Errorf("prompt new --force --from FILE: exit %d\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(file); !bytes.Contains(got, []byte("max_exploration_steps: 90")) {
		t.Errorf("--from FILE did not copy the edit:\n%s", got)
	}
	if code, _, stderr := evolve(t, "prompt", "new", "--from", "nope@v1.0.0", "x.yaml"); code != exitFailure || !strings.Contains(stderr, "--from") {
		t.Errorf("prompt new --from a missing ref: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = evolve(t, "prompt", "show", "embedded")
	if code != exitOK || stdout != string(prompt.BaseYAML()) {
		t.Errorf("prompt show embedded: exit %d\n%s", code, stderr)
	}
}

// TestPromptNewDotDot: a ".." after a directory name is refused before
// anything is created; leading ".." and plain paths are written where
// they point, their missing directories made.
func TestPromptNewDotDot(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	t.Chdir(work)
	for _, bad := range []string{"a/../../x.yaml", "a/b/../../../x.yaml", "./a/../x.yaml", "q/../r/z.yaml"} {
		code, _, stderr := evolve(t, "prompt", "new", bad)
		want := "evolve prompt new: " + bad + `: a ".." after a directory name; write the path without it (` + filepath.Clean(bad) + ")"
		if code != exitUsage || !strings.HasPrefix(stderr, want) {
			t.Errorf("prompt new %s: exit %d\n%s\nwant exit 2 and %q", bad, code, stderr, want)
		}
	}
	for _, dir := range []string{root, work} {
		if ents, _ := os.ReadDir(dir); dir == root && len(ents) != 1 || dir == work && len(ents) != 0 {
			t.Errorf("%s holds %v after refused paths", dir, ents)
		}
	}
	for _, good := range []struct{ arg, file string }{
		{"../y.yaml", filepath.Join(root, "y.yaml")},
		{"sub/dir/z.yaml", filepath.Join(work, "sub", "dir", "z.yaml")},
		{".//w.yaml", filepath.Join(work, "w.yaml")},
	} {
		if code, _, stderr := evolve(t, "prompt", "new", good.arg); code != exitOK {
			t.Errorf("prompt new %s: exit %d\n%s", good.arg, code, stderr)
		}
		if _, err := os.Stat(good.file); err != nil {
			t.Errorf("prompt new %s: %v", good.arg, err)
		}
	}
}
