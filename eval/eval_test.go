package eval

import (
	"evolve/store"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evolve/prompt"
)

func TestEpisodeSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for _, s := range []uint64{0, 1, 42, 1 << 63, ^uint64(0)} {
		if EpisodeSeed(s, 0) != s {
			t.Errorf("repeat 0 of %d is %d, want the seed itself", s, EpisodeSeed(s, 0))
		}
		for r := 1; r < 50; r++ {
			d := EpisodeSeed(s, r)
			if seen[d] || d == s {
				t.Fatalf("seed %d repeat %d: %d repeats an earlier derived seed", s, r, d)
			}
			seen[d] = true
		}
	}
	// SplitMix64's first output from state 0x9E3779B97F4A7C15 (Steele,
	// Lea & Flood 2014; the reference C code's next() from seed 0).
	if got := EpisodeSeed(0, 1); got != 0xe220a8397b1dcdaf {
		t.Errorf("EpisodeSeed(0, 1) = %#x, want 0xe220a8397b1dcdaf", got)
	}
}

func TestResolvePrompt(t *testing.T) {
	v, err := ResolvePrompt("embedded", "")
	if err != nil || v.Label != "v1.0.0" || v.Prompt.ContentSHA256 == "" {
		t.Fatalf("embedded: %+v %v", v, err)
	}
	file := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(file, prompt.BaseYAML(), 0o644)
	f, err := ResolvePrompt(file, "")
	if err != nil || f.Prompt.ContentSHA256 != v.Prompt.ContentSHA256 {
		t.Errorf("file: %v; hash %s, want the embedded prompt's %s", err, f.Prompt.ContentSHA256, v.Prompt.ContentSHA256)
	}
	run := t.TempDir()
	s, err := store.OpenStore(filepath.Join(run, "prompts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(prompt.Base()); err != nil {
		t.Fatal(err)
	}
	r, err := ResolvePrompt(run+":v1.0.0", "")
	if err != nil || r.Prompt.ContentSHA256 != v.Prompt.ContentSHA256 {
		t.Errorf("RUN_DIR:VERSION: %v, hash %s", err, r.Prompt.ContentSHA256)
	}
	if _, err := ResolvePrompt("dungeon-agent@v1.0.0", filepath.Join(run, "prompts")); err != nil {
		t.Errorf("store ref: %v", err)
	}
	for arg, want := range map[string]string{
		run + ":v9.9.9":   "has no version v9.9.9",
		"dungeon-agent":   "no --store DIR",
		"/no/such/p.yaml": "not a file",
	} {
		if _, err := ResolvePrompt(arg, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}

// report.html renders the Markdown (emphasis, the figure reference,
// tables with right-aligned cells) rather than showing it, and draws the
// verdict marks with CSS rather than with emoji.
func TestHTML(t *testing.T) {
	md := "# Title\n\ntext & more, ✅ **No regression**, ❌ bad\n\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\n- x\n- y\n\n![Scores per version](plots/scores.png)\n\n<script>alert(1)</script>\n"
	data, err := HTML("T <1>", md, []byte("<?xml version=\"1.0\"?>\n<svg id=\"fig\"></svg>"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"<title>T &lt;1&gt;</title>", "<h1>Title</h1>", "<strong>No regression</strong>", "text &amp; more",
		`<th>a</th>`, `<td style="text-align:right">2</td>`, "<li>y</li>", "<figure>\n<svg id=\"fig\"></svg>", `<span class="mark ok"`, `<span class="mark bad"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{"**", "![", "<img", "✅", "❌", "<?xml", "<script", "http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q:\n%s", bad, page)
		}
	}
}
