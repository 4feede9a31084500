package prompt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// An editable file has no content_sha256, decodes to the same prompt, and
// stays valid after an edit; a stored file edited with its old hash is
// refused with the hint to delete the line.
func TestEditable(t *testing.T) {
	p := Base()
	data, err := EncodeEditable(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("content_sha256")) && !bytes.HasPrefix(data, []byte(EditableHeader)) {
		t.Fatalf("an editable file with a hash:\n%s", data)
	}
	if strings.Count(string(data), "content_sha256:") != 0 {
		t.Fatalf("content_sha256 line in:\n%s", data)
	}
	q, err := Decode("new.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := Encode(Base())
	if _, err := Encode(q); err != nil || q.ContentSHA256 != p.ContentSHA256 {
		t.Errorf("hash of the decoded editable file %s, want %s (%v)", q.ContentSHA256, p.ContentSHA256, err)
	}
	edit := func(b []byte) []byte {
		return bytes.Replace(b, []byte("max_exploration_steps: 100"), []byte("max_exploration_steps: 90"), 1)
	}
	if bytes.Equal(edit(data), data) {
		t.Fatal("the edit changed nothing")
	}
	if _, err := Decode("new.yaml", edit(data)); err != nil {
		t.Errorf("an edited editable file: %v", err)
	}
	_, err = Decode("v1.0.0.yaml", edit(stored))
	if !errors.Is(err, ErrHashMismatch) || !strings.Contains(err.Error(), "delete its content_sha256 line") || !strings.Contains(err.Error(), "evolve prompt new") {
		t.Errorf("an edited stored file: %v", err)
	}
}
