package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"evolve/envs"
	"evolve/params"
	"evolve/prompt"
	"evolve/rundir"
)

// The manifest records the absolute paths of the seed directory and base
// prompt the run read, with the base prompt file's SHA-256 and content
// hash.
func TestManifestRecordsInputs(t *testing.T) {
	dir := t.TempDir()
	writeSeedDir(t, dir, "seeds")
	base := prompt.BaseYAML()
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), base, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Parse(filepath.Join(dir, "exp.yaml"), []byte("seeds: seeds\nbase_prompt: ./base.yaml\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := &run{cfg: c, dir: t.TempDir()}
	if err := r.prepare(); err != nil {
		t.Fatal(err)
	}
	if err := r.writeManifest(&Result{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(r.dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.RunManifest
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(base)
	want := rundir.RunManifest{SeedsDir: filepath.Join(dir, "seeds"), BasePrompt: filepath.Join(dir, "base.yaml"),
		BasePromptSHA256: hex.EncodeToString(sum[:])}
	if m.SeedsDir != want.SeedsDir || m.BasePrompt != want.BasePrompt || m.BasePromptSHA256 != want.BasePromptSHA256 ||
		m.BaseContentSHA256 != r.base.ContentSHA256 || len(m.BaseContentSHA256) != 64 {
		t.Errorf("manifest inputs: seeds_dir %q, base_prompt %q, base_prompt_sha256 %q, base_content_sha256 %q; want %q, %q, %q, %q",
			m.SeedsDir, m.BasePrompt, m.BasePromptSHA256, m.BaseContentSHA256,
			want.SeedsDir, want.BasePrompt, want.BasePromptSHA256, r.base.ContentSHA256)
	}
}

// An environment other than the dungeon starts, with base_prompt left at
// embedded, from a prompt of its declared parameters' defaults.
func TestGeneratedBase(t *testing.T) {
	info := envs.Info{Name: "forager", Params: params.Schema{
		{Name: "risk", Kind: params.Number, Min: 0, Max: 1, Step: 0.1},
		{Name: "patience", Kind: params.Integer, Min: 1, Max: 50, Step: 5},
		{Name: "strategy", Kind: params.Enum, Items: []string{"cautious", "greedy"}},
		{Name: "priority", Kind: params.Ordering, Items: []string{"flee", "hide", "forage"}},
	}}
	p := GeneratedBase(info)
	if p.Slug != "forager-agent" || p.Version.String() != "v1.0.0" || p.PolicyParameters.String() != "risk=0.5 patience=21 strategy=cautious priority=[flee hide forage]" {
		t.Errorf("generated base: %s %s %s", p.Slug, p.Version, p.PolicyParameters)
	}
	if err := info.Params.Validate(p.PolicyParameters); err != nil {
		t.Error(err)
	}
	if _, err := prompt.Encode(p); err != nil {
		t.Error(err)
	}
	if GeneratedBase(envs.Info{Name: "Bad Name!"}).Slug != prompt.DefaultSlug {
		t.Error("an invalid slug was kept")
	}
}
