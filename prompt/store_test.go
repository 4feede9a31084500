package prompt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for an error
	}{
		{"v1.0.0", "v1.0.0"}, {"v0.0.1", "v0.0.1"}, {"v12.340.5", "v12.340.5"}, {"1.2.3", "v1.2.3"},
		{"v1.0", ""}, {"v1.0.0.0", ""}, {"v1.-1.0", ""}, {"v1.a.0", ""}, {"", ""}, {"v01.0.0", ""},
		{"v1.0.0-rc1", ""}, {"v1.0.0/../x", ""}, {" v1.0.0", ""},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseVersion(%q) = %s, want an error", tt.in, v)
		case tt.want != "" && (err != nil || v.String() != tt.want):
			t.Errorf("ParseVersion(%q) = %s, %v; want %s", tt.in, v, err, tt.want)
		}
	}
	if _, err := ParseVersion("v1.0"); err == nil || err.Error() != `invalid version "v1.0": want vMAJOR.MINOR.PATCH, e.g. v1.0.0` {
		t.Errorf("error = %v", err)
	}
}

func TestVersionOrder(t *testing.T) {
	vs := []string{"v1.10.0", "v1.2.0", "v1.0.10", "v2.0.0", "v1.0.2", "v0.9.9"}
	parsed := make([]Version, len(vs))
	for i, s := range vs {
		parsed[i] = MustParseVersion(s)
	}
	slices.SortFunc(parsed, Version.Compare)
	var got []string
	for _, v := range parsed {
		got = append(got, v.String())
	}
	want := []string{"v0.9.9", "v1.0.2", "v1.0.10", "v1.2.0", "v1.10.0", "v2.0.0"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
	if !MustParseVersion("v1.0.2").Less(MustParseVersion("v1.0.10")) || (Version{}).IsZero() == false {
		t.Error("Less or IsZero wrong")
	}
}

func TestNextVersion(t *testing.T) {
	vs := func(s ...string) []Version {
		out := make([]Version, len(s))
		for i, x := range s {
			out[i] = MustParseVersion(x)
		}
		return out
	}
	tests := []struct {
		base     string
		bump     Bump
		existing []Version
		want     string
	}{
		{"v1.0.0", BumpPatch, vs("v1.0.0"), "v1.0.1"},
		{"v1.0.0", BumpPatch, vs("v1.0.0", "v1.0.1", "v1.0.2"), "v1.0.3"},
		{"v1.0.1", BumpPatch, vs("v1.0.0", "v1.0.1", "v1.0.7"), "v1.0.8"}, // largest patch + 1, never reused
		{"v1.0.0", BumpMinor, vs("v1.0.0", "v1.0.5"), "v1.1.0"},
		{"v1.0.5", BumpMinor, vs("v1.0.0", "v1.1.0", "v1.3.0"), "v1.4.0"},
		{"v1.2.0", BumpMajor, vs("v1.0.0", "v3.0.0"), "v4.0.0"},
		{"v2.0.0", BumpPatch, vs("v2.0.0", "v1.0.9"), "v2.0.1"}, // other minors do not count
	}
	for _, tt := range tests {
		got := NextVersion(MustParseVersion(tt.base), tt.bump, tt.existing)
		if got.String() != tt.want {
			t.Errorf("NextVersion(%s, %v, %v) = %s, want %s", tt.base, tt.bump, tt.existing, got, tt.want)
		}
		// Pure: the order of existing does not matter.
		rev := slices.Clone(tt.existing)
		slices.Reverse(rev)
		if again := NextVersion(MustParseVersion(tt.base), tt.bump, rev); again != got {
			t.Errorf("NextVersion depends on the order of existing: %s vs %s", again, got)
		}
	}
}

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prompts")
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("new store lists %v, %v", list, err)
	}
	if _, err := s.Current(); !errors.Is(err, ErrNoVersion) {
		t.Errorf("Current of an empty store: err = %v, want ErrNoVersion", err)
	}
	base, child := Base(), derived()
	if err := s.Write(base); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(child); err != nil {
		t.Fatal(err)
	}

	// Load verifies and returns what was written.
	got, err := s.Load(child.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !got.PolicyParameters.Equal(child.PolicyParameters) || got.ContentSHA256 == "" {
		t.Errorf("Load = %v (hash %q)", got.PolicyParameters, got.ContentSHA256)
	}
	if _, err := s.Load(MustParseVersion("v9.9.9")); !errors.Is(err, ErrNoVersion) {
		t.Errorf("Load(v9.9.9): err = %v, want ErrNoVersion", err)
	}

	// Writing a version again is refused and leaves the file as it was.
	file := filepath.Join(dir, FileName(child.Version))
	before, _ := os.ReadFile(file)
	again := derived()
	again.PolicyParameters.RiskTolerance = 0.9
	err = s.Write(again)
	if !errors.Is(err, ErrVersionExists) || !strings.Contains(err.Error(), "prompt_v1.0.1.yaml") {
		t.Errorf("second Write: err = %v, want ErrVersionExists naming the file", err)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Error("a refused Write changed the file")
	}

	// The index lists both, with parent and mutation.
	list, err := s.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if list[0].Version.String() != "v1.0.0" || list[1].Version.String() != "v1.0.1" ||
		list[1].Parent == nil || list[1].Parent.String() != "v1.0.0" || list[1].Operator != "threshold_adjustment" ||
		list[1].File != "prompt_v1.0.1.yaml" || len(list[1].SHA256) != 64 {
		t.Errorf("List = %+v", list)
	}

	// Current, SetCurrent, Rollback; the index survives reopening.
	if err := s.SetCurrent(child.Version); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrent(MustParseVersion("v3.0.0")); !errors.Is(err, ErrNoVersion) {
		t.Errorf("SetCurrent(v3.0.0): err = %v, want ErrNoVersion", err)
	}
	s2, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cur, err := s2.Current(); err != nil || cur != child.Version {
		t.Errorf("reopened Current = %s, %v; want v1.0.1", cur, err)
	}
	if cur, err := s2.Rollback(nil); err != nil || cur.String() != "v1.0.0" {
		t.Errorf("Rollback(nil) = %s, %v; want v1.0.0", cur, err)
	}
	if _, err := s2.Rollback(nil); !errors.Is(err, ErrNoParent) {
		t.Errorf("Rollback from the root: err = %v, want ErrNoParent", err)
	}
	to := child.Version
	if cur, err := s2.Rollback(&to); err != nil || cur != to {
		t.Errorf("Rollback(v1.0.1) = %s, %v", cur, err)
	}
	if list, _ := s2.List(); len(list) != 2 {
		t.Errorf("rollback deleted history: %d versions", len(list))
	}
	if v, err := s2.Next(child.Version, BumpPatch); err != nil || v.String() != "v1.0.2" {
		t.Errorf("Next = %s, %v; want v1.0.2", v, err)
	}

	// A file edited on disk fails to load with ErrHashMismatch.
	edited := bytes.Replace(before, []byte("health_threshold: 0.4"), []byte("health_threshold: 0.5"), 1)
	os.Chmod(file, 0o644)
	if err := os.WriteFile(file, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Load(child.Version); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("Load of an edited file: err = %v, want ErrHashMismatch", err)
	}
}

// A version file on disk that the index does not list (a crash between
// writing the file and updating the index) is never overwritten.
func TestStoreOrphanFile(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	orphan := []byte("not a prompt, but somebody's file\n")
	path := filepath.Join(dir, FileName(MustParseVersion("v1.0.0")))
	if err := os.WriteFile(path, orphan, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(Base()); !errors.Is(err, ErrVersionExists) {
		t.Errorf("Write over an orphan file: err = %v, want ErrVersionExists", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orphan) {
		t.Error("the orphan file was changed")
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Errorf("index lists %v after a refused write", list)
	}
}

func TestOpenStoreErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "versions.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(dir)
	if err == nil {
		_, err = s.List()
	}
	if err == nil || !strings.Contains(err.Error(), "versions.json") {
		t.Errorf("corrupt index: err = %v, want an error naming versions.json", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenStore(file); err == nil {
		t.Error("OpenStore on a file: want an error")
	}
}
